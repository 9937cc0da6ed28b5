/**
 * What the console's users, organisation and token pages ask the API, on the demo account: the
 * user search, whether the caller may change a lane's users (`canChangeUsers`, the same predicate
 * as PUT/DELETE lanes/:id/users/:userId), and the refusals a plain user meets there.
 */
import { beforeAll, expect, it } from 'vitest';
import { seedDemo, type DemoSummary } from '../../src/platform/demo.js';
import { describeEachEngine } from '../support/engines.js';
import { call, login, PASSWORD, useServer } from './support.js';

describeEachEngine('server: what the directory pages use', (engine) => {
  const server = useServer(engine);
  let demo: DemoSummary;
  const tokens: Record<'admin' | 'ann' | 'dora', string> = { admin: '', ann: '', dora: '' };
  const tokenIds: Record<'admin' | 'ann' | 'dora', string> = { admin: '', ann: '', dora: '' };

  beforeAll(async () => {
    demo = await seedDemo(server.platform, { accountId: 'demo', password: PASSWORD });
    for (const who of ['admin', 'ann', 'dora'] as const) {
      const cookie = await login(server.url, 'demo', who);
      const created = await call(server.url, 'POST', '/api/v1/tokens', { cookie, body: { name: who } });
      tokens[who] = created.body.token;
      tokenIds[who] = created.body.info.id;
    }
  });

  const rest = (who: keyof typeof tokens, method: string, path: string, body?: unknown) =>
    call(server.url, method, `/api/v1${path}`, {
      token: tokens[who],
      ...(body !== undefined ? { body } : {}),
    });
  const logins = (r: { body: { items: { login: string }[] } }) => r.body.items.map((u) => u.login);
  const forbidden = (message: string) => ({ status: 403, code: 'forbidden', message });

  it('searches users by login, name or email, case-insensitively, with the total', async () => {
    expect(logins(await rest('ann', 'GET', '/users?search=DIRECTOR'))).toEqual(['dora']);
    expect(logins(await rest('ann', 'GET', '/users?search=carl%40demo'))).toEqual(['carl']);
    const page = await rest('ann', 'GET', '/users?search=demo.example&orderby=login&order=DESC&nb=2');
    expect(page.body).toMatchObject({ total: 5, first: 0, nb: 2 });
    expect(logins(page)).toEqual(['dora', 'carl']);
    // With the platform's filters: the blocked users matching "b".
    const blocked = await rest('admin', 'GET', '/users?search=b&filter=status&operator=EE&value=blocked');
    expect(logins(blocked)).toEqual(['bob']);
    expect(blocked.body.total).toBe(1);
    // Blank: every user.
    expect((await rest('ann', 'GET', '/users?search=%20')).body.total).toBe(5);
  });

  it("tells who may change a lane's users: administrators any lane, designers their pools' runtime lanes", async () => {
    const { Clerks, Board } = demo.lanes;
    const onCall = demo.lanes['On call']!;
    const can = async (who: keyof typeof tokens, lane: number) =>
      (await rest(who, 'GET', `/lanes/${lane}/users`)).body.canChangeUsers;
    expect([await can('admin', onCall), await can('admin', Clerks!), await can('admin', Board!)]).toEqual([
      true,
      true,
      true,
    ]);
    expect([await can('dora', onCall), await can('dora', Clerks!), await can('dora', Board!)]).toEqual([
      true,
      false,
      false,
    ]);
    expect([await can('ann', onCall), await can('ann', Clerks!), await can('ann', Board!)]).toEqual([
      false,
      false,
      false,
    ]);
    // The answer matches what the write route does.
    expect((await rest('dora', 'PUT', `/lanes/${onCall}/users/${demo.users.carl}`)).body).toEqual({
      userIds: [demo.users.carl],
    });
    expect((await rest('dora', 'DELETE', `/lanes/${onCall}/users/${demo.users.carl}`)).body).toEqual({
      userIds: [],
    });
  });

  it("refuses a plain user changing a lane's users, blocking anyone or reading others' tokens", async () => {
    const onCall = demo.lanes['On call']!;
    expect((await rest('ann', 'PUT', `/lanes/${onCall}/users/${demo.users.ann}`)).body).toEqual(
      forbidden(
        `Only an administrator of the account or a designer of a project using the pool of lane ${onCall} may change its users.`,
      ),
    );
    expect((await rest('ann', 'DELETE', `/lanes/${demo.lanes.Clerks}/users/${demo.users.carl}`)).status).toBe(
      403,
    );
    expect((await rest('ann', 'PATCH', `/users/${demo.users.carl}`, { status: 'blocked' })).body).toEqual(
      forbidden('Only an administrator of the account may change another user.'),
    );
    expect((await rest('ann', 'PATCH', `/users/${demo.users.ann}`, { status: 'blocked' })).body).toEqual(
      forbidden('Only an administrator of the account may change status.'),
    );
    expect((await rest('dora', 'POST', '/users/bob/unblock')).body).toEqual(
      forbidden('Only an administrator of the account may call POST /api/v1/users/:ref/unblock.'),
    );
    expect((await rest('ann', 'GET', '/tokens?all=true')).body).toEqual(
      forbidden("Only an administrator of the account may list every user's tokens."),
    );
    const own = await rest('ann', 'GET', '/tokens');
    expect(own.body.items.map((t: { id: string; userId: number }) => [t.id, t.userId])).toEqual([
      [tokenIds.ann, demo.users.ann],
    ]);
    expect(JSON.stringify(own.body)).not.toContain('fmk_');
    expect((await rest('ann', 'DELETE', `/tokens/${tokenIds.dora}`)).body).toEqual({
      status: 404,
      code: 'not-found',
      message: 'Token not found.',
    });
    // Nothing changed.
    expect((await rest('admin', 'GET', `/users/carl`)).body.status).toBe('active');
    expect((await rest('admin', 'GET', `/lanes/${onCall}/users`)).body.items).toEqual([]);
    expect((await rest('dora', 'GET', '/auth/me')).status).toBe(200);
    const all = await rest('admin', 'GET', '/tokens?all=true');
    expect(all.body.items.map((t: { name: string }) => t.name).sort()).toEqual(['admin', 'ann', 'dora']);
  });
});
