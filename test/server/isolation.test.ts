/**
 * Tenant isolation: an administrator of globex (the strongest caller there) reaches nothing of
 * acme, in every resource family: reads answer 404 as for an unknown id, writes change nothing.
 */
import { beforeAll, expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from './support.js';

describeEachEngine('server: tenant isolation', (engine) => {
  const server = useServer(engine);
  const acme = {} as {
    poolId: number;
    laneId: number;
    projectId: number;
    versionId: number;
    webInterfaceId: number;
    tokenId: string;
    fileId: string;
  };
  const asAcme = () => server.acme.admin.token;
  const asGlobex = () => server.globex.admin.token;

  beforeAll(async () => {
    const post = async (path: string, body: unknown) =>
      (await call(server.url, 'POST', path, { token: asAcme(), body })).body;
    acme.poolId = (await post('/api/v1/pools', { name: 'acme pool' })).id;
    acme.laneId = (await post(`/api/v1/pools/${acme.poolId}/lanes`, { name: 'acme lane' })).id;
    acme.projectId = (await post('/api/v1/projects', { title: 'acme project' })).id;
    acme.versionId = (
      await post(`/api/v1/projects/${acme.projectId}/versions`, { name: '1', mode: 'LIVE' })
    ).id;
    acme.webInterfaceId = (
      await post(`/api/v1/projects/${acme.projectId}/web-interfaces`, { title: 'acme wi' })
    ).id;
    await post('/api/v1/custom-lists', { id: 'acme-list', name: 'acme list', content: [1] });
    await post('/api/v1/collections', { name: 'secrets' });
    await post('/api/v1/collections/secrets/documents', { _id: 's1', secret: 'acme only' });
    acme.tokenId = (await post('/api/v1/tokens', { name: 'acme token' })).info.id;
    const upload = new FormData();
    upload.append('visibility', 'PUBLIC');
    upload.append('file', new Blob(['acme file']), 'acme.txt');
    acme.fileId = (await post('/api/v1/files', upload)).id;
    await server.platform.requests.create('acme', {
      id: 'acme-request',
      mode: 'LIVE',
      initiatorId: server.acme.admin.id,
    });
    await server.platform.logs.write('acme', {
      requestId: 'acme-request',
      projectId: null,
      userId: null,
      mode: 'LIVE',
      level: 'SEVERE',
      message: 'acme log',
    });
  });

  const expectNotFound = async (method: string, path: string, body?: unknown) => {
    const r = await call(server.url, method, path, { token: asGlobex(), body });
    expect(r.status, `${method} ${path}`).toBe(404);
    expect(r.body.code, `${method} ${path}`).toBe('not-found');
  };

  it('users', async () => {
    await expectNotFound('GET', `/api/v1/users/${server.acme.user.id}`);
    await expectNotFound('GET', '/api/v1/users/ann@acme.example');
    await expectNotFound('PATCH', `/api/v1/users/${server.acme.user.id}`, { name: 'taken over' });
    await expectNotFound('GET', `/api/v1/users/${server.acme.user.id}/lanes`);
    const list = await call(server.url, 'GET', '/api/v1/users', { token: asGlobex() });
    expect(list.body.items.map((u: { id: number }) => u.id).sort()).toEqual(
      [server.globex.admin.id, server.globex.user.id].sort(),
    );
    const ann = await call(server.url, 'GET', `/api/v1/users/${server.acme.user.id}`, { token: asAcme() });
    expect(ann.body.name).toBe('ann');
  });

  it('pools, lanes and membership', async () => {
    await expectNotFound('GET', `/api/v1/pools/${acme.poolId}`);
    await expectNotFound('POST', `/api/v1/pools/${acme.poolId}/lanes`, { name: 'intruder' });
    await expectNotFound('GET', `/api/v1/lanes/${acme.laneId}`);
    await expectNotFound('PATCH', `/api/v1/lanes/${acme.laneId}`, { name: 'renamed' });
    await expectNotFound('GET', `/api/v1/lanes/${acme.laneId}/users`);
    await expectNotFound('PUT', `/api/v1/lanes/${acme.laneId}/users/${server.globex.user.id}`);
    const globexPool = (
      await call(server.url, 'POST', '/api/v1/pools', { token: asGlobex(), body: { name: 'g' } })
    ).body;
    const globexLane = (
      await call(server.url, 'POST', `/api/v1/pools/${globexPool.id}/lanes`, {
        token: asGlobex(),
        body: { name: 'g' },
      })
    ).body;
    await expectNotFound('PUT', `/api/v1/lanes/${globexLane.id}/users/${server.acme.user.id}`);
    await expectNotFound('POST', `/api/v1/pools/${globexPool.id}/lanes`, {
      name: 'x',
      managerId: server.acme.user.id,
    });
    expect((await call(server.url, 'GET', '/api/v1/lanes', { token: asGlobex() })).body.items).toEqual([
      globexLane,
    ]);
  });

  it('projects, versions, web interfaces and custom lists', async () => {
    await expectNotFound('GET', `/api/v1/projects/${acme.projectId}`);
    await expectNotFound('PATCH', `/api/v1/projects/${acme.projectId}`, { title: 'taken over' });
    await expectNotFound('GET', `/api/v1/projects/${acme.projectId}/versions`);
    await expectNotFound('POST', `/api/v1/projects/${acme.projectId}/versions`, { name: '2', mode: 'LIVE' });
    await expectNotFound('PATCH', `/api/v1/projects/${acme.projectId}/versions/${acme.versionId}`, {
      mode: 'TEST',
    });
    await expectNotFound('GET', `/api/v1/projects/${acme.projectId}/web-interfaces`);
    await expectNotFound('POST', `/api/v1/projects/${acme.projectId}/web-interfaces`, { title: 'x' });
    await expectNotFound('GET', `/api/v1/web-interfaces/${acme.webInterfaceId}`);
    await expectNotFound('GET', `/api/v1/projects/${acme.projectId}/children`);
    await expectNotFound('GET', `/api/v1/projects/${acme.projectId}/lanes`);
    await expectNotFound('PUT', `/api/v1/projects/${acme.projectId}/pools/${acme.poolId}`);
    await expectNotFound('GET', '/api/v1/custom-lists/acme-list');
    await expectNotFound('PUT', '/api/v1/custom-lists/acme-list/content', [2]);
    await expectNotFound('POST', '/api/v1/projects', { title: 'child', parentId: acme.projectId });
    const globexProject = (
      await call(server.url, 'POST', '/api/v1/projects', { token: asGlobex(), body: { title: 'g' } })
    ).body;
    await expectNotFound('PUT', `/api/v1/projects/${globexProject.id}/pools/${acme.poolId}`);
    await expectNotFound('POST', '/api/v1/custom-lists', { name: 'x', projectId: acme.projectId });
    expect((await call(server.url, 'GET', '/api/v1/projects', { token: asGlobex() })).body.items).toEqual([
      globexProject,
    ]);
    expect((await call(server.url, 'GET', '/api/v1/custom-lists', { token: asGlobex() })).body.items).toEqual(
      [],
    );
    expect((await call(server.url, 'GET', '/api/v1/applications', { token: asGlobex() })).body.items).toEqual(
      [],
    );
    const list = await call(server.url, 'GET', '/api/v1/custom-lists/acme-list', { token: asAcme() });
    expect(list.body.content).toEqual([1]);
  });

  it('collections and documents', async () => {
    expect((await call(server.url, 'GET', '/api/v1/collections', { token: asGlobex() })).body.items).toEqual(
      [],
    );
    await expectNotFound('GET', '/api/v1/collections/secrets');
    await expectNotFound('GET', '/api/v1/collections/secrets/documents');
    await expectNotFound('GET', '/api/v1/collections/secrets/documents/s1');
    await expectNotFound('POST', '/api/v1/collections/secrets/find', { query: {} });
    await expectNotFound('POST', '/api/v1/collections/secrets/count', {});
    await expectNotFound('POST', '/api/v1/collections/secrets/remove', { query: { _id: 's1' } });
    await expectNotFound('DELETE', '/api/v1/collections/secrets/documents');
    await expectNotFound('DELETE', '/api/v1/collections/secrets');
    await expectNotFound('GET', '/api/v1/collections/secrets/indexes');
    // Saving under the same name makes globex's own collection; acme's is untouched.
    await call(server.url, 'PUT', '/api/v1/collections/secrets/documents/s1', {
      token: asGlobex(),
      body: { secret: 'globex' },
    });
    const acmeDoc = await call(server.url, 'GET', '/api/v1/collections/secrets/documents/s1', {
      token: asAcme(),
    });
    expect(acmeDoc.body).toEqual({ _id: 's1', secret: 'acme only' });
    const globexDoc = await call(server.url, 'GET', '/api/v1/collections/secrets/documents/s1', {
      token: asGlobex(),
    });
    expect(globexDoc.body).toEqual({ _id: 's1', secret: 'globex' });
  });

  it('files (even a PUBLIC one)', async () => {
    await expectNotFound('GET', `/api/v1/files/${acme.fileId}`);
    await expectNotFound('GET', `/api/v1/files/${acme.fileId}/content`);
    await expectNotFound('GET', `/api/v1/files/${acme.fileId}/rights`);
    await expectNotFound('PATCH', `/api/v1/files/${acme.fileId}`, { name: 'taken' });
    await expectNotFound('POST', `/api/v1/files/${acme.fileId}/rights`, {
      op: 'add',
      kind: 'user',
      access: 'WRITE',
      principals: [server.globex.user.id],
    });
    await expectNotFound('DELETE', `/api/v1/files/${acme.fileId}`);
    const put = await fetch(`${server.url}/api/v1/files/${acme.fileId}/content`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${asGlobex()}` },
      body: 'overwritten',
    });
    expect(put.status).toBe(404);
    expect((await call(server.url, 'GET', '/api/v1/files', { token: asGlobex() })).body.items).toEqual([]);
    const content = await call(server.url, 'GET', `/api/v1/files/${acme.fileId}/content`, {
      token: server.acme.user.token,
    });
    expect(content.body).toBe('acme file');
  });

  it('requests, logs and tokens', async () => {
    await expectNotFound('GET', '/api/v1/requests/acme-request');
    expect((await call(server.url, 'GET', '/api/v1/requests', { token: asGlobex() })).body.items).toEqual([]);
    await expectNotFound('GET', '/api/v1/requests/acme-request/logs');
    const logs = await call(server.url, 'GET', '/api/v1/logs', { token: asGlobex() });
    expect(logs.body.items).toEqual([]);
    const byRequest = await call(server.url, 'GET', '/api/v1/logs?requestId=acme-request', {
      token: asGlobex(),
    });
    expect(byRequest.body.items).toEqual([]);
    await expectNotFound('DELETE', `/api/v1/tokens/${acme.tokenId}`);
    const tokens = await call(server.url, 'GET', '/api/v1/tokens?all=true', { token: asGlobex() });
    expect(tokens.body.items.map((t: { id: string }) => t.id)).not.toContain(acme.tokenId);
    expect((await call(server.url, 'GET', '/api/v1/account', { token: asGlobex() })).body.id).toBe('globex');
  });

  it('a session opened in one account is that account only', async () => {
    const login = await call(server.url, 'POST', '/api/v1/auth/login', {
      body: { account: 'globex', login: 'ann', password: 'correct horse battery' },
    });
    const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
    const me = await call(server.url, 'GET', '/api/v1/auth/me', { cookie });
    expect(me.body.account.id).toBe('globex');
    expect(me.body.user.id).toBe(server.globex.user.id);
    const acmeAnnByGlobexSession = await call(server.url, 'GET', `/api/v1/users/${server.acme.user.id}`, {
      cookie,
    });
    expect(acmeAnnByGlobexSession.status).toBe(404);
  });
});
