/**
 * The routes the console's composite API and web interface pages use, attacked: a plain user, a
 * designer of the very project, an anonymous caller, another account's administrator and a
 * cookie write from another origin are all refused, and nothing changes; hostile list
 * parameters (prototype keys, unknown fields, oversized pages) are refused with the listing's
 * error.
 */
import { beforeAll, expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { call, login, useServer } from '../server/support.js';

describeEachEngine('security: composite API and web interface routes', (engine) => {
  const server = useServer(engine);
  const admin = () => server.acme.admin.token;
  let projectId = 0;
  let apiId = 0;
  let interfaceId = 0;

  beforeAll(async () => {
    projectId = (
      await call(server.url, 'POST', '/api/v1/projects', { token: admin(), body: { title: 'Guarded' } })
    ).body.id;
    // ann designs the project: the design right still does not open the scripts' routes.
    const granted = await call(
      server.url,
      'PUT',
      `/api/v1/projects/${projectId}/designers/${server.acme.user.id}`,
      { token: admin() },
    );
    expect(granted.body).toEqual({ userIds: [server.acme.user.id] });
    apiId = (
      await call(server.url, 'POST', '/api/v1/composite-apis', {
        token: admin(),
        body: { method: 'GET', path: 'guarded', template: 'original', projectId },
      })
    ).body.id;
    interfaceId = (
      await call(server.url, 'POST', `/api/v1/projects/${projectId}/web-interfaces`, {
        token: admin(),
        body: { title: 'Guarded' },
      })
    ).body.id;
    await call(server.url, 'PUT', `/api/v1/web-interfaces/${interfaceId}/template`, {
      token: admin(),
      body: { template: 'original' },
    });
  });

  /** Nothing changed: the API and the interface's template are as the administrator left them. */
  async function untouched(): Promise<void> {
    const api = await call(server.url, 'GET', `/api/v1/composite-apis/${apiId}`, { token: admin() });
    expect(api.body).toMatchObject({ path: 'guarded', template: 'original', projectId });
    const page = await call(server.url, 'GET', `/api/v1/web-interfaces/${interfaceId}/template`, {
      token: admin(),
    });
    expect(page.body).toEqual({ template: 'original' });
  }

  it("refuses the project's designer, anonymous callers and another account on every write", async () => {
    const replace = { method: 'GET', path: 'guarded', template: 'changed', projectId };
    const attempts: Array<[string, string, unknown?]> = [
      ['PUT', `/api/v1/composite-apis/${apiId}`, replace],
      ['DELETE', `/api/v1/composite-apis/${apiId}`],
      ['PUT', `/api/v1/web-interfaces/${interfaceId}/template`, { template: 'changed' }],
      ['DELETE', `/api/v1/web-interfaces/${interfaceId}`],
    ];
    for (const [method, path, body] of attempts) {
      const route = path.replace(/\/\d+(\/|$)/, '/:id$1');
      const byDesigner = await call(server.url, method, path, { token: server.acme.user.token, body });
      expect(byDesigner.body).toEqual({
        status: 403,
        code: 'forbidden',
        message: `Only an administrator of the account may call ${method} ${route}.`,
      });
      const anonymous = await call(server.url, method, path, { body });
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.code).toBe('unauthenticated');
      const other = await call(server.url, method, path, { token: server.globex.admin.token, body });
      expect(other.status).toBe(404);
    }
    await untouched();
  });

  it('refuses cookie writes from another origin, even an administrator’s', async () => {
    const cookie = await login(server.url, 'acme', 'admin');
    for (const path of [`/api/v1/composite-apis/${apiId}`, `/api/v1/web-interfaces/${interfaceId}`]) {
      const forged = await call(server.url, 'DELETE', path, {
        cookie,
        headers: { origin: 'https://evil.example' },
      });
      expect(forged.body).toEqual({
        status: 403,
        code: 'forbidden',
        message: 'Cross-origin requests may not use the session cookie.',
      });
    }
    await untouched();
  });

  it('refuses hostile list parameters with the listing’s errors', async () => {
    const list = (route: string, q: string) =>
      call(server.url, 'GET', `/api/v1/${route}?${q}`, { token: admin() });
    expect((await list('composite-apis', 'filter=__proto__&operator=EE&value=x')).body).toEqual({
      status: 400,
      code: 'invalid',
      message: expect.stringMatching(/^filter: unknown field "__proto__"/),
    });
    expect((await list('web-interfaces', 'orderby=constructor')).body).toEqual({
      status: 400,
      code: 'invalid',
      message:
        'orderby: unknown field "constructor" (one of id, projectId, title, tags, contexts, createdAt)',
    });
    expect((await list('composite-apis', 'filter=template&operator=CONTAINS&value=original')).status).toBe(
      400,
    );
    expect((await list('web-interfaces', 'nb=100000')).status).toBe(400);
    expect((await list('composite-apis', 'first=-1')).status).toBe(400);
    // A plain user reads the account's web interfaces, never another account's.
    const mine = await call(server.url, 'GET', '/api/v1/web-interfaces', { token: server.acme.user.token });
    expect(mine.body.items.map((w: { id: number }) => w.id)).toEqual([interfaceId]);
    const theirs = await call(server.url, 'GET', '/api/v1/web-interfaces', {
      token: server.globex.user.token,
    });
    expect(theirs.body).toEqual({ items: [], total: 0, first: 0, nb: 100 });
  });
});
