/**
 * Route schemas compile on first use (src/server/lazy-schemas.ts): a validator compiled by the
 * request it refuses answers as an eagerly compiled one did, and every schema of every route
 * still compiles (what Fastify checked at start before).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Api } from '../../src/server/index.js';
import { compileEverySchema } from '../../src/server/lazy-schemas.js';
import { openStore, type Store } from '../../src/store/index.js';

describe('lazy route schemas', () => {
  let dir: string;
  let store: Store;
  let app: Api;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'flowmark-lazy-schemas-'));
    store = await openStore({ sqliteFile: join(dir, 'lazy.db'), databaseUrl: undefined });
    app = await createServer({ store, defaultAccountId: 'acme' });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a route's first request, refused by the validator it compiles, gets the validation error", async () => {
    const extra = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { account: 'acme', login: 'ann', password: 'x', admin: true },
    });
    expect(extra.statusCode).toBe(400);
    expect(extra.json()).toEqual({
      status: 400,
      code: 'invalid',
      message: 'body must NOT have additional properties',
    });
    const typed = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { account: 'acme', login: 7, password: 'x' },
    });
    // coerced to "7" (the server's Ajv options: coerceTypes), then refused as a login
    expect(typed.json()).toEqual({
      status: 401,
      code: 'invalid-credentials',
      message: 'Invalid account, login or password.',
    });
  });

  it('serializes a response by its schema on first use', async () => {
    const r = await app.inject({ method: 'GET', url: '/health' });
    expect(r.statusCode).toBe(200);
    expect(r.body).toBe('{"status":"ok","engine":"sqlite"}');
  });

  it("compiles every route's schemas", () => {
    const compiled = compileEverySchema(app);
    expect(compiled).toBeGreaterThan(300);
    expect(compileEverySchema(app)).toBe(0);
  });
});
