import { expect, it } from 'vitest';
import type { Platform } from '../../src/platform/index.js';
import type {
  EvalInput,
  EvalOutput,
  HostResponse,
  HttpExchange,
  ServerHosts,
  StartRequestInput,
  TaskAddress,
} from '../../src/server/index.js';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from './support.js';

/**
 * A host that records what the server hands it and answers from that, to check the HTTP plumbing
 * of the eval and /live routes on their own.
 */
class RecordingHost implements ServerHosts {
  evals: EvalInput[] = [];
  exchanges: HttpExchange[] = [];
  starts: StartRequestInput[] = [];
  platform: Platform | undefined;

  async startRequest(input: StartRequestInput): Promise<{ requestId: string }> {
    this.starts.push(input);
    const created = await this.platform!.requests.create(input.caller.accountId, {
      mode: input.mode,
      data: input.data,
      initiatorId: input.caller.user.id,
    });
    return { requestId: created.id };
  }

  async task(exchange: HttpExchange & { task: TaskAddress }): Promise<HostResponse> {
    this.exchanges.push(exchange);
    return {
      status: exchange.method === 'POST' ? 303 : 200,
      headers: { location: '/done' },
      body: { ...exchange.task },
    };
  }

  async evaluate(input: EvalInput): Promise<EvalOutput> {
    this.evals.push(input);
    if (input.template.includes('<#bad'))
      return {
        output: '',
        variables: {},
        logs: [],
        response: { headers: {} },
        error: {
          message: 'Syntax error',
          kind: 'ParseException',
          line: 1,
          column: 7,
          templateName: 'template',
        },
      };
    return {
      output: `as ${input.asUser ?? input.caller.user.login} in ${input.mode}`,
      variables: { x: 1 },
      logs: [{ level: 'INFO', message: 'hello' }],
      response: { status: 201, headers: { 'x-a': 'b' } },
    };
  }

  async composite(exchange: HttpExchange): Promise<HostResponse> {
    this.exchanges.push(exchange);
    if (exchange.path === 'bytes')
      return { status: 200, headers: { 'content-type': 'image/png' }, body: Buffer.from([137, 80, 78, 71]) };
    if (exchange.path === 'text')
      return { status: 202, headers: { 'X-Custom': 'yes', 'Set-Cookie': 'a=b' }, body: 'done' };
    return {
      status: 200,
      headers: {},
      body: { path: exchange.path, method: exchange.method, caller: exchange.caller?.user.login ?? null },
    };
  }

  async webInterface(exchange: HttpExchange & { webInterfaceId: number }): Promise<HostResponse> {
    this.exchanges.push(exchange);
    return {
      status: 200,
      headers: { 'content-type': 'text/html; charset=utf-8' },
      body: `<p>${exchange.webInterfaceId}</p>`,
    };
  }
}

describeEachEngine('server: requests, logs, eval and the /live routes', (engine) => {
  const host = new RecordingHost();
  const server = useServer(engine, (platform) => {
    host.platform = platform;
    return { hosts: host };
  });
  const as = (who: 'admin' | 'user') => server.acme[who].token;

  it('shows a request to its initiator and to administrators only', async () => {
    const { requests, logs } = server.platform;
    await requests.create('acme', {
      id: 'r-ann',
      mode: 'TEST',
      initiatorId: server.acme.user.id,
      data: { n: 1 },
    });
    await requests.create('acme', { id: 'r-admin', mode: 'LIVE', initiatorId: server.acme.admin.id });
    await logs.write('acme', {
      requestId: 'r-ann',
      projectId: null,
      userId: server.acme.user.id,
      mode: 'TEST',
      level: 'INFO',
      message: 'one',
    });
    await logs.write('acme', {
      requestId: 'r-admin',
      projectId: null,
      userId: null,
      mode: 'LIVE',
      level: 'SEVERE',
      message: 'two',
    });

    const mine = await call(server.url, 'GET', '/api/v1/requests/r-ann', { token: as('user') });
    expect(mine.body).toEqual({
      id: 'r-ann',
      projectId: null,
      versionId: null,
      mode: 'TEST',
      status: 101,
      data: { n: 1 },
      locks: [],
      message: '',
      initiatorId: server.acme.user.id,
      parentId: null,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    const annList = await call(server.url, 'GET', '/api/v1/requests', { token: as('user') });
    // The list shows a summary: no data document, no P_locks, and its process's name and id (none
    // here: the request was made without a run) (test/server/request-list.test.ts).
    const { data: _data, locks: _locks, ...summary } = mine.body;
    expect(annList.body).toEqual({
      items: [{ ...summary, process: null, processId: null }],
      total: 1,
      first: 0,
      nb: 100,
    });
    const adminList = await call(server.url, 'GET', '/api/v1/requests?nb=1', { token: as('admin') });
    expect(adminList.body.items.map((r: { id: string }) => r.id)).toEqual(['r-admin']);
    expect(adminList.body.total).toBe(2);
    const byInitiator = await call(server.url, 'GET', `/api/v1/requests?initiatorId=${server.acme.user.id}`, {
      token: as('admin'),
    });
    expect(byInitiator.body.items.map((r: { id: string }) => r.id)).toEqual(['r-ann']);
    const notMine = await call(server.url, 'GET', '/api/v1/requests/r-admin', { token: as('user') });
    expect(notMine.body).toEqual({ status: 404, code: 'not-found', message: 'Request not found.' });
    expect((await call(server.url, 'GET', '/api/v1/requests/r-ann', { token: as('admin') })).status).toBe(
      200,
    );

    const myLogs = await call(server.url, 'GET', '/api/v1/requests/r-ann/logs', { token: as('user') });
    expect(myLogs.body.items.map((e: { message: string }) => e.message)).toEqual(['one']);
    const all = await call(server.url, 'GET', '/api/v1/logs', { token: as('admin') });
    expect(all.body.items.map((e: { message: string; level: string }) => [e.level, e.message])).toEqual([
      ['SEVERE', 'two'],
      ['INFO', 'one'],
    ]);
    expect((await call(server.url, 'GET', '/api/v1/logs', { token: as('user') })).status).toBe(403);
  });

  it('evaluates through the host: caller, mode and data reach it, its answer comes back', async () => {
    // ann evaluates in a project she designs (the refusals: test/security/eval-rights.test.ts).
    const project = await server.platform.projects.create('acme', { title: 'Designed by ann' });
    await server.platform.rights.grantDesign('acme', project.id, server.acme.user.id);
    const r = await call(server.url, 'POST', '/api/v1/eval', {
      token: as('user'),
      body: { template: '${x}', mode: 'ACCEPTANCE', data: { a: [1] }, projectId: project.id },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      output: 'as ann in ACCEPTANCE',
      variables: { x: 1 },
      logs: [{ level: 'INFO', message: 'hello' }],
      response: { status: 201, headers: { 'x-a': 'b' } },
    });
    expect(host.evals.at(-1)).toEqual({
      caller: {
        accountId: 'acme',
        user: { id: server.acme.user.id, login: 'ann', isAdmin: false },
        via: 'token',
      },
      template: '${x}',
      mode: 'ACCEPTANCE',
      data: { a: [1] },
      asUser: undefined,
      projectId: project.id,
    });
    const failed = await call(server.url, 'POST', '/api/v1/eval', {
      token: as('user'),
      body: { template: '<#bad', projectId: project.id },
    });
    expect(failed.status).toBe(200);
    expect(failed.body.error).toEqual({
      message: 'Syntax error',
      kind: 'ParseException',
      line: 1,
      column: 7,
      templateName: 'template',
    });
  });

  it('lets only administrators evaluate as another user', async () => {
    const refused = await call(server.url, 'POST', '/api/v1/eval', {
      token: as('user'),
      body: { template: 'x', user: 'admin' },
    });
    expect(refused.body).toEqual({
      status: 403,
      code: 'forbidden',
      message: 'Only an administrator of the account may evaluate as another user.',
    });
    const asAnn = await call(server.url, 'POST', '/api/v1/eval', {
      token: as('admin'),
      body: { template: 'x', user: 'ann' },
    });
    expect(asAnn.body.output).toBe('as ann in TEST');
    const tooBig = await call(server.url, 'POST', '/api/v1/eval', {
      token: as('user'),
      body: { template: 'x'.repeat(600 * 1024) },
    });
    expect(tooBig.body).toEqual({
      status: 400,
      code: 'invalid',
      message: 'body/template must NOT have more than 524288 characters',
    });
  });

  it('hands composite API calls to the host and applies its status, headers and body', async () => {
    const r = await call(server.url, 'POST', '/live/acme/composite/orders/42?x=1&x=2&y=3', {
      token: as('user'),
      body: { item: 'pen' },
      headers: { 'x-trace': 't1' },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(r.body).toEqual({ path: 'orders/42', method: 'POST', caller: 'ann' });
    const exchange = host.exchanges.at(-1)!;
    expect(exchange).toMatchObject({
      accountId: 'acme',
      method: 'POST',
      path: 'orders/42',
      query: { x: ['1', '2'], y: '3' },
      body: { item: 'pen' },
    });
    expect(exchange.headers['x-trace']).toBe('t1');
    expect(exchange.headers).not.toHaveProperty('authorization');

    const text = await call(server.url, 'GET', '/live/acme/composite/text');
    expect(text.status).toBe(202);
    expect(text.body).toBe('done');
    expect(text.headers.get('x-custom')).toBe('yes');
    expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(text.headers.getSetCookie()).toEqual([]);

    const bytes = await fetch(`${server.url}/live/acme/composite/bytes`);
    expect(bytes.headers.get('content-type')).toBe('image/png');
    expect([...new Uint8Array(await bytes.arrayBuffer())]).toEqual([137, 80, 78, 71]);

    const raw = await fetch(`${server.url}/live/acme/composite/raw`, {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream', authorization: 'Basic YTpi' },
      body: new Uint8Array([1, 2, 3]),
    });
    expect(raw.status).toBe(200);
    const rawExchange = host.exchanges.at(-1)!;
    expect(Buffer.isBuffer(rawExchange.body) && [...rawExchange.body]).toEqual([1, 2, 3]);
    expect(rawExchange.headers.authorization).toBe('Basic YTpi');
    expect(rawExchange.caller).toBeNull();

    const form = await call(server.url, 'POST', '/live/acme/composite/form', {
      body: 'a=1&b=2',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(200);
    expect(host.exchanges.at(-1)!.body).toBe('a=1&b=2');
  });

  it('gives the host a caller only in the caller account, and refuses bad tokens', async () => {
    const other = await call(server.url, 'GET', '/live/globex/composite/x', { token: as('user') });
    expect(other.body).toEqual({ path: 'x', method: 'GET', caller: null });
    expect(host.exchanges.at(-1)!.accountId).toBe('globex');
    const bad = await call(server.url, 'GET', '/live/acme/composite/x', { token: 'fmk_nope' });
    expect(bad.body.code).toBe('invalid-token');
  });

  it('starts process requests through the host and answers with the stored request', async () => {
    const r = await call(server.url, 'POST', '/api/v1/requests', {
      token: as('user'),
      body: { process: 'approval', mode: 'TEST', data: { amount: 12 } },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      mode: 'TEST',
      data: { amount: 12 },
      initiatorId: server.acme.user.id,
      status: 101,
    });
    expect(host.starts.at(-1)).toMatchObject({
      process: 'approval',
      mode: 'TEST',
      caller: { accountId: 'acme' },
    });
    const byId = await call(server.url, 'POST', '/api/v1/requests', {
      token: as('user'),
      body: { process: 7 },
    });
    expect(byId.body.mode).toBe('LIVE');
    expect(host.starts.at(-1)!.process).toBe(7);
    const bad = await call(server.url, 'POST', '/api/v1/requests', {
      token: as('user'),
      body: { process: 'x', extra: 1 },
    });
    expect(bad.body).toEqual({
      status: 400,
      code: 'invalid',
      message: 'body must NOT have additional properties',
    });
  });

  it('hands manual task pages and submissions to the host', async () => {
    const open = await call(server.url, 'GET', '/live/acme/task/r-1/3/0?token=abc&P_context=mobile');
    expect(open.body).toEqual({ requestId: 'r-1', stepId: 3, iteration: 0 });
    expect(host.exchanges.at(-1)).toMatchObject({
      accountId: 'acme',
      caller: null,
      path: 'task/r-1/3/0',
      query: { token: 'abc', P_context: 'mobile' },
    });
    const submit = await call(server.url, 'POST', '/live/acme/task/r-1/3/0', {
      token: as('user'),
      body: 'decision=approve',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(submit.status).toBe(303);
    expect(submit.headers.get('location')).toBe('/done');
    expect(host.exchanges.at(-1)).toMatchObject({
      method: 'POST',
      body: 'decision=approve',
      caller: { user: { login: 'ann' } },
    });
    const badStep = await call(server.url, 'GET', '/live/acme/task/r-1/x/0');
    expect(badStep.body).toEqual({ status: 400, code: 'invalid', message: 'params/stepId must be integer' });
  });

  it('hands web interface pages to the host', async () => {
    const r = await call(server.url, 'GET', '/live/acme/webinterface/12?P_mode=ACCEPTANCE', {
      token: as('user'),
    });
    expect(r.body).toBe('<p>12</p>');
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(host.exchanges.at(-1)).toMatchObject({
      path: 'webinterface/12',
      webInterfaceId: 12,
      query: { P_mode: 'ACCEPTANCE' },
      caller: { accountId: 'acme', user: { login: 'ann' } },
    });
  });
});

describeEachEngine('server: routes of a missing host', (engine) => {
  const server = useServer(engine);

  it('answer 501', async () => {
    const r = await call(server.url, 'POST', '/api/v1/eval', {
      token: server.acme.user.token,
      body: { template: 'x' },
    });
    expect(r.body).toEqual({
      status: 501,
      code: 'not-implemented',
      message: 'This server has no evaluation host.',
    });
    const c = await call(server.url, 'GET', '/live/acme/composite/x');
    expect(c.body).toEqual({
      status: 501,
      code: 'not-implemented',
      message: 'This server has no composite API host.',
    });
  });
});
