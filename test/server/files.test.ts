import { beforeAll, expect, it } from 'vitest';
import { attachment } from '../../src/server/routes/files.js';
import { describeEachEngine } from '../support/engines.js';
import { call, login, PASSWORD, useServer } from './support.js';

const LIMIT = 4096;

function form(
  name: string,
  content: string | Uint8Array,
  fields: Record<string, string> = {},
  type = 'text/plain',
) {
  const data = new FormData();
  for (const [k, v] of Object.entries(fields)) data.append(k, v);
  data.append('file', new Blob([content], { type }), name);
  return data;
}

describeEachEngine('server: files', (engine) => {
  const server = useServer(engine, { uploadLimit: LIMIT });
  const as = (who: 'admin' | 'user') => server.acme[who].token;
  let bob = { id: 0, token: '' };
  let fileId = '';

  beforeAll(async () => {
    const created = await server.platform.directory.users.create('acme', {
      login: 'bob',
      password: PASSWORD,
    });
    const cookie = await login(server.url, 'acme', 'bob');
    const token = (await call(server.url, 'POST', '/api/v1/tokens', { cookie, body: { name: 'b' } })).body
      .token;
    bob = { id: created.id, token };
  });

  it('uploads a file with multipart and downloads it as an attachment', async () => {
    const up = await call(server.url, 'POST', '/api/v1/files', {
      token: as('user'),
      body: form('notes é.txt', 'hello, files', { metadata: '{"tag":"x"}' }),
    });
    expect(up.status).toBe(201);
    expect(up.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'notes é.txt',
      contentType: 'text/plain',
      charset: 'UTF-8',
      size: 12,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
      ownerId: server.acme.user.id,
      visibility: 'PRIVATE',
      metadata: { tag: 'x' },
    });
    fileId = up.body.id;
    const down = await fetch(`${server.url}/api/v1/files/${fileId}/content`, {
      headers: { authorization: `Bearer ${as('user')}` },
    });
    expect(down.status).toBe(200);
    expect(await down.text()).toBe('hello, files');
    expect(down.headers.get('content-type')).toBe('text/plain; charset=UTF-8');
    expect(down.headers.get('content-disposition')).toBe(
      `attachment; filename="notes _.txt"; filename*=UTF-8''notes%20%C3%A9.txt`,
    );
    expect(down.headers.get('x-content-type-options')).toBe('nosniff');
    expect(down.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
  });

  it('refuses uploads over the size limit, without a file, or with unknown fields', async () => {
    const big = await call(server.url, 'POST', '/api/v1/files', {
      token: as('user'),
      body: form('big.bin', new Uint8Array(LIMIT + 1), {}, 'application/octet-stream'),
    });
    expect(big.body).toEqual({ status: 413, code: 'too-large', message: 'request file too large' });
    const none = new FormData();
    none.append('visibility', 'PUBLIC');
    expect((await call(server.url, 'POST', '/api/v1/files', { token: as('user'), body: none })).body).toEqual(
      {
        status: 400,
        code: 'invalid',
        message: 'no file: send it in the part named "file"',
      },
    );
    const odd = await call(server.url, 'POST', '/api/v1/files', {
      token: as('user'),
      body: form('a.txt', 'a', { owner: '1' }),
    });
    expect(odd.body.message).toBe('unknown field "owner" (file, visibility, metadata, contentType, charset)');
    const json = await call(server.url, 'POST', '/api/v1/files', { token: as('user'), body: { name: 'x' } });
    expect(json.body).toEqual({
      status: 415,
      code: 'unsupported-media-type',
      message: 'Upload files as multipart/form-data.',
    });
  });

  it('lets only the owner, grantees and administrators reach a private file', async () => {
    const denied = await call(server.url, 'GET', `/api/v1/files/${fileId}`, { token: bob.token });
    expect(denied.body).toEqual({
      status: 403,
      code: 'not-allowed',
      message: `Access denied: no READ right on file ${fileId}.`,
    });
    expect((await call(server.url, 'GET', '/api/v1/files', { token: bob.token })).body.items).toEqual([]);
    const granted = await call(server.url, 'POST', `/api/v1/files/${fileId}/rights`, {
      token: as('user'),
      body: { op: 'add', kind: 'user', access: 'READ', principals: ['bob'] },
    });
    expect(granted.body).toEqual({ user: { READ: [bob.id], WRITE: [] }, lane: { READ: [], WRITE: [] } });
    expect(
      (await call(server.url, 'GET', `/api/v1/files/${fileId}/content`, { token: bob.token })).body,
    ).toBe('hello, files');
    const write = await call(server.url, 'PUT', `/api/v1/files/${fileId}/content`, {
      token: bob.token,
      body: 'overwritten',
      headers: { 'content-type': 'text/plain' },
    });
    expect(write.body).toEqual({
      status: 403,
      code: 'not-allowed',
      message: `Access denied: no WRITE right on file ${fileId}.`,
    });
    expect((await call(server.url, 'DELETE', `/api/v1/files/${fileId}`, { token: bob.token })).status).toBe(
      403,
    );
    expect((await call(server.url, 'GET', `/api/v1/files/${fileId}`, { token: as('admin') })).status).toBe(
      200,
    );
    expect(
      (await call(server.url, 'GET', `/api/v1/files/${fileId}`, { token: server.globex.admin.token })).body,
    ).toEqual({
      status: 404,
      code: 'not-found',
      message: `Uploaded file ${fileId} doesn't exist.`,
    });
  });

  it('replaces content, changes the descriptor and deletes', async () => {
    const json = await call(server.url, 'PUT', `/api/v1/files/${fileId}/content`, {
      token: as('user'),
      body: '{"a":1}',
      headers: { 'content-type': 'application/json' },
    });
    expect(json.body).toMatchObject({ size: 7, contentType: 'application/json' });
    const tooBig = await call(server.url, 'PUT', `/api/v1/files/${fileId}/content`, {
      token: as('user'),
      body: 'x'.repeat(LIMIT + 1),
      headers: { 'content-type': 'text/plain' },
    });
    expect(tooBig.body).toEqual({ status: 413, code: 'too-large', message: 'Request body is too large' });
    const bytes = await fetch(`${server.url}/api/v1/files/${fileId}/content`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${as('user')}`, 'content-type': 'text/csv' },
      body: 'a;b\n1;2\n',
    });
    expect(bytes.status).toBe(200);
    expect(await bytes.json()).toMatchObject({ size: 8, contentType: 'text/csv' });
    const patched = await call(server.url, 'PATCH', `/api/v1/files/${fileId}`, {
      token: as('user'),
      body: { name: 'table.csv', visibility: 'PUBLIC' },
    });
    expect(patched.body).toMatchObject({ name: 'table.csv', visibility: 'PUBLIC' });
    const listed = await call(server.url, 'GET', '/api/v1/files', { token: server.acme.admin.token });
    expect(listed.body.items.map((f: { name: string }) => f.name)).toEqual(['table.csv']);
    expect((await call(server.url, 'DELETE', `/api/v1/files/${fileId}`, { token: as('user') })).status).toBe(
      204,
    );
    expect((await call(server.url, 'GET', `/api/v1/files/${fileId}`, { token: as('user') })).status).toBe(
      404,
    );
  });

  it('names attachments safely', () => {
    expect(attachment('a"b\\c\r\n.txt')).toBe(
      `attachment; filename="a_b_c__.txt"; filename*=UTF-8''a%22b%5Cc%0D%0A.txt`,
    );
  });
});
