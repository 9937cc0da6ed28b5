/**
 * Hostile input on what the console's users and lanes pages added to the API: the user search is
 * a bounded plain text (never a pattern, never another account's users), and a lane's
 * `canChangeUsers` answer is only given for the caller's own account.
 */
import { expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from '../server/support.js';

describeEachEngine('security: user search and lane rights answers', (engine) => {
  const server = useServer(engine);
  const get = (token: string, path: string) => call(server.url, 'GET', `/api/v1${path}`, { token });

  it('searches a plain text: pattern and SQL characters match only themselves', async () => {
    const admin = server.acme.admin.token;
    for (const text of ['.*', '%', '_', '(?i)ANN', '[a-z]', "' OR 1=1 --", '{"$ne": null}', '\\'])
      expect((await get(admin, `/users?search=${encodeURIComponent(text)}`)).body).toEqual({
        items: [],
        total: 0,
        first: 0,
        nb: 100,
      });
    // The same characters inside a value are found as they are.
    await server.platform.directory.users.create('acme', { login: 'pct', name: '100% ready_(x)' });
    const found = await get(admin, `/users?search=${encodeURIComponent('% ready_(')}`);
    expect(found.body.items.map((u: { login: string }) => u.login)).toEqual(['pct']);
  });

  it("never finds another account's users", async () => {
    const acme = await get(server.acme.user.token, '/users?search=globex');
    expect(acme.body.total).toBe(0);
    const globex = await get(server.globex.user.token, '/users?search=ann');
    expect(globex.body.items.map((u: { email: string }) => u.email)).toEqual(['ann@globex.example']);
  });

  it('bounds the search text and refuses unknown list fields', async () => {
    expect((await get(server.acme.user.token, `/users?search=${'a'.repeat(256)}`)).body).toEqual({
      status: 400,
      code: 'invalid',
      message: 'querystring/search must NOT have more than 255 characters',
    });
    expect(
      (await get(server.acme.user.token, '/users?search=a&filter=password&operator=EE&value=x')).body,
    ).toEqual({
      status: 400,
      code: 'invalid',
      message:
        'filter: unknown field "password" (one of id, login, email, name, profile, status, isAdmin, language, createdAt, updatedAt)',
    });
  });

  it("answers canChangeUsers only for the caller's account's lanes", async () => {
    const pool = await server.platform.directory.lanes.createPool('globex', { name: 'Ops' });
    const lane = await server.platform.directory.lanes.createLane('globex', pool.id, {
      name: 'Night',
      runtime: true,
    });
    expect((await get(server.acme.admin.token, `/lanes/${lane.id}/users`)).body).toEqual({
      status: 404,
      code: 'not-found',
      message: 'Lane not found.',
    });
    expect((await get(server.globex.admin.token, `/lanes/${lane.id}/users`)).body).toEqual({
      items: [],
      first: 0,
      nb: 100,
      canChangeUsers: true,
    });
    expect((await get(server.globex.user.token, `/lanes/${lane.id}/users`)).body.canChangeUsers).toBe(false);
  });
});
