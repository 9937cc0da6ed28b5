/**
 * The evaluation pool (src/isolation/pool.ts) with a stand-in worker (fixtures/worker.mjs) that
 * spins, grows its heap or sleeps on demand: a task that outruns its deadline is stopped by
 * terminating its thread, a heap overflow ends only its own task, the thread is replaced and
 * the next task runs; accounts share the threads fairly, with 429 past an account's queue; a
 * thread runs one account's tasks side by side, never two accounts'.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { EvaluationPool, EvaluationStopped, type PoolSettings } from '../../src/isolation/pool.js';
import { FIXTURE, op } from './fixture.js';

const EXIT_WITH_POOL = fileURLToPath(new URL('./fixtures/exit-with-pool.mjs', import.meta.url));
const BUILT_POOL = fileURLToPath(new URL('../../dist/isolation/pool.js', import.meta.url));
const pools: EvaluationPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

function pool(settings: Partial<PoolSettings> = {}, handler = FIXTURE): EvaluationPool {
  const p = new EvaluationPool(
    {
      threads: 2,
      heapMb: 64,
      accountThreads: 1,
      threadTasks: 1,
      accountQueue: 4,
      wallTimeMs: 5_000,
      graceMs: 200,
      ...settings,
    },
    { limits: {}, evaluationLimits: {}, scripts: {} },
    { handler },
  );
  pools.push(p);
  return p;
}

/** Waits for the pool's threads to be up (a short wall time could refuse a call made while they load). */
async function warm(p: EvaluationPool): Promise<void> {
  for (let i = 0; ; i++) {
    const ok = await p.run('warm', op({ op: 'echo', value: 1 })).then(
      () => true,
      () => false,
    );
    if (ok || i > 20) return;
  }
}

async function stopped(promise: Promise<unknown>): Promise<EvaluationStopped> {
  const e = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(e).toBeInstanceOf(EvaluationStopped);
  return e as EvaluationStopped;
}

describe('evaluation pool', () => {
  it('answers a task with the worker reply', async () => {
    expect(await pool().run('acme', op({ op: 'echo', value: { a: [1, 2] } }))).toEqual({
      ok: true,
      value: { a: [1, 2] },
    });
  });

  it('stops a task past its published deadline by terminating its thread; the next task runs on a new one', async () => {
    const p = pool();
    const started = Date.now();
    const e = await stopped(p.run('acme', op({ op: 'spin', wallTimeMs: 300 })));
    const took = Date.now() - started;
    expect([e.status, e.code, e.message]).toEqual([
      422,
      'time-limit',
      'The evaluation exceeded its time limit of 5 s and was stopped.',
    ]);
    // deadline 300 ms + grace 200 ms + one watchdog period (100 ms), with slack for a busy machine
    expect(took).toBeGreaterThanOrEqual(500);
    expect(took).toBeLessThan(2_500);
    expect(await p.run('acme', op({ op: 'echo', value: 'after' }))).toEqual({ ok: true, value: 'after' });
  });

  it('stops a task that never starts an evaluation at the wall time', async () => {
    const p = pool({ wallTimeMs: 400 });
    await warm(p);
    const e = await stopped(p.run('acme', op({ op: 'sleep', ms: 10_000 })));
    expect(e.code).toBe('time-limit');
  });

  it('ends a heap overflow as its own task only (413), and keeps serving', async () => {
    const p = pool();
    const slow = p.run('globex', op({ op: 'sleep', ms: 300 }));
    const e = await stopped(p.run('acme', op({ op: 'grow' })));
    expect([e.status, e.code, e.message]).toEqual([
      413,
      'too-large',
      "The evaluation ran out of memory (an evaluation's heap is 64 MiB) and was stopped.",
    ]);
    expect(await slow).toEqual({ ok: true, value: 300 });
    expect(await p.run('acme', op({ op: 'echo', value: 1 }))).toEqual({ ok: true, value: 1 });
  });

  it("keeps a thread for the other accounts while one account's evaluations wait for theirs", async () => {
    const p = pool();
    const ended: string[] = [];
    const acme = [1, 2, 3].map((i) =>
      p.run('acme', op({ op: 'sleep', ms: 600 })).then(() => ended.push(`acme ${i}`)),
    );
    await new Promise((r) => setTimeout(r, 50));
    expect(await p.run('globex', op({ op: 'echo', value: 'quick' }))).toEqual({ ok: true, value: 'quick' });
    // globex did not wait for a turn behind acme: none of acme's sleeps has ended yet
    expect(ended).toEqual([]);
    // acme holds one thread at a time: its three sleeps take three turns
    const began = Date.now();
    await Promise.all(acme);
    expect(Date.now() - began).toBeGreaterThanOrEqual(2 * 600);
  });

  it("refuses past an account's queue with 429 and Retry-After", async () => {
    const p = pool({ accountQueue: 1 });
    await p.run('acme', op({ op: 'echo', value: 'warm' }));
    const first = p.run('acme', op({ op: 'sleep', ms: 200 }));
    await new Promise((r) => setTimeout(r, 20));
    const second = p.run('acme', op({ op: 'sleep', ms: 10 }));
    const e = await stopped(p.run('acme', op({ op: 'echo', value: 3 })));
    expect([e.status, e.code, e.retryAfter, e.message]).toEqual([
      429,
      'too-many-evaluations',
      1,
      'Too many evaluations of the account acme at once (1 running, 1 waiting): try again shortly.',
    ]);
    await Promise.all([first, second]);
  });

  it('counts the time a call waited for a thread against its wall time; a process task has its own', async () => {
    const p = pool({ threads: 1, wallTimeMs: 2_000 });
    await p.run('acme', op({ op: 'echo', value: 'warm' }));
    const busy = p.run('acme', op({ op: 'sleep', ms: 500 }));
    const room = await p.run('acme', op({ op: 'room' }));
    await busy;
    expect(room.ok && (room.value as number)).toBeLessThanOrEqual(1_550);
    expect(room.ok && (room.value as number)).toBeGreaterThan(1_000);
    const processTask = { kind: 'host' as const, method: 'startRequest' as const, args: [{ op: 'room' }] };
    expect(await p.run('acme', processTask)).toEqual({ ok: true, value: null });
  });

  it('refuses a task that waited its wall time for a thread', async () => {
    const p = pool({ threads: 1, wallTimeMs: 300, accountQueue: 10 });
    await warm(p);
    const busy = p.run('acme', op({ op: 'sleep', ms: 280 }));
    const waiting = p.run('acme', op({ op: 'sleep', ms: 280 })).catch(() => undefined);
    const third = p.run('acme', op({ op: 'echo', value: 'late' }));
    const e = await stopped(third);
    expect(e.code).toBe('too-many-evaluations');
    await busy;
    await waiting;
  });

  it('retries a thread that cannot start with a growing delay, and answers its calls 429 after the wall time', async () => {
    const broken = fileURLToPath(new URL('./fixtures/broken.mjs', import.meta.url));
    const p = pool({ wallTimeMs: 1_500 }, broken);
    const e = await stopped(p.run('acme', op({ op: 'echo', value: 1 })));
    expect(e.code).toBe('too-many-evaluations');
    // 3 threads failing from 0.25 s, doubling: a handful of starts in 1.5 s, not a spin
    expect(p.load.threads).toBe(0);
    expect(p.load.failedStarts).toBeGreaterThan(2);
    expect(p.load.failedStarts).toBeLessThan(16);
  });

  it("runs an account's tasks side by side on its thread, up to threadTasks", async () => {
    const p = pool({ threadTasks: 8 });
    await p.run('acme', op({ op: 'echo', value: 'warm' }));
    const began = Date.now();
    const sleeps = await Promise.all(
      Array.from({ length: 8 }, () => p.run('acme', op({ op: 'sleep', ms: 300 }))),
    );
    expect(sleeps).toEqual(Array(8).fill({ ok: true, value: 300 }));
    // eight 300 ms waits at once, not one after another (2.4 s)
    expect(Date.now() - began).toBeLessThan(1_200);
  });

  it("sends a task's reply while a sibling task keeps the thread busy (the messages of a turn leave together, but not later than the next budget check)", async () => {
    const p = pool({ threadTasks: 2 });
    await p.run('acme', op({ op: 'echo', value: 'warm' }));
    const began = Date.now();
    // sent in one turn: they reach the thread as one message, the echo first
    const echo = p
      .run('acme', op({ op: 'echo', value: 'quick' }))
      .then((r) => ({ r, at: Date.now() - began }));
    const busy = p.run('acme', op({ op: 'busy', ms: 2_000 })).then((r) => ({ r, at: Date.now() - began }));
    const [quick, slow] = await Promise.all([echo, busy]);
    expect(quick.r).toEqual({ ok: true, value: 'quick' });
    expect(slow.r).toEqual({ ok: true, value: 2_000 });
    expect(slow.at).toBeGreaterThanOrEqual(2_000);
    expect(quick.at).toBeLessThan(1_000);
  });

  it('never runs two accounts on one thread', async () => {
    const p = pool({ threads: 1, threadTasks: 4 });
    await p.run('acme', op({ op: 'echo', value: 'warm' }));
    const acme = p.run('acme', op({ op: 'sleep', ms: 400 }));
    await new Promise((r) => setTimeout(r, 50));
    const began = Date.now();
    expect(await p.run('globex', op({ op: 'echo', value: 'after acme' }))).toEqual({
      ok: true,
      value: 'after acme',
    });
    expect(Date.now() - began).toBeGreaterThanOrEqual(300);
    await acme;
  });

  it("answers a worker's error reply as it was sent, and a collection task's value", async () => {
    const p = pool();
    expect(await p.run('acme', op({ op: 'nothing' }))).toEqual({
      ok: false,
      error: { body: { status: 400, code: 'invalid', message: 'no op nothing' }, internal: false },
    });
    expect(
      await p.run('acme', { kind: 'collections', method: 'find', args: [{ op: 'echo', value: [1, 'two'] }] }),
    ).toEqual({ ok: true, value: [1, 'two'] });
  });

  it("gives a task the slot a finished sibling freed, never one a running task holds: the watchdog's stop reaches every task of the thread", async () => {
    const p = pool({ threadTasks: 3 });
    await p.run('acme', op({ op: 'echo', value: 'warm' }));
    const first = p.run('acme', op({ op: 'sleep', ms: 3_000 }));
    const quick = p.run('acme', op({ op: 'sleep', ms: 30 }));
    const third = p.run('acme', op({ op: 'sleep', ms: 3_000 }));
    expect(await quick).toEqual({ ok: true, value: 30 });
    // the quick task's slot is free again: the spin takes it and publishes its deadline there
    const spin = await stopped(p.run('acme', op({ op: 'spin', wallTimeMs: 300 })));
    expect([spin.status, spin.code]).toEqual([422, 'time-limit']);
    for (const sibling of [first, third]) {
      const e = await stopped(sibling);
      expect([e.status, e.code]).toEqual([503, 'unavailable']);
    }
    expect(await p.run('acme', op({ op: 'echo', value: 'again' }))).toEqual({ ok: true, value: 'again' });
  });

  it("stops a thread for the task that outran its deadline: 422 to it, 503 to its account's other tasks there, nothing to another account", async () => {
    const p = pool({ threadTasks: 4 });
    await Promise.all([
      p.run('acme', op({ op: 'echo', value: 1 })),
      p.run('globex', op({ op: 'echo', value: 1 })),
    ]);
    const sibling = p.run('acme', op({ op: 'sleep', ms: 3_000 }));
    const other = p.run('globex', op({ op: 'sleep', ms: 1_000 }));
    await new Promise((r) => setTimeout(r, 20));
    const spin = await stopped(p.run('acme', op({ op: 'spin', wallTimeMs: 300 })));
    expect([spin.status, spin.code]).toEqual([422, 'time-limit']);
    const e = await stopped(sibling);
    expect([e.status, e.code, e.retryAfter, e.message]).toEqual([
      503,
      'unavailable',
      1,
      'The evaluation was stopped with another evaluation of the account acme that outran its time limit on the same thread: try again.',
    ]);
    expect(await other).toEqual({ ok: true, value: 1_000 });
    expect(await p.run('acme', op({ op: 'echo', value: 'again' }))).toEqual({ ok: true, value: 'again' });
  });

  // A cluster worker whose supervisor died exits with process.exit; Node then stops its threads one
  // after another, and the last ones ran on (here ~30-400 ms, seconds under load) after the HTTP
  // thread had stopped renewing the leases of the steps they drove (test/server/durable.test.ts).
  it('stops every thread at once when its process exits: no task runs on once the process exits', async () => {
    expect(existsSync(BUILT_POOL), `${BUILT_POOL}: run npm run build`).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'flowmark-pool-exit-'));
    try {
      const file = join(dir, 'ticks');
      const child = spawn(process.execPath, [EXIT_WITH_POOL, BUILT_POOL, FIXTURE, file], { stdio: 'pipe' });
      let out = '';
      child.stderr.on('data', (c) => (out += c));
      const code = await new Promise((resolve) => child.once('exit', resolve));
      expect([code, out]).toEqual([0, '']);
      const lines = readFileSync(file, 'utf8').trim().split('\n');
      const exitedAt = Number(lines.find((l) => l.endsWith(' exit'))!.split(' ')[0]);
      // what the evaluation threads ran (a thread of a thread, as a script sandbox, stops with it)
      const ticks = lines.filter((l) => l.endsWith(' task')).map((l) => Number(l.split(' ')[0]));
      // the three threads were running until the exit
      expect(ticks.filter((t) => t > exitedAt - 100).length).toBeGreaterThan(3);
      expect(ticks.filter((t) => t > exitedAt).map((t) => `${t - exitedAt} ms after the exit`)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
