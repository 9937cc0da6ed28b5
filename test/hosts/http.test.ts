/**
 * The hosts end to end over real HTTP (createServer with evalHost + createHosts, as `flowmark
 * serve` wires them) on every engine: a process with script, manual and sub-process steps run to
 * its end through the API and the task URLs; a composite API shaping status and headers; a web
 * interface refused a function outside spec 2.1; accounts kept apart.
 */
import { expect, it } from 'vitest';
import { createHosts } from '../../src/hosts/index.js';
import { evalHost } from '../../src/hosts/eval-host.js';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from '../server/support.js';

describeEachEngine('hosts over HTTP', (engine) => {
  const server = useServer(engine, (platform) => ({
    hosts: { ...evalHost(platform), ...createHosts(platform) },
  }));
  const token = (who: 'admin' | 'user', account: 'acme' | 'globex' = 'acme') => server[account][who].token;

  it('runs a stored process with script, manual and sub-process steps to its end', async () => {
    const stored = await call(server.url, 'POST', '/api/v1/processes', {
      token: token('admin'),
      body: {
        name: 'expense',
        steps: [
          { id: 1, name: 'Prepare', input: { total: '${(amount * 3)?c}', link: '${get_next_url(2, true)}' } },
          {
            id: 2,
            type: 'manual',
            name: 'Approve',
            fields: ['decision'],
            input: { shown: 'Total ${total?c}' },
            output: { approved: '${(P_result.decision == "yes")?c}' },
          },
          {
            id: 3,
            type: 'subprocess',
            process: { name: 'pay', steps: [{ id: 1, input: { paid: '${get_parent_params().total?c}' } }] },
            output: { paid: '${P_result.paid?c}' },
          },
        ],
      },
    });
    expect(stored.status).toBe(201);

    const started = await call(server.url, 'POST', '/api/v1/requests', {
      token: token('user'),
      body: { process: 'expense', mode: 'TEST', data: { amount: 14 } },
    });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ status: 102, initiatorId: server.acme.user.id, mode: 'TEST' });
    const id = started.body.id as string;
    const publicUrl = new URL(started.body.data.link as string);
    expect(publicUrl.pathname).toBe(`/live/acme/task/${id}/2/0`);
    const taskPath = `${publicUrl.pathname}`;

    // the initiator opens the task with the private URL; another account's user cannot
    const opened = await call(server.url, 'GET', taskPath, { token: token('user') });
    expect(opened.status).toBe(200);
    expect(opened.body).toMatchObject({
      id: `${id}.2.0`,
      name: 'Approve',
      status: 'OPEN',
      fields: ['decision'],
      data: { shown: 'Total 42' },
    });
    expect((await call(server.url, 'GET', taskPath, { token: token('user', 'globex') })).status).toBe(401);
    expect((await call(server.url, 'GET', `${taskPath}?token=forged`)).body).toEqual({
      status: 403,
      code: 'not-allowed',
      message: 'The task token is not valid for this task.',
    });

    // anyone holding the public URL submits it, as a form
    const submitted = await call(server.url, 'POST', `${taskPath}${publicUrl.search}`, {
      body: 'decision=yes',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(submitted.status).toBe(200);
    expect(submitted.body.request).toMatchObject({ id, status: 201 });
    expect(submitted.body.steps.map((s: { stepId: number; status: string }) => [s.stepId, s.status])).toEqual(
      [
        [1, 'done'],
        [2, 'done'],
        [3, 'done'],
      ],
    );
    const again = await call(server.url, 'POST', `${taskPath}${publicUrl.search}`, {
      body: { decision: 'no' },
    });
    expect(again.body).toEqual({
      status: 409,
      code: 'conflict',
      message: 'The task has already been submitted.',
    });

    const final = await call(server.url, 'GET', `/api/v1/requests/${id}`, { token: token('user') });
    expect(final.body).toMatchObject({
      status: 201,
      data: { amount: 14, total: 42, shown: 'Total 42', decision: 'yes', approved: true, paid: 42 },
    });
    expect(
      (await call(server.url, 'GET', `/api/v1/requests/${id}`, { token: token('admin', 'globex') })).status,
    ).toBe(404);
  });

  it('resumes over HTTP a request its script paused with P_set_request_status(102)', async () => {
    await call(server.url, 'POST', '/api/v1/processes', {
      token: token('admin'),
      body: {
        name: 'pauses',
        steps: [
          { id: 1, input: { a: '${P_set_request_status(102)}1' } },
          { id: 2, input: { b: '2' } },
        ],
      },
    });
    const started = await call(server.url, 'POST', '/api/v1/requests', {
      token: token('user'),
      body: { process: 'pauses', mode: 'TEST' },
    });
    expect(started.body).toMatchObject({ status: 102, data: { a: 1 } });
    const path = `/api/v1/requests/${started.body.id}`;
    expect(
      (await call(server.url, 'POST', `${path}/resume`, { token: token('user', 'globex') })).status,
    ).toBe(404);
    const resumed = await call(server.url, 'POST', `${path}/resume`, { token: token('user') });
    expect(resumed.status).toBe(200);
    expect(resumed.body.request).toMatchObject({ status: 201, data: { a: 1, b: 2 } });
    expect((await call(server.url, 'POST', `${path}/resume`, { token: token('user') })).body).toEqual({
      status: 409,
      code: 'conflict',
      message: 'The request is not paused.',
    });
  });

  it('answers a composite API with the status, reason phrase and headers its script sets', async () => {
    const made = await call(server.url, 'POST', '/api/v1/composite-apis', {
      token: token('admin'),
      body: {
        method: 'POST',
        path: 'orders/:id/lines',
        isPublic: true,
        template:
          '${set_status(201, "Line Added")}${P_custom_header("X-Order", P_params.id)}' +
          '{"order": "${P_params.id}", "qty": ${P_body.qty?c}, "q": "${P_query.tag!}"}',
      },
    });
    expect(made.status).toBe(201);
    const response = await fetch(`${server.url}/live/acme/composite/orders/9/lines?tag=red`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ qty: 4 }),
    });
    expect(response.status).toBe(201);
    expect(response.statusText).toBe('Line Added');
    expect(response.headers.get('x-order')).toBe('9');
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({ order: '9', qty: 4, q: 'red' });

    await call(server.url, 'POST', '/api/v1/composite-apis', {
      token: token('admin'),
      body: { method: 'GET', path: 'me', template: '${P_user.login}@${P_customer}' },
    });
    expect((await call(server.url, 'GET', '/live/acme/composite/me', { token: token('user') })).body).toBe(
      'ann@acme',
    );
    // private: anonymous callers and users of another account are refused
    expect((await call(server.url, 'GET', '/live/acme/composite/me')).status).toBe(401);
    expect(
      (await call(server.url, 'GET', '/live/acme/composite/me', { token: token('user', 'globex') })).status,
    ).toBe(401);
    expect(
      (await call(server.url, 'GET', '/live/globex/composite/me', { token: token('user', 'globex') })).status,
    ).toBe(404);
  });

  it('renders a web interface and refuses it a function outside spec 2.1', async () => {
    const { platform } = server;
    const project = await platform.projects.create('acme', { title: 'Portal' });
    await platform.projects.addVersion('acme', project.id, { name: '1', mode: 'LIVE' });
    const wi = await platform.webInterfaces.create('acme', project.id, { title: 'Home' });
    const put = (template: string) =>
      call(server.url, 'PUT', `/api/v1/web-interfaces/${wi.id}/template`, {
        token: token('admin'),
        body: { template },
      });
    expect(
      (await put('<p>${P_user.login}: ${P_quoted(i18n("k", "Hi"))} ${encrypt("SHA1", "x")?length}</p>'))
        .status,
    ).toBe(200);
    const page = await call(server.url, 'GET', `/live/acme/webinterface/${wi.id}`, { token: token('user') });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.body).toBe("<p>ann: 'Hi' 40</p>");

    await put('<p>${list_objects({"a": 1}, "secrets")?size}</p>');
    const refused = await call(server.url, 'GET', `/live/acme/webinterface/${wi.id}`, {
      token: token('admin'),
    });
    expect(refused.status).toBe(500);
    expect(refused.body).toEqual({
      status: 500,
      code: 'script-error',
      message: 'function list_objects is not available in a web interface',
      line: 1,
      column: 6,
    });
    expect((await call(server.url, 'GET', `/live/acme/webinterface/${wi.id}`)).status).toBe(401);
    expect(
      (
        await call(server.url, 'GET', `/live/globex/webinterface/${wi.id}`, {
          token: token('user', 'globex'),
        })
      ).status,
    ).toBe(404);
  });
});
