/**
 * The server with the real hosts, as `flowmark serve` wires them (evalHost + createHosts), over
 * HTTP on both engines: a composite API shapes its status and headers; a web interface is refused
 * a function outside spec 2.1; a process with script, manual and sub-process steps runs to its end
 * through the REST API and the task URL; another account reaches none of it.
 */
import { expect, it } from 'vitest';
import { createHosts } from '../../src/hosts/index.js';
import { evalHost } from '../../src/hosts/eval-host.js';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from './support.js';

describeEachEngine('server: with the real hosts', (engine) => {
  const server = useServer(engine, (platform) => ({
    hosts: { ...evalHost(platform), ...createHosts(platform, { routeCacheMs: 0 }) },
  }));
  const admin = () => server.acme.admin.token;
  const user = () => server.acme.user.token;

  it('answers a composite API with the status, reason and headers its script sets', async () => {
    const created = await call(server.url, 'POST', '/api/v1/composite-apis', {
      token: admin(),
      body: {
        method: 'POST',
        path: 'orders/:id',
        template:
          '${set_status(201, "Made")}${P_custom_header("X-Order", P_params.id)}' +
          '{"id": "${P_params.id}", "item": "${P_body.item}", "by": "${P_user.login}", "q": "${P_query.q}"}',
      },
    });
    expect(created.status).toBe(201);
    const response = await fetch(`${server.url}/live/acme/composite/orders/42?q=fast`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ item: 'pen' }),
    });
    expect(response.status).toBe(201);
    expect(response.statusText).toBe('Made');
    expect(response.headers.get('x-order')).toBe('42');
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({ id: '42', item: 'pen', by: 'ann', q: 'fast' });

    const anonymous = await call(server.url, 'POST', '/live/acme/composite/orders/42', { body: {} });
    expect(anonymous.body).toEqual({
      status: 401,
      code: 'unauthenticated',
      message: 'Authentication required: log in or send an API token.',
    });
    const otherAccount = await call(server.url, 'POST', '/live/acme/composite/orders/42', {
      token: server.globex.admin.token,
      body: {},
    });
    expect(otherAccount.status).toBe(401);
    const unknown = await call(server.url, 'GET', '/live/globex/composite/orders/42', { token: user() });
    expect(unknown.body).toEqual({
      status: 404,
      code: 'not-found',
      message: 'No composite API answers GET /orders/42.',
    });
  });

  it('serves a public composite API to anyone', async () => {
    await call(server.url, 'POST', '/api/v1/composite-apis', {
      token: admin(),
      body: { method: 'GET', path: 'ping', template: 'pong ${P_customer}', isPublic: true },
    });
    const r = await call(server.url, 'GET', '/live/acme/composite/ping');
    expect(r).toMatchObject({ status: 200, body: 'pong acme' });
  });

  it('hands a multipart body to a composite API as bytes (P_body in base64), like any other type', async () => {
    const created = await call(server.url, 'POST', '/api/v1/composite-apis', {
      token: admin(),
      body: { method: 'POST', path: 'upload', template: '${P_body?length} ${P_body[0..9]}', isPublic: true },
    });
    expect(created.status).toBe(201);
    const form = new FormData();
    form.append('note', 'hi');
    const sent = new Request('http://x/', { method: 'POST', body: form });
    const type = sent.headers.get('content-type')!;
    const bytes = Buffer.from(await sent.arrayBuffer());
    const r = await call(server.url, 'POST', '/live/acme/composite/upload', {
      body: bytes.toString('latin1'),
      headers: { 'content-type': type },
    });
    const base64 = bytes.toString('base64');
    expect(r).toMatchObject({ status: 200, body: `${base64.length} ${base64.slice(0, 10)}` });
  });

  it('renders a web interface, and refuses it a function outside spec 2.1', async () => {
    const project = (
      await call(server.url, 'POST', '/api/v1/projects', { token: admin(), body: { title: 'Web' } })
    ).body;
    await call(server.url, 'POST', `/api/v1/projects/${project.id}/versions`, {
      token: admin(),
      body: { name: '1', mode: 'LIVE' },
    });
    const wi = (
      await call(server.url, 'POST', `/api/v1/projects/${project.id}/web-interfaces`, {
        token: admin(),
        body: { title: 'Page' },
      })
    ).body;
    await call(server.url, 'PUT', `/api/v1/web-interfaces/${wi.id}/template`, {
      token: admin(),
      body: { template: '<p>${P_quoted(P_webinterface.title)} ${encrypt("BASE64", "hi")}</p>' },
    });
    const page = await call(server.url, 'GET', `/live/acme/webinterface/${wi.id}`, { token: user() });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.body).toBe("<p>'Page' aGk=</p>");

    await call(server.url, 'PUT', `/api/v1/web-interfaces/${wi.id}/template`, {
      token: admin(),
      body: { template: '<p>${list_objects({"a": 1}, "orders")}</p>' },
    });
    const refused = await call(server.url, 'GET', `/live/acme/webinterface/${wi.id}`, { token: admin() });
    expect(refused.status).toBe(500);
    expect(refused.body).toMatchObject({ status: 500, code: 'script-error', line: 1, column: 6 });
    expect(refused.body.message).toContain('function list_objects is not available in a web interface');
    const otherAccount = await call(server.url, 'GET', `/live/acme/webinterface/${wi.id}`, {
      token: server.globex.admin.token,
    });
    expect(otherAccount.status).toBe(401);
  });

  it('runs a process with script, manual and sub-process steps to its end', async () => {
    const definition = {
      name: 'order',
      steps: [
        { id: 1, type: 'script', name: 'Price', input: { total: '${qty * 5}' } },
        {
          id: 2,
          type: 'manual',
          name: 'Approve',
          fields: ['decision'],
          output: { decision: '${P_result.decision}' },
        },
        {
          id: 3,
          type: 'subprocess',
          name: 'Ship',
          process: {
            name: 'ship',
            steps: [{ id: 1, input: { label: 'ship ${get_parent_params("parent").total?c}' } }],
          },
          output: { shipping: '${P_result.label}' },
        },
      ],
    };
    expect(
      (await call(server.url, 'POST', '/api/v1/processes', { token: admin(), body: definition })).status,
    ).toBe(201);
    const started = await call(server.url, 'POST', '/api/v1/requests', {
      token: user(),
      body: { process: 'order', mode: 'TEST', data: { qty: 3 } },
    });
    expect(started.status).toBe(201);
    const id = started.body.id as string;
    expect(started.body).toMatchObject({
      mode: 'TEST',
      data: { qty: 3, total: 15 },
      initiatorId: server.acme.user.id,
    });

    const waiting = await call(server.url, 'GET', `/api/v1/requests/${id}/run`, { token: user() });
    expect(waiting.body.process).toBe('order');
    expect(waiting.body.tasks).toHaveLength(1);
    const task = waiting.body.tasks[0];
    expect(task).toMatchObject({ stepId: 2, iteration: 0, status: 'OPEN', name: 'Approve' });
    expect(task.url).toBe(`http://localhost:8080/live/acme/task/${id}/2/0`);

    const form = await call(server.url, 'GET', `/live/acme/task/${id}/2/0`, { token: user() });
    expect(form.body).toMatchObject({ stepId: 2, data: {} });
    const refused = await call(server.url, 'POST', `/live/acme/task/${id}/2/0`, {
      token: server.globex.admin.token,
      body: { decision: 'approve' },
    });
    expect(refused.status).toBe(401);
    const submitted = await call(server.url, 'POST', `/live/acme/task/${id}/2/0`, {
      token: user(),
      body: 'decision=approve',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(submitted.status).toBe(200);

    const done = await call(server.url, 'GET', `/api/v1/requests/${id}`, { token: user() });
    expect(done.body).toMatchObject({
      status: 201,
      data: { qty: 3, total: 15, decision: 'approve', shipping: 'ship 15' },
    });
    const run = await call(server.url, 'GET', `/api/v1/requests/${id}/run`, { token: user() });
    expect(run.body.steps.map((s: { stepId: number; status: string }) => [s.stepId, s.status])).toEqual([
      [1, 'done'],
      [2, 'done'],
      [3, 'done'],
    ]);
    expect(
      (await call(server.url, 'GET', `/api/v1/requests/${id}/run`, { token: server.globex.admin.token }))
        .status,
    ).toBe(404);
  });

  it('cancels a waiting request', async () => {
    await call(server.url, 'POST', '/api/v1/processes', {
      token: admin(),
      body: { name: 'wait', steps: [{ id: 1, type: 'manual' }] },
    });
    const started = await call(server.url, 'POST', '/api/v1/requests', {
      token: user(),
      body: { process: 'wait' },
    });
    const cancelled = await call(server.url, 'POST', `/api/v1/requests/${started.body.id}/cancel`, {
      token: user(),
    });
    expect(cancelled.body.request.status).toBe(400);
    const byOther = await call(server.url, 'POST', `/api/v1/requests/${started.body.id}/cancel`, {
      token: server.globex.admin.token,
    });
    expect(byOther.body).toEqual({ status: 404, code: 'not-found', message: 'Request not found.' });
  });
});
