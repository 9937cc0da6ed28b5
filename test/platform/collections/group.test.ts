/**
 * `$group` as SQL GROUP BY (src/platform/collections/group.ts): the same answer as mingo — keys,
 * order of the groups, sums, averages, extremes, missing vs null — on random collections, and
 * answered without holding the documents (over more than the in-memory bound).
 */
import fc from 'fast-check';
import { Aggregator } from 'mingo';
import { describe, expect, it } from 'vitest';
import { CollectionService } from '../../../src/platform/collections/index.js';
import { describeEachEngine } from '../../support/engines.js';

const member = { accountId: 'acme', user: { id: 2, login: 'joe', isAdmin: false } };
let counter = 0;
const fresh = () => `g${counter++}`;

const mingo = (docs: object[], pipeline: Record<string, unknown>[]) =>
  new Aggregator(pipeline).run(JSON.parse(JSON.stringify(docs)) as object[]);

// Small pools, so that groups collide: 1 vs true vs '1', null vs missing, strings by code point.
const key = fc.oneof(
  fc.constantFrom(null, 0, 1, 2, -1, 'a', 'b', 'B', '1', 'é', true, false),
  fc.integer({ min: -3, max: 3 }),
);
const integer = fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.constantFrom(0, 2 ** 40, -(2 ** 40)));
const doc = fc.record(
  {
    g: key,
    h: fc.constantFrom('x', 'y', 'z', 'é', 'Z'),
    n: integer,
    // Mostly integers; sometimes what mingo skips (strings, booleans, null) or a fraction.
    v: fc.oneof(
      { weight: 8, arbitrary: integer },
      { weight: 1, arbitrary: fc.constantFrom('s', true, null, 0.5, 1e-7) },
    ),
    s: fc.constantFrom('b', 'a', 'B', 'é', '', 'ab'),
    f: fc.double({ noNaN: true, noDefaultInfinity: true }),
    o: fc.record({ p: fc.integer({ min: 0, max: 2 }) }, { requiredKeys: [] }),
  },
  { requiredKeys: ['n'] },
);

const groups: Array<Record<string, unknown>> = [
  { _id: '$g', n: { $sum: 1 }, t: { $sum: '$n' }, a: { $avg: '$n' }, lo: { $min: '$n' }, hi: { $max: '$n' } },
  { _id: '$g', t: { $sum: '$v' }, a: { $avg: '$v' }, c: { $count: {} }, three: { $sum: 3 } },
  { _id: { g: '$g', p: '$o.p' }, c: { $count: {} }, lo: { $min: '$s' }, hi: { $max: '$s' } },
  { _id: '$h', lo: { $min: '$s' }, hi: { $max: '$h' }, none: { $min: '$missing' }, a: { $avg: '$missing' } },
  { _id: null, t: { $sum: '$n' }, c: { $count: {} }, lo: { $min: '$f' }, hi: { $max: '$f' } },
  { _id: '$o.p', t: { $sum: '$o.p' } },
];
const prefixes: Array<Record<string, unknown>[]> = [
  [],
  [{ $match: { n: { $gte: 0 } } }],
  [{ $match: { h: { $in: ['x', 'é'] } } }, { $match: { g: { $exists: true } } }],
];

describeEachEngine('$group in SQL', (engine) => {
  describe('answers as mingo does', () => {
    it('on random collections, with $match before and stages after', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(doc, { maxLength: 60 }), async (docs) => {
          const s = new CollectionService(engine.store);
          const name = fresh();
          const stored = docs.length ? await s.save(member, name, docs) : [];
          for (const prefix of prefixes)
            for (const group of groups) {
              const pipeline = [...prefix, { $group: group }];
              expect(await s.aggregate(member, name, pipeline)).toEqual(mingo(stored, pipeline));
              const sorted = [...pipeline, { $sort: { _id: -1 } }, { $limit: 3 }];
              expect(await s.aggregate(member, name, sorted)).toEqual(mingo(stored, sorted));
            }
        }),
        { numRuns: 25 },
      );
    });

    it('holds only the groups: past the in-memory bound of documents', async () => {
      const s = new CollectionService(engine.store, { limits: { maxInMemoryDocuments: 50 } });
      const name = fresh();
      const docs = Array.from({ length: 400 }, (_, i) => ({ g: i % 7, n: i, s: `s${i % 13}` }));
      const stored = await s.save(member, name, docs);
      const pipeline = [
        { $match: { n: { $gte: 10 } } },
        {
          $group: { _id: '$g', t: { $sum: '$n' }, a: { $avg: '$n' }, lo: { $min: '$s' }, c: { $count: {} } },
        },
      ];
      expect(await s.aggregate(member, name, pipeline)).toEqual(mingo(stored, pipeline));
      // What SQL cannot group exactly (a fraction in a sum) is mingo's, within the bound.
      await s.save(member, name, [{ g: 1, n: 10.5 }]);
      await expect(s.aggregate(member, name, pipeline)).rejects.toThrow(
        'more than 50 documents would have to be held in memory: narrow the condition or add $limit',
      );
      // More groups than the bound: refused too.
      await expect(s.aggregate(member, name, [{ $group: { _id: '$n', c: { $count: {} } } }])).rejects.toThrow(
        'more than 50 documents would have to be held in memory',
      );
    });
  });

  // The bound is 20,000 here (200,000 by default): the same grouping past it, in a tenth of the rows.
  it('groups more documents than the in-memory bound as mingo does', async () => {
    const s = new CollectionService(engine.store, { limits: { maxInMemoryDocuments: 20_000 } });
    const name = fresh();
    const total = 20_500;
    const make = (i: number) => ({ _id: `d${i}`, g: i % 97, h: i % 3 ? 'x' : 'y', n: i % 1000 });
    await s.importDocuments(
      member,
      name,
      (function* () {
        for (let i = 0; i < total; i++) yield make(i);
      })(),
    );
    const docs = Array.from({ length: total }, (_, i) => make(i));
    const pipeline = [
      { $match: { n: { $lt: 900 } } },
      {
        $group: {
          _id: { g: '$g', h: '$h' },
          t: { $sum: '$n' },
          a: { $avg: '$n' },
          hi: { $max: '$n' },
          c: { $count: {} },
        },
      },
    ];
    const answer = await s.aggregate(member, name, pipeline);
    expect(answer).toHaveLength(194);
    expect(answer).toEqual(mingo(docs, pipeline));
    // Before: every document was read into memory, and refused past the bound.
    await expect(s.aggregate(member, name, [{ $project: { g: 1 } }])).rejects.toThrow(
      'more than 20000 documents would have to be held in memory',
    );
  }, 120_000);
});
