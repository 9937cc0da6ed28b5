import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, sql } from '../../src/store/index.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { createTestSchema, dropTestSchema } from '../support/engines.js';

// PostgreSQL only: the store names (prepares) its statements with parameters, a bounded number of texts.
describe.skipIf(!process.env.FLOWMARK_TEST_PG)('postgres prepared statements', () => {
  let schema: string;
  const stores: PostgresStore[] = [];
  const open = async (options: { preparedStatements?: number } = {}) => {
    const store = await PostgresStore.open(process.env.FLOWMARK_TEST_PG!, {
      schema,
      poolSize: 1,
      ...options,
    });
    stores.push(store);
    return store;
  };
  /** The statements prepared on the store's one connection, but the query asking for them. */
  const prepared = (store: PostgresStore) =>
    store.all<{ name: string; statement: string }>(
      sql`SELECT name, statement FROM pg_prepared_statements WHERE statement NOT LIKE ${'%pg_prepared_statements%'} ORDER BY name`,
    );

  beforeAll(async () => {
    ({ schema } = await createTestSchema('prepared'));
  });
  afterAll(async () => {
    for (const s of stores) await s.close();
    await dropTestSchema(schema);
  });

  it('prepares a statement with parameters once per connection, and none without', async () => {
    const store = await open();
    expect(await store.get(sql`SELECT ${2}::int + 1 AS n`)).toEqual({ n: 3 });
    expect(await store.get(sql`SELECT ${5}::int + 1 AS n`)).toEqual({ n: 6 });
    expect(await store.get(sql`SELECT 1 AS one`)).toEqual({ one: 1 });
    expect(await prepared(store)).toEqual([{ name: 'fm0_0', statement: 'SELECT $1::int + 1 AS n' }]);
  });

  it('prepares at most the texts it may, and none with preparedStatements 0', async () => {
    const one = await open({ preparedStatements: 1 });
    await one.get(sql`SELECT ${1}::int AS a`);
    await one.get(sql`SELECT ${1}::int AS b`);
    expect((await prepared(one)).map((p) => p.statement)).toEqual(['SELECT $1::int AS a']);
    const none = await open({ preparedStatements: 0 });
    expect(await none.get(sql`SELECT ${1}::int AS a`)).toEqual({ a: 1 });
    expect(await prepared(none)).toEqual([]);
  });

  it('openStore prepares none with pgPreparedStatements 0 (FLOWMARK_PG_PREPARED_STATEMENTS=0)', async () => {
    const store = await openStore({
      databaseUrl: process.env.FLOWMARK_TEST_PG!,
      pgSchema: schema,
      poolSize: 1,
      pgPreparedStatements: 0,
    });
    try {
      expect(await store.get(sql`SELECT ${1}::int AS a`)).toEqual({ a: 1 });
      const names = await store.all(
        sql`SELECT name FROM pg_prepared_statements WHERE statement NOT LIKE ${'%pg_prepared_statements%'}`,
      );
      expect(names).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('prepares again a statement whose columns changed under it, in and out of a transaction', async () => {
    const store = await open();
    await store.exec('CREATE TABLE widths (id INTEGER PRIMARY KEY, a TEXT)');
    await store.run(sql`INSERT INTO widths (id, a) VALUES (${1}, ${'x'})`);
    const read = () => store.get(sql`SELECT * FROM widths WHERE id = ${1}`);
    expect(await read()).toEqual({ id: 1, a: 'x' });
    await store.exec("ALTER TABLE widths ADD COLUMN b TEXT DEFAULT 'y'");
    expect(await read()).toEqual({ id: 1, a: 'x', b: 'y' });
    await store.exec("ALTER TABLE widths ADD COLUMN c TEXT DEFAULT 'z'");
    await expect(store.transaction(() => read())).rejects.toThrow('cached plan must not change result type');
    expect(await store.transaction(() => read())).toEqual({ id: 1, a: 'x', b: 'y', c: 'z' });
    await store.exec("ALTER TABLE widths ADD COLUMN d TEXT DEFAULT 'w'");
    expect(await store.transaction(() => read(), { retries: 1 })).toEqual({
      id: 1,
      a: 'x',
      b: 'y',
      c: 'z',
      d: 'w',
    });
  });
});
