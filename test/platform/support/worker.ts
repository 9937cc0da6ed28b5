/**
 * A separate Node process for the multi-process tests (concurrency.test.ts). It says it is ready,
 * then runs each task it is sent — on the database the task names, through the function library —
 * and sends the result back, until told to exit. One process serves every engine's suite (a
 * start costs a second or more: tsx and the whole library).
 *
 *   node --import tsx test/platform/support/worker.ts
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { contextFor } from '../../../src/functions/request/index.js';
import { defaultRegistry, type BoundFunction } from '../../../src/functions/registry.js';
import { createPlatform, type Platform } from '../../../src/platform/index.js';
import { openStore, sql, type Store } from '../../../src/store/index.js';
import type { DbConfig, WorkerMessage, WorkerResult, WorkerTask } from './isolated.js';

const databases = new Map<string, Promise<{ store: Store; platform: Platform }>>();
const send = (message: unknown) => new Promise<void>((resolve) => process.send!(message, () => resolve()));

function database(db: DbConfig) {
  const key = JSON.stringify(db);
  let opened = databases.get(key);
  if (!opened) {
    opened = openStore(
      db.engine === 'sqlite'
        ? { sqliteFile: db.sqliteFile, databaseUrl: undefined }
        : { databaseUrl: db.pgUrl, pgSchema: db.pgSchema, poolSize: 8 },
    ).then((store) => ({ store, platform: createPlatform(store) }));
    databases.set(key, opened);
  }
  return opened;
}

async function bound(platform: Platform, account: string, name: string) {
  const ctx = await contextFor({ platform, account });
  const fn = defaultRegistry().bind(ctx).get(name) as BoundFunction;
  return { ctx, call: (...args: unknown[]) => fn.call(undefined, ...args) };
}

async function counter(
  message: WorkerMessage,
  task: Extract<WorkerTask, { kind: 'counter' }>,
): Promise<WorkerResult> {
  const { platform } = await database(message.db);
  const { call } = await bound(platform, message.account, 'next_value');
  const values: number[] = [];
  const each = Math.ceil(task.count / task.concurrency);
  await Promise.all(
    Array.from({ length: task.concurrency }, async (_, lane) => {
      for (let i = 0; i < each && lane * each + i < task.count; i++)
        values.push((await call(task.name)) as number);
    }),
  );
  return { values };
}

async function locks(
  message: WorkerMessage,
  task: Extract<WorkerTask, { kind: 'lock' }>,
): Promise<WorkerResult> {
  const { store, platform } = await database(message.db);
  let maxInside = 0;
  let sections = 0;
  await Promise.all(
    Array.from({ length: task.callers }, async () => {
      const lock = await bound(platform, message.account, 'R_lock');
      const unlock = defaultRegistry().bind(lock.ctx).get('R_unlock') as BoundFunction;
      for (let round = 0; round < task.rounds; round++) {
        await lock.call(task.name, 40_000);
        const entered = await store.get<{ inside: number }>(
          sql`UPDATE cs_probe SET inside = inside + 1 WHERE id = 1 RETURNING inside`,
        );
        maxInside = Math.max(maxInside, Number(entered!.inside));
        // A deliberately non-atomic read-modify-write: only mutual exclusion keeps it exact.
        const { total } = (await store.get<{ total: number }>(sql`SELECT total FROM cs_probe WHERE id = 1`))!;
        await sleep(task.holdMs);
        await store.run(sql`UPDATE cs_probe SET total = ${Number(total) + 1} WHERE id = 1`);
        await store.run(sql`UPDATE cs_probe SET inside = inside - 1 WHERE id = 1`);
        sections++;
        await unlock.call(undefined, task.name);
      }
    }),
  );
  return { maxInside, sections };
}

/** Takes a lock and never releases it (as a process that died holding it). */
async function hold(message: WorkerMessage, task: Extract<WorkerTask, { kind: 'hold' }>) {
  const { platform } = await database(message.db);
  const { call } = await bound(platform, message.account, 'R_lock');
  await call(task.name, 0, task.leaseSeconds);
  return { held: true };
}

process.on('message', async (message: WorkerMessage | { exit: true }) => {
  if ('exit' in message) {
    for (const opened of databases.values()) await (await opened).store.close();
    process.disconnect();
    return;
  }
  const task = message.task;
  const started = performance.now();
  try {
    const result =
      task.kind === 'counter'
        ? await counter(message, task)
        : task.kind === 'lock'
          ? await locks(message, task)
          : await hold(message, task);
    await send({ ...result, ms: performance.now() - started });
  } catch (e) {
    await send({ error: (e as Error).stack ?? String(e) });
  }
});
await send({ ready: true });
