/**
 * GET /metrics (docs/deploy.md "Metrics") on the real server — the built CLI, its supervisor and
 * two worker processes, each with its evaluation threads: the exposition parses as the Prometheus
 * text format; the families are there after a few requests; what the workers' threads counted is
 * summed exactly (every eval counted once, whichever worker took it); only an administrator of the
 * first account reads it; FLOWMARK_METRICS_PORT moves it to a port of its own.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { collect, finished, flowmark, spawnFlowmark, until } from '../support/cli.js';
import { availableEngines, createTestSchema, dropTestSchema } from '../support/engines.js';
import { call, login } from './support.js';
import { freePort } from '../faults/support.js';

const dirs: string[] = [];
const schemas: string[] = [];
const children: ChildProcessWithoutNullStreams[] = [];
// Each test's server stops after it: left running, it would take its share of the CPU from the next.
afterEach(async () => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) {
      const done = finished(child, 20_000);
      child.kill('SIGTERM');
      await done.catch(() => undefined);
    }
});
afterAll(async () => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  for (const s of schemas) await dropTestSchema(s);
});

async function serve(engine: string, extraEnv: Record<string, string> = {}, workers = '2') {
  const dir = mkdtempSync(join(tmpdir(), 'flowmark-metrics-'));
  dirs.push(dir);
  let databaseUrl = '';
  if (engine === 'postgres') {
    const s = await createTestSchema('metrics');
    schemas.push(s.schema);
    databaseUrl = s.databaseUrl;
  }
  const env = { FLOWMARK_DATA: dir, DATABASE_URL: databaseUrl, FLOWMARK_EVAL_TIME_MS: '5000', ...extraEnv };
  const server = spawnFlowmark(['serve', '--port', '0', '--workers', workers, '--log-level', 'warn'], {
    env,
  });
  children.push(server);
  const text = collect(server);
  const url = await until(
    () => /^flowmark: serving on (http:\/\/127\.0\.0\.1:\d+) /m.exec(text.out)?.[1],
    'the banner',
    60_000,
  );
  const password = await until(() => /password: (\S+)/.exec(text.out)?.[1], 'the password');
  return { url, password, env };
}

/**
 * The value of one series (a histogram's by its `_count`), 0 when it does not exist. The families
 * are checked by the parser (which refuses a malformed line); it flattens a histogram's labelled
 * series into one, so values are read from the lines themselves.
 */
function sample(text: string, family: string, labels: Record<string, string> = {}): number {
  const found = parsePrometheusTextFormat(text).find((f) => f.name === family);
  if (!found) throw new Error(`no family ${family} in the exposition`);
  const name = found.type === 'HISTOGRAM' ? `${family}_count` : family;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const own = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => own[k] === v)) return Number(m[3]);
  }
  return 0;
}

for (const engine of availableEngines())
  describe(`GET /metrics [${engine}]`, () => {
    it("sums every worker and thread, parses as Prometheus text, and is for the first account's administrators", async () => {
      const { url, password, env } = await serve(engine);
      const admin = await login(url, 'default', 'admin', password);
      const post = (path: string, body: unknown, cookie = admin) => call(url, 'POST', path, { cookie, body });
      const token = (await post('/api/v1/tokens', { name: 'prometheus' })).body.token as string;
      const scrape = async () => {
        const r = await call(url, 'GET', '/metrics', { token });
        expect(r.status, String(r.body)).toBe(200);
        expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
        return r.body as string;
      };
      const before = await scrape();
      const evalsBefore = sample(before, 'flowmark_evaluation_duration_seconds', {
        surface: 'eval',
        outcome: 'ok',
      });

      // 8 evals over new connections (the two workers share them), 2 of them running a script
      for (let i = 0; i < 8; i++) {
        const template = i < 2 ? '<@script>RMPData.setOutput("s")</@script>' : '${1 + 1}';
        const r = await call(url, 'POST', '/api/v1/eval', {
          cookie: admin,
          body: { template },
          headers: { connection: 'close' },
        });
        expect(r.status).toBe(200);
      }
      // one evaluation past its time limit, one process request to its end, one waiting at a task
      const slow = await post('/api/v1/eval', { template: '<#list 1..100000000 as i></#list>' });
      expect(slow.body.error?.message ?? slow.body.code).toBeTruthy();
      expect(
        (
          await post('/api/v1/processes', {
            name: 'Quick',
            steps: [{ id: 1, name: 'One', script: '${1}' }],
          })
        ).status,
      ).toBe(201);
      expect((await post('/api/v1/requests', { process: 'Quick', mode: 'TEST' })).body.status).toBe(201);
      expect(
        (
          await post('/api/v1/processes', {
            name: 'Waits',
            steps: [{ id: 1, type: 'manual', name: 'Approve', fields: ['decision'] }],
          })
        ).status,
      ).toBe(201);
      expect((await post('/api/v1/requests', { process: 'Waits', mode: 'TEST' })).body.status).toBe(102);

      const after = await scrape();
      const families = new Set(parsePrometheusTextFormat(after).map((f) => f.name));
      for (const name of [
        'flowmark_http_request_duration_seconds',
        'flowmark_evaluation_duration_seconds',
        'flowmark_script_runs_total',
        'flowmark_process_requests_total',
        'flowmark_store_transaction_duration_seconds',
        'flowmark_pool_tasks_running',
        'flowmark_pool_tasks_waiting',
        'flowmark_pool_threads',
        'flowmark_open_tasks',
        'flowmark_timers_due',
        'flowmark_process_cpu_seconds_total',
      ])
        expect(families, name).toContain(name);
      // every eval once, whichever worker and thread ran it
      expect(
        sample(after, 'flowmark_evaluation_duration_seconds', { surface: 'eval', outcome: 'ok' }) -
          evalsBefore,
      ).toBe(8);
      expect(
        sample(after, 'flowmark_evaluation_duration_seconds', { surface: 'eval', outcome: 'template-error' }),
      ).toBe(1);
      expect(
        sample(after, 'flowmark_evaluation_duration_seconds', { surface: 'process', outcome: 'ok' }),
      ).toBe(2);
      expect(
        sample(after, 'flowmark_http_request_duration_seconds', {
          method: 'POST',
          route: '/api/v1/eval',
          status: '200',
        }),
      ).toBe(9);
      expect(sample(after, 'flowmark_script_runs_total', { engine: 'javascript', outcome: 'ok' })).toBe(2);
      expect(sample(after, 'flowmark_process_requests_total', { status: '201' })).toBe(1);
      expect(sample(after, 'flowmark_process_requests_total', { status: '102' })).toBe(1);
      expect(sample(after, 'flowmark_open_tasks')).toBe(1);
      expect(sample(after, 'flowmark_timers_due')).toBe(0);
      expect(sample(after, 'flowmark_pool_threads')).toBeGreaterThanOrEqual(2);
      expect(
        sample(after, 'flowmark_store_transaction_duration_seconds', { engine, outcome: 'commit' }),
      ).toBeGreaterThan(0);

      // who may read them
      expect((await call(url, 'GET', '/metrics')).status).toBe(401);
      expect(
        (await post('/api/v1/users', { login: 'plain', password: 'plain password 1', name: 'Plain' })).status,
      ).toBe(201);
      const plain = await login(url, 'default', 'plain', 'plain password 1');
      const refused = await call(url, 'GET', '/metrics', { cookie: plain });
      expect([refused.status, refused.body.message]).toEqual([
        403,
        'Only an administrator of the account may call GET /metrics.',
      ]);
      // another account's administrator: the metrics cover every account
      const seeded = await flowmark(
        ['seed', '--demo', '--account', 'other', '--password', 'other password 1'],
        {
          env,
          timeoutMs: 60_000,
        },
      );
      expect(seeded.code, seeded.stderr).toBe(0);
      const other = await login(url, 'other', 'admin', 'other password 1');
      const foreign = await call(url, 'GET', '/metrics', { cookie: other });
      expect([foreign.status, foreign.body.message]).toEqual([
        403,
        'Only an administrator of the account default may read GET /metrics (they cover every account).',
      ]);
    }, 120_000);

    it('answers on FLOWMARK_METRICS_PORT without credentials, and no longer on the main port', async () => {
      const port = await freePort();
      // one worker: the port is the point here (the sums over two workers are the test above's)
      const { url } = await serve(engine, { FLOWMARK_METRICS_PORT: String(port) }, '1');
      // the threads load the function library after the workers listen
      await until(
        async () => {
          const r = await fetch(`http://127.0.0.1:${port}/metrics`);
          expect(r.status).toBe(200);
          return sample(await r.text(), 'flowmark_pool_threads') >= 2 ? true : undefined;
        },
        'the evaluation threads in the metrics',
        30_000,
      );
      expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
      expect((await call(url, 'GET', '/metrics')).status).toBe(404);
    }, 120_000);
  });

it('stops serve with exit 2 on a bad FLOWMARK_METRICS_PORT', async () => {
  const r = await flowmark(['serve', '--port', '0'], {
    env: { FLOWMARK_METRICS_PORT: 'ninety' },
    timeoutMs: 30_000,
  });
  expect([r.code, r.stderr.trim()]).toEqual([
    2,
    'flowmark serve: FLOWMARK_METRICS_PORT: expected an integer from 1 to 65535, got "ninety"',
  ]);
});
