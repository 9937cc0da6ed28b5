import { expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from './support.js';

describeEachEngine('server: collections and documents', (engine) => {
  const server = useServer(engine);
  const as = (who: 'admin' | 'user') => server.acme[who].token;
  const c = '/api/v1/collections';

  it('creates, lists, renames and removes collections', async () => {
    const created = await call(server.url, 'POST', c, { token: as('user'), body: { name: 'orders' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      name: 'orders',
      isPublic: false,
      isReadonly: false,
      createdAt: expect.any(Number),
    });
    const twice = await call(server.url, 'POST', c, { token: as('user'), body: { name: 'orders' } });
    expect(twice.body).toEqual({
      status: 409,
      code: 'exists',
      message: "collection 'orders' already exists",
    });
    await call(server.url, 'POST', c, { token: as('user'), body: { name: 'tmp' } });
    const renamed = await call(server.url, 'PATCH', `${c}/tmp`, {
      token: as('user'),
      body: { name: 'scratch' },
    });
    expect(renamed.body.name).toBe('scratch');
    expect((await call(server.url, 'DELETE', `${c}/scratch`, { token: as('user') })).status).toBe(204);
    const gone = await call(server.url, 'DELETE', `${c}/scratch`, { token: as('user') });
    expect(gone.body).toEqual({
      status: 404,
      code: 'not-found',
      message: "collection 'scratch' does not exist",
    });
    const list = await call(server.url, 'GET', c, { token: as('user') });
    expect(list.body.items.map((x: { name: string; documents: number }) => [x.name, x.documents])).toEqual([
      ['orders', 0],
    ]);
  });

  it('saves documents and finds them with MongoDB queries, sort and paging', async () => {
    const saved = await call(server.url, 'POST', `${c}/orders/documents`, {
      token: as('user'),
      body: [
        { _id: 'o1', status: 'open', total: 30, customer: { name: 'Ann' } },
        { _id: 'o2', status: 'closed', total: 10 },
        { _id: 'o3', status: 'open', total: 20 },
      ],
    });
    expect(saved.status).toBe(201);
    expect(saved.body.items.map((d: { _id: string }) => d._id)).toEqual(['o1', 'o2', 'o3']);
    const single = await call(server.url, 'POST', `${c}/orders/documents`, {
      token: as('user'),
      body: { status: 'new' },
    });
    expect(single.body.items[0]._id).toMatch(/^[0-9a-f]{24}$/);

    const query = encodeURIComponent(JSON.stringify({ status: 'open' }));
    const sort = encodeURIComponent(JSON.stringify({ total: 1 }));
    const found = await call(server.url, 'GET', `${c}/orders/documents?query=${query}&sort=${sort}`, {
      token: as('user'),
    });
    expect(found.body).toEqual({
      items: [
        { _id: 'o3', status: 'open', total: 20 },
        { _id: 'o1', status: 'open', total: 30, customer: { name: 'Ann' } },
      ],
      first: 0,
      nb: 100,
    });
    const posted = await call(server.url, 'POST', `${c}/orders/find`, {
      token: as('user'),
      body: { query: { total: { $gte: 10 } }, sort: [['total', -1]], first: 1, nb: 1 },
    });
    expect(posted.body.items.map((d: { _id: string }) => d._id)).toEqual(['o3']);
    const count = await call(server.url, 'POST', `${c}/orders/count`, {
      token: as('user'),
      body: { query: { 'customer.name': 'Ann' } },
    });
    expect(count.body).toEqual({ count: 1 });
    const one = await call(server.url, 'GET', `${c}/orders/documents/o2`, { token: as('user') });
    expect(one.body).toEqual({ _id: 'o2', status: 'closed', total: 10 });
    const none = await call(server.url, 'GET', `${c}/orders/documents/zz`, { token: as('user') });
    expect(none.body).toEqual({ status: 404, code: 'not-found', message: "document 'zz' does not exist" });
  });

  it('refuses bad queries and server-side JavaScript', async () => {
    const badJson = await call(server.url, 'GET', `${c}/orders/documents?query=%7Bnope`, {
      token: as('user'),
    });
    expect(badJson.status).toBe(400);
    expect(badJson.body.message).toMatch(/^query: invalid JSON \(/);
    const where = await call(server.url, 'POST', `${c}/orders/find`, {
      token: as('user'),
      body: { query: { $where: 'this.total > 1' } },
    });
    expect(where.status).toBe(400);
    expect(where.body.code).toBe('not-allowed');
    const proto = await call(server.url, 'POST', `${c}/orders/documents`, {
      token: as('user'),
      body: '{"__proto__": {"polluted": true}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(proto.body).toEqual({
      status: 400,
      code: 'invalid-json',
      message: 'The JSON body holds the key "__proto__", which is not allowed.',
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const unknown = await call(server.url, 'POST', `${c}/nope/find`, { token: as('user'), body: {} });
    expect(unknown.body).toEqual({
      status: 404,
      code: 'not-found',
      message: "collection 'nope' does not exist",
    });
  });

  it('replaces, updates and removes documents', async () => {
    const replaced = await call(server.url, 'PUT', `${c}/orders/documents/o2`, {
      token: as('user'),
      body: { status: 'archived' },
    });
    expect(replaced.body).toEqual({ _id: 'o2', status: 'archived' });
    const updated = await call(server.url, 'POST', `${c}/orders/update`, {
      token: as('user'),
      body: { query: { status: 'open' }, update: { $inc: { total: 5 } }, multi: true },
    });
    expect(updated.body).toEqual({ matched: 2 });
    const totals = await call(server.url, 'POST', `${c}/orders/find`, {
      token: as('user'),
      body: { query: { status: 'open' }, sort: { _id: 1 } },
    });
    expect(totals.body.items.map((d: { total: number }) => d.total)).toEqual([35, 25]);
    const empty = await call(server.url, 'POST', `${c}/orders/update`, {
      token: as('user'),
      body: { query: {}, update: { $set: { x: 1 } } },
    });
    expect(empty.body).toEqual({
      status: 400,
      code: 'invalid',
      message: 'Cannot update objects with an empty condition.',
    });
    const removed = await call(server.url, 'POST', `${c}/orders/remove`, {
      token: as('user'),
      body: { query: { status: 'archived' } },
    });
    expect(removed.body).toEqual({ removed: 1 });
    expect((await call(server.url, 'DELETE', `${c}/orders/documents/o3`, { token: as('user') })).status).toBe(
      204,
    );
    const agg = await call(server.url, 'POST', `${c}/orders/aggregate`, {
      token: as('user'),
      body: {
        pipeline: [{ $match: { status: 'open' } }, { $group: { _id: '$status', sum: { $sum: '$total' } } }],
      },
    });
    expect(agg.body).toEqual({ items: [{ _id: 'open', sum: 35 }] });
    expect((await call(server.url, 'DELETE', `${c}/orders/documents`, { token: as('user') })).status).toBe(
      204,
    );
    expect(
      (await call(server.url, 'POST', `${c}/orders/count`, { token: as('user'), body: {} })).body,
    ).toEqual({
      count: 0,
    });
  });

  it('creates, lists and deletes indexes; a unique index refuses duplicates', async () => {
    const created = await call(server.url, 'POST', `${c}/orders/indexes`, {
      token: as('user'),
      body: { name: 'by_ref', keys: ['ref'], unique: true },
    });
    expect(created.status).toBe(201);
    expect(created.body.items).toEqual([
      { keys: ['_id'], unique: true, name: '_id_', ascending: true },
      { keys: ['ref'], unique: true, name: 'by_ref', ascending: true },
    ]);
    await call(server.url, 'POST', `${c}/orders/documents`, { token: as('user'), body: { ref: 'A1' } });
    const duplicate = await call(server.url, 'POST', `${c}/orders/documents`, {
      token: as('user'),
      body: { ref: 'A1' },
    });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.code).toBe('duplicate-key');
    expect(
      (await call(server.url, 'DELETE', `${c}/orders/indexes/by_ref`, { token: as('user') })).status,
    ).toBe(204);
    const again = await call(server.url, 'DELETE', `${c}/orders/indexes/by_ref`, { token: as('user') });
    expect(again.body).toEqual({
      status: 404,
      code: 'not-found',
      message: "index 'by_ref' does not exist on collection 'orders'",
    });
  });

  it('lets only administrators change a read-only collection', async () => {
    await call(server.url, 'POST', c, { token: as('admin'), body: { name: 'rates', isReadonly: true } });
    const byAdmin = await call(server.url, 'POST', `${c}/rates/documents`, {
      token: as('admin'),
      body: { eur: 1 },
    });
    expect(byAdmin.status).toBe(201);
    const byUser = await call(server.url, 'POST', `${c}/rates/documents`, {
      token: as('user'),
      body: { eur: 2 },
    });
    expect(byUser.status).toBe(403);
    expect(byUser.body.code).toBe('read-only');
    const read = await call(server.url, 'POST', `${c}/rates/find`, { token: as('user'), body: {} });
    expect(read.body.items.map((d: { eur: number }) => d.eur)).toEqual([1]);
  });
});
