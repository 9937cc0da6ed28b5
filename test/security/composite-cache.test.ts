/**
 * What a composite API call shares with the calls before it (issue 20: the route's template, its
 * context and render options are prepared once and reused), attacked over HTTP: two accounts
 * with the same path, an API changed between two calls, a `<#global>` or `<#assign>` left by a
 * call, the P_user of a previous caller seen by an anonymous one, a budget spent by a previous
 * call, P_message and the lock owner of a previous call. Each call must see only its own.
 */
import { beforeAll, expect, it } from 'vitest';
import { createHosts } from '../../src/hosts/index.js';
import { describeEachEngine } from '../support/engines.js';
import { call, login, useServer } from '../server/support.js';

/** Small enough that two calls of `budgeted` would not fit in one budget. */
const MAX_ALLOC_BYTES = 200_000;

describeEachEngine('security: what composite API calls share', (engine) => {
  const server = useServer(engine, (platform) => ({
    hosts: createHosts(platform, { limits: { evaluation: { maxAllocBytes: MAX_ALLOC_BYTES } } }),
  }));
  const live = (account: string, path: string) => `/live/${account}/composite/${path}`;
  const create = async (token: string, body: Record<string, unknown>): Promise<number> => {
    const r = await call(server.url, 'POST', '/api/v1/composite-apis', { token, body });
    expect(r.status).toBe(201);
    return r.body.id as number;
  };

  let whoId = 0;
  beforeAll(async () => {
    for (const account of [server.acme, server.globex]) {
      await create(account.admin.token, {
        method: 'GET',
        path: 'shared/:n',
        isPublic: true,
        template: `${account.accountId} \${P_customer} \${P_params.n} \${(P_user.login)!"anonymous"}`,
      });
      await create(account.admin.token, {
        method: 'GET',
        path: 'private',
        template: `private of \${P_customer} for \${P_user.login}`,
      });
    }
    whoId = await create(server.acme.admin.token, {
      method: 'GET',
      path: 'who',
      isPublic: true,
      template: '${(P_user.login)!"anonymous"} ${(P_connected_user.login)!"-"} ${P_language}',
    });
    await create(server.acme.admin.token, {
      method: 'GET',
      path: 'globals',
      isPublic: true,
      template:
        '${kept!"none"} ${assigned!"none"} ${.globals.kept!"none"}' +
        '<#global kept = P_query.v><#assign assigned = P_query.v>',
    });
    await create(server.acme.admin.token, {
      method: 'GET',
      path: 'budgeted',
      isPublic: true,
      // 80,000 bytes of the 200,000 each call may allocate (over the 64 KB a render charges at
      // once): a third call on the same budget would fail.
      template: '${""?left_pad(40000)?length?c}',
    });
    await create(server.acme.admin.token, {
      method: 'GET',
      path: 'message',
      isPublic: true,
      template: '[${P_message}]${P_log("SEVERE", P_query.m)}[${P_message}]',
    });
    await create(server.acme.admin.token, {
      method: 'GET',
      path: 'locker',
      isPublic: true,
      // Takes the lock without waiting and keeps it (a minute's lease).
      template: '${R_lock(P_query.l, 0, 60)} ${P_locks?size}',
    });
  });

  it('keeps two accounts with the same path apart, call after call', async () => {
    for (let i = 0; i < 3; i++) {
      const acme = await call(server.url, 'GET', live('acme', `shared/${i}`));
      expect(acme).toMatchObject({ status: 200, body: `acme acme ${i} anonymous` });
      const globex = await call(server.url, 'GET', live('globex', `shared/${i}`));
      expect(globex).toMatchObject({ status: 200, body: `globex globex ${i} anonymous` });
    }
    // A caller of one account is nobody in the other: no P_user, and no way into its private API.
    const crossed = await call(server.url, 'GET', live('globex', 'shared/9'), {
      token: server.acme.admin.token,
    });
    expect(crossed.body).toBe('globex globex 9 anonymous');
    const refused = await call(server.url, 'GET', live('globex', 'private'), {
      token: server.acme.admin.token,
    });
    expect(refused).toMatchObject({
      status: 401,
      body: {
        status: 401,
        code: 'unauthenticated',
        message: 'Authentication required: log in or send an API token.',
      },
    });
    const own = await call(server.url, 'GET', live('globex', 'private'), { token: server.globex.user.token });
    expect(own.body).toBe('private of globex for ann');
    const acmeOwn = await call(server.url, 'GET', live('acme', 'private'), {
      token: server.acme.admin.token,
    });
    expect(acmeOwn.body).toBe('private of acme for admin');
  });

  it('never shows the P_user of a previous caller to the next one', async () => {
    const cookie = await login(server.url, 'acme', 'ann');
    const sequence: Array<[{ token?: string; cookie?: string }, string]> = [
      [{ token: server.acme.user.token }, 'ann ann en'],
      [{}, 'anonymous - en'],
      [{ token: server.acme.admin.token }, 'admin admin en'],
      [{ cookie }, 'ann ann en'],
      [{}, 'anonymous - en'],
      [{ token: server.globex.admin.token }, 'anonymous - en'],
      [{ token: server.acme.user.token }, 'ann ann en'],
      [{}, 'anonymous - en'],
    ];
    for (const [credentials, expected] of sequence) {
      const r = await call(server.url, 'GET', live('acme', 'who'), credentials);
      expect(r).toMatchObject({ status: 200, body: expected });
    }
  });

  it('runs the changed API at the next call, and a broken change fails at once', async () => {
    const token = server.acme.admin.token;
    expect((await call(server.url, 'GET', live('acme', 'who'))).body).toBe('anonymous - en');
    const replace = async (template: string) => {
      const r = await call(server.url, 'PUT', `/api/v1/composite-apis/${whoId}`, {
        token,
        body: { method: 'GET', path: 'who', isPublic: true, template },
      });
      expect(r.status).toBe(200);
    };
    await replace('changed ${P_customer}');
    expect((await call(server.url, 'GET', live('acme', 'who'))).body).toBe('changed acme');
    await replace('${');
    const broken = await call(server.url, 'GET', live('acme', 'who'), { token });
    expect(broken.status).toBe(500);
    expect(broken.body).toMatchObject({ status: 500, code: 'script-error' });
    await replace('${(P_user.login)!"anonymous"} ${(P_connected_user.login)!"-"} ${P_language}');
    expect((await call(server.url, 'GET', live('acme', 'who'))).body).toBe('anonymous - en');
    // Made private: the next anonymous call is refused, even though the route was cached public.
    const made = await call(server.url, 'PUT', `/api/v1/composite-apis/${whoId}`, {
      token,
      body: { method: 'GET', path: 'who', isPublic: false, template: 'private now' },
    });
    expect(made.status).toBe(200);
    expect((await call(server.url, 'GET', live('acme', 'who'))).status).toBe(401);
    expect((await call(server.url, 'GET', live('acme', 'who'), { token })).body).toBe('private now');
  });

  it('starts every call without the variables a previous call set (<#global>, <#assign>)', async () => {
    for (const v of ['one', 'two', 'three']) {
      const r = await call(server.url, 'GET', `${live('acme', 'globals')}?v=${v}`);
      expect(r).toMatchObject({ status: 200, body: 'none none none' });
    }
    // Calls in flight together do not see each other's either.
    const together = await Promise.all(
      ['a', 'b', 'c', 'd'].map((v) => call(server.url, 'GET', `${live('acme', 'globals')}?v=${v}`)),
    );
    expect(together.map((r) => r.body)).toEqual([
      'none none none',
      'none none none',
      'none none none',
      'none none none',
    ]);
  });

  it('gives every call a fresh budget: what one call spent is not charged to the next', async () => {
    for (let i = 0; i < 4; i++) {
      const r = await call(server.url, 'GET', live('acme', 'budgeted'));
      expect(r).toMatchObject({ status: 200, body: '40000' });
    }
    // The budget still bounds one call.
    await call(server.url, 'PUT', `/api/v1/composite-apis/${await idOf('budgeted')}`, {
      token: server.acme.admin.token,
      body: { method: 'GET', path: 'budgeted', isPublic: true, template: '${""?left_pad(120000)?length?c}' },
    });
    const over = await call(server.url, 'GET', live('acme', 'budgeted'), { token: server.acme.admin.token });
    expect(over.status).toBe(500);
    expect(over.body).toEqual({
      status: 500,
      code: 'script-error',
      message: '?left_pad: the value would exceed the 200000 bytes limit for one evaluation',
      line: 0,
      column: 0,
    });
    // … and the call after it has its whole budget again.
    await call(server.url, 'PUT', `/api/v1/composite-apis/${await idOf('budgeted')}`, {
      token: server.acme.admin.token,
      body: { method: 'GET', path: 'budgeted', isPublic: true, template: '${""?left_pad(90000)?length?c}' },
    });
    expect((await call(server.url, 'GET', live('acme', 'budgeted'))).body).toBe('90000');
  });

  it('starts every call with an empty P_message, empty P_locks and its own lock owner', async () => {
    for (const m of ['first', 'second']) {
      const r = await call(server.url, 'GET', `${live('acme', 'message')}?m=${m}`);
      expect(r).toMatchObject({ status: 200, body: `[]${m}[${m}]` });
    }
    const first = await call(server.url, 'GET', `${live('acme', 'locker')}?l=held`);
    expect(first).toMatchObject({ status: 200, body: 'held 1' });
    // The same caller's next call is another owner: the lock the first kept is not its own.
    const second = await call(server.url, 'GET', `${live('acme', 'locker')}?l=held`);
    expect(second.body).toEqual({
      status: 500,
      code: 'script-error',
      message: "The composite API's script failed (see the account's log).",
    });
    const [logged] = await server.platform.logs.list('acme', { limit: 1 });
    expect(logged!.message).toContain('Timeout exception');
    const other = await call(server.url, 'GET', `${live('acme', 'locker')}?l=another`);
    expect(other).toMatchObject({ status: 200, body: 'another 1' });
  });

  async function idOf(path: string): Promise<number> {
    const r = await call(server.url, 'GET', '/api/v1/composite-apis', { token: server.acme.admin.token });
    const items = (r.body.items ?? r.body) as Array<{ id: number; path: string }>;
    return items.find((a) => a.path === path)!.id;
  }
});
