/**
 * SQLite's key columns (src/store/documents-sqlite.ts, migration 0790_sqlite_document_keys): an
 * indexed field's value and json_type live in columns of `documents`, its indexes are on them,
 * and an update that leaves the field alone does not write those indexes (an expression index
 * over `doc` is written for every row whose `doc` changes). Answers stay mingo's, and a store
 * made before the migration answers as it did.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { find as mingoFind } from 'mingo';
import { afterEach, describe, expect, it } from 'vitest';
import { CollectionService, type Document } from '../../../src/platform/collections/index.js';
import {
  migrations,
  openStore,
  sql,
  type Queryable,
  type Sql,
  type Store,
} from '../../../src/store/index.js';

const member = { accountId: 'acme', user: { id: 2, login: 'joe', isAdmin: false } };

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function open(dir: string, before?: string): Promise<Store> {
  const store = await openStore({
    dataDir: dir,
    databaseUrl: undefined,
    ...(before ? { migrations: migrations.filter((m) => m.id < before) } : {}),
  });
  stores.push(store);
  return store;
}

function newDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'flowmark-sqlkeys-'));
  dirs.push(dir);
  return dir;
}

/** `b` true, false, 1, 0, null or missing; `u` unique where present (null twice). */
function doc(i: number): Document {
  const d: Document = { _id: `d${String(i).padStart(3, '0')}`, n: i, r: i % 50 };
  const b = [true, false, 1, 0, null, undefined][i % 6];
  if (b !== undefined) d.b = b;
  if (i % 10 !== 3) d.u = i % 10 === 7 ? null : i;
  return d;
}

/** 300 documents (doc) in collection `c`, then an index `by_<field>` on each field named (unique on `u`). */
async function seeded(s: CollectionService, fields: string[]): Promise<void> {
  await s.save(
    member,
    'c',
    Array.from({ length: 300 }, (_, i) => doc(i)),
  );
  for (const f of fields)
    await s.createIndex(member, 'c', `by_${f}`, { keys: [f], unique: f === 'u', ascending: true });
}

const FILTERS: Array<Record<string, unknown>> = [
  { b: true },
  { b: 1 },
  { b: false },
  { b: 0 },
  { b: null },
  { b: { $exists: false } },
  { b: { $exists: true } },
  { b: { $in: [1, true] } },
  { b: { $gte: 0 } },
  { r: { $gte: 10, $lt: 20 } },
  { r: 7, b: { $gte: 0 } },
  { u: null },
  { u: { $gt: 150 } },
];

/** Every filter's count and documents, and two sorts, as the service answers them. */
async function answers(s: CollectionService, name: string) {
  const out: unknown[] = [];
  for (const filter of FILTERS)
    out.push({ filter, n: await s.count(member, name, filter), docs: await s.find(member, name, filter) });
  out.push(await s.find(member, name, {}, { sort: [['b', -1]], limit: 40 }));
  out.push(await s.find(member, name, { r: { $gte: 0 } }, { sort: [['r', 1]], limit: 30 }));
  return out;
}

/** The same as mingo gives over every document. */
async function mingoAnswers(s: CollectionService, name: string) {
  const all = await s.find(member, name, {});
  const out: unknown[] = [];
  for (const filter of FILTERS) {
    const docs = mingoFind(all, filter).all();
    out.push({ filter, n: docs.length, docs });
  }
  out.push(mingoFind(all, {}).sort({ b: -1 }).limit(40).all());
  out.push(
    mingoFind(all, { r: { $gte: 0 } })
      .sort({ r: 1 })
      .limit(30)
      .all(),
  );
  return out;
}

/** The store, each statement `run` is given whose text starts with `prefix` kept in `into`. */
function capturing(store: Store, prefix: string, into: Sql[]): Store {
  const wrap = <T extends Queryable>(q: T): T =>
    new Proxy(q, {
      get(target, prop, receiver) {
        if (prop === 'run')
          return (query: Sql) => {
            if (query.render('sqlite').text.startsWith(prefix)) into.push(query);
            return target.run(query);
          };
        if (prop === 'transaction')
          return <R>(fn: (tx: Queryable) => Promise<R>, options?: object) =>
            target.transaction((tx) => fn(wrap(tx)), options);
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  return wrap(store);
}

/**
 * The collection indexes (by name: `by_b`, `by_b_u` for a unique one's second index) whose
 * entries a statement deletes or inserts (`IdxDelete` / `IdxInsert` on a cursor opened on the
 * index's root page; an UPDATE may open the index it searches for writing without writing it).
 */
async function indexesWritten(store: Store, name: string, statement: Sql): Promise<string[]> {
  const indexes = await store.all<{ name: string; sql_name: string; rootpage: number }>(
    sql`SELECT i.name, m.name AS sql_name, m.rootpage FROM collection_indexes i
        JOIN collections c ON c.id = i.collection_id
        JOIN sqlite_master m ON m.type = 'index' AND (m.name = i.sql_name OR m.name = i.sql_name || '_u')
        WHERE c.name = ${name} ORDER BY m.name`,
  );
  const program = await store.all<{ opcode: string; p1: number; p2: number }>(sql`EXPLAIN ${statement}`);
  const rootOf = new Map<number, number>();
  for (const op of program)
    if (op.opcode === 'OpenWrite' || op.opcode === 'OpenRead') rootOf.set(Number(op.p1), Number(op.p2));
  const written = new Set(
    program
      .filter((op) => op.opcode === 'IdxInsert' || op.opcode === 'IdxDelete')
      .map((op) => rootOf.get(Number(op.p1))),
  );
  return indexes
    .filter((i) => written.has(Number(i.rootpage)))
    .map((i) => (i.sql_name.endsWith('_u') ? `${i.name}_u` : i.name))
    .sort();
}

/** How many documents' key columns differ from their field's json_extract / json_type. */
async function wrongKeys(store: Store, name: string): Promise<number> {
  const row = await store.get<{ id: number; key_columns: string }>(
    sql`SELECT id, key_columns FROM collections WHERE name = ${name}`,
  );
  let wrong = 0;
  for (const [path, column] of Object.entries(JSON.parse(row!.key_columns) as Record<string, string>)) {
    const t = sql.raw(`t${column.slice(1)}`);
    const r = await store.get<{ n: number }>(
      sql`SELECT count(*) AS n FROM documents WHERE collection_id = ${sql.literal(row!.id)}
          AND (${sql.raw(column)} IS NOT json_extract(doc, '$.' || ${path}) OR ${t} IS NOT json_type(doc, '$.' || ${path}))`,
    );
    wrong += Number(r!.n);
  }
  return wrong;
}

describe('SQLite key columns', () => {
  it('gives indexed fields key columns and plans queries on their indexes', async () => {
    const store = await open(newDir());
    const s = new CollectionService(store);
    await seeded(s, ['r', 'u']);
    const row = await store.get<{ key_columns: string }>(
      sql`SELECT key_columns FROM collections WHERE name = 'c'`,
    );
    expect(JSON.parse(row!.key_columns)).toEqual({ r: 'k1', u: 'k2' });
    expect(await wrongKeys(store, 'c')).toBe(0);
    const count = await s.explain(member, 'c', { r: { $gte: 10, $lt: 20 } }, { count: true });
    expect(count.exact).toBe(true);
    expect(count.plan.join('\n')).toMatch(
      /SEARCH documents USING COVERING INDEX fmx_\d+_[0-9a-f]+ \(account_id=\? AND collection_id=\? AND k1>\? AND k1<\?\)/,
    );
    const sorted = await s.explain(member, 'c', {}, { sort: [['u', -1]], limit: 5 });
    expect(sorted.sortIndexed).toBe(true);
    expect(sorted.plan.join('\n')).toMatch(/documents USING INDEX fmx_\d+_[0-9a-f]+ /);
    expect(await answers(s, 'c')).toEqual(await mingoAnswers(s, 'c'));
  });

  it('leaves the indexes of fields an update does not change unwritten, and answers right after every update', async () => {
    const store = await open(newDir());
    const updates: Sql[] = [];
    const s = new CollectionService(capturing(store, 'UPDATE documents SET doc', updates));
    await seeded(s, ['r', 'b', 'u']);
    const update = async (change: Record<string, unknown>) => {
      let path = '';
      updates.length = 0;
      const n = await s.update(member, 'c', { r: { $gte: 10, $lt: 20 } }, change, {
        multi: true,
        onPath: (p) => (path = p),
      });
      expect({ n, path, statements: updates.length }).toEqual({ n: 60, path: 'set-based', statements: 1 });
      expect(await wrongKeys(store, 'c')).toBe(0);
      expect(await answers(s, 'c')).toEqual(await mingoAnswers(s, 'c'));
      return indexesWritten(store, 'c', updates[0]!);
    };
    // Before key columns, each of these wrote all four indexes (by_u has a second, unique one).
    expect(await update({ $inc: { n: 1 } })).toEqual([]);
    expect(await update({ $set: { b: true } })).toEqual(['by_b']);
    expect(await update({ $set: { b: 1, other: 'x' } })).toEqual(['by_b']);
    expect(await update({ $unset: { b: '' } })).toEqual(['by_b']);
    expect(await update({ $set: { u: null } })).toEqual(['by_u', 'by_u_u']);
    expect(await update({ $inc: { r: 100 }, $set: { b: false } })).toEqual(['by_b', 'by_r']);
  });

  it('keeps true apart from 1 and lets null and missing repeat in a unique index on key columns', async () => {
    const store = await open(newDir());
    const s = new CollectionService(store);
    await s.save(member, 'c', [{ u: 1 }, { u: true }, { u: null }, {}]);
    await s.createIndex(member, 'c', 'by_u', { keys: ['u'], unique: true, ascending: true });
    await s.save(member, 'c', [{ u: null }, {}, { u: 'x' }]);
    await expect(s.save(member, 'c', [{ u: true }])).rejects.toThrow(
      `duplicate key: unique index 'by_u' of collection 'c' already has a document with the same u`,
    );
    await expect(s.update(member, 'c', { u: 'x' }, { $set: { u: 1 } }, { multi: true })).rejects.toThrow(
      `duplicate key: unique index 'by_u' of collection 'c' already has a document with the same u`,
    );
    expect(await s.update(member, 'c', { u: 'x' }, { $set: { u: false } }, { multi: true })).toBe(1);
    expect(await s.count(member, 'c', { u: 1 })).toBe(1);
    expect(await s.count(member, 'c', { u: true })).toBe(1);
    expect(await s.count(member, 'c', { u: false })).toBe(1);
    expect(await s.count(member, 'c', { u: null })).toBe(4);
    expect(await s.count(member, 'c', { u: { $exists: false } })).toBe(2);
    expect(await wrongKeys(store, 'c')).toBe(0);
  });

  it('answers as before from a store made before the migration, and moves a re-created index to key columns', async () => {
    const dir = newDir();
    // The build before: no key columns (the store's migrations stop before 0790).
    const old = await open(dir, '0790');
    const dialect = { ...old.dialect, documents: { ...old.dialect.documents, keyColumnNames: [] } };
    const before = new CollectionService(
      new Proxy(old, {
        get(target, prop, receiver) {
          if (prop === 'dialect') return dialect;
          const value: unknown = Reflect.get(target, prop, receiver);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      }),
    );
    await seeded(before, ['r', 'b', 'u']);
    const indexSql = async (store: Store) =>
      (
        await store.all<{ sql: string }>(
          sql`SELECT sql FROM sqlite_master WHERE name LIKE 'fmx_%' ORDER BY name`,
        )
      ).map((r) => r.sql.replace(/fmx_\d+_[0-9a-f]+/, 'fmx'));
    const oldIndexes = await indexSql(old);
    expect(oldIndexes).toContain(
      `CREATE INDEX "fmx" ON documents (account_id, collection_id, json_extract(doc, '$."r"')) WHERE collection_id = 1`,
    );
    const answered = await answers(before, 'c');
    expect(answered).toEqual(await mingoAnswers(before, 'c'));
    await old.close();
    stores.splice(stores.indexOf(old), 1);

    const store = await open(dir);
    const columns = await store.all<{ name: string }>(sql`SELECT name FROM pragma_table_info('documents')`);
    expect(columns.map((c) => c.name)).toEqual(
      expect.arrayContaining(['k1', 't1', 'k2', 't2', 'k3', 't3', 'k4', 't4']),
    );
    const s = new CollectionService(store);
    expect(await answers(s, 'c')).toEqual(answered);
    expect(await indexSql(store)).toEqual(oldIndexes);
    const { plan } = await s.explain(member, 'c', { r: { $gte: 10, $lt: 20 } }, { count: true });
    expect(plan.join('\n')).toContain('(account_id=? AND collection_id=? AND <expr>>? AND <expr><?)');
    await expect(s.save(member, 'c', [{ u: 5 }])).rejects.toThrow(
      `duplicate key: unique index 'by_u' of collection 'c' already has a document with the same u`,
    );
    await s.save(member, 'c', [doc(1000), doc(1001)]);
    expect(await s.update(member, 'c', { r: 3 }, { $set: { b: true } }, { multi: true })).toBe(6);
    expect(await answers(s, 'c')).toEqual(await mingoAnswers(s, 'c'));
    // Deleted and created again, an index is on key columns.
    expect(await s.deleteIndex(member, 'c', 'by_r')).toBe(true);
    await s.createIndex(member, 'c', 'by_r', { keys: ['r'], unique: false, ascending: true });
    const row = await store.get<{ key_columns: string }>(
      sql`SELECT key_columns FROM collections WHERE name = 'c'`,
    );
    expect(JSON.parse(row!.key_columns)).toEqual({ r: 'k1' });
    expect(await wrongKeys(store, 'c')).toBe(0);
    const again = await s.explain(member, 'c', { r: { $gte: 10, $lt: 20 } }, { count: true });
    expect(again.plan.join('\n')).toContain('k1>? AND k1<?');
    expect(await answers(s, 'c')).toEqual(await mingoAnswers(s, 'c'));
  });
});
