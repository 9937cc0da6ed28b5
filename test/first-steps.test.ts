/**
 * A newcomer's first commands, through the built CLI (bin/flowmark.js, as `npx flowmark` runs it)
 * on a temporary FLOWMARK_DATA: the version, a token on an empty store, `run --user` in the wrong
 * account, `serve` on a busy port.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flowmark as runCli } from './support/cli.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const bin = join(root, 'bin/flowmark.js');

/** `flowmark …args` through the built CLI, on the embedded store whatever the caller's environment. */
async function flowmark(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; out: string; err: string }> {
  if (!existsSync(join(root, 'dist/cli/main.js')))
    throw new Error('dist/ is missing: run `npm run build` (npm test does)');
  const r = await runCli(args, { env: { DATABASE_URL: '', ...env }, timeoutMs: 60_000 });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

describe('first steps with the built CLI', () => {
  let dir: string;
  const data = (name: string) => ({ FLOWMARK_DATA: join(dir, name) });
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'flowmark-first-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints its version with --version, -V and version', async () => {
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    for (const args of [['--version'], ['-V'], ['version']])
      expect(await flowmark(args, data('none'))).toEqual({ code: 0, out: `flowmark ${version}\n`, err: '' });
  });

  it('says how to get an account when a token is asked of an empty store, and of several accounts', async () => {
    expect(await flowmark(['token', 'create', '--user', 'admin'], data('empty'))).toEqual({
      code: 1,
      out: '',
      err:
        'flowmark token: the store has no account yet: `npx flowmark serve` creates "default" and its ' +
        'administrator (FLOWMARK_DATA or DATABASE_URL chooses the store)\n',
    });
    expect(await flowmark(['seed', '--demo', '--account', 'one'], data('empty'))).toMatchObject({ code: 0 });
    expect(await flowmark(['seed', '--demo', '--account', 'two'], data('empty'))).toMatchObject({ code: 0 });
    expect(await flowmark(['token', 'create', '--user', 'admin'], data('empty'))).toEqual({
      code: 1,
      out: '',
      err: 'flowmark token: the store has several accounts and none is "default": choose one with --account\n',
    });
    expect(
      await flowmark(['token', 'create', '--user', 'admin', '--account', 'three'], data('empty')),
    ).toEqual({
      code: 1,
      out: '',
      err: 'flowmark token: no account three\n',
    });
  });

  it('names the account that has the user when run --user is given in another', async () => {
    const definition = join(dir, 'hello.json');
    writeFileSync(
      definition,
      JSON.stringify({ name: 'Hello', steps: [{ id: 1, input: { who: '${(P_user.login)!"nobody"}' } }] }),
    );
    const env = data('run');
    // run creates "default" (without users); the demo account is the other
    expect(await flowmark(['run', definition, '--quiet'], env)).toMatchObject({ code: 0 });
    expect(await flowmark(['seed', '--demo'], env)).toMatchObject({ code: 0 });
    expect(await flowmark(['run', definition, '--user', 'ann'], env)).toEqual({
      code: 1,
      out: '',
      err: 'flowmark run: no user ann in account default; account demo has one: choose it with --account demo\n',
    });
    expect(await flowmark(['run', definition, '--user', 'zed'], env)).toEqual({
      code: 1,
      out: '',
      err: 'flowmark run: no user zed in account default\n',
    });
    const inDemo = await flowmark(['run', definition, '--user', 'ann', '--account', 'demo', '--quiet'], env);
    expect(inDemo.code).toBe(0);
    expect(inDemo.out).toMatch(/^request \S+: 201 COMPLETED\n\{\n {2}"who": "ann"\n\}\n$/);
  });

  describe('serve on a busy port', () => {
    let busy: Server;
    let port: number;
    beforeAll(async () => {
      busy = createServer();
      await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
      port = (busy.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

    it('says the port is in use and how to choose another, and still shows a first start its password', async () => {
      const env = data('serve');
      const hint =
        `flowmark serve: 127.0.0.1:${port} is already in use (another flowmark serve?): stop it, ` +
        'or choose another port with --port N (0 picks a free one)\n';
      const first = await flowmark(['serve', '--port', String(port), '--log-level', 'warn'], env);
      expect(first.code).toBe(1);
      expect(first.err).toBe(hint);
      expect(first.out).toMatch(
        /^\nFirst start: created the account "default" and its administrator\. This password is shown only once:\n\n {2}account: {2}default\n {2}login: {4}admin\n {2}password: \S+\n/,
      );
      expect(await flowmark(['serve', '--port', String(port), '--log-level', 'warn'], env)).toEqual({
        code: 1,
        out: '',
        err: hint,
      });
    });
  });

  it('serve prints the console address, and GET / leads to the console, which has an icon', async () => {
    const server = spawn(process.execPath, [bin, 'serve', '--port', '0', '--log-level', 'warn'], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: '', ...data('console') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      server.stdout.on('data', (c: Buffer) => (out += c.toString()));
      for (let i = 0; i < 600 && !out.includes('password:'); i++) await new Promise((r) => setTimeout(r, 50));
      const url = /^flowmark: serving on (http:\/\/127\.0\.0\.1:\d+) /m.exec(out)?.[1];
      expect(url, out).toBeDefined();
      // the supervisor's workers say when they listen; the banner follows the first of them
      expect(out.split('\n').find((line) => line.startsWith('flowmark: serving on'))).toBe(
        `flowmark: serving on ${url!} (data: ${join(dir, 'console', 'flowmark.db')}); console at ${url!}/console/, API docs at ${url!}/docs`,
      );
      expect(out).toContain(
        `Log in to the console at ${url!}/console/, or with curl, keeping the session cookie:\n`,
      );
      expect(out).toContain('or create an API token: npx flowmark token create --user admin\n');
      const root_ = await fetch(`${url!}/`, { redirect: 'manual' });
      expect([root_.status, root_.headers.get('location')]).toEqual([302, '/console/']);
      const page = await (await fetch(`${url!}/console/`)).text();
      expect(page).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml">');
      const icon = await fetch(`${url!}/favicon.svg`);
      expect([icon.status, icon.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
      expect(await icon.text()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
      const ico = await fetch(`${url!}/favicon.ico`, { redirect: 'manual' });
      expect([ico.status, ico.headers.get('location')]).toEqual([301, '/favicon.svg']);
    } finally {
      const closed = new Promise((r) => server.once('close', r));
      server.kill('SIGTERM');
      await closed;
    }
  });
});
