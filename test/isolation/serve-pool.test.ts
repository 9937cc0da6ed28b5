/**
 * `flowmark serve` (the built CLI, one process: --workers 0) with its evaluations in the pool's
 * threads: the eval endpoint, composite APIs, the collection routes and an import with its
 * streamed progress answer as before; an evaluation past its deadline answers 422 within the
 * deadline + 1 s and the next call is served; an account past its queue gets 429 with
 * Retry-After; a bad pool setting stops the command with exit 2, naming the variable.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, finished, flowmark, spawnFlowmark, until } from '../support/cli.js';
import { call, login } from '../server/support.js';
import { createPlatform } from '../../src/platform/index.js';
import { openStore } from '../../src/store/index.js';

const DEADLINE_MS = 1_500;
let dir = '';
let server: ChildProcessWithoutNullStreams;
let url = '';
let admin = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flowmark-serve-pool-'));
  server = spawnFlowmark(['serve', '--port', '0', '--workers', '0', '--log-level', 'warn'], {
    env: {
      FLOWMARK_DATA: dir,
      DATABASE_URL: '',
      FLOWMARK_EVAL_TIME_MS: String(DEADLINE_MS),
      // the deadline, not the step limit, must stop REDUCE: 5,000,000 steps take under 1.5 s on a quiet machine
      FLOWMARK_EVAL_STEPS: '1000000000',
      FLOWMARK_EVAL_WORKERS: '1',
      FLOWMARK_EVAL_ACCOUNT_QUEUE: '0',
      FLOWMARK_EVAL_THREAD_TASKS: '1',
    },
  });
  const text = collect(server);
  url = await until(
    () => /^flowmark: serving on (http:\/\/127\.0\.0\.1:\d+) /m.exec(text.out)?.[1],
    'the banner',
    60_000,
  );
  const password = await until(() => /password: (\S+)/.exec(text.out)?.[1], 'the password');
  admin = await login(url, 'default', 'admin', password);
}, 90_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const done = finished(server, 20_000);
    server.kill('SIGTERM');
    expect((await done).code).toBe(0);
  }
  rmSync(dir, { recursive: true, force: true });
});

/** An aggregation that runs until its deadline (every document sums 30 million numbers). */
const REDUCE = [
  {
    $project: {
      r: {
        $reduce: { input: { $range: [0, 30_000_000] }, initialValue: 0, in: { $add: ['$$value', '$$this'] } },
      },
    },
  },
];

const post = (path: string, body: unknown) => call(url, 'POST', path, { cookie: admin, body });

describe('flowmark serve with its evaluation pool', () => {
  it('answers the eval endpoint and a composite API from the pool', async () => {
    const evaluated = await post('/api/v1/eval', {
      template: '<#assign x = 6 * 7>${x}',
    });
    expect(evaluated.status).toBe(200);
    expect(evaluated.body.output.trim()).toBe('42');
    expect(evaluated.body.variables).toEqual({ x: 42 });
    const created = await post('/api/v1/composite-apis', {
      method: 'POST',
      path: 'echo',
      isPublic: true,
      template: '${set_status(201)}{"name": "${P_body.name?json_string}"}',
    });
    expect(created.status).toBe(201);
    const r = await call(url, 'POST', '/live/default/composite/echo', { body: { name: 'Ann "A"' } });
    expect([r.status, r.body]).toEqual([201, { name: 'Ann "A"' }]);
  });

  it("answers the collection routes and streams an import's progress from the pool", async () => {
    expect((await post('/api/v1/collections', { name: 'orders' })).status).toBe(201);
    const form = new FormData();
    form.set('file', new Blob(['id,total\n1,10\n2,20\n3,30\n']), 'orders.csv');
    form.set('options', JSON.stringify({ parse_numbers: ['total'] }));
    const imported = await fetch(`${url}/api/v1/collections/orders/import`, {
      method: 'POST',
      headers: { cookie: admin, accept: 'application/x-ndjson' },
      body: form,
    });
    const lines = (await imported.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.at(-1)).toEqual({ imported: 3 });
    expect(lines.slice(0, -1).every((l) => typeof l.documents === 'number')).toBe(true);
    const found = await post('/api/v1/collections/orders/find', {
      query: { total: { $gte: 20 } },
      sort: { total: -1 },
    });
    expect(found.status).toBe(200);
    expect(found.body.items.map((d: { total: number }) => d.total)).toEqual([30, 20]);
    const summed = await post('/api/v1/collections/orders/aggregate', {
      pipeline: [{ $group: { _id: null, sum: { $sum: '$total' } } }],
    });
    expect(summed.body.items).toEqual([{ _id: null, sum: 60 }]);
  });

  it('stops an evaluation past its deadline within the deadline + 1 s, then serves the next call', async () => {
    const started = Date.now();
    const r = await post('/api/v1/collections/orders/aggregate', { pipeline: REDUCE });
    const took = Date.now() - started;
    expect([r.status, r.body.code]).toEqual([422, 'time-limit']);
    expect(r.body.message).toMatch(/time limit of 1500 ms/);
    expect(took).toBeLessThan(DEADLINE_MS + 1_000);
    const next = await post('/api/v1/eval', { template: '${1 + 1}' });
    expect(next.body.output).toBe('2');
  });

  it('answers a process start after one wall time with the request still running, which then ends', async () => {
    // two steps that each wait 1 s for a lock the test holds: 2 s of steps, a 1.5 s wall time
    const store = await openStore({ databaseUrl: undefined, dataDir: dir });
    const platform = createPlatform(store);
    try {
      expect(
        await platform.locks.tryAcquire('default', 'gate', 'test', Date.now(), Date.now() + 600_000),
      ).toBe(true);
      const wait = '<#attempt>${R_lock("gate", 1000)}<#recover>waited</#attempt>';
      const defined = await post('/api/v1/processes', {
        name: 'Slow',
        steps: [
          { id: 1, name: 'One', script: wait },
          { id: 2, name: 'Two', script: wait },
        ],
      });
      expect(defined.status).toBe(201);
      const started = Date.now();
      const r = await post('/api/v1/requests', { process: 'Slow', mode: 'TEST' });
      const took = Date.now() - started;
      expect([r.status, r.body.status]).toEqual([201, 101]);
      expect(took).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
      expect(took).toBeLessThan(DEADLINE_MS + 1_000);
      const ended = await until(async () => {
        const read = await call(url, 'GET', `/api/v1/requests/${r.body.id}`, { cookie: admin });
        return read.body.status === 201 ? read.body : undefined;
      }, 'the request to end');
      expect(ended.message ?? '').toBe('');
    } finally {
      await platform.locks.release('default', 'gate', 'test');
      await store.close();
    }
  });

  it("runs a composite API's process in the pool within one wall time for the whole call", async () => {
    // each step waits 0.4 s (a lock the test holds): the fifth starts past the call's 1.5 s
    const store = await openStore({ databaseUrl: undefined, dataDir: dir });
    const platform = createPlatform(store);
    try {
      expect(
        await platform.locks.tryAcquire('default', 'gate2', 'test', Date.now(), Date.now() + 600_000),
      ).toBe(true);
      const wait = '<#attempt>${R_lock("gate2", 400)}<#recover>waited</#attempt>';
      const quick = await post('/api/v1/processes', {
        name: 'Quick',
        steps: [{ id: 1, name: 'One', input: { n: '${(P_body.n * 2)?c}' } }],
      });
      expect(quick.status).toBe(201);
      const slow = await post('/api/v1/processes', {
        name: 'Slower',
        steps: [1, 2, 3, 4, 5].map((id) => ({ id, script: wait })),
      });
      expect(slow.status).toBe(201);
      for (const [path, process] of [
        ['quick', 'Quick'],
        ['slower', 'Slower'],
      ])
        expect(
          (
            await post('/api/v1/composite-apis', {
              method: 'POST',
              path,
              process,
              template: '${P_computed?keys?join(",")}=${(P_computed.n!0)?c}',
              isPublic: true,
            })
          ).status,
        ).toBe(201);
      const r = await call(url, 'POST', '/live/default/composite/quick', { body: { n: 21 } });
      expect([r.status, r.body]).toEqual([200, 'n=42']);
      const started = Date.now();
      const late = await call(url, 'POST', '/live/default/composite/slower', { cookie: admin, body: {} });
      const took = Date.now() - started;
      expect(late.body).toEqual({
        status: 500,
        code: 'script-error',
        message: 'process "Slower": step 5: the evaluation exceeded its time limit of 1500 ms',
      });
      expect(took).toBeGreaterThanOrEqual(DEADLINE_MS);
      expect(took).toBeLessThan(DEADLINE_MS + 500);
    } finally {
      await platform.locks.release('default', 'gate2', 'test');
      await store.close();
    }
  });

  it("refuses a call past its account's queue with 429 and Retry-After", async () => {
    const slow = post('/api/v1/collections/orders/aggregate', { pipeline: REDUCE });
    await new Promise((r) => setTimeout(r, 200));
    const refused = await post('/api/v1/eval', { template: 'x' });
    expect([refused.status, refused.body.code, refused.headers.get('retry-after')]).toEqual([
      429,
      'too-many-evaluations',
      '1',
    ]);
    expect(refused.body.message).toBe(
      'Too many evaluations of the account default at once (1 running, 0 waiting): try again shortly.',
    );
    expect((await slow).status).toBe(422);
  });

  it('stops with exit 2 naming a bad evaluation-pool setting', async () => {
    const r = await flowmark(['serve', '--port', '0'], {
      env: { FLOWMARK_DATA: dir, DATABASE_URL: '', FLOWMARK_EVAL_WORKERS: '0' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'flowmark serve: FLOWMARK_EVAL_WORKERS: expected an integer from 1 to 64, got "0"\n',
    );
  });
});
