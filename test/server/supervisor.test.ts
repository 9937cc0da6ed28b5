/**
 * `flowmark serve` as a user runs it (the built CLI, spawned): the supervisor and its workers.
 * A worker killed the way a fatal error kills it (SIGABRT: V8's "Fatal JavaScript …" errors and
 * out-of-heap end in abort()) or the way the kernel's OOM killer does (SIGKILL) is replaced while
 * the other keeps the port; SIGTERM stops everything, after a script ran, with exit 0 within 5 s;
 * `npm start`'s command line passes the stop signal to the server.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, collect, finished, ROOT, spawnFlowmark, until } from '../support/cli.js';
import { createTestSchema, dropTestSchema } from '../support/engines.js';
import { call, sessionCookie } from './support.js';

let dir = '';
const running: ChildProcessWithoutNullStreams[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'flowmark-supervisor-'));
});
afterEach(() => {
  for (const child of running.splice(0))
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid!, 'SIGKILL'); // its group: the supervisor and its workers
      } catch {
        child.kill('SIGKILL');
      }
    }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Startup of three processes on a busy 2-core machine: generous. */
const STARTUP_MS = 60_000;
/**
 * One evaluation thread per worker (the default is 2): these tests are about the worker processes,
 * and each thread loads the function library at start-up.
 */
const ONE_THREAD = { FLOWMARK_EVAL_WORKERS: '1' };

/** `logLevel` null: the default level (info). */
function serve(data: string, args: string[] = [], port = 0, logLevel: string | null = 'warn') {
  const level = logLevel === null ? [] : ['--log-level', logLevel];
  const child = spawnFlowmark(['serve', '--port', String(port), ...level, ...args], {
    env: { FLOWMARK_DATA: join(dir, data), DATABASE_URL: '', ...ONE_THREAD },
    detached: true,
  });
  running.push(child);
  const text = collect(child);
  const done = finished(child, 120_000);
  done.catch(() => undefined);
  const url = until(
    () => /^flowmark: serving on (http:\/\/127\.0\.0\.1:\d+) /m.exec(text.out)?.[1],
    'the banner',
    STARTUP_MS,
  );
  return { child, text, done, url };
}

/** The pid of each worker slot as the supervisor last reported it listening. */
function workerPids(out: string): Map<number, number> {
  const pids = new Map<number, number>();
  for (const m of out.matchAll(/^flowmark: worker (\d+) \(pid (\d+)\) listening$/gm))
    pids.set(Number(m[1]), Number(m[2]));
  return pids;
}

/** Logs in as the administrator whose password the first start printed (after the banner). */
async function adminCookie(url: string, text: { out: string }): Promise<string> {
  const password = await until(() => /password: (\S+)/.exec(text.out)?.[1], 'the password');
  const r = await call(url, 'POST', '/api/v1/auth/login', { body: { login: 'admin', password } });
  expect(r.status).toBe(200);
  return sessionCookie(r.headers);
}

const SCRIPT = '<@script env="js">RMPData.setOutput(6 * 7)</@script>';

describe('flowmark serve under its supervisor', () => {
  // One start for both: the banner's place among the log lines is checked before any request.
  it("prints the first start's password after every worker's start-up lines, apart from the log; runs scripts, then stops on SIGTERM, finishing the request in flight, with exit 0 within 5 s, the port freed", async () => {
    // the default log level: the workers' "Server listening" lines are printed
    const server = serve('stop', [], 0, null);
    await until(
      () => (/or create an API token: .*\n\n$/.test(server.text.out) ? true : undefined),
      'the password',
      STARTUP_MS,
    );
    const url = await server.url;
    // nothing was requested yet: every log line (the workers' "Server listening") came before it
    const banner = server.text.out.indexOf('flowmark: serving on ');
    expect(banner).toBeGreaterThan(0);
    const before = server.text.out.slice(0, banner);
    expect(workerPids(before).size).toBe(2);
    expect(before.match(/"msg":"Server listening at /g)).toHaveLength(2);
    expect(server.text.out.slice(banner)).toMatch(
      /^flowmark: serving on \S+ \(data: [^)]+\); console at [^\n]+\n\nFirst start: created the account "default" and its administrator\. This password is shown only once:\n\n {2}account: {2}default\n {2}login: {4}admin\n {2}password: \S+\n\nLog in to the console /,
    );
    expect(server.text.out.slice(banner)).not.toContain('"level":');

    const cookie = await adminCookie(url, server.text);
    expect(server.text.out).toContain('First start: created the account "default" and its administrator.');
    await scriptsOnBothWorkers(url, cookie);

    // A request in flight when the signal comes is finished, not dropped.
    const slow = call(url, 'POST', '/api/v1/eval', {
      cookie,
      body: {
        template: SCRIPT.replace(
          '6 * 7',
          '(() => { const t = Date.now(); while (Date.now() - t < 1000); return 42; })()',
        ),
      },
    });
    await new Promise((r) => setTimeout(r, 300));
    const stopped = Date.now();
    server.child.kill('SIGTERM');
    expect((await slow).body).toMatchObject({ output: '42' });
    const end = await server.done;
    expect(Date.now() - stopped).toBeLessThan(5_000);
    expect(end).toMatchObject({ code: 0, signal: null });
    expect(end.stdout.endsWith('flowmark: stopped\n')).toBe(true);
    expect(end.stderr).toBe('');
    await expect(fetch(`${url}/health`)).rejects.toThrow();
    for (const pid of workerPids(end.stdout).values()) expect(alive(pid)).toBe(false);
  }, 120_000);

  it('replaces a worker killed by a fatal error while the other keeps serving', async () => {
    // A fixed port: once every worker is gone, a port 0 would be picked again.
    const server = serve('crash', [], await freePort());
    const url = await server.url;
    const cookie = await adminCookie(url, server.text);
    const pids = await until(
      () => (workerPids(server.text.out).size === 2 ? workerPids(server.text.out) : undefined),
      'both workers',
      STARTUP_MS,
    );

    process.kill(pids.get(1)!, 'SIGABRT');
    await until(() => (alive(pids.get(1)!) ? undefined : true), 'worker 1 to die');
    // The next requests are served (by worker 2) while worker 1 is replaced.
    for (let i = 0; i < 3; i++) {
      const r = await call(url, 'POST', '/api/v1/eval', { cookie, body: { template: SCRIPT } });
      expect(r.body.output).toBe('42');
    }
    await reported(
      server.text,
      `flowmark: worker 1 (pid ${pids.get(1)}) was killed (SIGABRT); restarting it in 250 ms\n`,
    );
    const replaced = await until(
      () => {
        const now = workerPids(server.text.out).get(1);
        return now !== pids.get(1) ? now : undefined;
      },
      'worker 1 to be replaced',
      STARTUP_MS,
    );

    // Both original workers gone at once: the service comes back by itself.
    process.kill(replaced!, 'SIGKILL');
    process.kill(pids.get(2)!, 'SIGKILL');
    const back = await until(
      async () => {
        try {
          const r = await call(url, 'GET', '/health');
          return r.status === 200 ? r.body : undefined;
        } catch {
          return undefined;
        }
      },
      'the service to come back',
      STARTUP_MS,
    );
    expect(back).toEqual({ status: 'ok', engine: 'sqlite' });
    await reported(
      server.text,
      `flowmark: worker 2 (pid ${pids.get(2)}) was killed (SIGKILL); restarting it in 250 ms\n`,
    );
    // Worker 1 died young a second time: its delay doubled.
    await reported(
      server.text,
      `flowmark: worker 1 (pid ${replaced}) was killed (SIGKILL); restarting it in 500 ms\n`,
    );

    server.child.kill('SIGINT');
    expect(await server.done).toMatchObject({ code: 0 });
  }, 180_000);

  it('shares the login throttle between its workers; stops on a Ctrl-C to the process group', async () => {
    const server = serve('throttle');
    const url = await server.url;
    await until(
      () => (workerPids(server.text.out).size === 2 ? true : undefined),
      'both workers',
      STARTUP_MS,
    );
    const body = { login: 'admin', password: 'wrong' };
    // A new connection each time: the supervisor hands connections to the workers in turn.
    for (let i = 0; i < 10; i++) expect((await postOnce(url, '/api/v1/auth/login', body)).status).toBe(401);
    await new Promise((r) => setTimeout(r, 100));
    for (let i = 0; i < 2; i++) {
      const refused = await postOnce(url, '/api/v1/auth/login', body);
      expect(refused.status).toBe(429);
      expect(JSON.parse(refused.body).code).toBe('too-many-attempts');
    }
    // Ctrl-C in a terminal: SIGINT to the whole process group, workers included.
    process.kill(-server.child.pid!, 'SIGINT');
    const end = await server.done;
    expect(end).toMatchObject({ code: 0, signal: null, stderr: '' });
    expect(end.stdout.endsWith('flowmark: stopped\n')).toBe(true);
    for (const pid of workerPids(end.stdout).values()) expect(alive(pid)).toBe(false);
  }, 120_000);

  it('with --workers 1 serves and stops; its workers stop when the supervisor is killed', async () => {
    const server = serve('one', ['--workers', '1', '--worker-heap', '256']);
    const url = await server.url;
    expect((await call(url, 'GET', '/health')).status).toBe(200);
    const pids = workerPids(server.text.out);
    expect([...pids.keys()]).toEqual([1]);
    const argv = readFileSync(`/proc/${pids.get(1)}/cmdline`, 'utf8').split('\0');
    expect(argv.slice(1, 3)).toEqual(['--max-old-space-size=256', BIN]);

    server.child.kill('SIGKILL');
    await until(() => (alive(pids.get(1)!) ? undefined : true), 'the orphaned worker to stop', 10_000);
    await expect(fetch(`${url}/health`)).rejects.toThrow();
  }, 120_000);

  it('kills its workers at once on a second stop signal', async () => {
    const server = serve('twice', ['--workers', '1']);
    const url = await server.url;
    const cookie = await adminCookie(url, server.text);
    const slow = postOnce(
      url,
      '/api/v1/eval',
      {
        template: SCRIPT.replace(
          '6 * 7',
          '(() => { const t = Date.now(); while (Date.now() - t < 1900); })()',
        ),
      },
      { cookie },
    );
    await new Promise((r) => setTimeout(r, 300));
    server.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 100));
    server.child.kill('SIGTERM');
    await expect(slow).rejects.toThrow(/socket hang up|ECONNRESET/);
    const end = await server.done;
    expect(end).toMatchObject({ code: 0, signal: null });
    expect(end.stdout.endsWith('flowmark: stopped\n')).toBe(true);
  }, 120_000);

  it('refuses a bad worker count or sandbox setting, and a port in use', async () => {
    const refused = (args: string[], env: NodeJS.ProcessEnv = {}) =>
      finished(
        spawnFlowmark(['serve', ...args], { env: { FLOWMARK_DATA: join(dir, 'bad'), ...env } }),
        20_000,
      );
    // A port in use: the supervisor finds it before starting workers, says so and exits 1.
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    try {
      const port = (taken.address() as AddressInfo).port;
      // the four commands side by side: each only starts, checks its settings and exits
      const [workers, heap, inUse, queue] = await Promise.all([
        refused(['--workers', 'many']),
        refused([], { FLOWMARK_WORKER_HEAP_MB: '10' }),
        refused(['--port', String(port), '--workers', '1'], { FLOWMARK_DATA: join(dir, 'in-use') }),
        refused([], { FLOWMARK_SCRIPT_ACCOUNT_QUEUE: 'lots' }),
      ]);
      expect(workers).toMatchObject({
        code: 2,
        stdout: '',
        stderr: 'flowmark serve: --workers: expected an integer from 0 to 64, got "many"\n',
      });
      expect(heap).toMatchObject({
        code: 2,
        stderr: 'flowmark serve: FLOWMARK_WORKER_HEAP_MB: expected an integer from 64 to 65536, got "10"\n',
      });
      expect(inUse.code).toBe(1);
      expect(inUse.stderr).toBe(
        `flowmark serve: 127.0.0.1:${port} is already in use (another flowmark serve?): stop it, ` +
          'or choose another port with --port N (0 picks a free one)\n',
      );
      expect(queue).toMatchObject({
        code: 2,
        stderr:
          'flowmark serve: FLOWMARK_SCRIPT_ACCOUNT_QUEUE: expected an integer from 0 to 100000, got "lots"\n',
      });
    } finally {
      taken.close();
    }
  }, 60_000);
});

describe.runIf(process.env.FLOWMARK_TEST_PG)('flowmark serve under its supervisor on PostgreSQL', () => {
  let schema = '';
  let databaseUrl = '';
  beforeAll(async () => ({ schema, databaseUrl } = await createTestSchema('supervisor')));
  afterAll(() => dropTestSchema(schema));

  it('migrates and creates the administrator once, serves scripts from both workers, stops', async () => {
    const child = spawnFlowmark(['serve', '--port', '0', '--log-level', 'warn'], {
      env: { DATABASE_URL: databaseUrl, FLOWMARK_DATA: join(dir, 'pg'), ...ONE_THREAD },
      detached: true,
    });
    running.push(child);
    const text = collect(child);
    const done = finished(child, 120_000);
    const served = await until(
      () => /^flowmark: serving on (http:\/\/127\.0\.0\.1:\d+) /m.exec(text.out)?.[1],
      'the banner',
      STARTUP_MS,
    );
    await until(() => (workerPids(text.out).size === 2 ? true : undefined), 'both workers', STARTUP_MS);
    expect((await call(served, 'GET', '/health')).body).toEqual({ status: 'ok', engine: 'postgres' });
    const cookie = await adminCookie(served, text);
    await scriptsOnBothWorkers(served, cookie);
    process.kill(child.pid!, 'SIGTERM');
    const end = await done;
    expect(end).toMatchObject({ code: 0, signal: null, stderr: '' });
    expect(end.stdout.endsWith('flowmark: stopped\n')).toBe(true);
    expect(end.stdout.match(/First start/g)).toHaveLength(1);
  }, 120_000);
});

describe("npm start's command line", () => {
  it('runs the server in place of the shell, so SIGTERM to the parent stops it and frees the port', async () => {
    const script = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        scripts: { start: string };
      }
    ).scripts.start;
    expect(script).toBe('npm run build && exec node bin/flowmark.js serve');
    // `npm run build` is stubbed: rebuilding dist/ here would race the other suites spawning it.
    writeFileSync(join(dir, 'npm'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(dir, 'npm'), 0o755);
    // `npm start -- --port 0 …` makes npm run: sh -c '<script> "--port" "0" …' (one worker: the
    // signal's way from the shell to the server is the point here, not the workers).
    const child = spawn('sh', ['-c', `${script} "--port" "0" "--log-level" "warn" "--workers" "1"`], {
      cwd: ROOT,
      env: { ...process.env, PATH: `${dir}:${process.env.PATH}`, FLOWMARK_DATA: join(dir, 'npm-start') },
    });
    running.push(child);
    const text = collect(child);
    const done = finished(child, 120_000);
    const url = await until(
      () => /^flowmark: serving on (http:\/\/127\.0\.0\.1:\d+) /m.exec(text.out)?.[1],
      'the banner',
      STARTUP_MS,
    );
    expect((await call(url, 'GET', '/health')).status).toBe(200);
    const pids = [...workerPids(text.out).values()];

    const stopped = Date.now();
    process.kill(child.pid!, 'SIGTERM');
    expect(await done).toMatchObject({ code: 0, signal: null });
    expect(Date.now() - stopped).toBeLessThan(5_000);
    expect(text.out.endsWith('flowmark: stopped\n')).toBe(true);
    for (const pid of pids) expect(alive(pid)).toBe(false);
    await expect(fetch(`${url}/health`)).rejects.toThrow();
  }, 120_000);
});

/** POST on a connection of its own (fetch would reuse one, so always reach the same worker). */
function postOnce(
  url: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url + path,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json', ...headers } },
      (response) => {
        let text = '';
        response.on('data', (c: Buffer) => (text += c.toString()));
        response.on('end', () => resolve({ status: response.statusCode!, body: text }));
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

/** Scripts on connections of their own, which the supervisor hands to both workers in turn. */
async function scriptsOnBothWorkers(url: string, cookie: string): Promise<void> {
  for (let i = 0; i < 4; i++) {
    const r = await postOnce(url, '/api/v1/eval', { template: SCRIPT }, { cookie });
    expect(JSON.parse(r.body).output).toBe('42');
  }
}

function reported(text: { out: string }, line: string): Promise<true> {
  return until(() => (text.out.includes(line) ? true : undefined), `${JSON.stringify(line)} in: ${text.out}`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
