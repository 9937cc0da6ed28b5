/**
 * Real `flowmark serve` processes (the built dist/: `npm run build` first) for the tests that
 * need several of them on one store, or a process to kill: each on a port of its own, its output
 * kept, the first account's administrator signed in from what the first start printed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { openStore, type EngineName, type Store } from '../../src/store/index.js';
import { call, sessionCookie } from '../server/support.js';
import { BIN, ROOT, until } from './cli.js';
import { createTestSchema, dropTestSchema } from './engines.js';

export interface Served {
  child: ChildProcess;
  /** Its stdout and stderr so far. */
  out: string;
  exited: Promise<unknown>;
}

/** Starts `flowmark serve --port 0` with exactly the environment `env` (nothing of the test's own added). */
export function serve(env: NodeJS.ProcessEnv): Served {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--log-level', 'error'], {
    cwd: ROOT,
    env,
    stdio: 'pipe',
  });
  const server: Served = { child, out: '', exited: new Promise((r) => child.once('exit', r)) };
  child.stdout!.on('data', (c) => (server.out += c));
  child.stderr!.on('data', (c) => (server.out += c));
  return server;
}

/** The URL the server says it serves on, once it listens. */
export const urlOf = (server: Served): Promise<string> =>
  until(
    async () => /serving on (http:\/\/127\.0\.0\.1:\d+)/.exec(server.out)?.[1],
    'the server to listen',
    // a supervisor and its workers starting on a loaded 2-core machine (30 s was not always enough)
    60_000,
  );

/** Signs in at `url` as the administrator whose login and password `first` printed on its first start; the session cookie. */
export async function signInFirstAdmin(first: Served, url: string): Promise<string> {
  const password = await until(async () => /password: (\S+)\n/.exec(first.out)?.[1], 'the password', 30_000);
  const login = /login: +(\S+)/.exec(first.out)![1]!;
  const loggedIn = await call(url, 'POST', '/api/v1/auth/login', {
    body: { account: 'default', login, password },
  });
  expect(loggedIn.status).toBe(200);
  return sessionCookie(loggedIn.headers);
}

/**
 * A suite's servers on one fresh store: `open` gives the servers' environment (a new data folder;
 * on PostgreSQL a new schema, never the developer's DATABASE_URL) and the test's own connection to
 * that store; `start` starts a server with that environment and `extra`. After all, every server
 * still running is stopped, the store closed, the folder and the schema removed.
 */
export function useServers(prefix: string) {
  const servers: Served[] = [];
  let store: Store | undefined;
  let dir = '';
  let schema = '';
  let env: NodeJS.ProcessEnv = {};

  afterAll(async () => {
    for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill();
    await Promise.all(servers.map((s) => s.exited));
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (schema) await dropTestSchema(schema);
  });

  return {
    async open(engine: EngineName): Promise<Store> {
      env = { ...process.env };
      delete env.DATABASE_URL;
      dir = mkdtempSync(join(tmpdir(), `flowmark-${prefix}-`));
      env.FLOWMARK_DATA = dir;
      if (engine === 'postgres') {
        const created = await createTestSchema(prefix);
        schema = created.schema;
        env.DATABASE_URL = created.databaseUrl;
        store = await openStore({ databaseUrl: env.DATABASE_URL, poolSize: 2 });
      } else store = await openStore({ databaseUrl: undefined, dataDir: dir });
      return store;
    },
    start(extra: NodeJS.ProcessEnv = {}): Served {
      const server = serve({ ...env, ...extra });
      servers.push(server);
      return server;
    },
  };
}

/**
 * One `flowmark serve` in one process with two evaluation threads (`--workers 0`), on a fresh
 * store of `engine`, its first administrator signed in (`admin`: the session cookie) before the
 * suite's tests; stopped after them with SIGTERM, which must exit 0.
 */
export function usePoolServer(prefix: string, engine: EngineName) {
  const servers = useServers(prefix);
  const served = { server: undefined as Served | undefined, url: '', admin: '' };
  beforeAll(async () => {
    await servers.open(engine);
    served.server = servers.start({ FLOWMARK_WORKERS: '0', FLOWMARK_EVAL_WORKERS: '2' });
    served.url = await urlOf(served.server);
    served.admin = await signInFirstAdmin(served.server, served.url);
  }, 90_000);
  // before useServers' own stop: a clean SIGTERM exit
  afterAll(async () => {
    const server = served.server;
    if (!server || server.child.exitCode !== null) return;
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });
  return served;
}
