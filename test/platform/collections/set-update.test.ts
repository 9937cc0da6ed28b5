import { describe, expect, it } from 'vitest';
import { CollectionError, CollectionService } from '../../../src/platform/collections/index.js';
import { sql } from '../../../src/store/index.js';
import { describeEachEngine } from '../../support/engines.js';

const member = { accountId: 'acme', user: { id: 2, login: 'joe', isAdmin: false } };

let counter = 0;
const fresh = (prefix: string) => `${prefix}${counter++}`;

/** Documents with the values whose text a rewrite could change: escapes, floats, key order. */
function seed(): Array<Record<string, unknown>> {
  return Array.from({ length: 60 }, (_, i) => {
    const doc: Record<string, unknown> = { _id: `d${String(i).padStart(3, '0')}`, i, r: i % 6 };
    if (i % 3 !== 0) doc.n = i * 1000 - 7;
    if (i % 4 === 0) doc.f = i / 10 + 0.1;
    doc.s = ['plain', 'a"b\\c', 'tab\there', 'ctl\u0001\u001f', 'é ü 中 😀', "it's"][i % 6];
    if (i % 5 !== 4) doc.meta = { a: i, b: { c: `c${i}`, d: i % 2 === 0 }, [`k\u0007${i % 2}`]: null };
    if (i % 7 === 0) doc.tags = [i, 'x', { y: i }];
    if (i % 8 === 0) doc['7'] = 'integer-like key, first in JavaScript order';
    doc["it's"] = i % 2 === 0;
    doc.big = i % 9 === 0 ? 1e21 : 2 ** 53 - 1 - i;
    doc.note = 'lorem ipsum';
    return doc;
  });
}

describeEachEngine('set-based update_objects', (engine) => {
  /** The stored rows of a collection as the engine keeps them: id, JSON text, key columns. */
  async function stored(name: string) {
    const keys =
      engine.name === 'postgres'
        ? sql`, CAST(k1 AS text) AS k1, CAST(k2 AS text) AS k2`
        : sql`, k1, typeof(k1) AS k1_type, t1, k2, typeof(k2) AS k2_type, t2`;
    const rows = await engine.store.all(
      sql`SELECT d.id, CAST(d.doc AS text) AS doc${keys} FROM documents d JOIN collections c ON c.id = d.collection_id
          WHERE c.account_id = ${'acme'} AND c.name = ${name} ORDER BY d.seq`,
    );
    const shape = await engine.store.get<{ shape: string }>(
      sql`SELECT shape FROM collections WHERE account_id = ${'acme'} AND name = ${name}`,
    );
    return { rows: rows.map((r) => ({ ...r })), shape: JSON.parse(shape!.shape) as unknown };
  }

  const cases: Array<{
    title: string;
    filter: Record<string, unknown>;
    change: Record<string, unknown>;
    path: 'set-based' | 'batched';
  }> = [
    {
      title: '$inc of integers and missing fields',
      filter: {},
      change: { $inc: { n: 3 } },
      path: 'set-based',
    },
    {
      title: '$set of every scalar kind, with escapes',
      filter: { r: { $gte: 2 } },
      change: {
        $set: {
          s: 'new "q" \\ \n\u0002 é 😀',
          flag: true,
          none: null,
          f: 0.30000000000000004,
          huge: 1e21,
          neg: -0,
        },
      },
      path: 'set-based',
    },
    {
      title: 'nested paths, three operators, new keys appended in operator order',
      filter: { i: { $in: [1, 2, 5, 6, 10, 11] } },
      change: {
        $unset: { note: '', 'meta.b.d': 1 },
        $set: { 'meta.b.c': 'y', added: 1 },
        $inc: { 'meta.a': -5, counted: 2 },
      },
      path: 'set-based',
    },
    {
      title: '$unset of missing and present fields',
      filter: { r: 1 },
      change: { $unset: { nope: '', f: '', "it's": '' } },
      path: 'set-based',
    },
    {
      title: 'an indexed field (a key column)',
      filter: { r: { $lt: 3 } },
      change: { $inc: { r: 10 } },
      path: 'set-based',
    },
    {
      title: '$set of an indexed field',
      filter: { r: 3 },
      change: { $set: { r: 'three' } },
      path: 'set-based',
    },
    { title: 'no document matched', filter: { r: 99 }, change: { $set: { x: 1 } }, path: 'set-based' },
    { title: '$inc of a float: mingo', filter: {}, change: { $inc: { f: 1 } }, path: 'batched' },
    {
      title: '$inc of a string: left alone by mingo',
      filter: { r: 4 },
      change: { $inc: { s: 1 } },
      path: 'batched',
    },
    { title: '$inc past 2^53: mingo', filter: { i: 1 }, change: { $inc: { big: 2 } }, path: 'batched' },
    {
      title: '$inc of a non-integer amount',
      filter: { r: 5 },
      change: { $inc: { n: 0.5 } },
      path: 'batched',
    },
    { title: 'a path under an array', filter: {}, change: { $set: { 'tags.0': 5 } }, path: 'batched' },
    { title: 'an integer-like key', filter: {}, change: { $set: { '8': 'x' } }, path: 'batched' },
    {
      title: 'a parent missing in some documents',
      filter: {},
      change: { $set: { 'meta.z': 1 } },
      path: 'batched',
    },
    { title: 'an object value', filter: { r: 2 }, change: { $set: { o: { a: 1 } } }, path: 'batched' },
    {
      title: 'a filter mingo must check',
      filter: { i: { $mod: [4, 1] } },
      change: { $inc: { n: 1 } },
      path: 'batched',
    },
    { title: 'another operator', filter: {}, change: { $inc: { n: 1 }, $max: { i: 30 } }, path: 'batched' },
  ];

  it('writes exactly what reading, mingo and writing back write, case by case', async () => {
    const setBased = new CollectionService(engine.store);
    const batched = new CollectionService(engine.store, { setBasedUpdates: false });
    const [a, b] = [fresh('set'), fresh('mingo')];
    for (const [service, name] of [
      [setBased, a],
      [batched, b],
    ] as const) {
      await service.save(member, name, seed());
      await service.createIndex(member, name, 'by_r', { keys: ['r'], unique: false, ascending: true });
      await service.createIndex(member, name, 'by_meta_a', {
        keys: ['meta.a'],
        unique: false,
        ascending: false,
      });
    }
    expect((await stored(a)).rows).toEqual((await stored(b)).rows);
    for (const { title, filter, change, path } of cases) {
      const paths: string[] = [];
      const n = await setBased.update(member, a, filter, change, {
        multi: true,
        onPath: (p) => paths.push(p),
      });
      const m = await batched.update(member, b, filter, change, { multi: true });
      expect({ title, n, paths }).toEqual({ title, n: m, paths: [path] });
      const [x, y] = [await stored(a), await stored(b)];
      expect({ title, rows: x.rows }).toEqual({ title, rows: y.rows });
      expect({ title, shape: x.shape }).toEqual({ title, shape: y.shape });
    }
    // Reads see the new values through the indexes.
    expect(await setBased.count(member, a, { r: { $gte: 10 } })).toBe(
      await batched.count(member, b, { r: { $gte: 10 } }),
    );
    expect(await setBased.find(member, a, { 'meta.a': { $lt: 0 } })).toEqual(
      (await batched.find(member, b, { 'meta.a': { $lt: 0 } })).map((d) => d),
    );
    expect((await setBased.find(member, a, { 'meta.a': { $lt: 0 } })).length).toBeGreaterThan(0);
  });

  if (engine.name === 'postgres')
    it('keeps a rewritten document on its page (fillfactor 80: a HOT update, no new index entries)', async () => {
      const service = new CollectionService(engine.store);
      const name = fresh('pages');
      const docs = Array.from({ length: 400 }, (_, i) => ({
        _id: `p${i}`,
        i,
        r: i % 10,
        text: 'x'.repeat(150),
      }));
      // The index before the documents: a build over stored documents rewrites them (its key
      // columns), and the dead versions it leaves are pruned only once no transaction of the
      // database (another test file's) is older, so the room a rewrite needs would depend on them.
      await service.createCollection(member, name, { isPublic: false, isReadonly: false });
      await service.createIndex(member, name, 'by_r', { keys: ['r'], unique: false, ascending: true });
      await service.save(member, name, docs);
      const blocks = () =>
        engine.store.all<{ id: string; block: string }>(
          sql`SELECT d.id, (d.ctid::text::point)[0]::text AS block FROM documents d JOIN collections c ON c.id = d.collection_id
              WHERE c.account_id = ${'acme'} AND c.name = ${name} AND (d.doc::jsonb ->> 'i')::int % 20 = 0 ORDER BY d.seq`,
        );
      const before = await blocks();
      // spread over several pages
      expect(new Set(before.map((b) => b.block)).size).toBeGreaterThan(3);
      const paths: string[] = [];
      const filter = { i: { $in: docs.filter((d) => d.i % 20 === 0).map((d) => d.i) } };
      expect(
        await service.update(
          member,
          name,
          filter,
          { $inc: { i: 0 }, $set: { seen: true } },
          { multi: true, onPath: (p) => paths.push(p) },
        ),
      ).toBe(20);
      expect(paths).toEqual(['set-based']);
      expect(await blocks()).toEqual(before);
    });

  describe('all or none', () => {
    it('a unique-index violation in the middle of the statement leaves every document as it was', async () => {
      const service = new CollectionService(engine.store);
      const name = fresh('unique');
      const docs = Array.from({ length: 1000 }, (_, i) => ({
        _id: `u${String(i).padStart(4, '0')}`,
        u: i,
        t: 'a',
      }));
      docs.push({ _id: 'u9999', u: 1500, t: 'a' });
      await service.save(member, name, docs);
      await service.createIndex(member, name, 'by_u', { keys: ['u'], unique: true, ascending: true });
      const before = await stored(name);
      const paths: string[] = [];
      const error = await service
        .update(
          member,
          name,
          { u: { $lt: 1000 } },
          { $inc: { u: 1000 }, $set: { t: 'b' } },
          {
            multi: true,
            onPath: (p) => paths.push(p),
          },
        )
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(paths).toEqual(['set-based']);
      expect(error).toBeInstanceOf(CollectionError);
      expect((error as Error).message).toBe(
        `duplicate key: unique index 'by_u' of collection '${name}' already has a document with the same u`,
      );
      expect(await stored(name)).toEqual(before);
      expect(await service.count(member, name, { t: 'b' })).toBe(0);
      // Without the document in the way, the same update writes all of them.
      await service.remove(member, name, { _id: 'u9999' });
      expect(
        await service.update(
          member,
          name,
          { u: { $lt: 1000 } },
          { $inc: { u: 1000 }, $set: { t: 'b' } },
          { multi: true },
        ),
      ).toBe(1000);
      expect(await service.count(member, name, { u: { $gte: 1000 }, t: 'b' })).toBe(1000);
    });

    it('a document that would outgrow the size limit sends the update the batched way, which refuses it', async () => {
      const service = new CollectionService(engine.store, { limits: { maxDocumentBytes: 200 } });
      const name = fresh('size');
      await service.save(member, name, [
        { _id: 'a', s: 'x' },
        { _id: 'b', s: 'x'.repeat(150) },
      ]);
      const paths: string[] = [];
      const error = await service
        .update(
          member,
          name,
          {},
          { $set: { t: 'y'.repeat(60) } },
          { multi: true, onPath: (p) => paths.push(p) },
        )
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(paths).toEqual(['batched']);
      expect((error as Error).message).toMatch(
        /^a document of 2\d\d bytes is larger than the limit of 200 bytes$/,
      );
      expect(await service.find(member, name, {})).toEqual([
        { _id: 'a', s: 'x' },
        { _id: 'b', s: 'x'.repeat(150) },
      ]);
    });
  });
});
