/**
 * PostgreSQL stopped and restarted under a running `flowmark serve` (the built CLI, one worker
 * under the supervisor), on a throw-away cluster of the test's own (initdb + pg_ctl; skipped when
 * the server binaries are not installed or FLOWMARK_TEST_PG is not set, as in CI where both are):
 * while it is down every API call answers `503 unavailable` with Retry-After and /ready 503; no
 * answer is a 500 or a dropped connection; no worker exits; once it is back, calls succeed again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, spawnFlowmark } from '../support/cli.js';
import { call, sessionCookie, type Reply } from '../server/support.js';
import { freePort, postgresBin, throwAwayCluster, type Cluster } from './support.js';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';

const UNAVAILABLE = {
  status: 503,
  code: 'unavailable',
  message: 'the database is unavailable: try again in a moment',
};

async function until<T>(probe: () => Promise<T | undefined>, what: string, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!process.env.FLOWMARK_TEST_PG || !postgresBin())(
  'PostgreSQL stopped under a running server',
  () => {
    let cluster: Cluster;
    let child: ChildProcessWithoutNullStreams;
    let out: { out: string; err: string };
    let url: string;
    let token: string;
    beforeAll(async () => {
      cluster = throwAwayCluster(await freePort());
      child = spawnFlowmark(['serve', '--port', '0', '--workers', '1', '--log-level', 'fatal'], {
        env: { DATABASE_URL: cluster.url, FLOWMARK_SWEEP_MS: '200', FLOWMARK_LEASE_MS: '2000' },
      });
      out = collect(child);
      const password = await until(async () => /password: (\S+)\n/.exec(out.out)?.[1], 'serve to start');
      url = /serving on (http:\/\/\S+)/.exec(out.out)![1]!;
      const login = await call(url, 'POST', '/api/v1/auth/login', {
        body: { account: 'default', login: 'admin', password },
      });
      const cookie = sessionCookie(login.headers);
      token = (await call(url, 'POST', '/api/v1/tokens', { cookie, body: { name: 'faults' } })).body.token;
    }, 60_000);
    afterAll(async () => {
      if (child && child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      cluster?.destroy();
    });

    it('answers 503 with Retry-After while it is down, and serves again once it is back', async () => {
      expect((await call(url, 'GET', '/ready')).status).toBe(200);
      // Load through the outage: every answer is a success or a 503, never a 500 or a reset.
      const answers: Array<number | string> = [];
      let loading = true;
      const load = (async () => {
        for (let i = 0; loading; i++) {
          const r = await call(url, i % 2 ? 'GET' : 'POST', i % 2 ? '/api/v1/account' : '/api/v1/processes', {
            token,
            ...(i % 2 ? {} : { body: { name: `p${i}`, steps: [{ id: 1, script: '1' }] } }),
          }).then(
            (reply: Reply) => reply.status,
            (e: Error) => `${e.name}: ${(e.cause as Error | undefined)?.message ?? e.message}`,
          );
          answers.push(r);
        }
      })();
      await new Promise((r) => setTimeout(r, 300));
      cluster.stop('fast');

      const account = await call(url, 'GET', '/api/v1/account', { token });
      expect(account.body).toEqual(UNAVAILABLE);
      expect(account.headers.get('retry-after')).toBe('2');
      const start = await call(url, 'POST', '/api/v1/requests', { token, body: { process: 'p0' } });
      expect(start.body).toEqual(UNAVAILABLE);
      const ready = await call(url, 'GET', '/ready');
      expect(ready.body).toEqual({ status: 503, code: 'unavailable', message: 'The store is unreachable.' });
      expect(ready.headers.get('retry-after')).toBe('2');
      const health = await call(url, 'GET', '/health');
      expect(health.body).toEqual({ status: 503, code: 'unavailable', message: 'The store is unreachable.' });
      expect(health.headers.get('retry-after')).toBe('2');

      await new Promise((r) => setTimeout(r, 1000));
      cluster.start();
      const back = Date.now();
      await until(
        async () =>
          (await call(url, 'GET', '/api/v1/account', { token })).status === 200 ? true : undefined,
        'the API to answer again',
      );
      const recoveryMs = Date.now() - back;
      console.log(`[pg stopped] API answered 200 again ${recoveryMs} ms after PostgreSQL was back`);
      expect(recoveryMs).toBeLessThan(2000);
      await new Promise((r) => setTimeout(r, 300));
      loading = false;
      await load;
      const kinds = [...new Set(answers)].sort();
      console.log(`[pg stopped] ${answers.length} calls through the outage: ${JSON.stringify(kinds)}`);
      expect(answers.filter((a) => a !== 200 && a !== 201 && a !== 503)).toEqual([]);
      expect(answers).toContain(503);
      // No worker died (the supervisor tells every exit).
      expect(out.out).not.toMatch(/worker \d+ \(pid \d+\) .*restarting it/);
      expect(child.exitCode).toBeNull();
      expect((await call(url, 'GET', '/ready')).status).toBe(200);
    }, 60_000);

    it('a crash-restart (-m immediate) under load of request starts: no worker exits, every confirmed request completes once', async () => {
      const definition = {
        name: 'two',
        steps: [
          { id: 1, script: '${next_value("a")?c}' },
          { id: 2, script: '2' },
        ],
      };
      expect((await call(url, 'POST', '/api/v1/processes', { token, body: definition })).status).toBe(201);
      const confirmed = new Map<string, string>(); // Idempotency-Key → request id
      const failed: string[] = [];
      const statuses: Array<number | string> = [];
      let loading = true;
      const starter = async (lane: number) => {
        for (let i = 0; loading; i++) {
          const key = `k-${lane}-${i}`;
          // A client that retries with the same key until it gets an answer that is not a 503.
          for (;;) {
            const r = await call(url, 'POST', '/api/v1/requests', {
              token,
              body: { process: 'two' },
              headers: { 'idempotency-key': key },
            }).then(
              (reply: Reply) => reply,
              (e: Error) => `${e.name}: ${(e.cause as Error | undefined)?.message ?? e.message}`,
            );
            statuses.push(typeof r === 'string' ? r : r.status);
            if (typeof r !== 'string' && r.status === 201) {
              confirmed.set(key, r.body.id as string);
              break;
            }
            if (typeof r === 'string' || r.status !== 503) {
              failed.push(`${key}: ${typeof r === 'string' ? r : JSON.stringify(r.body)}`);
              break;
            }
            await new Promise((res) => setTimeout(res, 100));
          }
        }
      };
      const lanes = [starter(0), starter(1), starter(2)];
      await new Promise((r) => setTimeout(r, 500));
      cluster.stop('immediate');
      await new Promise((r) => setTimeout(r, 500));
      cluster.start();
      await new Promise((r) => setTimeout(r, 1000));
      loading = false;
      await Promise.all(lanes);
      console.log(
        `[pg immediate] ${confirmed.size} requests confirmed; answers ${JSON.stringify([...new Set(statuses)].sort())}`,
      );
      expect(failed).toEqual([]);
      expect(statuses).toContain(503);
      // Each confirmed request is there once and completes (the sweeper resumes an interrupted run).
      const ids = [...confirmed.values()];
      expect(new Set(ids).size).toBe(ids.length);
      // And no other: a start answered 503 and retried with its key was not started twice.
      expect((await call(url, 'GET', '/api/v1/requests?nb=1', { token })).body.total).toBe(ids.length);
      for (const id of ids)
        await until(async () => {
          const r = await call(url, 'GET', `/api/v1/requests/${id}`, { token });
          return r.status === 200 && r.body.status === 201 ? true : undefined;
        }, `request ${id} to complete`);
      expect(out.out).not.toMatch(/worker \d+ \(pid \d+\) .*restarting it/);
      expect(child.exitCode).toBeNull();
    }, 90_000);
  },
);
