/**
 * SQLite's checkpoints run in a thread of the store's own (src/store/sqlite-checkpointer.ts), not
 * inside the writer's commits: the writer's automatic checkpoint is off, the committed pages reach
 * the database file anyway, and the WAL stays within its bound while readers come and go; a
 * reader held open lets it grow (SQLite keeps what that reader may read) until it ends.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, sql, type Store } from '../../src/store/index.js';

const INTERVAL_MS = 20;
const BOUND = 1024 * 1024;
const ROW = 'x'.repeat(4000);

describe('SQLite checkpoints off the writer', () => {
  let dir: string;
  let store: Store | undefined;
  const size = (name: string) => (existsSync(join(dir, name)) ? statSync(join(dir, name)).size : 0);
  const wal = () => size('flowmark.db-wal');

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'flowmark-checkpoint-'));
    store = await openStore({
      dataDir: dir,
      databaseUrl: undefined,
      sqliteCheckpoint: { intervalMs: INTERVAL_MS, truncateBytes: BOUND },
    });
    await store.exec('CREATE TABLE rows_t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    // The writer's automatic checkpoint goes off once the thread (started 1 s after) is open.
    for (let i = 0; i < 500 && (await autocheckpoint(store)) !== 0; i++) await sleep(10);
  });

  afterEach(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The writer's setting: a transaction runs on the writer's connection. */
  const autocheckpoint = (s: Store) =>
    s
      .transaction(
        async (tx) => (await tx.get<{ wal_autocheckpoint: number }>(sql`PRAGMA wal_autocheckpoint`))!,
      )
      .then((r) => r.wal_autocheckpoint);

  /** `n` commits of one 4,000-character row each. */
  async function write(s: Store, n: number): Promise<void> {
    for (let i = 0; i < n; i++) await s.run(sql`INSERT INTO rows_t (body) VALUES (${ROW})`);
  }

  it('turns the automatic checkpoint off and still copies the commits into the database file', async () => {
    expect(await autocheckpoint(store!)).toBe(0);
    const before = size('flowmark.db');
    // 60 rounds of 25 commits of a row (~18 MB of WAL frames in all), a reader between rounds.
    let largest = 0;
    for (let round = 0; round < 60; round++) {
      await write(store!, 25);
      largest = Math.max(largest, wal());
      expect((await store!.get<{ n: number }>(sql`SELECT count(*) AS n FROM rows_t`))!.n).toBe(
        (round + 1) * 25,
      );
      await sleep(INTERVAL_MS * 3);
    }
    // Without checkpoints the WAL would hold all ~18 MB; with them, the bound and what the writer
    // adds while a checkpoint runs (a busy machine stretches that: hence 3× rather than 1×).
    expect(largest).toBeLessThanOrEqual(3 * BOUND);
    const deadline = Date.now() + 10_000;
    while (wal() > BOUND && Date.now() < deadline) await sleep(INTERVAL_MS);
    expect(wal()).toBeLessThanOrEqual(BOUND);
    expect(size('flowmark.db') - before).toBeGreaterThan(1500 * 4000);
  });

  it('lets a WAL grow past the bound while a reader holds an old snapshot, and empties it after', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let seen = -1;
    const reading = store!.transaction(
      async (tx) => {
        seen = (await tx.get<{ n: number }>(sql`SELECT count(*) AS n FROM rows_t`))!.n;
        await released;
        return (await tx.get<{ n: number }>(sql`SELECT count(*) AS n FROM rows_t`))!.n;
      },
      { readOnly: true },
    );
    while (seen < 0) await sleep(5);
    await write(store!, 600); // ~2.4 MB, while the thread's checkpoints cannot pass the reader
    await sleep(INTERVAL_MS * 5);
    expect(wal()).toBeGreaterThan(BOUND);
    release();
    expect(await reading).toBe(0); // the reader kept its snapshot throughout
    // The next commit after the reader is gone lets the thread copy everything and start over.
    await write(store!, 1);
    const deadline = Date.now() + 10_000;
    while (wal() > BOUND && Date.now() < deadline) await sleep(INTERVAL_MS);
    expect(wal()).toBeLessThanOrEqual(BOUND);
    expect((await store!.get<{ n: number }>(sql`SELECT count(*) AS n FROM rows_t`))!.n).toBe(601);
  });

  it('leaves every commit in the database file after close, and none in a WAL', async () => {
    await write(store!, 300);
    await store!.close();
    store = undefined;
    expect(existsSync(join(dir, 'flowmark.db-wal'))).toBe(false);
    store = await openStore({ dataDir: dir, databaseUrl: undefined });
    expect((await store.get<{ n: number }>(sql`SELECT count(*) AS n FROM rows_t`))!.n).toBe(300);
  });
});
