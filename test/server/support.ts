/**
 * A real server for the HTTP suites: `createServer` over the suite's engine, listening on a free
 * port of 127.0.0.1, with two accounts (acme, globex), each with an administrator and a user.
 */
import { afterAll, beforeAll } from 'vitest';
import { createPlatform, type Platform } from '../../src/platform/index.js';
import { createServer, type Api, type ServerOptions } from '../../src/server/index.js';
import type { EngineUnderTest } from '../support/engines.js';

export const PASSWORD = 'correct horse battery';

export interface Seeded {
  accountId: string;
  admin: { id: number; login: string; token: string };
  user: { id: number; login: string; token: string };
}

export interface TestServer {
  url: string;
  app: Api;
  platform: Platform;
  acme: Seeded;
  globex: Seeded;
}

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** fetch with JSON in and out; `token` is sent as Bearer, `cookie` as the Cookie header. */
export async function call<T = any>(
  url: string,
  method: string,
  path: string,
  options: { body?: unknown; token?: string; cookie?: string; headers?: Record<string, string> } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.cookie) headers.cookie = options.cookie;
  let body: BodyInit | undefined;
  if (options.body !== undefined) {
    if (typeof options.body === 'string' || options.body instanceof FormData) body = options.body;
    else {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
  }
  const response = await fetch(url + path, { method, headers, body, redirect: 'manual' });
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  return {
    status: response.status,
    body: type.includes('json') && text !== '' ? JSON.parse(text) : text,
    headers: response.headers,
  };
}

/** Logs in and returns the session cookie (`flowmark_session=…`). */
export async function login(
  url: string,
  account: string,
  loginName: string,
  password = PASSWORD,
): Promise<string> {
  const r = await call(url, 'POST', '/api/v1/auth/login', { body: { account, login: loginName, password } });
  if (r.status !== 200)
    throw new Error(`login ${account}/${loginName}: ${r.status} ${JSON.stringify(r.body)}`);
  return sessionCookie(r.headers);
}

export function sessionCookie(headers: Headers): string {
  const cookie = headers.getSetCookie().find((c) => c.startsWith('flowmark_session='));
  if (!cookie) throw new Error('no session cookie');
  return cookie.split(';')[0]!;
}

async function seed(server: Omit<TestServer, 'acme' | 'globex'>, accountId: string): Promise<Seeded> {
  await server.platform.accounts.create({ id: accountId, name: accountId.toUpperCase() });
  const { users } = server.platform.directory;
  const admin = await users.create(accountId, {
    login: 'admin',
    isAdmin: true,
    password: PASSWORD,
    profile: 'ADMIN',
  });
  const user = await users.create(accountId, {
    login: 'ann',
    email: `ann@${accountId}.example`,
    password: PASSWORD,
  });
  const token = async (loginName: string) => {
    const cookie = await login(server.url, accountId, loginName);
    const r = await call(server.url, 'POST', '/api/v1/tokens', { cookie, body: { name: 'tests' } });
    return r.body.token as string;
  };
  return {
    accountId,
    admin: { id: admin.id, login: 'admin', token: await token('admin') },
    user: { id: user.id, login: 'ann', token: await token('ann') },
  };
}

/**
 * Starts the server for the suite (beforeAll) and stops it (afterAll). `options` may be a function
 * of the suite's platform (to build hosts over it).
 */
export function useServer(
  engine: EngineUnderTest,
  options: Partial<ServerOptions> | ((platform: Platform) => Partial<ServerOptions>) = {},
): TestServer {
  const server = {} as TestServer;
  beforeAll(async () => {
    const platform = createPlatform(engine.store);
    const extra = typeof options === 'function' ? options(platform) : options;
    const app = await createServer({ store: engine.store, platform, ...extra });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    Object.assign(server, { app, platform, url: `http://127.0.0.1:${address.port}` });
    server.acme = await seed(server, 'acme');
    server.globex = await seed(server, 'globex');
  });
  afterAll(async () => {
    await server.app?.close();
  });
  return server;
}
