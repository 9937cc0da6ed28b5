import { expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from './support.js';

describeEachEngine('server: health, OpenAPI, error bodies and limits', (engine) => {
  const server = useServer(engine);

  it('answers /health with the engine once the store is reachable', async () => {
    const r = await call(server.url, 'GET', '/health');
    expect(r).toMatchObject({ status: 200, body: { status: 'ok', engine: engine.name } });
  });

  it('publishes an OpenAPI document of every route, with the error body and credentials', async () => {
    const r = await call(server.url, 'GET', '/docs/json');
    expect(r.status).toBe(200);
    const doc = r.body;
    expect(doc.openapi).toBe('3.0.3');
    expect(Object.keys(doc.components.securitySchemes)).toEqual(['bearer', 'session']);
    for (const path of [
      '/api/v1/auth/login',
      '/api/v1/users',
      '/api/v1/lanes/{id}/users/{userId}',
      '/api/v1/projects/{id}/versions',
      '/api/v1/collections/{name}/documents',
      '/api/v1/eval',
      '/live/{account}/composite/{*}',
      '/health',
    ])
      expect(doc.paths, path).toHaveProperty([path]);
    const listUsers = doc.paths['/api/v1/users'].get;
    expect(listUsers.security).toEqual([{ bearer: [] }, { session: [] }]);
    expect(listUsers.responses['4XX'].content['application/json'].schema.required).toEqual([
      'status',
      'code',
      'message',
    ]);
    expect(doc.paths['/api/v1/auth/login'].post.security).toBeUndefined();
    const page = await fetch(`${server.url}/docs/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('swagger-ui');
  });

  it('answers unknown routes, bad parameters and bad media types with the error body', async () => {
    const token = server.acme.user.token;
    expect((await call(server.url, 'GET', '/api/v1/nope', { token })).body).toEqual({
      status: 404,
      code: 'not-found',
      message: 'No route GET /api/v1/nope.',
    });
    expect((await call(server.url, 'GET', '/api/v1/pools/abc', { token })).body).toEqual({
      status: 400,
      code: 'invalid',
      message: 'params/id must be integer',
    });
    const xml = await call(server.url, 'POST', '/api/v1/pools', {
      token: server.acme.admin.token,
      body: '<pool/>',
      headers: { 'content-type': 'application/xml' },
    });
    expect(xml.body).toEqual({
      status: 415,
      code: 'unsupported-media-type',
      message: 'Unsupported Media Type',
    });
    const notJson = await call(server.url, 'POST', '/api/v1/pools', {
      token: server.acme.admin.token,
      body: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(notJson.body.code).toBe('invalid-json');
  });

  it('refuses bodies over the limit with 413', async () => {
    const r = await call(server.url, 'POST', '/api/v1/collections/big/documents', {
      token: server.acme.user.token,
      body: { blob: 'x'.repeat(1024 * 1024) },
    });
    expect(r.body).toEqual({ status: 413, code: 'too-large', message: 'Request body is too large' });
  });
});
