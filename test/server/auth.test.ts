import { describe, expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { call, login, PASSWORD, sessionCookie, useServer } from './support.js';

let now = Date.UTC(2024, 0, 15, 9, 0, 0);
const HOUR = 3600_000;

describeEachEngine('server: authentication', (engine) => {
  const server = useServer(engine, { clock: () => now, throttle: { login: { maxFailures: 4 } } });
  const get = (path: string, auth: { token?: string; cookie?: string } = {}) =>
    call(server.url, 'GET', path, auth);

  it('logs in with a password: an httpOnly SameSite session cookie, and who is logged in', async () => {
    const r = await call(server.url, 'POST', '/api/v1/auth/login', {
      body: { account: 'acme', login: 'admin', password: PASSWORD },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      account: { id: 'acme', name: 'ACME', locale: 'en_US', timeZone: 'UTC' },
      user: { login: 'admin', isAdmin: true, status: 'active', preferences: {} },
      via: 'session',
    });
    const setCookie = r.headers.getSetCookie()[0]!;
    expect(setCookie).toMatch(
      /^flowmark_session=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Lax$/,
    );
    const me = await get('/api/v1/auth/me', { cookie: sessionCookie(r.headers) });
    expect(me.status).toBe(200);
    expect(me.body.user.login).toBe('admin');
    expect(me.body.via).toBe('session');
  });

  it('refuses anonymous calls and wrong passwords with the same error body', async () => {
    expect(await get('/api/v1/users')).toEqual(
      expect.objectContaining({
        status: 401,
        body: {
          status: 401,
          code: 'unauthenticated',
          message: 'Authentication required: log in or send an API token.',
        },
      }),
    );
    for (const body of [
      { account: 'acme', login: 'ann', password: 'wrong password' },
      { account: 'acme', login: 'nobody', password: PASSWORD },
      { account: 'no-such-account', login: 'ann', password: PASSWORD },
    ]) {
      const r = await call(server.url, 'POST', '/api/v1/auth/login', { body });
      expect(r.status).toBe(401);
      expect(r.body).toEqual({
        status: 401,
        code: 'invalid-credentials',
        message: 'Invalid account, login or password.',
      });
      expect(r.headers.getSetCookie()).toEqual([]);
    }
  });

  it('validates the login body', async () => {
    const r = await call(server.url, 'POST', '/api/v1/auth/login', {
      body: { login: 'ann', password: PASSWORD },
    });
    expect(r.body).toEqual({
      status: 400,
      code: 'invalid',
      message: 'account: required (this server has no default account)',
    });
    const extra = await call(server.url, 'POST', '/api/v1/auth/login', {
      body: { account: 'acme', login: 'ann', password: PASSWORD, admin: true },
    });
    expect(extra.body).toEqual({
      status: 400,
      code: 'invalid',
      message: 'body must NOT have additional properties',
    });
  });

  it('gives a new session at every login and ends the one the browser held', async () => {
    const first = await login(server.url, 'acme', 'ann');
    expect((await get('/api/v1/auth/me', { cookie: first })).status).toBe(200);
    const r = await call(server.url, 'POST', '/api/v1/auth/login', {
      cookie: first,
      body: { account: 'acme', login: 'admin', password: PASSWORD },
    });
    const second = sessionCookie(r.headers);
    expect(second).not.toBe(first);
    expect((await get('/api/v1/auth/me', { cookie: first })).status).toBe(401);
    expect((await get('/api/v1/auth/me', { cookie: second })).body.user.login).toBe('admin');
  });

  it('logs out: the session ends and its cookie is cleared', async () => {
    const cookie = await login(server.url, 'acme', 'ann');
    expect((await get('/api/v1/auth/me', { cookie })).status).toBe(200);
    const out = await call(server.url, 'POST', '/api/v1/auth/logout', { cookie });
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie()[0]).toMatch(
      /^flowmark_session=; Max-Age=0; Path=\/; Expires=Thu, 01 Jan 1970/,
    );
    expect((await get('/api/v1/auth/me', { cookie })).status).toBe(401);
  });

  it('ends a session 12 hours after its last use, and extends one in use', async () => {
    const cookie = await login(server.url, 'acme', 'ann');
    now += 7 * HOUR; // past half its life: this use extends it to now + 12 h
    expect((await get('/api/v1/auth/me', { cookie })).status).toBe(200);
    now += 11 * HOUR;
    expect((await get('/api/v1/auth/me', { cookie })).status).toBe(200);
    now += 13 * HOUR;
    expect((await get('/api/v1/auth/me', { cookie })).status).toBe(401);
  });

  it('creates API tokens shown once, lists them without the secret, and revokes them', async () => {
    const cookie = await login(server.url, 'acme', 'ann');
    const created = await call(server.url, 'POST', '/api/v1/tokens', {
      cookie,
      body: { name: 'ci', expiresInDays: 30 },
    });
    expect(created.status).toBe(201);
    const { token, info } = created.body;
    expect(token).toMatch(/^fmk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(info).toEqual({
      id: token.slice(4, 20),
      userId: server.acme.user.id,
      name: 'ci',
      createdAt: now,
      expiresAt: now + 30 * 24 * HOUR,
      lastUsedAt: null,
    });
    const me = await get('/api/v1/auth/me', { token });
    expect(me.body.via).toBe('token');
    expect(me.body.user.login).toBe('ann');

    const list = await get('/api/v1/tokens', { token });
    expect(list.body.items.map((t: { name: string }) => t.name)).toContain('ci');
    expect(JSON.stringify(list.body)).not.toContain(token.slice(21));
    expect(list.body.items.find((t: { id: string }) => t.id === info.id).lastUsedAt).toBe(now);

    expect((await call(server.url, 'DELETE', `/api/v1/tokens/${info.id}`, { token })).status).toBe(204);
    expect(await get('/api/v1/auth/me', { token })).toEqual(
      expect.objectContaining({
        status: 401,
        body: {
          status: 401,
          code: 'invalid-token',
          message: 'The API token is invalid, expired or revoked.',
        },
      }),
    );
  });

  it('refuses malformed, unknown and expired tokens, and other schemes', async () => {
    for (const authorization of [
      'Bearer nope',
      `Bearer fmk_0123456789abcdef_${'A'.repeat(43)}`,
      'Basic YTpi',
    ]) {
      const r = await call(server.url, 'GET', '/api/v1/auth/me', { headers: { authorization } });
      expect(r.body.code).toBe('invalid-token');
    }
    const { token } = (
      await call(server.url, 'POST', '/api/v1/tokens', {
        token: server.acme.user.token,
        body: { name: 'short', expiresInDays: 1 },
      })
    ).body;
    expect((await get('/api/v1/auth/me', { token })).status).toBe(200);
    now += 25 * HOUR;
    expect((await get('/api/v1/auth/me', { token })).body.code).toBe('invalid-token');
  });

  it('lets only the owner or an administrator revoke a token, and only admins list all', async () => {
    const { info } = (
      await call(server.url, 'POST', '/api/v1/tokens', {
        token: server.acme.admin.token,
        body: { name: 'admin-only' },
      })
    ).body;
    const byUser = await call(server.url, 'DELETE', `/api/v1/tokens/${info.id}`, {
      token: server.acme.user.token,
    });
    expect(byUser.body).toEqual({ status: 404, code: 'not-found', message: 'Token not found.' });
    const all = await get('/api/v1/tokens?all=true', { token: server.acme.user.token });
    expect(all.body).toEqual({
      status: 403,
      code: 'forbidden',
      message: "Only an administrator of the account may list every user's tokens.",
    });
    const listed = await get('/api/v1/tokens?all=true', { token: server.acme.admin.token });
    const owners = new Set(listed.body.items.map((t: { userId: number }) => t.userId));
    expect(owners).toEqual(new Set([server.acme.admin.id, server.acme.user.id]));
    expect(
      (await call(server.url, 'DELETE', `/api/v1/tokens/${info.id}`, { token: server.acme.admin.token }))
        .status,
    ).toBe(204);
  });

  it('refuses administrator routes to users with 403 and a clear message', async () => {
    const r = await call(server.url, 'POST', '/api/v1/users', {
      token: server.acme.user.token,
      body: { login: 'x' },
    });
    expect(r.body).toEqual({
      status: 403,
      code: 'forbidden',
      message: 'Only an administrator of the account may call POST /api/v1/users.',
    });
  });

  it('refuses cookie-authenticated writes from another origin', async () => {
    const cookie = await login(server.url, 'acme', 'ann');
    const cross = await call(server.url, 'POST', '/api/v1/tokens', {
      cookie,
      body: { name: 'csrf' },
      headers: { origin: 'https://evil.example' },
    });
    expect(cross.body).toEqual({
      status: 403,
      code: 'forbidden',
      message: 'Cross-origin requests may not use the session cookie.',
    });
    const same = await call(server.url, 'POST', '/api/v1/tokens', {
      cookie,
      body: { name: 'same-origin' },
      headers: { origin: server.url },
    });
    expect(same.status).toBe(201);
  });

  it('shuts blocked users out (sessions and tokens) until unblocked', async () => {
    const { users } = server.platform.directory;
    const bob = await users.create('acme', { login: 'bob', password: PASSWORD });
    const cookie = await login(server.url, 'acme', 'bob');
    const { token } = (await call(server.url, 'POST', '/api/v1/tokens', { cookie, body: { name: 'b' } }))
      .body;
    const blocked = await call(server.url, 'PATCH', `/api/v1/users/${bob.id}`, {
      token: server.acme.admin.token,
      body: { status: 'blocked' },
    });
    expect(blocked.body.status).toBe('blocked');
    expect((await get('/api/v1/auth/me', { cookie })).status).toBe(401);
    expect((await get('/api/v1/auth/me', { token })).body.code).toBe('invalid-token');
    const again = await call(server.url, 'POST', '/api/v1/auth/login', {
      body: { account: 'acme', login: 'bob', password: PASSWORD },
    });
    expect(again.body).toEqual({ status: 403, code: 'blocked', message: 'This user is blocked.' });
    await call(server.url, 'POST', '/api/v1/users/bob/unblock', { token: server.acme.admin.token });
    expect((await get('/api/v1/auth/me', { token })).status).toBe(200);
  });

  it('lets users change their own password with the current one, which ends their other sessions', async () => {
    const { users } = server.platform.directory;
    const cy = await users.create('acme', { login: 'cy', password: PASSWORD });
    const phone = await login(server.url, 'acme', 'cy');
    const laptop = await login(server.url, 'acme', 'cy');
    const wrong = await call(server.url, 'PATCH', `/api/v1/users/${cy.id}`, {
      cookie: laptop,
      body: { password: 'new password 1', currentPassword: 'nope' },
    });
    expect(wrong.body).toEqual({
      status: 403,
      code: 'invalid-credentials',
      message: 'currentPassword: wrong password.',
    });
    const missing = await call(server.url, 'PATCH', `/api/v1/users/${cy.id}`, {
      cookie: laptop,
      body: { password: 'new password 1' },
    });
    expect(missing.body).toEqual({
      status: 400,
      code: 'invalid',
      message: 'currentPassword: required to change your own password.',
    });
    const changed = await call(server.url, 'PATCH', `/api/v1/users/${cy.id}`, {
      cookie: laptop,
      body: { password: 'new password 1', currentPassword: PASSWORD },
    });
    expect(changed.status).toBe(200);
    const renewed = sessionCookie(changed.headers);
    expect((await get('/api/v1/auth/me', { cookie: phone })).status).toBe(401);
    expect((await get('/api/v1/auth/me', { cookie: laptop })).status).toBe(401);
    expect((await get('/api/v1/auth/me', { cookie: renewed })).status).toBe(200);
    await login(server.url, 'acme', 'cy', 'new password 1');
    const promote = await call(server.url, 'PATCH', `/api/v1/users/${cy.id}`, {
      cookie: renewed,
      body: { isAdmin: true },
    });
    expect(promote.body).toEqual({
      status: 403,
      code: 'forbidden',
      message: 'Only an administrator of the account may change isAdmin.',
    });
  });

  it('asks administrators too for their current password to change their own', async () => {
    const admin = server.acme.admin;
    const path = `/api/v1/users/${admin.id}`;
    const missing = await call(server.url, 'PATCH', path, {
      token: admin.token,
      body: { password: 'new admin password 1' },
    });
    expect(missing.body).toEqual({
      status: 400,
      code: 'invalid',
      message: 'currentPassword: required to change your own password.',
    });
    const wrong = await call(server.url, 'PATCH', path, {
      token: admin.token,
      body: { password: 'new admin password 1', currentPassword: 'nope' },
    });
    expect(wrong.body).toEqual({
      status: 403,
      code: 'invalid-credentials',
      message: 'currentPassword: wrong password.',
    });
    await login(server.url, 'acme', 'admin');
    const changed = await call(server.url, 'PATCH', path, {
      token: admin.token,
      body: { password: 'new admin password 1', currentPassword: PASSWORD },
    });
    expect(changed.status).toBe(200);
    await login(server.url, 'acme', 'admin', 'new admin password 1');
    // back, for the tests after this one
    const back = await call(server.url, 'PATCH', path, {
      token: admin.token,
      body: { password: PASSWORD, currentPassword: 'new admin password 1' },
    });
    expect(back.status).toBe(200);
    // another user's password is an administrator's to set without theirs
    const dee = await server.platform.directory.users.create('acme', { login: 'dee', password: PASSWORD });
    const reset = await call(server.url, 'PATCH', `/api/v1/users/${dee.id}`, {
      token: admin.token,
      body: { password: 'dee password 2' },
    });
    expect(reset.status).toBe(200);
    await login(server.url, 'acme', 'dee', 'dee password 2');
  });

  it('throttles password guessing per login, then lets it try again after the window', async () => {
    const attempt = (password: string) =>
      call(server.url, 'POST', '/api/v1/auth/login', { body: { account: 'globex', login: 'ann', password } });
    for (let i = 0; i < 4; i++) expect((await attempt('guess')).status).toBe(401);
    const refused = await attempt(PASSWORD);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      status: 429,
      code: 'too-many-attempts',
      message: 'Too many failed logins: try again later.',
    });
    expect(refused.headers.get('retry-after')).toBe('900');
    now += 16 * 60_000;
    expect((await attempt(PASSWORD)).status).toBe(200);
  });
});

describe('server: login throttle', () => {
  it('refuses a key after its failures until the window passes, remembering a bounded number of keys', async () => {
    const { LoginThrottle } = await import('../../src/server/auth/throttle.js');
    let t = 0;
    const throttle = new LoginThrottle(() => t, { maxFailures: 2, windowMs: 1000, maxKeys: 2 });
    throttle.fail('a');
    expect(throttle.retryAfter('a')).toBe(0);
    throttle.fail('a');
    expect(throttle.retryAfter('a')).toBe(1000);
    t = 400;
    expect(throttle.retryAfter('a')).toBe(600);
    throttle.fail('b');
    throttle.fail('c'); // over maxKeys: the oldest key (a) is forgotten
    expect(throttle.retryAfter('a')).toBe(0);
    throttle.fail('c');
    expect(throttle.retryAfter('c')).toBe(1000);
    throttle.succeed('c');
    expect(throttle.retryAfter('c')).toBe(0);
  });
});
