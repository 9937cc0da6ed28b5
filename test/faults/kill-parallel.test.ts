/**
 * The kill -9 fault test of parallel branches (docs/hosts.md, "Tokens, joins and recovery"), on
 * two real `flowmark serve` processes sharing PostgreSQL (the built dist/: `npm run build` first).
 * Each request forks: its run's own token waits for a 2 s timer, then runs Left; the other branch
 * is a token row that waits inside Right (for a lock the test holds); both join before After.
 * Half the requests start on A, half on B; once every Right runs, A is killed with SIGKILL, the
 * lock is released, and B resumes A's tokens one by one (their leases expired) and fires the
 * timers: every request completes, each join fires once, no flow node is recorded twice.
 *
 * FLOWMARK_FAULT_REQUESTS sets how many requests (default 20).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createPlatform, type Platform } from '../../src/platform/index.js';
import { sql, type Store } from '../../src/store/index.js';
import { until } from '../support/cli.js';
import { availableEngines } from '../support/engines.js';
import { signInFirstAdmin, useServers, type Served } from '../support/serve.js';
import { call } from '../server/support.js';

const COUNT = Number(process.env.FLOWMARK_FAULT_REQUESTS ?? 20);
const LEASE_MS = 3000;

const MODEL = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="D" targetNamespace="urn:t">
  <bpmn:process id="Branches" name="Branches" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:parallelGateway id="fork" />
    <bpmn:intermediateCatchEvent id="Wait">
      <bpmn:timerEventDefinition><bpmn:timeDuration>PT2S</bpmn:timeDuration></bpmn:timerEventDefinition>
    </bpmn:intermediateCatchEvent>
    <bpmn:scriptTask id="Left" name="Left"><bpmn:script>\${next_value("left")?c}</bpmn:script></bpmn:scriptTask>
    <bpmn:scriptTask id="Right" name="Right"><bpmn:script>\${R_lock("gate", 60000)}\${R_unlock("gate")}\${next_value("right")?c}</bpmn:script></bpmn:scriptTask>
    <bpmn:parallelGateway id="join" />
    <bpmn:scriptTask id="After" name="After"><bpmn:script>\${P_branch_left?c} \${P_branch_right}</bpmn:script></bpmn:scriptTask>
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f0" sourceRef="start" targetRef="fork" />
    <bpmn:sequenceFlow id="f1" name="left" sourceRef="fork" targetRef="Wait" />
    <bpmn:sequenceFlow id="f2" sourceRef="Wait" targetRef="Left" />
    <bpmn:sequenceFlow id="f3" sourceRef="Left" targetRef="join" />
    <bpmn:sequenceFlow id="f4" name="right" sourceRef="fork" targetRef="Right" />
    <bpmn:sequenceFlow id="f5" sourceRef="Right" targetRef="join" />
    <bpmn:sequenceFlow id="f6" sourceRef="join" targetRef="After" />
    <bpmn:sequenceFlow id="f7" sourceRef="After" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>`;

/** The fields of /proc/<pid>/stat after the command's name: state, ppid … */
function statOf(pid: number | string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** The processes `pid` started (a supervisor's workers). */
function childrenOf(pid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return [];
  }
  return entries.filter((d) => statOf(d)?.[1] === String(pid)).map(Number);
}

function ended(pid: number): boolean {
  const stat = statOf(pid);
  return stat === undefined || stat[0] === 'Z';
}

/** The URL a server serves on once it listens (2 min at most: a loaded 2-core machine starts one slowly). */
const urlOf = (server: Served): Promise<string> =>
  until(
    async () => /serving on (http:\/\/127\.0\.0\.1:\d+)/.exec(server.out)?.[1],
    'the server to listen',
    120_000,
  );

async function count(store: Store, query: ReturnType<typeof sql>): Promise<number> {
  return Number((await store.get<{ n: number }>(query))?.n ?? 0);
}

const engines = availableEngines().filter((e) => e === 'postgres');
describe.runIf(engines.length > 0)(
  'kill -9 a server while requests run parallel branches and timers [postgres]',
  () => {
    const servers = useServers('fault-branches');
    const serve = () => servers.start({ FLOWMARK_LEASE_MS: String(LEASE_MS), FLOWMARK_SWEEP_MS: '200' });

    it(`${COUNT} forked requests complete, each join once, no node recorded twice`, async () => {
      const db = await servers.open('postgres');
      const platform: Platform = createPlatform(db);
      const a = serve();
      const urlA = await urlOf(a);
      const cookie = await signInFirstAdmin(a, urlA);
      const b = serve();
      const urlB = await urlOf(b);
      const saved = await call(urlA, 'POST', '/api/v1/processes', {
        cookie,
        body: MODEL,
        headers: { 'content-type': 'application/xml' },
      });
      expect(saved.status).toBe(201);
      expect(
        await platform.locks.tryAcquire('default', 'gate', 'test', Date.now(), Date.now() + 3_600_000),
      ).toBe(true);
      const started = Array.from({ length: COUNT }, (_, i) =>
        call(i % 2 === 1 ? urlB : urlA, 'POST', '/api/v1/requests', {
          cookie,
          body: { process: 'Branches', mode: 'TEST', data: { i } },
        }).then(
          (r) => r.status,
          () => 'connection lost',
        ),
      );
      // Every Right runs (a token row of its own) while the run's own token waits for its timer.
      await until(
        async () => {
          const n = await count(
            db,
            sql`SELECT COUNT(*) AS n FROM request_steps WHERE step_id = 2 AND status = 'running'`,
          );
          return n === COUNT ? n : undefined;
        },
        `${COUNT} branches waiting inside Right`,
        90_000,
      );
      expect(await count(db, sql`SELECT COUNT(*) AS n FROM process_tokens`)).toBe(COUNT);

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
      const answers = await Promise.all(started);
      // A's workers lose their primary and stop: a start still in flight then either loses its
      // connection or is answered as stored and running (its request is durable: B resumes it)
      for (const answer of answers.filter((_, i) => i % 2 === 0))
        expect(['connection lost', 201]).toContain(answer);
      expect(new Set(answers.filter((_, i) => i % 2 === 1))).toEqual(new Set([201]));

      await until(
        async () => {
          const n = await count(db, sql`SELECT COUNT(*) AS n FROM requests WHERE status = 201`);
          return n === COUNT ? n : undefined;
        },
        `${COUNT} requests to complete`,
        120_000,
      ).catch(async (e: unknown) => {
        // what is left, to tell where a request stopped
        const rows = (q: ReturnType<typeof sql>) => db.all(q).then((r) => JSON.stringify(r));
        console.log(
          await rows(sql`SELECT request_id, step_id, status FROM request_steps ORDER BY request_id, id`),
          await rows(sql`SELECT id, status, p_message FROM requests`),
          await rows(sql`SELECT request_id, cursor, lease_owner, lease_expires FROM process_tokens`),
          await rows(sql`SELECT request_id, cursor, lease_owner, lease_expires FROM process_runs`),
          await rows(sql`SELECT * FROM process_timers`),
          await rows(sql`SELECT * FROM process_join_arrivals`),
          b.out.slice(-3000),
        );
        throw e;
      });
      const took = Date.now() - killedAt;
      const statuses = await db.all(sql`SELECT status, COUNT(*) AS n FROM requests GROUP BY status`);
      expect(statuses.map((r) => [Number(r.status), Number(r.n)])).toEqual([[201, COUNT]]);
      // No flow node recorded twice; each request: Right, Left, After, all done.
      expect(
        await db.all(
          sql`SELECT request_id, step_id FROM request_steps GROUP BY request_id, step_id HAVING COUNT(*) > 1`,
        ),
      ).toEqual([]);
      expect(await count(db, sql`SELECT COUNT(*) AS n FROM request_steps WHERE status = 'done'`)).toBe(
        3 * COUNT,
      );
      expect(await count(db, sql`SELECT COUNT(*) AS n FROM request_steps`)).toBe(3 * COUNT);
      // Each join fired once (After ran once per request, seeing both branches); nothing is left of the branches.
      const after = await db.all<{ result: string }>(sql`SELECT result FROM request_steps WHERE step_id = 3`);
      expect(after).toHaveLength(COUNT);
      // Left's counter, and Right's result (what its locks printed, its counter)
      for (const row of after) expect(JSON.parse(row.result)).toMatch(/^\d+ gategate\d+$/);
      expect(await count(db, sql`SELECT COUNT(*) AS n FROM process_tokens`)).toBe(0);
      expect(await count(db, sql`SELECT COUNT(*) AS n FROM process_join_arrivals`)).toBe(0);
      expect(await count(db, sql`SELECT COUNT(*) AS n FROM process_timers WHERE fired_at IS NULL`)).toBe(0);
      // Right ran after the gate opened only: once per request.
      expect(await platform.counters.current('default', 'right')).toBe(COUNT);
      await until(
        async () =>
          (await count(db, sql`SELECT COUNT(*) AS n FROM process_runs WHERE lease_expires IS NOT NULL`)) === 0
            ? true
            : undefined,
        'every run to give its lease up',
        10_000,
      );
      console.log(
        `kill -9 with branches: ${COUNT} requests completed ${took} ms after the kill (lease ${LEASE_MS} ms)`,
      );
    }, 480_000);
  },
);
