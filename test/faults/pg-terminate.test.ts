/**
 * A PostgreSQL connection that dies inside a transaction (pg_terminate_backend, as a server
 * restart or a failover does): only that transaction fails — with an error the API answers as
 * `503 unavailable` — the process goes on, and the next transaction gets a fresh connection.
 * Before, the checked-out client raised an unhandled 'error' event and the process exited.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUnavailable, openStore, sql, storeFaultAnswer, type Store } from '../../src/store/index.js';
import { createTestSchema, dropTestSchema } from '../support/engines.js';

const PG = process.env.FLOWMARK_TEST_PG;
const APPLICATION = 'flowmark-pg-terminate-test';

/** Ends a backend from another connection, as an administrator or a restart would. */
async function terminate(pid: number): Promise<void> {
  const admin = new pg.Client({ connectionString: PG });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ done: boolean }>('SELECT pg_terminate_backend($1) AS done', [pid]);
    expect(rows[0]!.done).toBe(true);
  } finally {
    await admin.end();
  }
}

describe.skipIf(!PG)('a PostgreSQL connection terminated inside a transaction', () => {
  let store: Store;
  let schema: string;
  beforeAll(async () => {
    const created = await createTestSchema('term');
    schema = created.schema;
    // named, so the test ends only its own connections (other files run beside it on the database)
    const url = new URL(created.databaseUrl);
    url.searchParams.set('application_name', APPLICATION);
    store = await openStore({ databaseUrl: url.toString(), poolSize: 2 });
    await store.exec('CREATE TABLE kept (n INTEGER PRIMARY KEY)');
  });
  afterAll(async () => {
    await store?.close();
    await dropTestSchema(schema);
  });

  it('fails that transaction when the connection dies while it is idle, and nothing else', async () => {
    const failed = await store
      .transaction(async (tx) => {
        await tx.run(sql`INSERT INTO kept (n) VALUES (1)`);
        const { pid } = (await tx.get<{ pid: number }>(sql`SELECT pg_backend_pid() AS pid`))!;
        await terminate(pid);
        // The connection's 'error' event arrives while no statement of ours is running.
        await sleep(200);
        await tx.run(sql`INSERT INTO kept (n) VALUES (2)`);
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isUnavailable(failed)).toBe(true);
    expect(storeFaultAnswer(failed)).toEqual({
      status: 503,
      code: 'unavailable',
      message: 'the database is unavailable: try again in a moment',
      retryAfter: 2,
    });
    // The pool goes on with new connections; the first transaction left nothing.
    await store.transaction(async (tx) => {
      await tx.run(sql`INSERT INTO kept (n) VALUES (3)`);
    });
    expect(await store.all(sql`SELECT n FROM kept ORDER BY n`)).toEqual([{ n: 3 }]);
  });

  it('fails that transaction when the connection dies during a statement', async () => {
    const failed = await store
      .transaction(async (tx) => {
        const { pid } = (await tx.get<{ pid: number }>(sql`SELECT pg_backend_pid() AS pid`))!;
        const slow = tx.get(sql`SELECT pg_sleep(5) AS slept`);
        slow.catch(() => {}); // awaited below, after the termination
        await sleep(100);
        await terminate(pid);
        await slow;
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isUnavailable(failed)).toBe(true);
    expect(await store.get(sql`SELECT count(*)::int AS n FROM kept`)).toEqual({ n: 1 });
  });

  it('survives every connection of its pool being terminated at once, idle or in a transaction', async () => {
    const admin = new pg.Client({ connectionString: PG });
    await admin.connect();
    try {
      const open = store.transaction(async (tx) => {
        await tx.run(sql`INSERT INTO kept (n) VALUES (10)`);
        await sleep(300);
        await tx.run(sql`INSERT INTO kept (n) VALUES (11)`);
      });
      const outcome = open.then(
        () => 'committed',
        (e: unknown) => (isUnavailable(e) ? 'unavailable' : e),
      );
      await sleep(100);
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
            AND application_name = $1 AND (query LIKE '%kept%' OR state = 'idle')`,
        [APPLICATION],
      );
      expect(await outcome).toBe('unavailable');
    } finally {
      await admin.end();
    }
    expect(await store.get(sql`SELECT count(*)::int AS n FROM kept WHERE n >= 10`)).toEqual({ n: 0 });
  });
});
