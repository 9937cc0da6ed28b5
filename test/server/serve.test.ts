/**
 * `flowmark serve` and `flowmark token` end to end: first start (account, admin, password printed
 * once), login, CLI tokens, graceful stop on SIGTERM, and a second start on the same data; and
 * `flowmark run` first on an empty store, then `flowmark serve` (the administrator is created then).
 */
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runServe, type SignalSource } from '../../src/cli/commands/serve.js';
import { main } from '../../src/cli/main.js';
import { availableEngines, createTestSchema, dropTestSchema } from '../support/engines.js';
import { call } from './support.js';

function capture() {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const text = { out: '', err: '' };
  stdout.on('data', (c) => (text.out += c));
  stderr.on('data', (c) => (text.err += c));
  return { io: { stdin: new PassThrough(), stdout, stderr }, text };
}

async function until<T>(probe: () => T | undefined | Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

// Tests that start servers (two, in two of them): the 30 s default timed out at load 28.
vi.setConfig({ testTimeout: 120_000 });

/**
 * One worker process (the default is 2, each starting the built server): what these tests check
 * happens in the supervisor and any one worker; test/server/supervisor.test.ts is about two.
 */
function start(signals: SignalSource, options: string[] = []) {
  const c = capture();
  const done = runServe(['--port', '0', '--log-level', 'warn', '--workers', '1', ...options], c.io, signals);
  return { ...c, done };
}

type Started = ReturnType<typeof start>;

/** The address a started server prints once it listens. */
function servingUrl(server: Started): Promise<string> {
  return until(() => /serving on (http:\/\/127\.0\.0\.1:\d+)/.exec(server.text.out)?.[1], 'the server');
}

/** The administrator's password a first start prints. */
function printedPassword(server: Started): Promise<string> {
  return until(() => /password: (\S+)/.exec(server.text.out)?.[1], 'the password');
}

/** Points FLOWMARK_DATA / DATABASE_URL at an empty store for the enclosing describe. */
function useEmptyStore(engineName: string) {
  const saved = { data: process.env.FLOWMARK_DATA, db: process.env.DATABASE_URL };
  let dir = '';
  let schema = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'flowmark-serve-'));
    process.env.FLOWMARK_DATA = dir;
    delete process.env.DATABASE_URL;
    if (engineName === 'postgres') {
      const created = await createTestSchema('serve');
      schema = created.schema;
      process.env.DATABASE_URL = created.databaseUrl;
    }
  });

  afterAll(async () => {
    for (const [key, value] of [
      ['FLOWMARK_DATA', saved.data],
      ['DATABASE_URL', saved.db],
    ] as const)
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    rmSync(dir, { recursive: true, force: true });
    if (schema) await dropTestSchema(schema);
  });

  return { dir: () => dir };
}

for (const engineName of availableEngines()) {
  describe(`flowmark serve and token [${engineName}]`, () => {
    useEmptyStore(engineName);

    it('creates the first admin once, serves, issues CLI tokens, and stops on SIGTERM', async () => {
      const signals = new EventEmitter();
      const first = start(signals);
      const url = await servingUrl(first);
      const password = await printedPassword(first);
      expect(first.text.out).toContain('First start: created the account "default" and its administrator.');
      expect(first.text.out).toContain(
        `-d '{"account":"default","login":"admin","password":"${password}"}' ${url}/api/v1/auth/login`,
      );
      expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);

      expect((await call(url, 'GET', '/health')).body).toEqual({ status: 'ok', engine: engineName });
      const login = await call(url, 'POST', '/api/v1/auth/login', { body: { login: 'admin', password } });
      expect(login.status).toBe(200);
      expect(login.body.account.id).toBe('default');

      const created = capture();
      expect(await main(['token', 'create', '--user', 'admin', '--name', 'deploy'], created.io)).toBe(0);
      const token = created.text.out.trim();
      expect(token).toMatch(/^fmk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
      expect(created.text.err).toBe(
        `token ${token.slice(4, 20)} for admin in account default; it is shown only once\n`,
      );
      const me = await call(url, 'GET', '/api/v1/auth/me', { token });
      expect(me.body.user.login).toBe('admin');
      const rendered = await call(url, 'POST', '/api/v1/eval', {
        token,
        body: { template: '${P_user.login} in ${P_customer}: ${1 + 1}' },
      });
      expect(rendered.body).toEqual({
        output: 'admin in default: 2',
        variables: {},
        logs: [],
        response: { headers: {} },
      });
      // The README's composite API example.
      const api = await call(url, 'POST', '/api/v1/composite-apis', {
        token,
        body: { method: 'POST', path: 'hello', template: '${set_status(201)}{"hello": "${P_body.name}"}' },
      });
      expect(api.status).toBe(201);
      const hello = await call(url, 'POST', '/live/default/composite/hello', {
        token,
        body: { name: 'Ann' },
      });
      expect(hello).toMatchObject({ status: 201, body: { hello: 'Ann' } });

      const listed = capture();
      expect(await main(['token', 'list'], listed.io)).toBe(0);
      expect(listed.text.out).toMatch(
        new RegExp(
          `^${token.slice(4, 20)}  admin  "deploy"  created \\S+  expires never  last used \\S+\\n$`,
        ),
      );
      const unknownUser = capture();
      expect(await main(['token', 'create', '--user', 'nobody'], unknownUser.io)).toBe(1);
      expect(unknownUser.text.err).toBe('flowmark token: no user nobody in account default\n');
      const revoked = capture();
      expect(await main(['token', 'revoke', token.slice(4, 20)], revoked.io)).toBe(0);
      // The server remembers a token's caller for up to 2 s: a revocation by another process shows then.
      const started = Date.now();
      await until(
        async () =>
          (await call(url, 'GET', '/api/v1/auth/me', { token })).body.code === 'invalid-token'
            ? true
            : undefined,
        'the revocation',
      );
      expect(Date.now() - started).toBeLessThan(3000);

      signals.emit('SIGTERM');
      expect(await first.done).toBe(0);
      expect(first.text.out).toContain('flowmark: stopped\n');
      await expect(fetch(`${url}/health`)).rejects.toThrow();

      const second = start(signals);
      await until(() => (/serving on/.test(second.text.out) ? true : undefined), 'the second start');
      expect(second.text.out).not.toContain('First start');
      signals.emit('SIGINT');
      expect(await second.done).toBe(0);
    });

    it('--workers 0 listens for SIGINT and SIGTERM before it prints the banner a reader may stop it on', async () => {
      const signals = new EventEmitter();
      let listening: number[] = [];
      let out = '';
      const stdout = new Writable({
        write(chunk: Buffer, _encoding, done) {
          out += chunk.toString();
          if (/serving on/.test(chunk.toString())) {
            listening = [signals.listenerCount('SIGINT'), signals.listenerCount('SIGTERM')];
            // the reader's Ctrl-C, as soon as it sees the banner
            signals.emit('SIGINT');
            // a build that listens only later would serve on: stop it, so the test reports why
            if (listening[0] === 0) setImmediate(() => signals.emit('SIGINT'));
          }
          done();
        },
      });
      const io = { stdin: new PassThrough(), stdout, stderr: new PassThrough() };
      expect(await runServe(['--port', '0', '--log-level', 'warn', '--workers', '0'], io, signals)).toBe(0);
      expect(listening).toEqual([1, 1]);
      expect(out).toContain('flowmark: stopped\n');
      expect([signals.listenerCount('SIGINT'), signals.listenerCount('SIGTERM')]).toEqual([0, 0]);
    });

    it('refuses bad options', async () => {
      const c = capture();
      expect(await runServe(['--port', 'x'], c.io, new EventEmitter())).toBe(2);
      expect(c.text.err).toBe('flowmark serve: --port: expected 0 to 65535, got "x"\n');
      const t = capture();
      expect(await main(['token', 'create'], t.io)).toBe(2);
      expect(t.text.err).toContain('flowmark token: create: --user LOGIN is required\n');
    });
  });

  describe(`flowmark run, then flowmark serve, on an empty store [${engineName}]`, () => {
    const store = useEmptyStore(engineName);

    it('serve gives the account run created an administrator, prints the password once, and it logs in', async () => {
      const definition = join(store.dir(), 'hello.json');
      writeFileSync(
        definition,
        JSON.stringify({ name: 'Hello', steps: [{ id: 1, input: { n: '${(2 + 3)?c}' } }] }),
      );
      const ran = capture();
      expect(await main(['run', definition, '--quiet'], ran.io)).toBe(0);
      const requestId = /^request (\S+): 201 COMPLETED$/m.exec(ran.text.out)?.[1];
      expect(requestId).toBeDefined();
      expect(ran.text.err).toBe('');

      const signals = new EventEmitter();
      const first = start(signals);
      const url = await servingUrl(first);
      const password = await printedPassword(first);
      expect(first.text.out).toContain(
        'First start: created the administrator of the account "default", which had no user. This password is shown only once:',
      );
      const login = await call(url, 'POST', '/api/v1/auth/login', { body: { login: 'admin', password } });
      expect(login.status).toBe(200);
      expect(login.body.account.id).toBe('default');
      expect(login.body.user).toMatchObject({ login: 'admin', isAdmin: true });
      const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
      const request = await call(url, 'GET', `/api/v1/requests/${requestId}`, { cookie });
      expect(request.status).toBe(200);
      expect(request.body).toMatchObject({ id: requestId, status: 201, data: { n: 5 } });
      signals.emit('SIGTERM');
      expect(await first.done).toBe(0);

      // Once the account has a user, neither command creates one again.
      expect(await main(['run', definition, '--quiet'], capture().io)).toBe(0);
      const second = start(signals);
      await until(() => (/serving on/.test(second.text.out) ? true : undefined), 'the second start');
      expect(second.text.out).not.toContain('First start');
      signals.emit('SIGINT');
      expect(await second.done).toBe(0);
    });
  });

  describe(`flowmark serve --data-document-limit [${engineName}]`, () => {
    useEmptyStore(engineName);

    it('holds process requests and the eval endpoint to the limit; a bad FLOWMARK_DATA_DOCUMENT_LIMIT stops it', async () => {
      process.env.FLOWMARK_DATA_DOCUMENT_LIMIT = 'lots';
      try {
        const refused = capture();
        expect(await runServe([], refused.io, new EventEmitter())).toBe(2);
        expect(refused.text.err).toBe(
          'flowmark serve: FLOWMARK_DATA_DOCUMENT_LIMIT: expected a size from 1 byte to 1 GiB, in bytes or with KiB or MiB (e.g. 10MiB), got "lots"\n',
        );
        process.env.FLOWMARK_DATA_DOCUMENT_LIMIT = '100';
        const signals = new EventEmitter();
        const server = start(signals, ['--data-document-limit', '1KiB']); // the option wins
        const url = await servingUrl(server);
        const created = capture();
        expect(await main(['token', 'create', '--user', 'admin'], created.io)).toBe(0);
        const token = created.text.out.trim();
        const big = '${"y"?left_pad(1100, "y")}';
        for (const body of [
          { name: 'fill', steps: [{ id: 1, name: 'Fill', input: { a: 'x', b: big } }] },
          {
            name: 'waits',
            steps: [
              { id: 1, input: { a: 'x' } },
              { id: 2, type: 'manual' },
            ],
          },
        ])
          expect((await call(url, 'POST', '/api/v1/processes', { token, body })).status).toBe(201);

        const fill = await call(url, 'POST', '/api/v1/requests', {
          token,
          body: { process: 'fill', mode: 'TEST' },
        });
        expect(fill.body).toMatchObject({
          status: 301,
          message:
            'step 1 (Fill), input variable b: the data document would reach 1116 bytes, over its maximum of 1024 bytes: the process is stopped',
          data: { a: 'x' },
        });

        const waits = await call(url, 'POST', '/api/v1/requests', {
          token,
          body: { process: 'waits', mode: 'TEST' },
        });
        expect(waits.body.status).toBe(102);
        const inject = (size: number) =>
          call(url, 'POST', '/api/v1/eval', {
            token,
            body: {
              requestId: waits.body.id,
              template: `<#assign v = [{"s": ""?left_pad(${size}, "y")}]>\${inject_objects("v")?size}`,
            },
          });
        const under = await inject(900);
        expect(under.body.output).toBe('1');
        const over = await inject(1100);
        expect(over.body.error.message.split('\n')[0]).toBe(
          'inject_objects: the data document would reach 1124 bytes, over its maximum of 1024 bytes: the process is stopped',
        );
        signals.emit('SIGTERM');
        expect(await server.done).toBe(0);
      } finally {
        delete process.env.FLOWMARK_DATA_DOCUMENT_LIMIT;
      }
    });
  });
}
