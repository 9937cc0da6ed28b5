/**
 * One account's share of the evaluation pool under the default policy (src/isolation/settings.ts,
 * docs/server.md "Isolation"): an account may hold as many threads as the cores across a server's
 * processes, and each process keeps one thread more, so an account alone uses every core, and
 * another account always finds a thread, however long the first one's evaluations run.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EvaluationPool } from '../../src/isolation/pool.js';
import { poolSettingsFromEnv } from '../../src/isolation/settings.js';
import { FIXTURE, op } from './fixture.js';

const pools: EvaluationPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

/** A pool with the default thread counts of one server process on 2 cores (3, 2 for an account), one task a thread. */
function pool(): EvaluationPool {
  const defaults = poolSettingsFromEnv({}, 1, 2);
  const p = new EvaluationPool(
    { ...defaults, heapMb: 64, threadTasks: 1, accountQueue: 16, wallTimeMs: 10_000, graceMs: 200 },
    { limits: {}, evaluationLimits: {}, scripts: {} },
    { handler: FIXTURE },
  );
  pools.push(p);
  return p;
}

/** Until every thread is up: one echo per thread at once. */
async function warm(p: EvaluationPool): Promise<void> {
  for (let i = 0; i < 50 && p.load.threads < p.settings.threads + 1; i++)
    await new Promise((r) => setTimeout(r, 100));
}

describe('evaluation pool: one account alone, then another', () => {
  it("gives one account as many threads as the cores across a server's processes, and each process one more", () => {
    const shares = (env: NodeJS.ProcessEnv, processes: number, cores: number) => {
      const s = poolSettingsFromEnv(env, processes, cores);
      return [s.threads, s.accountThreads];
    };
    // 2 cores: one process of 3 threads, 2 for an account; serve's default 2 processes of 2, 1 each
    expect(shares({}, 1, 2)).toEqual([3, 2]);
    expect(shares({}, 2, 2)).toEqual([2, 1]);
    expect(shares({}, 8, 2)).toEqual([2, 1]);
    expect(shares({}, 2, 8)).toEqual([5, 4]);
    expect(shares({}, 1, 1)).toEqual([2, 1]);
    // set thread counts keep the spare while the cores allow; a set account share is taken as set
    expect(shares({ FLOWMARK_EVAL_WORKERS: '1' }, 1, 2)).toEqual([1, 1]);
    expect(shares({ FLOWMARK_EVAL_WORKERS: '2' }, 1, 2)).toEqual([2, 1]);
    expect(shares({ FLOWMARK_EVAL_WORKERS: '6' }, 1, 2)).toEqual([6, 2]);
    expect(shares({ FLOWMARK_EVAL_WORKERS: '3', FLOWMARK_EVAL_ACCOUNT_WORKERS: '3' }, 1, 2)).toEqual([3, 3]);
  });

  it('runs an account alone on two threads at once, not on three', async () => {
    const p = pool();
    await warm(p);
    const began = Date.now();
    await Promise.all([1, 2, 3, 4].map(() => p.run('acme', op({ op: 'sleep', ms: 500 }))));
    const took = Date.now() - began;
    // four 500 ms evaluations in two turns of two (one thread: 2 s; three threads: 1 s, two turns still)
    expect(took).toBeGreaterThanOrEqual(1_000);
    expect(took).toBeLessThan(1_500);
    const six = Date.now();
    await Promise.all([1, 2, 3, 4, 5, 6].map(() => p.run('acme', op({ op: 'sleep', ms: 300 }))));
    // six in three turns of two (three threads would take two turns: 600 ms)
    expect(Date.now() - six).toBeGreaterThanOrEqual(900);
  });

  it("answers another account at once while one account's CPU-bound evaluations hold all it may, and keeps its turn", async () => {
    const p = pool();
    await warm(p);
    const ended: string[] = [];
    const hostile = Array.from({ length: 6 }, (_, i) =>
      p.run('acme', op({ op: 'busy', ms: 1_500 })).then(() => ended.push(`acme ${i}`)),
    );
    await new Promise((r) => setTimeout(r, 100));
    expect(p.load).toMatchObject({ running: 2, waiting: 4 });
    for (let i = 0; i < 5; i++) {
      const began = Date.now();
      expect(await p.run('globex', op({ op: 'echo', value: i }))).toEqual({ ok: true, value: i });
      expect(Date.now() - began).toBeLessThan(250);
    }
    // none of acme's evaluations had to end for globex's five calls to run
    expect(ended).toEqual([]);
    await Promise.all(hostile);
  });

  it('gives a second account its thread while a first holds two: a third account waits for a turn', async () => {
    const p = pool();
    await warm(p);
    const acme = [1, 2].map(() => p.run('acme', op({ op: 'sleep', ms: 800 })));
    await new Promise((r) => setTimeout(r, 50));
    const initech = p.run('initech', op({ op: 'sleep', ms: 800 }));
    await new Promise((r) => setTimeout(r, 50));
    const began = Date.now();
    expect(await p.run('globex', op({ op: 'echo', value: 'after a turn' }))).toEqual({
      ok: true,
      value: 'after a turn',
    });
    // every thread was held (acme two, initech one): globex ran once one of them ended
    expect(Date.now() - began).toBeGreaterThanOrEqual(600);
    await Promise.all([...acme, initech]);
  });
});
