import { expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from './support.js';

describeEachEngine('server: projects, versions, web interfaces, custom lists', (engine) => {
  const server = useServer(engine);
  const as = (who: 'admin' | 'user') => server.acme[who].token;
  let projectId = 0;

  it('creates a project (author = the caller) and changes it', async () => {
    const created = await call(server.url, 'POST', '/api/v1/projects', {
      token: as('admin'),
      body: { title: 'Orders', summary: { text: 'order flow' }, logLevel: 'INFO' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      title: 'Orders',
      type: 'PROCESS',
      authorId: server.acme.admin.id,
      summary: { text: 'order flow' },
      content: {},
      metadata: {},
      parentId: null,
      logLevel: 'INFO',
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    projectId = created.body.id;
    const changed = await call(server.url, 'PATCH', `/api/v1/projects/${projectId}`, {
      token: as('admin'),
      body: { title: 'Orders v2', content: { steps: 3 } },
    });
    expect(changed.body).toMatchObject({
      title: 'Orders v2',
      content: { steps: 3 },
      summary: { text: 'order flow' },
    });
    const read = await call(server.url, 'GET', `/api/v1/projects/${projectId}`, { token: as('user') });
    expect(read.body.title).toBe('Orders v2');
    const refused = await call(server.url, 'PATCH', `/api/v1/projects/${projectId}`, {
      token: as('user'),
      body: { title: 'x' },
    });
    expect(refused.status).toBe(403);
    const badLevel = await call(server.url, 'POST', '/api/v1/projects', {
      token: as('admin'),
      body: { title: 'x', logLevel: 'LOUD' },
    });
    expect(badLevel.status).toBe(400);
    expect(badLevel.body.code).toBe('invalid');
    const missing = await call(server.url, 'GET', '/api/v1/projects/999999', { token: as('user') });
    expect(missing.body).toEqual({ status: 404, code: 'not-found', message: 'Project not found.' });
  });

  it('lists projects and child projects', async () => {
    const child = await call(server.url, 'POST', '/api/v1/projects', {
      token: as('admin'),
      body: { title: 'Orders: returns', parentId: projectId },
    });
    const children = await call(server.url, 'GET', `/api/v1/projects/${projectId}/children`, {
      token: as('user'),
    });
    expect(children.body).toMatchObject({ total: 1, items: [{ id: child.body.id, parentId: projectId }] });
    const all = await call(
      server.url,
      'GET',
      '/api/v1/projects?filter=title&operator=CONTAINS&value=returns',
      {
        token: as('user'),
      },
    );
    expect(all.body.items.map((p: { title: string }) => p.title)).toEqual(['Orders: returns']);
  });

  it('adds versions and moves them between modes', async () => {
    const v1 = await call(server.url, 'POST', `/api/v1/projects/${projectId}/versions`, {
      token: as('admin'),
      body: { name: '1.0', mode: 'TEST' },
    });
    expect(v1.body).toEqual({
      id: expect.any(Number),
      projectId,
      name: '1.0',
      mode: 'TEST',
      createdAt: expect.any(Number),
    });
    const live = await call(server.url, 'PATCH', `/api/v1/projects/${projectId}/versions/${v1.body.id}`, {
      token: as('admin'),
      body: { mode: 'LIVE' },
    });
    expect(live.body.mode).toBe('LIVE');
    const list = await call(server.url, 'GET', `/api/v1/projects/${projectId}/versions`, {
      token: as('user'),
    });
    expect(list.body.items).toEqual([live.body]);
    const wrongProject = await call(
      server.url,
      'PATCH',
      `/api/v1/projects/${projectId + 1}/versions/${v1.body.id}`,
      {
        token: as('admin'),
        body: { mode: 'TEST' },
      },
    );
    expect(wrongProject.body).toEqual({ status: 404, code: 'not-found', message: 'Version not found.' });
    const badMode = await call(server.url, 'POST', `/api/v1/projects/${projectId}/versions`, {
      token: as('admin'),
      body: { name: '2', mode: 'PROD' },
    });
    expect(badMode.status).toBe(400);
  });

  it('associates pools, and so lanes, with a project', async () => {
    const pool = (
      await call(server.url, 'POST', '/api/v1/pools', { token: as('admin'), body: { name: 'P' } })
    ).body;
    const lane = (
      await call(server.url, 'POST', `/api/v1/pools/${pool.id}/lanes`, {
        token: as('admin'),
        body: { name: 'L' },
      })
    ).body;
    const attached = await call(server.url, 'PUT', `/api/v1/projects/${projectId}/pools/${pool.id}`, {
      token: as('admin'),
    });
    expect(attached.body).toEqual({ poolIds: [pool.id] });
    const pools = await call(server.url, 'GET', `/api/v1/projects/${projectId}/pools`, { token: as('user') });
    expect(pools.body.items).toEqual([pool]);
    const lanes = await call(server.url, 'GET', `/api/v1/projects/${projectId}/lanes`, { token: as('user') });
    expect(lanes.body.items).toEqual([lane]);
  });

  it('adds web interfaces and offers them as applications in the modes the project has versions in', async () => {
    const wi = await call(server.url, 'POST', `/api/v1/projects/${projectId}/web-interfaces`, {
      token: as('admin'),
      body: { title: 'Order form', tags: ['sales'], contexts: ['web', 'mobile'] },
    });
    expect(wi.status).toBe(201);
    expect(wi.body).toEqual({
      id: expect.any(Number),
      projectId,
      title: 'Order form',
      description: '',
      thumb: '',
      tags: ['sales'],
      contexts: ['web', 'mobile'],
      lanes: [],
      createdAt: expect.any(Number),
    });
    const listed = await call(server.url, 'GET', `/api/v1/projects/${projectId}/web-interfaces`, {
      token: as('user'),
    });
    expect(listed.body.items).toEqual([wi.body]);
    expect(
      (await call(server.url, 'GET', `/api/v1/web-interfaces/${wi.body.id}`, { token: as('user') })).body,
    ).toEqual(wi.body);
    const apps = await call(server.url, 'GET', '/api/v1/applications?context=mobile', { token: as('user') });
    expect(apps.body.items).toEqual([
      {
        webInterface: wi.body,
        mode: 'LIVE',
        url: `http://localhost:8080/live/acme/webinterface/${wi.body.id}?P_context=mobile`,
      },
    ]);
    const testMode = await call(server.url, 'GET', '/api/v1/applications?mode=TEST', { token: as('user') });
    expect(testMode.body.items).toEqual([]);
  });

  it('creates custom lists and replaces their content', async () => {
    const list = await call(server.url, 'POST', '/api/v1/custom-lists', {
      token: as('admin'),
      body: { id: 'countries', name: 'Countries', projectId, content: [{ label: 'France', value: 'FR' }] },
    });
    expect(list.body).toEqual({
      id: 'countries',
      projectId,
      name: 'Countries',
      content: [{ label: 'France', value: 'FR' }],
      updatedAt: expect.any(Number),
    });
    const saved = await call(server.url, 'PUT', '/api/v1/custom-lists/countries/content', {
      token: as('admin'),
      body: [{ label: 'Spain', value: 'ES' }],
    });
    expect(saved.body).toEqual({ content: [{ label: 'Spain', value: 'ES' }] });
    const byProject = await call(server.url, 'GET', `/api/v1/projects/${projectId}/custom-lists`, {
      token: as('user'),
    });
    expect(byProject.body.items.map((l: { id: string }) => l.id)).toEqual(['countries']);
    const unknown = await call(server.url, 'PUT', '/api/v1/custom-lists/nope/content', {
      token: as('admin'),
      body: [],
    });
    expect(unknown.body).toEqual({ status: 404, code: 'not-found', message: 'Custom list not found.' });
    const again = await call(server.url, 'POST', '/api/v1/custom-lists', {
      token: as('admin'),
      body: { id: 'countries', name: 'again' },
    });
    expect(again.body).toEqual({
      status: 409,
      code: 'conflict',
      message: 'custom list countries already exists',
    });
  });
});
