import { expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { call, login, useServer } from './support.js';

describeEachEngine('server: users, pools and lanes', (engine) => {
  const server = useServer(engine);
  const as = (who: 'admin' | 'user') => server.acme[who].token;

  it('shows the caller account', async () => {
    const r = await call(server.url, 'GET', '/api/v1/account', { token: as('user') });
    expect(r.body).toEqual({
      id: 'acme',
      name: 'ACME',
      locale: 'en_US',
      timeZone: 'UTC',
      baseUrl: 'http://localhost:8080',
      createdAt: expect.any(Number),
    });
  });

  it('lets administrators create users, who can then log in; preferences stay private', async () => {
    const created = await call(server.url, 'POST', '/api/v1/users', {
      token: as('admin'),
      body: {
        login: 'dora',
        email: 'Dora@Acme.example',
        name: 'Dora D',
        profile: 'DESIGNER',
        password: 'dora password',
        preferences: { theme: 'dark' },
        metadata: { team: 'ops' },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      login: 'dora',
      email: 'dora@acme.example',
      name: 'Dora D',
      profile: 'DESIGNER',
      status: 'active',
      isAdmin: false,
      language: 'en',
      preferences: { theme: 'dark' },
      metadata: { team: 'ops' },
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    expect(JSON.stringify(created.body)).not.toContain('scrypt');
    await login(server.url, 'acme', 'dora', 'dora password');
    const seenByAnn = await call(server.url, 'GET', '/api/v1/users/dora', { token: as('user') });
    expect(seenByAnn.body.metadata).toEqual({ team: 'ops' });
    expect(seenByAnn.body).not.toHaveProperty('preferences');
    const byEmail = await call(server.url, 'GET', '/api/v1/users/dora@acme.example', { token: as('user') });
    expect(byEmail.body.id).toBe(created.body.id);

    const duplicate = await call(server.url, 'POST', '/api/v1/users', {
      token: as('admin'),
      body: { login: 'dora' },
    });
    expect(duplicate.body).toEqual({
      status: 409,
      code: 'conflict',
      message: 'the login dora is already used by another user',
    });
    const short = await call(server.url, 'POST', '/api/v1/users', {
      token: as('admin'),
      body: { login: 'eve', password: 'short' },
    });
    expect(short.body).toEqual({
      status: 400,
      code: 'invalid',
      message: 'body/password must NOT have fewer than 8 characters',
    });
  });

  it('lists users with the platform filters, order and paging', async () => {
    const r = await call(
      server.url,
      'GET',
      '/api/v1/users?filter=login%20isAdmin&operator=IN%20EE&value=admin|ann|dora%20false&orderby=login&order=DESC',
      {
        token: as('user'),
      },
    );
    expect(r.status).toBe(200);
    expect(r.body.items.map((u: { login: string }) => u.login)).toEqual(['dora', 'ann']);
    expect(r.body).toMatchObject({ total: 2, first: 0, nb: 100 });
    const paged = await call(server.url, 'GET', '/api/v1/users?orderby=id&first=1&nb=1', {
      token: as('user'),
    });
    expect(paged.body.items.map((u: { login: string }) => u.login)).toEqual(['ann']);
    expect(paged.body.total).toBe(3);
    const bad = await call(server.url, 'GET', '/api/v1/users?filter=password&operator=EE&value=x', {
      token: as('user'),
    });
    expect(bad.body).toEqual({
      status: 400,
      code: 'invalid',
      message:
        'filter: unknown field "password" (one of id, login, email, name, profile, status, isAdmin, language, createdAt, updatedAt)',
    });
    const uneven = await call(server.url, 'GET', '/api/v1/users?filter=login%20name&operator=EE&value=x', {
      token: as('user'),
    });
    expect(uneven.body.message).toBe(
      'filter, operator and value must list as many entries (2 filters, 1 operators, 1 values)',
    );
  });

  it('refuses users changing others or their own rights; admins may not demote themselves', async () => {
    const other = await call(server.url, 'PATCH', `/api/v1/users/${server.acme.admin.id}`, {
      token: as('user'),
      body: { name: 'Mallory' },
    });
    expect(other.body).toEqual({
      status: 403,
      code: 'forbidden',
      message: 'Only an administrator of the account may change another user.',
    });
    const own = await call(server.url, 'PATCH', `/api/v1/users/${server.acme.user.id}`, {
      token: as('user'),
      body: { name: 'Ann A', language: 'fr', preferences: { page: 2 } },
    });
    expect(own.body).toMatchObject({ name: 'Ann A', language: 'fr', preferences: { page: 2 } });
    const demote = await call(server.url, 'PATCH', `/api/v1/users/${server.acme.admin.id}`, {
      token: as('admin'),
      body: { isAdmin: false },
    });
    expect(demote.body).toEqual({
      status: 409,
      code: 'conflict',
      message: 'Administrators cannot remove their own administrator right or block themselves.',
    });
    const missing = await call(server.url, 'PATCH', '/api/v1/users/999999', {
      token: as('admin'),
      body: { name: 'x' },
    });
    expect(missing.body).toEqual({ status: 404, code: 'not-found', message: 'Unable to retrieve user.' });
  });

  it('creates pools and lanes, fills lanes per mode, and lists them', async () => {
    const pool = await call(server.url, 'POST', '/api/v1/pools', {
      token: as('admin'),
      body: { name: 'Sales', isOrganization: true },
    });
    expect(pool.status).toBe(201);
    expect(pool.body).toEqual({
      id: expect.any(Number),
      name: 'Sales',
      isOrganization: true,
      createdAt: expect.any(Number),
    });
    const lane = await call(server.url, 'POST', `/api/v1/pools/${pool.body.id}/lanes`, {
      token: as('admin'),
      body: { name: 'Managers', managerId: server.acme.admin.id },
    });
    expect(lane.body).toEqual({
      id: expect.any(Number),
      poolId: pool.body.id,
      name: 'Managers',
      parentId: null,
      managerId: server.acme.admin.id,
      rule: null,
      runtime: false,
      createdAt: expect.any(Number),
    });
    const child = await call(server.url, 'POST', `/api/v1/pools/${pool.body.id}/lanes`, {
      token: as('admin'),
      body: { name: 'Reps', parentId: lane.body.id },
    });
    const added = await call(
      server.url,
      'PUT',
      `/api/v1/lanes/${child.body.id}/users/${server.acme.user.id}`,
      {
        token: as('admin'),
      },
    );
    expect(added.body).toEqual({ userIds: [server.acme.user.id] });
    const acceptance = await call(
      server.url,
      'PUT',
      `/api/v1/lanes/${child.body.id}/users/${server.acme.admin.id}?mode=ACCEPTANCE`,
      { token: as('admin') },
    );
    expect(acceptance.body).toEqual({ userIds: [server.acme.admin.id] });
    const members = await call(server.url, 'GET', `/api/v1/lanes/${child.body.id}/users`, {
      token: as('user'),
    });
    expect(members.body.items.map((u: { login: string }) => u.login)).toEqual(['ann']);
    const annLanes = await call(server.url, 'GET', `/api/v1/users/${server.acme.user.id}/lanes`, {
      token: as('user'),
    });
    expect(annLanes.body.items.map((l: { name: string }) => l.name)).toEqual(['Reps']);
    const lanes = await call(
      server.url,
      'GET',
      `/api/v1/lanes?filter=poolId&operator=EE&value=${pool.body.id}`,
      {
        token: as('user'),
      },
    );
    expect(lanes.body.items.map((l: { name: string }) => l.name)).toEqual(['Managers', 'Reps']);
    const renamed = await call(server.url, 'PATCH', `/api/v1/lanes/${child.body.id}`, {
      token: as('admin'),
      body: { name: 'Field reps' },
    });
    expect(renamed.body.name).toBe('Field reps');
    const cycle = await call(server.url, 'PATCH', `/api/v1/lanes/${lane.body.id}`, {
      token: as('admin'),
      body: { parentId: child.body.id },
    });
    expect(cycle.body).toEqual({
      status: 400,
      code: 'invalid',
      message: `lane ${child.body.id} is below lane ${lane.body.id}: no cycles in an organisation`,
    });
    const removed = await call(
      server.url,
      'DELETE',
      `/api/v1/lanes/${child.body.id}/users/${server.acme.user.id}`,
      {
        token: as('admin'),
      },
    );
    expect(removed.body).toEqual({ userIds: [] });
    const refused = await call(server.url, 'POST', '/api/v1/pools', {
      token: as('user'),
      body: { name: 'x' },
    });
    expect(refused.status).toBe(403);
    const unknown = await call(server.url, 'GET', '/api/v1/lanes/999999', { token: as('user') });
    expect(unknown.body).toEqual({ status: 404, code: 'not-found', message: 'Lane not found.' });
  });
});
