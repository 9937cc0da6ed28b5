/**
 * Triggers over HTTP with the real hosts and the sweeper the server starts (docs/hosts.md,
 * "Triggers"): a BPMN timer start event saved through the API starts its request by itself; a bad
 * one is refused naming its element and text; a JSON definition's trigger exports as BPMN.
 */
import { expect, it } from 'vitest';
import { evalHost } from '../../src/hosts/eval-host.js';
import { createHosts } from '../../src/hosts/index.js';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from './support.js';

const xml = (start: string) => `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="D" targetNamespace="urn:t">
  <bpmn:message id="M" name="order-received" />
  <bpmn:process id="P" name="Started" isExecutable="true">
    <bpmn:startEvent id="Go">${start}</bpmn:startEvent>
    <bpmn:scriptTask id="Work" name="Work"><bpmn:script>worked in ${'${P_mode}'}</bpmn:script></bpmn:scriptTask>
    <bpmn:endEvent id="e" />
    <bpmn:sequenceFlow id="f1" sourceRef="Go" targetRef="Work" />
    <bpmn:sequenceFlow id="f2" sourceRef="Work" targetRef="e" />
  </bpmn:process>
</bpmn:definitions>`;
const timer = (kind: string, text: string) =>
  xml(`<bpmn:timerEventDefinition><bpmn:${kind}>${text}</bpmn:${kind}></bpmn:timerEventDefinition>`);

describeEachEngine('timer start events over HTTP', (engine) => {
  const server = useServer(engine, (platform) => ({
    hosts: {
      ...evalHost(platform),
      ...createHosts(platform, { sweeper: { intervalMs: 100 }, lease: { owner: 'http-test', ttlMs: 2000 } }),
    },
  }));
  const saveXml = (body: string) =>
    call(server.url, 'POST', '/api/v1/processes', {
      token: server.acme.admin.token,
      body,
      headers: { 'content-type': 'application/xml' },
    });

  it('a bad timeCycle, timeDate or cron is refused at save (400) naming the element id and the text', async () => {
    expect(await saveXml(timer('timeCycle', 'R5/PT30S'))).toMatchObject({
      status: 400,
      body: {
        code: 'invalid',
        message:
          'process definition.graph.nodes[0].timer.cycle: the timeCycle "R5/PT30S" of start event "Go" repeats every 30 s, more often than once a minute',
      },
    });
    expect((await saveXml(timer('timeCycle', '0 25 * * *'))).body.message).toBe(
      'process definition.graph.nodes[0].timer.cycle: the timeCycle "0 25 * * *" of start event "Go" is not an ISO 8601 repetition (R/PT1H) nor a cron expression of five fields (minute hour day month weekday): CronPattern: Invalid value for hour: 25',
    );
    expect((await saveXml(timer('timeDate', 'next monday'))).body.message).toBe(
      'process definition.graph.nodes[0].timer.date: the timeDate "next monday" of start event "Go" is not an ISO 8601 date-time with its offset (2026-01-01T09:00:00Z)',
    );
    const list = await call(server.url, 'GET', '/api/v1/processes', { token: server.acme.admin.token });
    expect(list.body.items).toEqual([]);
  });

  it('a timeDuration PT1S start event: saved runnable, the sweeper starts its request once, in LIVE mode', async () => {
    const { token } = server.acme.admin;
    const began = Date.now();
    const saved = await saveXml(timer('timeDuration', 'PT1S'));
    expect(saved.status).toBe(201);
    expect(saved.body.unsupported).toEqual([]);
    expect(saved.body.definition.graph.nodes[0]).toEqual({
      id: 'Go',
      kind: 'start',
      timer: { duration: 'PT1S' },
    });
    expect(saved.body.trigger).toEqual({
      kind: 'timer',
      startEvent: 'Go',
      timer: { duration: 'PT1S' },
      message: null,
      collection: null,
      nextAt: saved.body.createdAt + 1000,
      firedCount: 0,
      lastFiredAt: null,
      lastRequestId: null,
    });
    const { triggers } = server.platform.processes;
    let fired;
    do {
      await new Promise((r) => setTimeout(r, 100));
      fired = await triggers.find(saved.body.id);
    } while (fired?.lastRequestId === null && Date.now() - began < 10_000);
    expect(Date.now() - began).toBeGreaterThanOrEqual(1000);
    expect(fired).toMatchObject({ firedCount: 1, nextAt: null, firedBy: 'http-test' });
    let run;
    do {
      // 101 while the sweeper drives it.
      run = await call(server.url, 'GET', `/api/v1/requests/${fired!.lastRequestId}/run`, { token });
    } while (run.body.request.status < 200 && Date.now() - began < 10_000);
    expect(run.body.request).toMatchObject({ status: 201, mode: 'LIVE', initiatorId: null });
    expect(run.body.steps.map((s: { result: unknown }) => s.result)).toEqual(['worked in LIVE']);
    await new Promise((r) => setTimeout(r, 300));
    const again = await call(server.url, 'GET', `/api/v1/processes/${saved.body.id}`, { token });
    expect(again.body.trigger).toMatchObject({
      nextAt: null,
      firedCount: 1,
      lastRequestId: fired!.lastRequestId,
    });
    const listed = await call(server.url, 'GET', '/api/v1/processes', { token });
    expect(listed.body.items[0].trigger).toEqual(again.body.trigger);
    await call(server.url, 'DELETE', `/api/v1/processes/${saved.body.id}`, { token });
  });

  it('a JSON definition with a timer start event exports it as BPMN and saves back the same', async () => {
    const { token } = server.acme.admin;
    const definition = {
      name: 'Hourly',
      steps: [{ id: 1, script: 'x' }],
      graph: {
        nodes: [
          { id: 'Start', kind: 'start', timer: { cycle: 'R/PT1H' }, enabled: false },
          { id: 'Step_1', kind: 'task', step: 1 },
          { id: 'End', kind: 'end' },
        ],
        flows: [
          { id: 'a', source: 'Start', target: 'Step_1' },
          { id: 'b', source: 'Step_1', target: 'End' },
        ],
      },
    };
    const saved = await call(server.url, 'POST', '/api/v1/processes', { token, body: definition });
    expect(saved.status).toBe(201);
    expect(await server.platform.processes.triggers.find(saved.body.id)).toBeUndefined();
    const exported = await call(server.url, 'GET', `/api/v1/processes/${saved.body.id}?format=bpmn`, {
      token,
    });
    expect(exported.body).toContain('<bpmn:startEvent id="Start" flowmark:enabled="false">');
    expect(exported.body).toContain(
      '<bpmn:timeCycle xsi:type="bpmn:tFormalExpression">R/PT1H</bpmn:timeCycle>',
    );
    await call(server.url, 'DELETE', `/api/v1/processes/${saved.body.id}`, { token });
    const again = await saveXml(exported.body);
    expect(again.status).toBe(201);
    expect(again.body.definition.graph.nodes[0]).toEqual(definition.graph.nodes[0]);
  });
});

const message = (name: string, extra = '') =>
  xml(`<bpmn:messageEventDefinition messageRef="M" />`)
    .replace('name="order-received"', `name="${name}"`)
    .replace('<bpmn:startEvent id="Go">', `<bpmn:startEvent id="Go"${extra}>`);

describeEachEngine('message start events over HTTP', (engine) => {
  const server = useServer(engine, (platform) => ({
    hosts: {
      ...evalHost(platform),
      ...createHosts(platform, { routeCacheMs: 0, limits: { dataDocumentBytes: 4096 } }),
    },
  }));
  const admin = () => server.acme.admin.token;
  const user = () => server.acme.user.token;
  const save = (body: string, name = 'Order intake') =>
    call(server.url, 'POST', '/api/v1/processes', {
      token: admin(),
      body: body.replace('name="Started"', `name="${name}"`),
      headers: { 'content-type': 'application/xml' },
    });
  const send = (name: string, body: unknown, token: string | undefined = user(), query = '', headers = {}) =>
    call(server.url, 'POST', `/api/v1/messages/${encodeURIComponent(name)}${query}`, {
      token,
      body,
      headers,
    });
  const orders = `<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="D" targetNamespace="urn:t">
  <bpmn:message id="M" name="order-received" />
  <bpmn:process id="P" name="Order intake" isExecutable="true">
    <bpmn:startEvent id="In"><bpmn:messageEventDefinition messageRef="M" /></bpmn:startEvent>
    <bpmn:scriptTask id="Check" name="Check"><bpmn:script>\${item} × \${qty?c} for \${P_user.login}</bpmn:script></bpmn:scriptTask>
    <bpmn:endEvent id="e" />
    <bpmn:sequenceFlow id="f1" sourceRef="In" targetRef="Check" />
    <bpmn:sequenceFlow id="f2" sourceRef="Check" targetRef="e" />
  </bpmn:process>
</bpmn:definitions>`;

  it('POST /api/v1/messages/{name}: any user of the account starts the process, the body its data document', async () => {
    const saved = await save(orders);
    expect(saved.status).toBe(201);
    expect(saved.body.definition.graph.nodes[0]).toEqual({
      id: 'In',
      kind: 'start',
      message: 'order-received',
    });
    expect(saved.body.trigger).toEqual({
      kind: 'message',
      startEvent: 'In',
      timer: null,
      message: 'order-received',
      collection: null,
      nextAt: null,
      firedCount: 0,
      lastFiredAt: null,
      lastRequestId: null,
    });
    const sent = await send('order-received', { item: 'pen', qty: 3 });
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({
      status: 201,
      mode: 'LIVE',
      initiatorId: server.acme.user.id,
      data: { item: 'pen', qty: 3 },
    });
    const run = await call(server.url, 'GET', `/api/v1/requests/${sent.body.id}/run`, { token: user() });
    expect(run.body.process).toBe('Order intake');
    expect(run.body.steps.map((s: { result: unknown }) => s.result)).toEqual(['pen × 3 for ann']);
    expect((await send('order-received', { item: 'ink', qty: 1 }, admin(), '?mode=TEST')).body).toMatchObject(
      {
        status: 201,
        mode: 'TEST',
        initiatorId: server.acme.admin.id,
      },
    );
    // With an Idempotency-Key, a retry answers the first request.
    const key = { 'idempotency-key': 'order-7' };
    const first = await send('order-received', { item: 'cup', qty: 2 }, user(), '', key);
    const again = await send('order-received', { item: 'cup', qty: 2 }, user(), '', key);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('a message no enabled process starts on: 404 naming it; another account cannot reach it', async () => {
    expect(await send('order-shipped', {})).toMatchObject({
      status: 404,
      body: {
        code: 'not-found',
        message:
          'No process starts on message "order-shipped": no stored process of the account has an enabled message start event of that name.',
      },
    });
    expect((await send('order-received', {}, server.globex.user.token)).status).toBe(404);
    expect((await send('order-received', {}, '')).status).toBe(401);
    const off = await save(
      message('paused', ' xmlns:flowmark="urn:flowmark:bpmn" flowmark:enabled="false"'),
      'Off',
    );
    expect(off.status).toBe(201);
    expect(off.body.definition.graph.nodes[0]).toEqual({
      id: 'Go',
      kind: 'start',
      message: 'paused',
      enabled: false,
    });
    expect(off.body.trigger).toBeNull();
    expect((await send('paused', {})).status).toBe(404);
  });

  it('a message name is the start of one process: a second one is refused (409)', async () => {
    expect(await save(message('order-received'), 'Copycat')).toMatchObject({
      status: 409,
      body: {
        message:
          'message "order-received" already starts process "Order intake": a message starts one process',
      },
    });
    expect(
      (await call(server.url, 'GET', '/api/v1/processes', { token: admin() })).body.items.map(
        (d: { name: string }) => d.name,
      ),
    ).toEqual(['Off', 'Order intake']);
  });

  it('hostile input is bounded: the body must be an object within the data document limit, the name 100 characters', async () => {
    expect((await send('order-received', [1, 2])).status).toBe(400);
    expect(
      (await send('order-received', 'text', user(), '', { 'content-type': 'application/json' })).status,
    ).toBe(400);
    // A name is at most 100 characters (the server's longest path parameter).
    expect((await send('x'.repeat(101), {})).status).toBe(414);
    expect((await send('order-received', {}, user(), '?mode=PROD')).status).toBe(400);
    expect(await send('order-received', { item: 'x'.repeat(5000), qty: 1 })).toMatchObject({
      status: 400,
      body: { message: 'the data document has 5019 bytes, over its maximum of 4096 bytes' },
    });
    // The route takes a body of the server's data document limit (5 MiB by default) plus 1 MiB
    // (docs/server.md): past the account's document limit it is refused as a document, past the
    // body limit as a body.
    expect(await send('order-received', { blob: 'y'.repeat(1024 * 1024) })).toMatchObject({
      status: 400,
      body: { message: 'the data document has 1048587 bytes, over its maximum of 4096 bytes' },
    });
    expect((await send('order-received', { blob: 'y'.repeat(7 * 1024 * 1024) })).status).toBe(413);
    const polluted = await call(server.url, 'POST', '/api/v1/messages/order-received', {
      token: user(),
      body: '{"item": "pen", "qty": 1, "__proto__": {"admin": true}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(polluted.status).toBe(400);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('send_process_message from a composite API starts it as the caller; anonymously it is refused', async () => {
    const template = '${send_process_message("order-received", {"item": "mug", "qty": 4}).status?c}';
    for (const [path, isPublic] of [
      ['send', false],
      ['send-public', true],
    ] as const)
      expect(
        (
          await call(server.url, 'POST', '/api/v1/composite-apis', {
            token: admin(),
            body: { method: 'POST', path, template, isPublic },
          })
        ).status,
      ).toBe(201);
    const sent = await call(server.url, 'POST', '/live/acme/composite/send', { token: user(), body: {} });
    expect(sent.status).toBe(200);
    expect(sent.body).toBe('201');
    const anonymous = await call(server.url, 'POST', '/live/acme/composite/send-public', { body: {} });
    expect(anonymous.body).toMatchObject({ status: 500, code: 'script-error' });
    const logs = await call(server.url, 'GET', '/api/v1/logs', { token: admin() });
    expect(logs.body.items[0].message).toContain(
      'send_process_message: this function needs a connected user; the script runs anonymously',
    );
  });

  it('a process that messages itself stops at the nesting limit (10)', async () => {
    const echo = orders
      .replaceAll('order-received', 'echo')
      .replace('name="Order intake"', 'name="Echo"')
      .replace(
        /<bpmn:script>.*<\/bpmn:script>/,
        '<bpmn:script>${send_process_message("echo").status?c}</bpmn:script>',
      );
    const saved = await save(echo, 'Echo');
    expect(saved.status).toBe(201);
    const sent = await send('echo', {});
    const chain = await server.platform.requests.list(server.acme.accountId, { first: 0, limit: 100 });
    const runs = await Promise.all(
      chain.map(async (r) => ({
        r,
        run: await server.platform.processes.runs.find(server.acme.accountId, r.id),
      })),
    );
    const echoes = runs
      .filter((x) => x.run?.definitionId === saved.body.id)
      .map((x) => [x.run!.depth, x.r.status, x.r.message] as const)
      .sort((p, q) => p[0] - q[0]);
    expect(sent.body.status).toBe(201);
    expect(echoes.map(([depth]) => depth)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(echoes.slice(0, 10).every(([, status]) => status === 201)).toBe(true);
    expect(echoes[10]).toEqual([
      10,
      301,
      'step 1 (Check) script, line 1, column 3: send_process_message: requests started by messages from requests nest at most 10 deep',
    ]);
  });
});
