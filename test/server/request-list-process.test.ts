/**
 * The request list names each request's process (`process`, and `processId` when it was started
 * from a stored definition) and filters by stored definition (`processId=`), with the total.
 */
import { expect, it } from 'vitest';
import { createHosts } from '../../src/hosts/index.js';
import { evalHost } from '../../src/hosts/eval-host.js';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from './support.js';

describeEachEngine('server: the request list by process', (engine) => {
  const server = useServer(engine, (platform) => ({
    hosts: { ...evalHost(platform), ...createHosts(platform, { routeCacheMs: 0 }) },
  }));
  const admin = () => server.acme.admin.token;
  const user = () => server.acme.user.token;

  it('gives the process name and stored definition of each request, and filters by definition', async () => {
    const store = async (body: unknown) =>
      (await call(server.url, 'POST', '/api/v1/processes', { token: admin(), body })).body.id as number;
    const quick = await store({ name: 'Quick', steps: [{ id: 1, input: { x: '1' } }] });
    const waits = await store({ name: 'Waits', steps: [{ id: 1, type: 'manual' }] });
    const start = async (process: string) =>
      (await call(server.url, 'POST', '/api/v1/requests', { token: user(), body: { process } })).body
        .id as string;
    const q1 = await start('Quick');
    const w1 = await start('Waits');
    const q2 = await start('Quick');
    const bare = await server.platform.requests.create('acme', {
      mode: 'TEST',
      initiatorId: server.acme.user.id,
    });

    const all = await call(server.url, 'GET', '/api/v1/requests', { token: user() });
    expect(all.status).toBe(200);
    const byId = new Map(all.body.items.map((r: { id: string }) => [r.id, r]));
    expect(byId.get(q1)).toMatchObject({ process: 'Quick', processId: quick, status: 201 });
    expect(byId.get(w1)).toMatchObject({ process: 'Waits', processId: waits, status: 102 });
    expect(byId.get(bare.id)).toMatchObject({ process: null, processId: null });

    const onlyQuick = await call(server.url, 'GET', `/api/v1/requests?processId=${quick}`, { token: user() });
    expect(onlyQuick.body.total).toBe(2);
    expect(onlyQuick.body.items.map((r: { id: string }) => r.id).sort()).toEqual([q1, q2].sort());
    const paged = await call(server.url, 'GET', `/api/v1/requests?processId=${quick}&nb=1`, {
      token: user(),
    });
    expect(paged.body).toMatchObject({ total: 2, nb: 1 });
    const next = await call(
      server.url,
      'GET',
      `/api/v1/requests?processId=${quick}&nb=1&before=${paged.body.next}`,
      { token: user() },
    );
    expect([...paged.body.items, ...next.body.items].map((r: { id: string }) => r.id).sort()).toEqual(
      [q1, q2].sort(),
    );
    const both = await call(server.url, 'GET', `/api/v1/requests?processId=${waits}&status=102`, {
      token: user(),
    });
    expect(both.body).toMatchObject({ total: 1, items: [{ id: w1, process: 'Waits' }] });
    const none = await call(server.url, 'GET', '/api/v1/requests?processId=999999', { token: user() });
    expect(none.body).toMatchObject({ total: 0, items: [] });
    const bad = await call(server.url, 'GET', '/api/v1/requests?processId=x', { token: user() });
    expect(bad.status).toBe(400);
  });
});
