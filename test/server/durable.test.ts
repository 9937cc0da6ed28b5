/**
 * The kill -9 fault test (docs/hosts.md, "Durable requests and timers"), on real `flowmark serve`
 * processes (the built dist/: `npm run build` first). Requests of three script steps are started
 * (PostgreSQL: half on server A, half on server B; SQLite: on the one server A); each commits
 * step 1 and waits inside step 2 (for a lock the test holds); A is killed with SIGKILL; the lock
 * is released and the surviving server — B, or A restarted on SQLite — resumes A's requests:
 * all complete once, no step recorded twice, no request left running, step 1 not run again.
 *
 * FLOWMARK_FAULT_REQUESTS sets how many requests (default 40; the figure is 200).
 *
 * `flowmark serve` is a supervisor and its worker processes: A's workers outlive the SIGKILL of its
 * supervisor until they notice it (then they exit), so the lock is released only once they have
 * ended. Released earlier, an exiting worker could run step 2 of some of its requests and die
 * before committing it, and the survivor would run it again (a step cut short repeats its effects).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createPlatform, type Platform } from '../../src/platform/index.js';
import { sql, type Store } from '../../src/store/index.js';
import { until } from '../support/cli.js';
import { availableEngines } from '../support/engines.js';
import { signInFirstAdmin, urlOf, useServers } from '../support/serve.js';
import { call } from './support.js';

const COUNT = Number(process.env.FLOWMARK_FAULT_REQUESTS ?? 40);
const LEASE_MS = 3000;

const PROCESS = {
  name: 'Fault',
  steps: [
    { id: 1, name: 'One', script: '${next_value("one")?c}', output: { first: '${P_result?c}' } },
    {
      id: 2,
      name: 'Two',
      input: { tries: '${((tries!0) + 1)?c}', gate: '${R_lock("gate", 40000)}${R_unlock("gate")}' },
      script: '${next_value("two")?c}',
    },
    { id: 3, name: 'Three', script: '{"first": ${first?c}, "tries": ${tries?c}}' },
  ],
};

/** The fields of /proc/<pid>/stat after the command's name (which may hold spaces): state, ppid … */
function statOf(pid: number | string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** The processes `pid` started (a supervisor's workers); none where there is no /proc. */
function childrenOf(pid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return [];
  }
  return entries.filter((d) => statOf(d)?.[1] === String(pid)).map(Number);
}

/** True once the process has ended: gone, or a zombie nobody reaped yet. */
function ended(pid: number): boolean {
  const stat = statOf(pid);
  return stat === undefined || stat[0] === 'Z';
}

async function count(store: Store, query: ReturnType<typeof sql>): Promise<number> {
  return Number((await store.get<{ n: number }>(query))?.n ?? 0);
}

for (const engine of availableEngines()) {
  describe(`kill -9 a server mid-request [${engine}]`, () => {
    const servers = useServers('fault');
    // A lease must outlast the longest stall of a live server's renewals: 3 s holds on a 2-core
    // machine at load 10 (with 1.5 s, one run in several there let a live request's lease lapse
    // and its step run twice), and keeps the recovery quick.
    const serve = () => servers.start({ FLOWMARK_LEASE_MS: String(LEASE_MS), FLOWMARK_SWEEP_MS: '200' });

    it(`${COUNT} requests of 3 steps complete exactly once on the surviving server`, async () => {
      const db = await servers.open(engine);
      const platform: Platform = createPlatform(db);

      const a = serve();
      const urlA = await urlOf(a);
      // B starts once A has made the first account and printed its login: started as soon as A
      // listened, B did not come up within 30 s in 2 runs of 3 on PostgreSQL (issue 31's session).
      const cookie = await signInFirstAdmin(a, urlA);
      const b = engine === 'postgres' ? serve() : undefined;
      const urlB = b ? await urlOf(b) : urlA;
      expect((await call(urlA, 'POST', '/api/v1/processes', { cookie, body: PROCESS })).status).toBe(201);

      // The gate: every request waits inside step 2 until the test lets it through.
      expect(
        await platform.locks.tryAcquire('default', 'gate', 'test', Date.now(), Date.now() + 3_600_000),
      ).toBe(true);
      // On PostgreSQL the requests are shared: even ones started on A, odd ones on B.
      const started = Array.from({ length: COUNT }, (_, i) =>
        call(i % 2 === 1 ? urlB : urlA, 'POST', '/api/v1/requests', {
          cookie,
          body: { process: 'Fault', mode: 'TEST', data: { i } },
        }).then(
          (r) => r.status,
          () => 'connection lost',
        ),
      );
      await until(
        async () => {
          const n = await count(
            db,
            sql`SELECT COUNT(*) AS n FROM request_steps WHERE step_id = 2 AND status = 'running'`,
          );
          return n === COUNT ? n : undefined;
        },
        `${COUNT} requests waiting inside step 2`,
        90_000,
      );
      expect(
        await count(db, sql`SELECT COUNT(*) AS n FROM request_steps WHERE step_id = 1 AND status = 'done'`),
      ).toBe(COUNT);

      const workersOfA = childrenOf(a.child.pid!);
      a.child.kill('SIGKILL');
      await a.exited;
      await until(
        async () => (workersOfA.every(ended) ? true : undefined),
        "A's worker processes to end",
        30_000,
      );
      const killedAt = Date.now();
      expect(await platform.locks.release('default', 'gate', 'test')).toBe(true);
      // A's callers lost their connection; B's got their answer once the gate opened.
      const answers = await Promise.all(started);
      expect(new Set(answers.filter((_, i) => !b || i % 2 === 0))).toEqual(new Set(['connection lost']));
      if (b) expect(new Set(answers.filter((_, i) => i % 2 === 1))).toEqual(new Set([201]));
      const survivor = b ?? serve();
      await urlOf(survivor);

      await until(
        async () => {
          const n = await count(db, sql`SELECT COUNT(*) AS n FROM requests WHERE status = 201`);
          return n === COUNT ? n : undefined;
        },
        `${COUNT} requests to complete`,
        90_000,
      );
      const took = Date.now() - killedAt;

      const statuses = await db.all(sql`SELECT status, COUNT(*) AS n FROM requests GROUP BY status`);
      expect(statuses.map((r) => [Number(r.status), Number(r.n)])).toEqual([[201, COUNT]]);
      // No step recorded twice, every record done: 3 per request.
      expect(
        await db.all(
          sql`SELECT request_id, step_id FROM request_steps GROUP BY request_id, step_id HAVING COUNT(*) > 1`,
        ),
      ).toEqual([]);
      expect(await count(db, sql`SELECT COUNT(*) AS n FROM request_steps WHERE status = 'done'`)).toBe(
        3 * COUNT,
      );
      expect(await count(db, sql`SELECT COUNT(*) AS n FROM request_steps`)).toBe(3 * COUNT);
      // A request's final status commits before its run gives its lease up (the run's end is last):
      // no run is left leased once the last ones have finished ending.
      await until(
        async () =>
          (await count(db, sql`SELECT COUNT(*) AS n FROM process_runs WHERE lease_expires IS NOT NULL`)) === 0
            ? true
            : undefined,
        'every run to give its lease up',
        10_000,
      );
      // Step 1 committed before the kill and never ran again; step 2 re-ran from its start, once each.
      expect(await platform.counters.current('default', 'one')).toBe(COUNT);
      expect(await platform.counters.current('default', 'two')).toBe(COUNT);
      const results = await db.all<{ result: string }>(
        sql`SELECT result FROM request_steps WHERE step_id = 3`,
      );
      expect(results.map((r) => JSON.parse(r.result).tries)).toEqual(Array(COUNT).fill(1));
      expect(results.map((r) => JSON.parse(r.result).first as number).sort((x, y) => x - y)).toEqual(
        Array.from({ length: COUNT }, (_, i) => i + 1),
      );
      console.log(
        `kill -9 [${engine}]: ${COUNT} requests completed ${took} ms after the kill (lease ${LEASE_MS} ms)`,
      );
    }, 180_000);
  });
}
