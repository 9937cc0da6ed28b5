/**
 * A separate Node process for the multi-process tests (concurrency.test.ts): opens the same
 * database as the test, says it is ready, then runs each task it is sent through the function
 * library and sends its result back, until told to exit.
 *
 *   node --import tsx test/platform/support/worker.ts '<json config>'
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { contextFor } from '../../../src/functions/request/index.js';
import { defaultRegistry, type BoundFunction } from '../../../src/functions/registry.js';
import { createPlatform } from '../../../src/platform/index.js';
import { openStore, sql } from '../../../src/store/index.js';
import type { WorkerConfig, WorkerResult, WorkerTask } from './isolated.js';

const config = JSON.parse(process.argv[2]!) as WorkerConfig;
const store = await openStore(
  config.db.engine === 'sqlite'
    ? { sqliteFile: config.db.sqliteFile, databaseUrl: undefined }
    : { databaseUrl: config.db.pgUrl, pgSchema: config.db.pgSchema, poolSize: 4 },
);
const platform = createPlatform(store);
const send = (message: unknown) => new Promise<void>((resolve) => process.send!(message, () => resolve()));

async function fn(name: string) {
  const ctx = await contextFor({ platform, account: config.account });
  const bound = defaultRegistry().bind(ctx).get(name) as BoundFunction;
  return { ctx, call: (...args: unknown[]) => bound.call(undefined, ...args) };
}

async function counter(task: Extract<WorkerTask, { kind: 'counter' }>): Promise<WorkerResult> {
  const { call } = await fn('next_value');
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

async function locks(task: Extract<WorkerTask, { kind: 'lock' }>): Promise<WorkerResult> {
  let maxInside = 0;
  let sections = 0;
  await Promise.all(
    Array.from({ length: task.callers }, async () => {
      const lock = await fn('R_lock');
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

async function crashHolder(task: Extract<WorkerTask, { kind: 'hold-and-crash' }>): Promise<WorkerResult> {
  const { call } = await fn('R_lock');
  await call(task.name, 0, task.leaseSeconds);
  return { held: true };
}

await send({ ready: true });
process.on('message', async (message: { task?: WorkerTask; exit?: boolean }) => {
  if (message.exit) {
    await store.close();
    process.disconnect();
    return;
  }
  const task = message.task!;
  const started = performance.now();
  const result =
    task.kind === 'counter'
      ? await counter(task)
      : task.kind === 'lock'
        ? await locks(task)
        : await crashHolder(task);
  await send({ ...result, ms: performance.now() - started });
  // A crashing holder never releases its lock nor closes cleanly.
  if (task.kind === 'hold-and-crash') process.exit(0);
});
