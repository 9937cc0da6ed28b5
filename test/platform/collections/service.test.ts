import { find as mingoFind } from 'mingo';
import { sql } from '../../../src/store/index.js';
import { describe, expect, it } from 'vitest';
import {
  CollectionError,
  CollectionService,
  type SortSpec,
} from '../../../src/platform/collections/index.js';
import sortedKeyIndexes from '../../../src/store/migrations/0600_sorted_key_indexes.js';
import { describeEachEngine } from '../../support/engines.js';

const admin = { accountId: 'acme', user: { id: 1, login: 'boss', isAdmin: true } };
const member = { accountId: 'acme', user: { id: 2, login: 'joe', isAdmin: false } };
const anonymous = { accountId: 'acme', user: null };
const otherAccount = { accountId: 'globex', user: { id: 9, login: 'eve', isAdmin: true } };

let counter = 0;
const fresh = (prefix = 'c') => `${prefix}${counter++}`;

async function rejects(promise: Promise<unknown>): Promise<CollectionError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CollectionError);
  return error as CollectionError;
}

describeEachEngine('collection service', (engine) => {
  const service = () => new CollectionService(engine.store);
  /** The definitions of the indexes in this file's schema (PostgreSQL). */
  const ownIndexDefinitions = async () =>
    (
      await engine.store.all<{ indexdef: string }>(
        sql`SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema()`,
      )
    ).map((r) => r.indexdef);

  describe('collections', () => {
    it('creates once, lists with integer ids, finds by id or name', async () => {
      const s = service();
      const name = fresh('orders');
      expect(await s.createCollection(member, name, { isPublic: false, isReadonly: true })).toBe(true);
      expect(await s.createCollection(member, name, { isPublic: true, isReadonly: false })).toBe(false);
      const listed = (await s.listCollections(member)).find((c) => c.name === name)!;
      expect(listed).toMatchObject({ name, isPublic: false, isReadonly: true });
      expect(Number.isInteger(listed.id)).toBe(true);
      expect(await s.getCollection(member, listed.id)).toEqual(listed);
      expect(await s.getCollection(member, String(listed.id))).toEqual(listed);
      expect(await s.getCollection(member, name)).toEqual(listed);
      expect(await s.getCollection(member, 'nope')).toBeUndefined();
    });

    it('counts documents in the listing on request', async () => {
      const s = service();
      const name = fresh();
      await s.save(member, name, [{ x: 1 }, { x: 2 }]);
      const listed = (await s.listCollections(member, { withCounts: true })).find((c) => c.name === name)!;
      expect(listed.documents).toBe(2);
    });

    it('drop empties but keeps the collection, its flags and indexes; remove deletes everything', async () => {
      const s = service();
      const name = fresh();
      await s.createCollection(member, name, { isPublic: true, isReadonly: false });
      await s.save(member, name, [{ k: 1 }, { k: 2 }]);
      await s.createIndex(member, name, 'by_k', { keys: ['k'], unique: true, ascending: true });
      expect(await s.dropCollection(member, name)).toBe(true);
      expect(await s.count(member, name, { k: { $exists: true } })).toBe(0);
      const kept = await s.getCollection(member, name);
      expect(kept?.isPublic).toBe(true);
      expect((await s.listIndexes(member, name)).map((i) => i.name)).toEqual(['_id_', 'by_k']);
      await s.save(member, name, [{ k: 1 }]); // the unique index still holds
      await expect(s.save(member, name, [{ k: 1 }])).rejects.toThrow(/unique index 'by_k'/);

      expect(await s.removeCollection(member, name)).toBe(true);
      expect(await s.getCollection(member, name)).toBeUndefined();
      expect(await s.removeCollection(member, name)).toBe(false);
      expect(await s.dropCollection(member, name)).toBe(false);
      await s.save(member, name, [{ k: 1 }, { k: 1 }]); // a new collection: no index any more
      expect((await s.listIndexes(member, name)).map((i) => i.name)).toEqual(['_id_']);
      expect((await s.getCollection(member, name))!.id).not.toBe(kept!.id);
    });

    it('renames, answers false for an unknown name and refuses a taken one', async () => {
      const s = service();
      const [a, b, c] = [fresh(), fresh(), fresh()];
      await s.save(member, a, [{ v: 1 }]);
      await s.createCollection(member, c, { isPublic: false, isReadonly: false });
      expect(await s.renameCollection(member, a, b)).toBe(true);
      expect(await s.find(member, b, { v: 1 })).toHaveLength(1);
      expect(await s.getCollection(member, a)).toBeUndefined();
      expect(await s.renameCollection(member, a, b)).toBe(false);
      expect((await rejects(s.renameCollection(member, b, c))).message).toBe(
        `collection '${c}' already exists`,
      );
    });

    it('refuses invalid names', async () => {
      expect(
        (await rejects(service().createCollection(member, '', { isPublic: false, isReadonly: false })))
          .message,
      ).toBe('invalid collection name ""');
    });
  });

  describe('rights', () => {
    it('a private collection needs a user of the account', async () => {
      const s = service();
      const name = fresh();
      await s.save(member, name, [{ a: 1 }]);
      for (const call of [
        () => s.find(anonymous, name, { a: 1 }),
        () => s.count(anonymous, name, { a: 1 }),
        () => s.save(anonymous, name, [{ a: 2 }]),
        () => s.listIndexes(anonymous, name),
      ])
        expect((await rejects(call())).message).toBe(
          `collection '${name}' is not public: only a user of the account may use it`,
        );
      expect((await rejects(s.save(anonymous, fresh('new'), [{ a: 1 }]))).message).toMatch(
        /^only a user of the account may create collection 'new\d+'$/,
      );
      expect((await s.listCollections(anonymous)).some((c) => c.name === name)).toBe(false);
    });

    it('a public collection needs no rights check', async () => {
      const s = service();
      const name = fresh();
      await s.createCollection(member, name, { isPublic: true, isReadonly: false });
      await s.save(anonymous, name, [{ a: 1 }]);
      expect(await s.count(anonymous, name, { a: 1 })).toBe(1);
      expect((await s.listCollections(anonymous)).some((c) => c.name === name)).toBe(true);
    });

    it('a read-only collection is modified only by administrators of the account', async () => {
      const s = service();
      const name = fresh();
      await s.createCollection(admin, name, { isPublic: true, isReadonly: true });
      await s.save(admin, name, [{ a: 1 }]);
      expect(await s.find(member, name, { a: 1 })).toHaveLength(1);
      expect(await s.find(anonymous, name, { a: 1 })).toHaveLength(1);
      const refused = `collection '${name}' is read-only: only an administrator of the account may modify it`;
      for (const who of [member, anonymous]) {
        for (const call of [
          () => s.save(who, name, [{ a: 2 }]),
          () => s.update(who, name, { a: 1 }, { $set: { b: 1 } }, { multi: false }),
          () => s.remove(who, name, { a: 1 }),
          () => s.dropCollection(who, name),
          () => s.removeCollection(who, name),
          () => s.renameCollection(who, name, fresh()),
          () => s.createIndex(who, name, 'i', { keys: ['a'], unique: false, ascending: true }),
          () => s.deleteIndex(who, name, 'i'),
          () => s.importDocuments(who, name, [{ a: 3 }]),
        ])
          expect((await rejects(call())).message).toBe(refused);
      }
      expect(await s.update(admin, name, { a: 1 }, { $set: { b: 1 } }, { multi: false })).toBe(1);
    });

    it('a change of rights or name made by another process is seen at once by cached readers', async () => {
      const here = service();
      const elsewhere = new CollectionService(await engine.openStore());
      const name = fresh();
      await here.createCollection(admin, name, { isPublic: true, isReadonly: false });
      await here.save(admin, name, [{ a: 1 }]);
      expect(await here.count(anonymous, name, { a: 1 })).toBe(1); // the row is cached now
      expect((await rejects(elsewhere.updateCollection(member, name, { isPublic: false }))).message).toBe(
        `only an administrator of the account may change the settings of collection '${name}'`,
      );
      expect(await elsewhere.updateCollection(admin, name, { isPublic: false })).toBe(true);
      expect((await rejects(here.count(anonymous, name, { a: 1 }))).code).toBe('access-denied');
      expect((await rejects(here.find(anonymous, name, { a: 1 }))).code).toBe('access-denied');
      const renamed = fresh();
      expect(await elsewhere.renameCollection(admin, name, renamed)).toBe(true);
      expect(await here.find(member, name, { a: 1 })).toEqual([]);
      expect(await here.count(member, renamed, { a: 1 })).toBe(1);
      expect(await elsewhere.updateCollection(admin, fresh(), { isPublic: true })).toBe(false);
    });

    it('keeps accounts apart', async () => {
      const s = service();
      const name = fresh();
      await s.save(admin, name, [{ a: 1 }]);
      const id = (await s.getCollection(admin, name))!.id;
      expect(await s.find(otherAccount, name, { a: 1 })).toEqual([]);
      expect(await s.getCollection(otherAccount, id)).toBeUndefined();
      await s.save(otherAccount, name, [{ a: 1 }, { a: 1 }]);
      expect(await s.count(admin, name, { a: 1 })).toBe(1);
      expect(await s.count(otherAccount, name, { a: 1 })).toBe(2);
      expect((await rejects(s.listIndexes(otherAccount, id))).message).toBe(
        `collection ${id} does not exist`,
      );
    });
  });

  describe('documents', () => {
    it('gives each document a string _id first and replaces by _id in place', async () => {
      const s = service();
      const name = fresh();
      const [a, b] = await s.save(member, name, [{ n: 1 }, { n: 2, _id: 7 }]);
      expect(Object.keys(a!)[0]).toBe('_id');
      expect(a!._id).toMatch(/^[0-9a-f]{24}$/);
      expect(b).toEqual({ _id: '7', n: 2 });
      await s.save(member, name, [{ _id: a!._id, n: 10 }]);
      expect(await s.find(member, name, { n: { $exists: true } })).toEqual([
        { _id: a!._id, n: 10 },
        { _id: '7', n: 2 },
      ]);
      await s.save(member, name, [
        { _id: 'x', v: 1 },
        { _id: 'x', v: 2 },
      ]);
      expect(await s.find(member, name, { _id: 'x' })).toEqual([{ _id: 'x', v: 2 }]);
    });

    it('refuses values JSON cannot hold, prototype keys and $ field names', async () => {
      const s = service();
      const name = fresh();
      const cases: Array<[unknown, string]> = [
        [{ a: NaN }, "field 'a' holds NaN, which JSON cannot store"],
        [{ a: { b: () => 1 } }, "field 'a.b' holds a function, which JSON cannot store"],
        [JSON.parse('{"__proto__": {"x": 1}}'), "field name '__proto__' is not allowed"],
        [{ constructor: 1 }, "field name 'constructor' is not allowed"],
        [{ a: { $set: 1 } }, "field name 'a.$set' cannot start with '$'"],
        [{ _id: { x: 1 } }, '_id must be a non-empty string or a number'],
        ['text', 'a document must be an object, not a string'],
      ];
      for (const [doc, message] of cases)
        expect((await rejects(s.save(member, name, [doc]))).message).toBe(message);
      expect(({} as Record<string, unknown>).x).toBeUndefined();
    });

    it('limits the size of a document', async () => {
      const s = new CollectionService(engine.store, { limits: { maxDocumentBytes: 100 } });
      const error = await rejects(s.save(member, fresh(), [{ text: 'x'.repeat(200) }]));
      expect(error.message).toMatch(/^a document of \d+ bytes is larger than the limit of 100 bytes$/);
    });

    it('updates with operators or a replacement, first match or all', async () => {
      const s = service();
      const name = fresh();
      const stored = await s.save(member, name, [
        { k: 'a', n: 1 },
        { k: 'a', n: 2 },
        { k: 'b', n: 3 },
      ]);
      expect(await s.update(member, name, { k: 'a' }, { $inc: { n: 10 } }, { multi: false })).toBe(1);
      expect(await s.update(member, name, { k: 'a' }, { $set: { seen: true } }, { multi: true })).toBe(2);
      expect(await s.update(member, name, { k: 'zzz' }, { $set: { seen: true } }, { multi: true })).toBe(0);
      expect(await s.update(member, name, { k: 'b' }, { replaced: true }, { multi: false })).toBe(1);
      expect(await s.find(member, name, { _id: { $exists: true } })).toEqual([
        { _id: stored[0]!._id, k: 'a', n: 11, seen: true },
        { _id: stored[1]!._id, k: 'a', n: 2, seen: true },
        { _id: stored[2]!._id, replaced: true },
      ]);
    });

    it('updates many documents in batches, all or none', async () => {
      const s = new CollectionService(engine.store, { limits: { maxDocumentBytes: 400 } });
      const name = fresh();
      // Document 1000 is near the limit: setting t on it fails after two batches were written.
      const docs = Array.from({ length: 1300 }, (_, i) => ({
        _id: `d${String(i).padStart(4, '0')}`,
        i,
        r: i % 7,
        s: 'a'.repeat(i === 1000 ? 330 : 10),
      }));
      await s.save(member, name, docs);
      await s.createIndex(member, name, 'by_r', { keys: ['r'], unique: false, ascending: true });
      const all = { i: { $gte: 0 } };
      const error = await rejects(
        s.update(member, name, all, { $set: { t: 'x'.repeat(40) }, $inc: { r: 1 } }, { multi: true }),
      );
      expect(error.message).toMatch(/^a document of 4\d\d bytes is larger than the limit of 400 bytes$/);
      expect(await s.find(member, name, all)).toEqual(docs);
      expect(await s.count(member, name, { r: 0 })).toBe(186);
      expect(await s.count(member, name, { t: { $exists: true } })).toBe(0);

      // A filter mingo re-checks ($mod), operators changing an indexed field: the same as one by one.
      const filter = { i: { $mod: [3, 0] } };
      const change = { $inc: { r: 1 }, $set: { t: 'y' }, $unset: { s: '' } };
      expect(await s.update(member, name, filter, change, { multi: true })).toBe(434);
      const expected = docs.map((d) => (d.i % 3 === 0 ? { _id: d._id, i: d.i, r: d.r + 1, t: 'y' } : d));
      expect(await s.find(member, name, all)).toEqual(expected);
      expect(await s.count(member, name, { r: 7 })).toBe(expected.filter((d) => d.r === 7).length);
      expect(await s.find(member, name, { r: 7 }, { sort: [['i', -1]], limit: 2 })).toEqual(
        expected
          .filter((d) => d.r === 7)
          .reverse()
          .slice(0, 2),
      );
      // Without multi, only the first match in natural order.
      expect(await s.update(member, name, { r: 7 }, { $set: { first: true } }, { multi: false })).toBe(1);
      expect(await s.find(member, name, { first: true })).toEqual([
        { ...expected.find((d) => d.r === 7)!, first: true },
      ]);
    });

    it('refuses malformed updates', async () => {
      const s = service();
      const name = fresh();
      await s.save(member, name, [{ _id: 'one', k: 1 }]);
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ $set: { a: 1 }, b: 2 }, 'an update cannot mix operators ($set …) with plain fields'],
        [{ $bogus: { a: 1 } }, 'unknown update operator $bogus'],
        [{ $set: { _id: 'two' } }, "the field '_id' cannot be changed"],
        [{ $set: { 'constructor.prototype.polluted': 1 } }, "field name 'constructor' is not allowed"],
        [{ $where: 'this.k' }, 'operator $where is not allowed'],
        [{ _id: 'two', k: 2 }, "the replacement cannot change _id ('one')"],
      ];
      for (const [change, message] of cases)
        expect((await rejects(s.update(member, name, { k: 1 }, change, { multi: false }))).message).toBe(
          message,
        );
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(await s.find(member, name, { k: 1 })).toEqual([{ _id: 'one', k: 1 }]);
    });

    it('removes what matches, pushed down or not', async () => {
      const s = service();
      const name = fresh();
      await s.save(member, name, [{ n: 1 }, { n: 2 }, { n: 3 }, { n: [4] }]);
      expect(await s.remove(member, name, { n: { $gte: 3 } })).toBe(2);
      expect(await s.remove(member, name, { n: { $mod: [2, 0] } })).toBe(1);
      expect(await s.find(member, name, { n: { $exists: true } })).toEqual([
        expect.objectContaining({ n: 1 }),
      ]);
    });
  });

  describe('queries', () => {
    it('refuses server-side JavaScript and prototype paths', async () => {
      const s = service();
      const name = fresh();
      await s.save(member, name, [{ a: 1 }]);
      expect((await rejects(s.find(member, name, { $where: 'true' }))).message).toBe(
        'operator $where is not allowed',
      );
      expect((await rejects(s.count(member, name, { a: { $where: 'x' } }))).message).toBe(
        'operator $where is not allowed',
      );
      expect(
        (
          await rejects(
            s.aggregate(member, name, [
              { $project: { x: { $function: { body: 'return 1', args: [], lang: 'js' } } } },
            ]),
          )
        ).message,
      ).toBe('operator $function is not allowed');
      expect(
        (await rejects(s.aggregate(member, name, [{ $group: { _id: null, x: { $accumulator: {} } } }])))
          .message,
      ).toBe('operator $accumulator is not allowed');
      expect((await rejects(s.find(member, name, { 'a.__proto__.b': 1 }))).message).toBe(
        "field name '__proto__' is not allowed",
      );
      expect(
        (await rejects(s.aggregate(member, name, [{ $project: { x: '$constructor.name' } }]))).message,
      ).toBe("field name 'constructor' is not allowed");
      expect((await rejects(s.find(member, name, { a: { $bogus: 1 } }))).message).toBe(
        'invalid query: unknown query operator $bogus',
      );
    });

    it('refuses pipeline stages reaching outside the collection', async () => {
      const s = service();
      const name = fresh();
      await s.save(member, name, [{ a: 1 }]);
      for (const stage of ['$out', '$merge', '$lookup', '$graphLookup', '$unionWith'])
        expect((await rejects(s.aggregate(member, name, [{ [stage]: 'other' }]))).message).toBe(
          `operator ${stage} is not supported`,
        );
    });

    /** The documents, the filter and the expected ids: the service must answer like mingo. */
    const edgeCases: Array<{
      docs: unknown[];
      filter: Record<string, unknown>;
      sort?: SortSpec;
      why: string;
    }> = [
      { why: 'true is not 1', docs: [{ a: true }, { a: 1 }, { a: false }, { a: 0 }], filter: { a: 1 } },
      {
        why: 'false is not 0 ($in)',
        docs: [{ a: true }, { a: 1 }, { a: false }, { a: 0 }],
        filter: { a: { $in: [0, 'x'] } },
      },
      {
        why: 'booleans are outside number ranges',
        docs: [{ a: true }, { a: 1 }, { a: 0.5 }],
        filter: { a: { $gte: 0.5 } },
      },
      {
        why: 'numbers are outside string ranges',
        docs: [{ a: 'b' }, { a: 5 }, { a: '' }],
        filter: { a: { $lt: 'c' } },
      },
      {
        why: "an object's JSON is not a string",
        docs: [{ c: { d: 1 } }, { c: '{"d":1}' }],
        filter: { c: '{"d":1}' },
      },
      {
        why: 'objects are outside string ranges',
        docs: [{ c: { d: 1 } }, { c: 'z' }],
        filter: { c: { $gt: 'a' } },
      },
      { why: 'null matches missing', docs: [{ a: null }, {}, { a: 0 }, { a: '' }], filter: { a: null } },
      { why: '$exists sees null', docs: [{ a: null }, {}, { a: 0 }], filter: { a: { $exists: true } } },
      { why: 'arrays match by element', docs: [{ a: [1, 5] }, { a: 5 }, { a: [[5]] }], filter: { a: 5 } },
      { why: 'ranges match array elements', docs: [{ a: [1, 9] }, { a: 3 }], filter: { a: { $gt: 8 } } },
      {
        why: 'nested path under a scalar is missing',
        docs: [{ a: 'text' }, { a: { b: null } }, { a: 5 }],
        filter: { 'a.b': null },
      },
      {
        why: 'UTF-16 order, not code points (range)',
        docs: [{ s: '\uE000' }, { s: '😀' }, { s: 'z' }],
        filter: { s: { $gt: '😀' } },
      },
      {
        why: 'UTF-16 order, not code points (sort)',
        docs: [{ s: '\uE000' }, { s: '😀' }, { s: 'z' }],
        filter: { s: { $exists: true } },
        sort: [['s', 1]],
      },
      {
        why: 'sort: null and missing together, then numbers, strings, booleans',
        docs: [{ a: true }, { a: 'x' }, {}, { a: 2 }, { a: null }, { a: false }, { a: 1 }],
        filter: { b: { $exists: false } },
        sort: [['a', 1]],
      },
      {
        why: 'sort descending keeps ties in natural order',
        docs: [{ a: 1, i: 1 }, { a: 2, i: 2 }, { a: 1, i: 3 }, { i: 4 }, { a: null, i: 5 }],
        filter: { i: { $gte: 1 } },
        sort: [['a', -1]],
      },
      {
        why: '_id is always a string',
        docs: [{ _id: '1' }, { _id: 'b' }],
        filter: { _id: { $in: [1, 'b'] } },
      },
      {
        why: 'several bounds on one path: the tightest hold',
        docs: [{ a: 1 }, { a: 2 }, { a: 3 }, { a: 4 }, { a: 5 }, { a: 'c' }],
        filter: {
          $and: [
            { a: { $gt: 1 } },
            { a: { $gte: 2 } },
            { a: { $lte: 4 } },
            { a: { $lt: 5 } },
            { a: { $gt: 2 } },
          ],
        },
      },
      {
        why: 'bounds of different types never match together',
        docs: [{ a: 1 }, { a: 'b' }],
        filter: { $and: [{ a: { $gte: 0 } }, { a: { $lte: 'z' } }] },
      },
    ];
    for (const { why, docs, filter, sort } of edgeCases) {
      it(`answers like mingo: ${why}`, async () => {
        const s = service();
        const name = fresh();
        const stored = await s.save(member, name, docs);
        let expected = mingoFind(JSON.parse(JSON.stringify(stored)) as object[], filter);
        if (sort) expected = expected.sort(Object.fromEntries(sort));
        expect(await s.find(member, name, filter, { sort })).toEqual(expected.all());
        expect(await s.count(member, name, filter)).toBe(mingoFind(stored, filter).all().length);
      });
    }

    it('pushes indexable conditions to SQL, exactly when the shape allows', async () => {
      const s = service();
      const name = fresh();
      await s.save(member, name, [{ a: 1, s: 'x', t: [1] }]);
      // String ranges go to SQL where text compares by code point (SQLite; PostgreSQL with a C collation).
      expect(await s.explain(member, name, { a: 1, s: { $gt: 'a' } })).toMatchObject({
        pushed: true,
        exact: engine.store.dialect.binaryTextOrder,
      });
      expect(await s.explain(member, name, { a: 1, s: 'x' })).toMatchObject({ pushed: true, exact: true });
      expect(await s.explain(member, name, { a: 1, t: 1 })).toMatchObject({ pushed: true, exact: false });
      expect(await s.explain(member, name, { $or: [{ a: 1 }, { s: 'x' }] })).toMatchObject({
        pushed: false,
        exact: false,
      });
      expect(await s.explain(member, name, { a: 1 }, { sort: [['s', -1]] })).toMatchObject({
        sortPushed: engine.store.dialect.binaryTextOrder,
      });
      expect(await s.explain(member, name, { a: 1 }, { sort: [['a', -1]] })).toMatchObject({
        sortPushed: true,
      });
      expect(await s.explain(member, name, { a: 1 }, { sort: [['t', 1]] })).toMatchObject({
        sortPushed: false,
      });
    });

    it('serves equality and ranges from the expression index', async () => {
      const s = service();
      const name = fresh();
      // Wide enough that a sequential scan costs PostgreSQL more than the index.
      const docs = Array.from({ length: 3000 }, (_, i) => ({
        k: i % 500,
        g: `g${i % 7}`,
        pad: 'p'.repeat(800),
      }));
      await s.save(member, name, docs);
      await s.createIndex(member, name, 'by_k', { keys: ['k'], unique: false, ascending: true });
      const { plan } = await s.explain(member, name, { k: 42 });
      const { plan: range } = await s.explain(member, name, { k: { $gte: 10, $lt: 12 } });
      const { plan: other } = await s.explain(member, name, { g: 'g1' });
      const sqlName = /fmx_\d+_[0-9a-f]+/;
      expect(plan.join('\n')).toMatch(sqlName);
      expect(range.join('\n')).toMatch(sqlName);
      expect(other.join('\n')).not.toMatch(sqlName);
      expect(await s.count(member, name, { k: { $gte: 10, $lt: 12 } })).toBe(12);
      if (engine.name === 'postgres') {
        // The key follows account_id directly: PostgreSQL leaves out `collection_id = N` (implied
        // by the partial index), and a column in between would make every search walk the collection.
        const id = (await s.getCollection(member, name))!.id;
        // this file's schema only: the definitions of another file's indexes, dropped meanwhile,
        // cannot be read ("could not open relation")
        const defs = (await ownIndexDefinitions()).filter((d) => d.includes(`WHERE (collection_id = ${id})`));
        expect(defs.map((d) => d.replace(/^.* USING btree /, ''))).toEqual([
          // The field's key column (store/documents-postgres.ts), so a count is answered from the index.
          `(account_id, k1 NULLS FIRST) WHERE (collection_id = ${id})`,
        ]);
      }
    });

    it("sorts with a limit by reading the index, both ways, in mingo's order", async () => {
      const s = service();
      const name = fresh();
      // null and missing sort first ascending, last descending (mingo): the index keeps them there.
      const docs = Array.from({ length: 3000 }, (_, i) => ({
        ...(i % 11 === 0 ? {} : { k: i % 13 === 0 ? null : i % 500 }),
        i,
        pad: 'p'.repeat(800),
      }));
      await s.save(member, name, docs);
      await s.createIndex(member, name, 'by_k', { keys: ['k'], unique: false, ascending: true });
      const stored = await s.find(member, name, {});
      for (const direction of [1, -1] as const) {
        const sort: SortSpec = [['k', direction]];
        const expected = mingoFind(stored, {}).sort({ k: direction }).limit(25).all();
        expect(await s.find(member, name, {}, { sort, limit: 25 })).toEqual(expected);
        const explained = await s.explain(member, name, {}, { sort, limit: 25 });
        expect(explained).toMatchObject({ sortPushed: true, sortIndexed: true });
        const plan = explained.plan.join('\n');
        expect(plan).toMatch(/fmx_\d+_[0-9a-f]+/);
        if (engine.name === 'postgres') {
          expect(plan).toMatch(direction === 1 ? /Index Scan using fmx_/ : /Index Scan Backward using fmx_/);
          expect(plan).not.toMatch(/^\s*(->\s+)?Sort$/m);
        }
      }
      if (engine.name === 'postgres') {
        // An index built before 0600_sorted_key_indexes (default NULLS order) is rebuilt by it.
        const id = (await s.getCollection(member, name))!.id;
        const [index] = await engine.store.all<{ sql_name: string }>(
          sql`SELECT sql_name FROM collection_indexes WHERE collection_id = ${id}`,
        );
        await engine.store.exec(`DROP INDEX ${index!.sql_name}`);
        await engine.store.exec(
          `CREATE INDEX ${index!.sql_name} ON documents (account_id, k1) WHERE collection_id = ${id}`,
        );
        const before = await s.explain(member, name, {}, { sort: [['k', 1]], limit: 25 });
        expect(before.sortIndexed).toBe(false);
        await engine.store.transaction((tx) => sortedKeyIndexes.up(tx));
        const defs = await engine.store.all<{ indexdef: string }>(
          sql`SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexname = ${index!.sql_name}`,
        );
        expect(defs.map((d) => d.indexdef.replace(/^.* USING btree /, ''))).toEqual([
          `(account_id, k1 NULLS FIRST) WHERE (collection_id = ${id})`,
        ]);
        const after = await s.explain(member, name, {}, { sort: [['k', 1]], limit: 25 });
        expect(after.sortIndexed).toBe(true);
      }
      // Without an index on the field, every match is sorted.
      expect(await s.explain(member, name, {}, { sort: [['i', 1]], limit: 25 })).toMatchObject({
        sortPushed: true,
        sortIndexed: false,
      });
    });

    it('plans again when another process changed the shape meanwhile', async () => {
      const name = fresh();
      const here = service();
      const elsewhere = new CollectionService(await engine.openStore());
      await here.save(member, name, [{ a: 5 }]);
      expect(await here.count(member, name, { a: 5 })).toBe(1); // `a` is scalar: pushed down
      await elsewhere.save(member, name, [{ a: [5, 6] }]);
      expect(await here.count(member, name, { a: 5 })).toBe(2);
      expect(await here.find(member, name, { a: 5 })).toHaveLength(2);
      expect(await here.explain(member, name, { a: 5 })).toMatchObject({ exact: false });
    });

    it('keeps what SQL cannot sort within the in-memory bound', async () => {
      const s = new CollectionService(engine.store, { limits: { maxInMemoryDocuments: 5 } });
      const name = fresh();
      await s.save(
        member,
        name,
        Array.from({ length: 8 }, (_, i) => ({ t: [i] })),
      );
      const message =
        'more than 5 documents would have to be held in memory: narrow the condition or add $limit';
      expect(
        (await rejects(s.find(member, name, { t: { $exists: true } }, { sort: [['t', 1]] }))).message,
      ).toBe(message);
      expect((await rejects(s.aggregate(member, name, [{ $match: { t: { $exists: true } } }]))).message).toBe(
        message,
      );
      expect(
        await s.aggregate(member, name, [{ $match: { t: { $exists: true } } }, { $limit: 2 }]),
      ).toHaveLength(2);
    });
  });

  describe('aggregation', () => {
    it('pushes leading $match/$sort/$skip/$limit and runs the rest in mingo', async () => {
      const s = service();
      const name = fresh();
      await s.save(member, name, [
        { g: 'a', n: 1 },
        { g: 'b', n: 2 },
        { g: 'a', n: 3 },
        { g: 'c', n: 4 },
      ]);
      expect(
        await s.aggregate(member, name, [
          { $match: { n: { $gte: 2 } } },
          { $sort: { n: -1 } },
          { $skip: 1 },
          { $limit: 2 },
          { $group: { _id: '$g', total: { $sum: '$n' } } },
          { $sort: { _id: 1 } },
        ]),
      ).toEqual([
        { _id: 'a', total: 3 },
        { _id: 'b', total: 2 },
      ]);
      expect(await s.aggregate(member, name, [{ $count: 'n' }])).toEqual([{ n: 4 }]);
    });
  });

  describe('indexes', () => {
    it('lists _id_ first, creates idempotently, refuses a different definition', async () => {
      const s = service();
      const name = fresh();
      await s.save(member, name, [{ a: 1 }]);
      const id = (await s.getCollection(member, name))!.id;
      expect(
        await s.createIndex(member, id, 'a_desc', { keys: ['a', 'b.c'], unique: false, ascending: false }),
      ).toBe(true);
      expect(
        await s.createIndex(member, name, 'a_desc', { keys: ['a', 'b.c'], unique: false, ascending: false }),
      ).toBe(true);
      expect(
        (
          await rejects(
            s.createIndex(member, name, 'a_desc', { keys: ['a'], unique: false, ascending: false }),
          )
        ).message,
      ).toBe(`index 'a_desc' already exists on collection '${name}' with other keys or options`);
      expect(await s.listIndexes(member, id)).toEqual([
        { keys: ['_id'], unique: true, name: '_id_', ascending: true },
        { keys: ['a', 'b.c'], unique: false, name: 'a_desc', ascending: false },
      ]);
      expect(await s.deleteIndex(member, id, 'a_desc')).toBe(true);
      expect(await s.deleteIndex(member, id, 'a_desc')).toBe(false);
      expect((await rejects(s.deleteIndex(member, id, '_id_'))).message).toBe(
        "index '_id_' cannot be deleted",
      );
      expect((await rejects(s.listIndexes(member, 999999))).message).toBe('collection 999999 does not exist');
      expect(
        (await rejects(s.createIndex(member, name, 'x', { keys: ['$bad'], unique: false, ascending: true })))
          .message,
      ).toBe('invalid index key "$bad"');
    });

    it('a unique index refuses repeated keys, but not missing ones nor true beside 1', async () => {
      const s = service();
      const name = fresh();
      await s.save(member, name, [{ email: 'a@x' }, { other: 1 }, { email: true }]);
      await s.createIndex(member, name, 'email_1', { keys: ['email'], unique: true, ascending: true });
      await s.save(member, name, [{ other: 2 }, { email: 1 }, { email: null }, { email: null }]);
      const error = await rejects(s.save(member, name, [{ email: 'b@x' }, { email: 'a@x' }]));
      expect(error.code).toBe('duplicate-key');
      expect(error.message).toBe(
        `duplicate key: unique index 'email_1' of collection '${name}' already has a document with the same email`,
      );
      expect(await s.count(member, name, { email: 'b@x' })).toBe(0); // the whole save was undone
      const update = await rejects(
        s.update(member, name, { other: 1 }, { $set: { email: 'a@x' } }, { multi: false }),
      );
      expect(update.code).toBe('duplicate-key');
    });

    it('cannot create a unique index over repeated values', async () => {
      const s = service();
      const name = fresh();
      await s.save(member, name, [{ k: 1 }, { k: 1 }]);
      expect(
        (await rejects(s.createIndex(member, name, 'k', { keys: ['k'], unique: true, ascending: true })))
          .message,
      ).toBe(`cannot create unique index 'k': documents of collection '${name}' repeat the same k`);
      expect((await s.listIndexes(member, name)).map((i) => i.name)).toEqual(['_id_']);
    });

    it('bounds the number of indexes', async () => {
      const s = new CollectionService(engine.store, { limits: { maxIndexes: 1 } });
      const name = fresh();
      await s.save(member, name, [{ a: 1 }]);
      await s.createIndex(member, name, 'one', { keys: ['a'], unique: false, ascending: true });
      expect(
        (await rejects(s.createIndex(member, name, 'two', { keys: ['b'], unique: false, ascending: true })))
          .message,
      ).toBe(`collection '${name}' already has 1 indexes, the most allowed`);
    });
  });

  describe('import', () => {
    it('inserts everything in one transaction, reporting progress', async () => {
      const s = service();
      const name = fresh();
      const progress: number[] = [];
      const docs = Array.from({ length: 1200 }, (_, i) => ({ i }));
      expect(
        await s.importDocuments(member, name, docs, { onProgress: (p) => progress.push(p.documents) }),
      ).toBe(1200);
      expect(progress).toEqual([500, 1000, 1200]);
      expect(await s.count(member, name, { i: { $gte: 0 } })).toBe(1200);
    });

    it('leaves the collection as it was when a document is bad, even with drop', async () => {
      const s = service();
      const name = fresh();
      await s.save(member, name, [{ keep: 1 }]);
      async function* source() {
        for (let i = 0; i < 700; i++) yield { i };
        yield { bad: NaN };
      }
      expect((await rejects(s.importDocuments(member, name, source(), { drop: true }))).message).toBe(
        "field 'bad' holds NaN, which JSON cannot store",
      );
      expect(await s.find(member, name, { keep: 1 })).toHaveLength(1);
      expect(await s.count(member, name, { i: { $exists: true } })).toBe(0);
      expect(await s.importDocuments(member, name, [{ i: 1 }], { drop: true })).toBe(1);
      expect(await s.count(member, name, { keep: 1 })).toBe(0);
    });
  });

  describe('concurrency', () => {
    it('two processes saving at once keep every document and the union of shapes', async () => {
      const name = fresh();
      const here = service();
      const elsewhere = new CollectionService(await engine.openStore());
      await here.createCollection(member, name, { isPublic: false, isReadonly: false });
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 ? here : elsewhere).save(member, name, [{ i, v: i % 3 ? i : [i] }]),
        ),
      );
      expect(await here.count(member, name, { i: { $gte: 0 } })).toBe(10);
      expect(await here.count(member, name, { v: 3 })).toBe(1); // v holds arrays: not pushed down
      expect(await elsewhere.count(member, name, { v: 4 })).toBe(1);
    });
  });
});
