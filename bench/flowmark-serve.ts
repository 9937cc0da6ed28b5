// What the process benches share: `flowmark serve` of a build (its bin/flowmark.js) started on a
// free port, its administrator's API token, and a JSON POST.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export interface Server {
  child: ChildProcess;
  out: string;
  exited: Promise<unknown>;
  url: string;
}

/**
 * Starts `flowmark serve --workers 1` of the build at `root` and waits until it listens — and,
 * with `password`, until it has printed the first start's administrator password.
 */
export async function serve(root: string, env: NodeJS.ProcessEnv, password: boolean): Promise<Server> {
  const child = spawn(
    process.execPath,
    [join(root, 'bin/flowmark.js'), 'serve', '--port', '0', '--workers', '1', '--log-level', 'error'],
    { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const server: Server = { child, out: '', url: '', exited: new Promise((r) => child.once('exit', r)) };
  child.stdout!.on('data', (c) => (server.out += c));
  child.stderr!.on('data', (c) => (server.out += c));
  const until = Date.now() + 30_000;
  for (;;) {
    const url = /serving on (http:\/\/127\.0\.0\.1:\d+)/.exec(server.out)?.[1];
    if (url && (!password || /password: \S+\n/.test(server.out))) {
      server.url = url;
      return server;
    }
    if (child.exitCode !== null || Date.now() > until) {
      child.kill('SIGKILL');
      throw new Error(`flowmark serve did not start:\n${server.out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A JSON POST to `base + path`. */
export function call(
  base: string,
  path: string,
  headers: Record<string, string> = {},
  body?: unknown,
  timeoutMs = 120_000,
) {
  return fetch(base + path, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
}

/** The Authorization header of a new API token of the administrator `server` printed the password of. */
export async function adminToken(server: Server, timeoutMs?: number): Promise<Record<string, string>> {
  const password = /password: (\S+)/.exec(server.out)?.[1];
  if (!password) throw new Error(`no first-start password in:\n${server.out}`);
  const login = await call(
    server.url,
    '/api/v1/auth/login',
    undefined,
    { account: 'default', login: 'admin', password },
    timeoutMs,
  );
  const cookie = login.headers.get('set-cookie')?.split(';')[0];
  if (login.status !== 200 || !cookie) throw new Error(`login: ${login.status} ${await login.text()}`);
  const made = await call(server.url, '/api/v1/tokens', { cookie }, { name: 'bench' }, timeoutMs);
  if (made.status !== 201) throw new Error(`token: ${made.status} ${await made.text()}`);
  return { authorization: `Bearer ${((await made.json()) as { token: string }).token}` };
}
