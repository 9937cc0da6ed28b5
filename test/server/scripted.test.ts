import { expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from './support.js';

describeEachEngine('server: composite APIs, web-interface templates, process definitions', (engine) => {
  const server = useServer(engine);
  const as = (who: 'admin' | 'user', account: 'acme' | 'globex' = 'acme') => server[account][who].token;

  it('lets administrators create, read, replace and delete composite APIs', async () => {
    const created = await call(server.url, 'POST', '/api/v1/composite-apis', {
      token: as('admin'),
      body: {
        method: 'POST',
        path: '/orders/:id/',
        template: '${id}',
        isPublic: true,
        description: 'an order',
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      projectId: null,
      method: 'POST',
      path: 'orders/:id',
      template: '${id}',
      process: null,
      mode: 'LIVE',
      isPublic: true,
      description: 'an order',
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    const id = created.body.id;
    const twice = await call(server.url, 'POST', '/api/v1/composite-apis', {
      token: as('admin'),
      body: { method: 'POST', path: 'orders/:id', template: 'x' },
    });
    expect(twice.body).toEqual({
      status: 409,
      code: 'conflict',
      message: 'a composite API answers POST orders/:id already',
    });
    const bad = await call(server.url, 'POST', '/api/v1/composite-apis', {
      token: as('admin'),
      body: { path: 'a b', template: 'x' },
    });
    expect(bad.body).toEqual({
      status: 400,
      code: 'invalid',
      message: 'invalid path "a b": a segment is letters, digits, . _ ~ - or a :parameter',
    });
    const replaced = await call(server.url, 'PUT', `/api/v1/composite-apis/${id}`, {
      token: as('admin'),
      body: { method: 'GET', path: 'orders/:id', template: 'order ${id}', mode: 'TEST' },
    });
    expect(replaced.body).toMatchObject({
      method: 'GET',
      template: 'order ${id}',
      mode: 'TEST',
      isPublic: false,
    });
    const list = await call(server.url, 'GET', '/api/v1/composite-apis', { token: as('admin') });
    expect(list.body.items).toEqual([replaced.body]);
    expect(
      (await call(server.url, 'GET', `/api/v1/composite-apis/${id}`, { token: as('user') })).status,
    ).toBe(403);
    expect(
      (await call(server.url, 'GET', `/api/v1/composite-apis/${id}`, { token: as('admin', 'globex') })).body,
    ).toEqual({
      status: 404,
      code: 'not-found',
      message: 'Composite API not found.',
    });
    expect(
      (await call(server.url, 'GET', '/api/v1/composite-apis', { token: as('admin', 'globex') })).body.items,
    ).toEqual([]);
    expect(
      (await call(server.url, 'DELETE', `/api/v1/composite-apis/${id}`, { token: as('admin', 'globex') }))
        .status,
    ).toBe(404);
    expect(
      (await call(server.url, 'DELETE', `/api/v1/composite-apis/${id}`, { token: as('admin') })).status,
    ).toBe(204);
  });

  it('sets and reads the template of a web interface', async () => {
    const project = (
      await call(server.url, 'POST', '/api/v1/projects', { token: as('admin'), body: { title: 'P' } })
    ).body;
    const wi = (
      await call(server.url, 'POST', `/api/v1/projects/${project.id}/web-interfaces`, {
        token: as('admin'),
        body: { title: 'Form' },
      })
    ).body;
    const path = `/api/v1/web-interfaces/${wi.id}/template`;
    expect((await call(server.url, 'GET', path, { token: as('admin') })).body).toEqual({ template: '' });
    const set = await call(server.url, 'PUT', path, {
      token: as('admin'),
      body: { template: '<p>${now()}</p>' },
    });
    expect(set.body).toEqual({ template: '<p>${now()}</p>' });
    expect((await call(server.url, 'GET', path, { token: as('admin') })).body).toEqual({
      template: '<p>${now()}</p>',
    });
    expect((await call(server.url, 'PUT', path, { token: as('user'), body: { template: 'x' } })).status).toBe(
      403,
    );
    const other = await call(server.url, 'PUT', path, {
      token: as('admin', 'globex'),
      body: { template: 'x' },
    });
    expect(other.body).toEqual({ status: 404, code: 'not-found', message: 'Web interface not found.' });
  });

  it('pages composite APIs with their total, filtered and sorted like every list', async () => {
    const made: number[] = [];
    for (const [method, path] of [
      ['GET', 'pages/b'],
      ['POST', 'pages/a'],
      ['GET', 'pages/a'],
    ]) {
      const created = await call(server.url, 'POST', '/api/v1/composite-apis', {
        token: as('admin'),
        body: { method, path, template: 'x', isPublic: method === 'POST' },
      });
      made.push(created.body.id);
    }
    const list = async (query: string, token = as('admin')) =>
      call(server.url, 'GET', `/api/v1/composite-apis${query}`, { token });
    const routes = (body: { items: Array<{ method: string; path: string }> }) =>
      body.items.map((a) => `${a.method} ${a.path}`);
    const all = await list('');
    expect(routes(all.body)).toEqual(['GET pages/a', 'POST pages/a', 'GET pages/b']);
    expect(all.body).toMatchObject({ total: 3, first: 0, nb: 100 });
    const second = await list('?first=1&nb=1');
    expect(routes(second.body)).toEqual(['POST pages/a']);
    expect(second.body).toMatchObject({ total: 3, first: 1, nb: 1 });
    const publicOnes = await list('?filter=isPublic&operator=EE&value=true');
    expect(routes(publicOnes.body)).toEqual(['POST pages/a']);
    expect(publicOnes.body.total).toBe(1);
    expect(routes((await list('?orderby=id&order=DESC')).body)).toEqual([
      'GET pages/a',
      'POST pages/a',
      'GET pages/b',
    ]);
    expect((await list('?orderby=template')).body).toEqual({
      status: 400,
      code: 'invalid',
      message:
        'orderby: unknown field "template" (one of id, projectId, method, path, mode, isPublic, updatedAt)',
    });
    expect((await list('', as('user'))).body).toEqual({
      status: 403,
      code: 'forbidden',
      message: 'Only an administrator of the account may call GET /api/v1/composite-apis.',
    });
    expect((await call(server.url, 'GET', '/api/v1/composite-apis')).status).toBe(401);
    expect((await list('', as('admin', 'globex'))).body).toMatchObject({ items: [], total: 0 });
    for (const id of made)
      expect(
        (await call(server.url, 'DELETE', `/api/v1/composite-apis/${id}`, { token: as('admin') })).status,
      ).toBe(204);
  });

  it("lists the account's web interfaces and deletes one with its template", async () => {
    const project = (
      await call(server.url, 'POST', '/api/v1/projects', { token: as('admin'), body: { title: 'Listed' } })
    ).body;
    const make = async (title: string) =>
      (
        await call(server.url, 'POST', `/api/v1/projects/${project.id}/web-interfaces`, {
          token: as('admin'),
          body: { title },
        })
      ).body;
    const first = await make('Alpha');
    const second = await make('Beta');
    await call(server.url, 'PUT', `/api/v1/web-interfaces/${first.id}/template`, {
      token: as('admin'),
      body: { template: '<p>alpha</p>' },
    });
    const titled = (body: { items: Array<{ id: number; title: string }> }) =>
      body.items.filter((w) => w.id === first.id || w.id === second.id).map((w) => w.title);
    // Any user of the account reads the list, like a project's web interfaces.
    const byUser = await call(server.url, 'GET', '/api/v1/web-interfaces', { token: as('user') });
    expect(titled(byUser.body)).toEqual(['Alpha', 'Beta']);
    expect(byUser.body.items.find((w: { id: number }) => w.id === first.id)).toEqual(first);
    expect(byUser.body.total).toBe(byUser.body.items.length);
    const filtered = await call(
      server.url,
      'GET',
      '/api/v1/web-interfaces?filter=title&operator=EE&value=Beta',
      {
        token: as('user'),
      },
    );
    expect(filtered.body).toMatchObject({ items: [second], total: 1 });
    expect(
      (await call(server.url, 'GET', '/api/v1/web-interfaces', { token: as('admin', 'globex') })).body.items,
    ).toEqual([]);
    expect((await call(server.url, 'GET', '/api/v1/web-interfaces')).status).toBe(401);

    // Only an administrator of the account deletes; another account's is not found.
    const path = `/api/v1/web-interfaces/${first.id}`;
    expect((await call(server.url, 'DELETE', path, { token: as('user') })).body).toEqual({
      status: 403,
      code: 'forbidden',
      message: 'Only an administrator of the account may call DELETE /api/v1/web-interfaces/:id.',
    });
    expect((await call(server.url, 'DELETE', path)).status).toBe(401);
    expect((await call(server.url, 'DELETE', path, { token: as('admin', 'globex') })).body).toEqual({
      status: 404,
      code: 'not-found',
      message: 'Web interface not found.',
    });
    expect((await call(server.url, 'DELETE', path, { token: as('admin') })).status).toBe(204);
    expect((await call(server.url, 'GET', path, { token: as('admin') })).status).toBe(404);
    expect((await call(server.url, 'GET', `${path}/template`, { token: as('admin') })).status).toBe(404);
    expect((await call(server.url, 'DELETE', path, { token: as('admin') })).body).toEqual({
      status: 404,
      code: 'not-found',
      message: 'Web interface not found.',
    });
    const left = await call(server.url, 'GET', '/api/v1/web-interfaces', { token: as('admin') });
    expect(titled(left.body)).toEqual(['Beta']);
  });

  it('stores, replaces and deletes process definitions', async () => {
    const definition = {
      name: 'approval',
      steps: [{ id: 1, type: 'script', name: 'compute', script: '${2 * 21}' }],
    };
    const created = await call(server.url, 'POST', '/api/v1/processes', {
      token: as('admin'),
      body: definition,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: expect.any(Number), name: 'approval' });
    expect(created.body.definition.steps[0]).toMatchObject({ id: 1, type: 'script' });
    const invalid = await call(server.url, 'POST', '/api/v1/processes', {
      token: as('admin'),
      body: { name: 'x' },
    });
    expect(invalid.body).toEqual({
      status: 400,
      code: 'invalid',
      message: 'process definition.steps: must be a non-empty array of steps',
    });
    const list = await call(server.url, 'GET', '/api/v1/processes', { token: as('admin') });
    expect(list.body.items.map((d: { name: string }) => d.name)).toEqual(['approval']);
    const renamed = await call(server.url, 'PUT', `/api/v1/processes/${created.body.id}`, {
      token: as('admin'),
      body: { ...definition, name: 'approval2' },
    });
    expect(renamed.body.name).toBe('approval2');
    expect(
      (
        await call(server.url, 'GET', `/api/v1/processes/${created.body.id}`, {
          token: as('admin', 'globex'),
        })
      ).status,
    ).toBe(404);
    expect(
      (await call(server.url, 'DELETE', `/api/v1/processes/${created.body.id}`, { token: as('admin') }))
        .status,
    ).toBe(204);
  });

  it('answers 501 for request starts and tasks without a process host', async () => {
    const start = await call(server.url, 'POST', '/api/v1/requests', {
      token: as('user'),
      body: { process: 'x' },
    });
    expect(start.body).toEqual({
      status: 501,
      code: 'not-implemented',
      message: 'This server has no process host.',
    });
    const task = await call(server.url, 'GET', '/live/acme/task/r1/2/0');
    expect(task.body).toEqual({
      status: 501,
      code: 'not-implemented',
      message: 'This server has no process host.',
    });
  });
});
