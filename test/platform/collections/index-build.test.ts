/**
 * An index build that gives a field a key column fills it slice by slice beside other writes
 * (src/platform/collections/indexes.ts): documents written during the fill end with the right
 * key column values, and a build stopped half-way leaves a state whose reads are exact and that
 * the next create_index completes (or delete_index removes). SQLite fills the columns in the
 * transaction creating the index (fillsInCreate): writes around the build end as right, and
 * there is no half-way.
 */
import { find as mingoFind } from 'mingo';
import { describe, expect, it } from 'vitest';
import { CollectionService, type Document } from '../../../src/platform/collections/index.js';
import {
  sql,
  type Queryable,
  type Sql,
  type Store,
  type TransactionOptions,
} from '../../../src/store/index.js';
import { describeEachEngine } from '../../support/engines.js';

const member = { accountId: 'acme', user: { id: 2, login: 'joe', isAdmin: false } };
let counter = 0;
const fresh = () => `build${counter++}`;

/** `r` of every JSON type, or missing. */
function doc(i: number): Record<string, unknown> {
  const r = [i % 97, `s${i % 13}`, null, i % 2 === 0, undefined, i / 4][i % 6];
  return r === undefined ? { _id: `d${i}`, i } : { _id: `d${i}`, i, r };
}

const FILTERS: Array<Record<string, unknown>> = [
  { r: { $gte: 10, $lt: 40 } },
  { r: { $lt: 's5' } },
  { r: null },
  { r: true },
  { r: { $exists: false } },
];

async function expectMingoAnswers(s: CollectionService, name: string): Promise<void> {
  const all = await s.find(member, name, {});
  for (const filter of FILTERS) {
    const expected = mingoFind(all, filter).all() as Document[];
    expect({ filter, n: await s.count(member, name, filter) }).toEqual({ filter, n: expected.length });
    expect({ filter, docs: await s.find(member, name, filter) }).toEqual({ filter, docs: expected });
  }
}

/** The collection's key_columns text and how many of its documents' key columns differ from their field. */
async function keyState(store: Store, name: string): Promise<{ keyColumns: unknown; wrong: number }> {
  const row = await store.get<{ id: number; key_columns: string }>(
    sql`SELECT id, key_columns FROM collections WHERE account_id = ${'acme'} AND name = ${name}`,
  );
  const keyColumns: unknown = JSON.parse(row!.key_columns);
  let wrong = 0;
  const columns: Record<string, string> = { k1: '', k2: '', k3: '', k4: '' };
  for (const [path, column] of Object.entries(keyColumns as Record<string, unknown>))
    if (typeof column === 'string') columns[column] = path;
  for (const [column, path] of Object.entries(columns)) {
    // SQLite: kN holds json_extract and tN (t1 for k1) json_type of the field, both NULL when unassigned.
    const differs =
      store.dialect.name === 'postgres'
        ? sql`${sql.raw(column)} IS DISTINCT FROM ${path ? sql`NULLIF((doc)::jsonb -> ${path}, 'null'::jsonb)` : sql.raw('NULL::jsonb')}`
        : sql`(${sql.raw(column)} IS NOT ${path ? sql`json_extract(doc, '$.' || ${path})` : sql.raw('NULL')}
              OR ${sql.raw(`t${column.slice(1)}`)} IS NOT ${path ? sql`json_type(doc, '$.' || ${path})` : sql.raw('NULL')})`;
    const r = await store.get<{ n: string }>(
      sql`SELECT count(*) AS n FROM documents WHERE collection_id = ${sql.literal(row!.id)} AND ${differs}`,
    );
    wrong += Number(r!.n);
  }
  return { keyColumns, wrong };
}

/**
 * The store (or a transaction of it), `before` awaited before each statement `run` is given (an
 * error it throws is the statement's), `beforeTransaction` before each top-level transaction
 * begins.
 */
function hooked<T extends Queryable>(
  store: T,
  before: (text: string) => Promise<void>,
  beforeTransaction?: () => Promise<void>,
): T {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'run')
        return async (query: Sql) => {
          await before(query.render(store.dialect.name).text);
          return target.run(query);
        };
      if (prop === 'transaction')
        return async <R>(fn: (tx: Queryable) => Promise<R>, options?: TransactionOptions) => {
          await beforeTransaction?.();
          return target.transaction((tx) => fn(hooked(tx, before)), options);
        };
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describeEachEngine('collection index builds', (engine) => {
  it('gives documents written during the fill the right key column values', async () => {
    const s = new CollectionService(engine.store);
    const name = fresh();
    await s.save(
      member,
      name,
      Array.from({ length: 3000 }, (_, i) => doc(i)),
    );
    // The writes before each slice go through another store: they commit on a connection of their
    // own, outside the slice's transaction.
    const other = new CollectionService(await engine.openStore());
    const write = async (round: number, w = s) => {
      const i = 3000 + round;
      const step = round % 6;
      if (step === 0) await w.save(member, name, [doc(i), { _id: `x${round}`, r: round }]);
      else if (step === 1)
        await w.update(member, name, { i: round * 7 }, { $set: { r: `u${round}` } }, { multi: true });
      else if (step === 2)
        await w.update(
          member,
          name,
          { i: { $gte: round, $lt: round + 5 } },
          { $inc: { i: 0 }, $set: { r: round } },
          { multi: true },
        );
      else if (step === 3)
        await w.update(member, name, { _id: `d${round * 3}` }, { $unset: { r: '' } }, { multi: false });
      else if (step === 4) await w.save(member, name, [{ _id: `d${round * 5}`, i: round * 5, r: [round] }]);
      else await w.remove(member, name, { _id: `d${round * 11}` });
    };
    // Before each slice of the fill (on PostgreSQL in its transaction, before its UPDATE; on
    // SQLite, before the one transaction of the build, through the same store: a second
    // connection in this thread would wait for the lock synchronously, holding up the transaction
    // that has it), a write of another kind commits; and a free-running writer besides.
    let beforeSlices = 0;
    const builder = new CollectionService(
      engine.name === 'postgres'
        ? hooked(engine.store, async (text) => {
            if (text.startsWith('UPDATE documents SET k') && text.includes('seq %'))
              await write(beforeSlices++, other);
          })
        : hooked(
            engine.store,
            async () => {},
            () => write(beforeSlices++),
          ),
    );
    let done = false;
    const build = builder
      .createIndex(member, name, 'by_r', { keys: ['r'], unique: false, ascending: true })
      .finally(() => (done = true));
    for (let round = 100; !done || round < 106; round++) await write(round);
    await build;
    expect(beforeSlices).toBe(engine.name === 'postgres' ? 16 : 1);
    expect(await keyState(engine.store, name)).toEqual({ keyColumns: { r: 'k1' }, wrong: 0 });
    await expectMingoAnswers(s, name);
  });

  it('is undone when the documents repeat a key of a unique index', async () => {
    const name = fresh();
    const s = new CollectionService(engine.store);
    await s.save(
      member,
      name,
      Array.from({ length: 400 }, (_, i) => ({ _id: `u${i}`, u: i === 399 ? 5 : i })),
    );
    await expect(
      s.createIndex(member, name, 'by_u', { keys: ['u'], unique: true, ascending: true }),
    ).rejects.toThrow(
      `cannot create unique index 'by_u': documents of collection '${name}' repeat the same u`,
    );
    expect(await keyState(engine.store, name)).toEqual({ keyColumns: {}, wrong: 0 });
    expect((await s.listIndexes(member, name)).map((i) => i.name)).toEqual(['_id_']);
  });

  describe.runIf(engine.name === 'postgres')('a build stopped half-way', () => {
    const interrupted = async () => {
      const name = fresh();
      const s = new CollectionService(engine.store);
      await s.save(
        member,
        name,
        Array.from({ length: 800 }, (_, i) => doc(i)),
      );
      // The fourth slice fails, the first three written.
      let slices = 0;
      const broken = new CollectionService(
        hooked(engine.store, async (text) => {
          if (text.startsWith('UPDATE documents SET k') && ++slices === 4)
            throw new Error('Connection terminated');
        }),
      );
      await expect(
        broken.createIndex(member, name, 'by_r', { keys: ['r'], unique: false, ascending: true }),
      ).rejects.toThrow('Connection terminated');
      return { name, s };
    };

    it('answers reads exactly, keeps the column in step, and is completed by the next create_index', async () => {
      const { name, s } = await interrupted();
      const half = await keyState(engine.store, name);
      expect(half.keyColumns).toEqual({ $filling: { r: 'k1' } });
      expect(half.wrong).toBeGreaterThan(0);
      expect((await s.listIndexes(member, name)).map((i) => i.name)).toEqual(['_id_', 'by_r']);
      await s.save(member, name, [{ _id: 'late', i: -1, r: 12 }]);
      await s.update(member, name, { i: { $lt: 30 } }, { $set: { r: 'v' } }, { multi: true });
      await expectMingoAnswers(s, name);
      // A fresh service, as after a restart.
      const again = new CollectionService(engine.store);
      expect(
        await again.createIndex(member, name, 'by_r', { keys: ['r'], unique: false, ascending: true }),
      ).toBe(true);
      expect(await keyState(engine.store, name)).toEqual({ keyColumns: { r: 'k1' }, wrong: 0 });
      await expectMingoAnswers(again, name);
    });

    it('is removed by delete_index, its column given back empty', async () => {
      const { name, s } = await interrupted();
      expect(await s.deleteIndex(member, name, 'by_r')).toBe(true);
      expect(await keyState(engine.store, name)).toEqual({ keyColumns: {}, wrong: 0 });
      expect((await s.listIndexes(member, name)).map((i) => i.name)).toEqual(['_id_']);
      await expectMingoAnswers(s, name);
    });
  });
});
