/**
 * Indexed fields live in key columns (src/store/documents-*.ts): on PostgreSQL so that a range
 * count is an index-only plan, on SQLite so that an update of other fields leaves their indexes
 * alone; these tests hold every answer to mingo's on both engines
 * while documents hold the field missing, null, or of other types, across every write path, and
 * while key columns are given out, exhausted and given back.
 */
import { find as mingoFind } from 'mingo';
import { describe, expect, it } from 'vitest';
import { CollectionService, type Document } from '../../../src/platform/collections/index.js';
import { sql } from '../../../src/store/index.js';
import { describeEachEngine } from '../../support/engines.js';

const member = { accountId: 'acme', user: { id: 2, login: 'joe', isAdmin: false } };
let counter = 0;
const fresh = () => `keys${counter++}`;

/** Values of `r` of every JSON type, plus documents without it. */
function mixed(i: number): Record<string, unknown> {
  switch (i % 9) {
    case 0:
      return { n: i };
    case 1:
      return { n: i, r: null };
    case 2:
      return { n: i, r: `s${i % 50}` };
    case 3:
      return { n: i, r: i % 2 === 0 };
    case 4:
      return { n: i, r: { nested: i } };
    case 5:
      return { n: i, r: i / 4 };
    default:
      return { n: i, r: i % 60, other: 'x' };
  }
}

const FILTERS: Array<Record<string, unknown>> = [
  { r: { $gte: 10, $lt: 40 } },
  { r: { $gt: 5 } },
  { r: { $lte: 12.5 } },
  { r: { $gte: 's1', $lt: 's3' } },
  { r: { $lt: 's2' } },
  { r: 7 },
  { r: true },
  { r: false },
  { r: null },
  { r: { $in: [1, 's4', null, false] } },
  { r: { $exists: false } },
  { r: { $exists: true } },
  { r: { $gte: 0 }, n: { $lt: 200 } },
];

async function expectMingoAnswers(s: CollectionService, name: string, filters = FILTERS): Promise<void> {
  const all = await s.find(member, name, {});
  for (const filter of filters) {
    const expected = mingoFind(all, filter).all() as Document[];
    expect({ filter, n: await s.count(member, name, filter) }).toEqual({ filter, n: expected.length });
    expect({ filter, docs: await s.find(member, name, filter) }).toEqual({ filter, docs: expected });
  }
  const sorted = (await s.find(member, name, { r: { $gte: 0 } }, { sort: [['r', -1]] })).map((d) => d._id);
  const expected = mingoFind(all, { r: { $gte: 0 } })
    .sort({ r: -1 })
    .all()
    .map((d) => (d as Document)._id);
  expect(sorted).toEqual(expected);
}

describeEachEngine('collection key columns', (engine) => {
  const service = () => new CollectionService(engine.store);

  it('answers like mingo on an indexed field holding every type, missing and null', async () => {
    const s = service();
    const name = fresh();
    await s.save(
      member,
      name,
      Array.from({ length: 300 }, (_, i) => mixed(i)),
    );
    await expectMingoAnswers(s, name);
    await s.createIndex(member, name, 'by_r', { keys: ['r'], unique: false, ascending: true });
    await expectMingoAnswers(s, name);
    expect(await s.count(member, name, { r: { $gte: 10, $lt: 40 } })).toBe(
      // case 5 (i/4 in [10, 40): i = 41, 50, …, 149) and cases 6–8 (i % 60 in [10, 40))
      Array.from({ length: 300 }, (_, i) => mixed(i).r).filter(
        (r) => typeof r === 'number' && r >= 10 && r < 40,
      ).length,
    );
  });

  it('keeps the indexed field in step through save, upsert, update, remove and import', async () => {
    const s = service();
    const name = fresh();
    await s.save(member, name, [
      { _id: 'a', r: 1 },
      { _id: 'b', r: 2 },
    ]);
    await s.createIndex(member, name, 'by_r', { keys: ['r'], unique: false, ascending: true });
    await s.save(member, name, [{ _id: 'c', r: 3 }, { _id: 'a', r: 'one' }, { _id: 'd' }]);
    expect(await s.update(member, name, { _id: 'b' }, { $set: { r: 20 } }, { multi: false })).toBe(1);
    expect(await s.update(member, name, { _id: 'c' }, { $unset: { r: '' } }, { multi: false })).toBe(1);
    expect(await s.update(member, name, { _id: 'd' }, { r: null, x: 1 }, { multi: false })).toBe(1);
    expect(await s.update(member, name, { r: { $gte: 20 } }, { $inc: { r: 5 } }, { multi: true })).toBe(1);
    expect(await s.count(member, name, { r: { $gte: 0 } })).toBe(1); // b: 25
    expect(await s.count(member, name, { r: 25 })).toBe(1);
    expect(await s.count(member, name, { r: 'one' })).toBe(1);
    expect(await s.count(member, name, { r: null })).toBe(2); // c (missing), d (null)
    expect(await s.remove(member, name, { r: { $gte: 0 } })).toBe(1);
    expect(await s.count(member, name, { r: 25 })).toBe(0);
    await s.importDocuments(member, name, [{ r: 5 }, { r: 6 }, { r: 'x' }], { drop: true });
    expect(await s.count(member, name, { r: { $gte: 5, $lte: 6 } })).toBe(2);
    await s.importDocuments(member, name, [{ r: 7 }]);
    await expectMingoAnswers(s, name);
    expect(await s.count(member, name, { r: { $gt: 4 } })).toBe(3);
  });

  it('indexes fields past the last free key column as expressions, and gives columns back', async () => {
    const s = service();
    const name = fresh();
    const doc = (i: number) => ({ a: i, b: i % 7, c: `c${i % 5}`, d: i % 3 === 0, e: i % 11, f: i / 2 });
    await s.save(
      member,
      name,
      Array.from({ length: 120 }, (_, i) => doc(i)),
    );
    for (const key of ['a', 'b', 'c', 'd', 'e', 'f'])
      await s.createIndex(member, name, `by_${key}`, { keys: [key], unique: false, ascending: true });
    await s.createIndex(member, name, 'by_b_e', { keys: ['b', 'e'], unique: false, ascending: false });
    await s.save(
      member,
      name,
      Array.from({ length: 30 }, (_, i) => doc(i + 1000)),
    );
    const filters = [
      { a: { $gte: 10, $lt: 60 } },
      { b: 3, e: { $lte: 5 } },
      { c: { $gt: 'c2' } },
      { d: true },
      { e: { $in: [1, 2, 3] } },
      { f: { $gt: 30.5 } },
    ];
    await expectMingoAnswers(s, name, filters);
    expect(await s.deleteIndex(member, name, 'by_a')).toBe(true);
    expect(await s.deleteIndex(member, name, 'by_b')).toBe(true); // b stays named by by_b_e
    await s.save(member, name, [doc(5000), doc(5001)]);
    await s.createIndex(member, name, 'by_f2', { keys: ['f', 'a'], unique: false, ascending: true });
    await expectMingoAnswers(s, name, filters);
    const row = await engine.store.get<{ key_columns: string }>(
      sql`SELECT key_columns FROM collections WHERE account_id = ${member.accountId} AND name = ${name}`,
    );
    // a gave k1 back; f, an expression while none was free, takes it with its next index.
    expect(JSON.parse(row!.key_columns)).toEqual({ b: 'k2', c: 'k3', d: 'k4', f: 'k1' });
  });

  it('refuses a unique index on a key column when documents repeat the value, leaving the columns free', async () => {
    const s = service();
    const name = fresh();
    await s.save(member, name, [{ r: 1 }, { r: 1 }]);
    await expect(
      s.createIndex(member, name, 'by_r', { keys: ['r'], unique: true, ascending: true }),
    ).rejects.toThrow(
      `cannot create unique index 'by_r': documents of collection '${name}' repeat the same r`,
    );
    expect(await s.count(member, name, { r: 1 })).toBe(2);
    const row = await engine.store.get<{ key_columns: string }>(
      sql`SELECT key_columns FROM collections WHERE account_id = ${member.accountId} AND name = ${name}`,
    );
    expect(JSON.parse(row!.key_columns)).toEqual({});
  });

  it('gives a released key column to a unique index of another field without its old values', async () => {
    const s = service();
    const name = fresh();
    await s.save(
      member,
      name,
      Array.from({ length: 20 }, (_, i) => ({ a: i % 2, b: i })),
    );
    await s.createIndex(member, name, 'by_a', { keys: ['a'], unique: false, ascending: true });
    expect(await s.count(member, name, { a: 1 })).toBe(10);
    expect(await s.deleteIndex(member, name, 'by_a')).toBe(true);
    expect(await s.createIndex(member, name, 'by_b', { keys: ['b'], unique: true, ascending: true })).toBe(
      true,
    );
    expect(await s.count(member, name, { b: { $gte: 5, $lt: 9 } })).toBe(4);
    expect(await s.count(member, name, { a: 1 })).toBe(10);
    await expect(s.save(member, name, [{ a: 3, b: 7 }])).rejects.toThrow(
      `duplicate key: unique index 'by_b' of collection '${name}' already has a document with the same b`,
    );
  });

  describe.runIf(engine.name === 'postgres')('PostgreSQL plans', () => {
    it('counts a range on an indexed field from the index alone', async () => {
      const s = service();
      const name = fresh();
      await s.save(
        member,
        name,
        Array.from({ length: 3000 }, (_, i) => ({ r: (i * 7) % 3000, pad: 'p'.repeat(800) })),
      );
      await s.createIndex(member, name, 'by_r', { keys: ['r'], unique: true, ascending: true });
      // What autovacuum does after a load: the visibility map an index-only scan needs.
      await engine.store.exec('VACUUM (ANALYZE) documents');
      const filter = { r: { $gte: 1000, $lt: 1030 } };
      const { plan, exact } = await s.explain(member, name, filter, { count: true });
      expect(exact).toBe(true);
      expect(plan.join('\n')).toMatch(/Index Only Scan using fmx_\d+_[0-9a-f]+ on documents/);
      expect(plan.join('\n')).toContain(
        "Index Cond: ((account_id = 'acme'::text) AND (k1 >= '1000'::jsonb) AND (k1 < '1030'::jsonb))",
      );
      expect(await s.count(member, name, filter)).toBe(30);
    });
  });
});
