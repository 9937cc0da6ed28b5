/**
 * A composite API saved through the REST API answers with its new template at the very next call,
 * although the host keeps each account's routes with their compiled templates (`routeCacheMs`,
 * 1 s): with the evaluations in the HTTP thread (createHosts, as the server tests wire it) and in
 * the evaluation threads of `flowmark serve` (the built CLI, --workers 0), whose routes are cached
 * in the threads while the save is made by the HTTP thread. On SQLite and PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { createHosts } from '../../src/hosts/index.js';
import { availableEngines, describeEachEngine } from '../support/engines.js';
import { usePoolServer } from '../support/serve.js';
import { call, useServer } from '../server/support.js';

/** Creates `GET hello`, calls it until its routes are cached, then edits, moves and deletes it, calling after each save. */
async function editAndCall(url: string, auth: { token?: string; cookie?: string }, account: string) {
  const live = (path: string) => fetch(`${url}/live/${account}/composite/${path}?name=ann`);
  const created = await call(url, 'POST', '/api/v1/composite-apis', {
    ...auth,
    body: { method: 'GET', path: 'hello', isPublic: true, template: 'one ${P_query.name}' },
  });
  expect(created.status).toBe(201);
  const id = created.body.id as number;
  // several calls: whichever thread answers has the account's routes cached afterwards
  for (let i = 0; i < 5; i++) expect(await (await live('hello')).text()).toBe('one ann');

  const put = (body: object) => call(url, 'PUT', `/api/v1/composite-apis/${id}`, { ...auth, body });
  expect(
    (await put({ method: 'GET', path: 'hello', isPublic: true, template: 'two ${P_query.name}' })).status,
  ).toBe(200);
  expect(await (await live('hello')).text()).toBe('two ann');

  expect(
    (await put({ method: 'GET', path: 'bye', isPublic: true, template: 'three ${P_query.name}' })).status,
  ).toBe(200);
  const moved = await live('hello');
  expect(moved.status).toBe(404);
  expect(await moved.json()).toEqual({
    status: 404,
    code: 'not-found',
    message: 'No composite API answers GET /hello.',
  });
  expect(await (await live('bye')).text()).toBe('three ann');

  expect((await call(url, 'DELETE', `/api/v1/composite-apis/${id}`, auth)).status).toBe(204);
  expect((await live('bye')).status).toBe(404);
}

describeEachEngine('an edited composite API, evaluations in the HTTP thread', (engine) => {
  const server = useServer(engine, (platform) => ({ hosts: createHosts(platform) }));

  it('answers with the new template at the next call', async () => {
    await editAndCall(server.url, { token: server.acme.admin.token }, 'acme');
  });
});

for (const engine of availableEngines())
  describe(`an edited composite API, evaluations in the pool of flowmark serve [${engine}]`, () => {
    // one process, two threads, several tasks each: the calls before the save leave routes cached in both
    const served = usePoolServer('edited-composite', engine);

    it('answers with the new template at the next call', async () => {
      await editAndCall(served.url, { cookie: served.admin }, 'default');
    });
  });
