/**
 * Composite APIs defined as processes (docs/hosts.md, "Composite APIs"), through the real server's
 * REST surface on both engines: a route names a stored process that runs to its end in the call
 * (gateways, parallel branches, loops, retries, error boundary events), then its response template
 * reads P_computed. A process that would wait is refused when the route is saved, and answers an
 * error naming the node when it changed since.
 */
import { expect, it } from 'vitest';
import { createHosts } from '../../src/hosts/index.js';
import { evalHost } from '../../src/hosts/eval-host.js';
import { describeEachEngine } from '../support/engines.js';
import { bpmnModel, scriptTask, sequenceFlow } from '../support/bpmn.js';
import { call, useServer } from './support.js';

/** A quote: price from P_body.qty, a discount over 100 (exclusive gateway), tax and shipping in parallel, their sum. */
const QUOTE = {
  name: 'Quote',
  steps: [
    {
      id: 1,
      name: 'Price',
      input: { qty: '${P_body.qty?c}' },
      script: '${(qty * 12)?c}',
      output: { price: '${P_result?c}' },
    },
    { id: 2, name: 'Discount', output: { price: '${(price - 20)?c}' } },
    { id: 3, name: 'Tax', script: '${(price / 5)?c}', output: { tax: '${P_result?c}' } },
    {
      id: 4,
      name: 'Shipping',
      script: '{"carrier": "post", "cost": 5}',
      output: { shipping: '${P_result.cost?c}' },
    },
    {
      id: 5,
      name: 'Sum',
      output: { total: '${(price + P_branch_tax + P_branch_ship.cost)?c}', by: '${P_user.login}' },
    },
  ],
  graph: {
    nodes: [
      { id: 'start', kind: 'start' },
      { id: 't1', kind: 'task', step: 1 },
      { id: 'size', kind: 'exclusive', name: 'Big?', default: 'small' },
      { id: 't2', kind: 'task', step: 2 },
      { id: 'merge', kind: 'exclusive' },
      { id: 'fork', kind: 'parallel' },
      { id: 't3', kind: 'task', step: 3 },
      { id: 't4', kind: 'task', step: 4 },
      { id: 'join', kind: 'parallel' },
      { id: 't5', kind: 'task', step: 5 },
      { id: 'end', kind: 'end' },
    ],
    flows: [
      { id: 'f1', source: 'start', target: 't1' },
      { id: 'f2', source: 't1', target: 'size' },
      { id: 'big', source: 'size', target: 't2', condition: '${(price > 100)?c}' },
      { id: 'small', source: 'size', target: 'merge' },
      { id: 'f3', source: 't2', target: 'merge' },
      { id: 'f4', source: 'merge', target: 'fork' },
      { id: 'f5', name: 'tax', source: 'fork', target: 't3' },
      { id: 'f6', name: 'ship', source: 'fork', target: 't4' },
      { id: 'f7', source: 't3', target: 'join' },
      { id: 'f8', source: 't4', target: 'join' },
      { id: 'f9', source: 'join', target: 't5' },
      { id: 'f10', source: 't5', target: 'end' },
    ],
  },
};

const RESPONSE =
  '{"keys": "${P_computed?keys?join(",")}", "price": ${P_computed.price?c}, "total": ${P_computed.total?c}, ' +
  '"by": "${P_computed.by}", "params": "${P_params.id}"}';

const approval = (name: string) => ({
  name,
  steps: [
    { id: 1, name: 'Prepare', script: 'ok' },
    { id: 2, type: 'manual', name: 'Approve', fields: ['decision'] },
  ],
});

/** A BPMN model: a task retried once (it fails at its first attempt), a task whose error boundary event catches, a loop. */
const RESILIENT = bpmnModel(
  'Resilient',
  `    <bpmn:startEvent id="Start" />
    <bpmn:scriptTask id="Flaky" name="Flaky">
      <bpmn:extensionElements>
        <flowmark:input name="tries">\${((tries!0) + 1)?c}</flowmark:input>
        <flowmark:retry attempts="3" backoff="PT0.01S" />
      </bpmn:extensionElements>
      <bpmn:script>&lt;#if tries &lt; 2&gt;\${no_such_variable}&lt;/#if&gt;done</bpmn:script>
    </bpmn:scriptTask>
    ${scriptTask('Fragile', '${missing_value}')}
    <bpmn:boundaryEvent id="Caught" attachedToRef="Fragile"><bpmn:errorEventDefinition /></bpmn:boundaryEvent>
    <bpmn:scriptTask id="Fallback" name="Fallback">
      <bpmn:extensionElements>
        <flowmark:output name="reason">\${P_error.message}</flowmark:output>
        <flowmark:output name="at">\${P_error.template}</flowmark:output>
      </bpmn:extensionElements>
    </bpmn:scriptTask>
    <bpmn:scriptTask id="Each" name="Each">
      <bpmn:extensionElements>
        <flowmark:loop over="\${P_body.items}" />
        <flowmark:output name="seen">\${(seen!"")}\${P_item}\${P_index}</flowmark:output>
      </bpmn:extensionElements>
    </bpmn:scriptTask>
    <bpmn:endEvent id="End" />
    ${sequenceFlow('s1', 'Start', 'Flaky')}
    ${sequenceFlow('s2', 'Flaky', 'Fragile')}
    ${sequenceFlow('s3', 'Caught', 'Fallback')}
    ${sequenceFlow('s4', 'Fallback', 'Each')}
    ${sequenceFlow('s5', 'Each', 'End')}
    ${sequenceFlow('s6', 'Fragile', 'End')}`,
);

/** A BPMN model whose token waits at an intermediate timer. */
const TIMED = bpmnModel(
  'Timed',
  `    <bpmn:startEvent id="Start" />
    <bpmn:intermediateCatchEvent id="Pause" name="Pause">
      <bpmn:timerEventDefinition><bpmn:timeDuration>PT1M</bpmn:timeDuration></bpmn:timerEventDefinition>
    </bpmn:intermediateCatchEvent>
    <bpmn:endEvent id="End" />
    ${sequenceFlow('s1', 'Start', 'Pause')}
    ${sequenceFlow('s2', 'Pause', 'End')}`,
);

describeEachEngine('server: composite APIs defined as processes', (engine) => {
  const server = useServer(engine, (platform) => ({
    hosts: { ...evalHost(platform), ...createHosts(platform, { routeCacheMs: 0 }) },
  }));
  const admin = () => server.acme.admin.token;
  const user = () => server.acme.user.token;
  const saveProcess = async (body: unknown, type = 'application/json') => {
    const r = await call(server.url, 'POST', '/api/v1/processes', {
      token: admin(),
      body: typeof body === 'string' ? body : JSON.stringify(body),
      headers: { 'content-type': type },
    });
    expect(r.status).toBe(201);
    return r.body as { id: number };
  };
  const saveApi = (body: Record<string, unknown>) =>
    call(server.url, 'POST', '/api/v1/composite-apis', { token: admin(), body });

  it('runs the process to its end in the call, then answers with the response template over P_computed', async () => {
    await saveProcess(QUOTE);
    const created = await saveApi({
      method: 'POST',
      path: 'quote/:id',
      process: 'Quote',
      template: RESPONSE,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      method: 'POST',
      path: 'quote/:id',
      process: 'Quote',
      template: RESPONSE,
    });
    expect(
      (await call(server.url, 'GET', `/api/v1/composite-apis/${created.body.id}`, { token: admin() })).body,
    ).toMatchObject({ process: 'Quote' });

    const big = await call(server.url, 'POST', '/live/acme/composite/quote/7', {
      token: user(),
      body: { qty: 10 },
    });
    expect(big.status).toBe(200);
    expect(big.body).toEqual({
      keys: 'qty,price,tax,shipping,total,by',
      price: 100,
      total: 125,
      by: 'ann',
      params: '7',
    });
    const small = await call(server.url, 'POST', '/live/acme/composite/quote/8', {
      token: user(),
      body: { qty: 1 },
    });
    expect(small.body).toEqual({
      keys: 'qty,price,tax,shipping,total,by',
      price: 12,
      total: 19.4,
      by: 'ann',
      params: '8',
    });

    // nothing durable: the call stored no request
    const requests = await call(server.url, 'GET', '/api/v1/requests', { token: admin() });
    expect(requests.body.total).toBe(0);

    // a route without a process still sees an empty P_computed
    await saveApi({ method: 'GET', path: 'plain', template: '${P_computed?keys?size}' });
    expect((await call(server.url, 'GET', '/live/acme/composite/plain', { token: user() })).body).toBe('0');
  });

  it('retries a task, catches a failure with an error boundary event and loops, as a request would (BPMN)', async () => {
    await saveProcess(RESILIENT, 'application/xml');
    const created = await saveApi({
      method: 'POST',
      path: 'resilient',
      process: 'Resilient',
      template: '${P_computed.tries} | ${P_computed.reason} | ${P_computed.at} | ${P_computed.seen}',
    });
    expect(created.status).toBe(201);
    const r = await call(server.url, 'POST', '/live/acme/composite/resilient', {
      token: user(),
      body: { items: ['a', 'b'] },
    });
    expect(r).toMatchObject({
      status: 200,
      body:
        '2 | The following has evaluated to null or missing:\n==> missing_value  [in template "step 2 (Fragile) script" at line 1, column 3] ' +
        '| step 2 (Fragile) script | a0b1',
    });
  });

  it('refuses, when saved, a process that would wait, one outside the subset and one that does not exist', async () => {
    await saveProcess(approval('Approval'));
    const waiting = await saveApi({ path: 'approve', process: 'Approval', template: 'x' });
    expect(waiting.body).toEqual({
      status: 400,
      code: 'invalid',
      message:
        'process "Approval" cannot answer a composite API: userTask Step_2 (Approve) waits, and a composite ' +
        "API's process runs to its end within the call (no user tasks, call activities or timers)",
    });
    await saveProcess({
      name: 'Caller',
      steps: [{ id: 1, type: 'subprocess', name: 'Book', process: 'Approval' }],
    });
    expect((await saveApi({ path: 'caller', process: 'Caller', template: 'x' })).body.message).toBe(
      'process "Caller" cannot answer a composite API: callActivity Step_1 (Book) waits, and a composite ' +
        "API's process runs to its end within the call (no user tasks, call activities or timers)",
    );
    await saveProcess(TIMED, 'application/xml');
    expect((await saveApi({ path: 'timed', process: 'Timed', template: 'x' })).body.message).toBe(
      'process "Timed" cannot answer a composite API: intermediateCatchEvent Pause (Pause) waits, and a composite ' +
        "API's process runs to its end within the call (no user tasks, call activities or timers)",
    );
    await saveProcess(
      bpmnModel(
        'Odd',
        `    <bpmn:startEvent id="Start" />
    <bpmn:complexGateway id="Tangle" />
    ${sequenceFlow('s1', 'Start', 'Tangle')}`,
      ),
      'application/xml',
    );
    expect((await saveApi({ path: 'odd', process: 'Odd', template: 'x' })).body.message).toBe(
      'process "Odd" cannot answer a composite API: outside the executable subset: bpmn:ComplexGateway "Tangle" (line 5)',
    );
    expect((await saveApi({ path: 'none', process: 'Nothing', template: 'x' })).body).toEqual({
      status: 404,
      code: 'not-found',
      message: 'Process definition "Nothing" not found.',
    });
    const list = await call(server.url, 'GET', '/api/v1/composite-apis', { token: admin() });
    expect(list.body.items.map((a: { path: string }) => a.path)).toEqual(['plain', 'quote/:id', 'resilient']);
  });

  it('answers an error naming the node when the process changed since the route was saved, or failed', async () => {
    const stored = await saveProcess({ name: 'Later', steps: [{ id: 1, name: 'One', output: { a: '1' } }] });
    expect((await saveApi({ path: 'later', process: 'Later', template: '${P_computed.a}' })).status).toBe(
      201,
    );
    const replaced = await call(server.url, 'PUT', `/api/v1/processes/${stored.id}`, {
      token: admin(),
      body: approval('Later'),
    });
    expect(replaced.status).toBe(200);
    const r = await call(server.url, 'GET', '/live/acme/composite/later', { token: admin() });
    expect(r.body).toEqual({
      status: 500,
      code: 'script-error',
      message:
        'process "Later": userTask Step_2 (Approve) waits, and a composite API\'s process runs to its end ' +
        'within the call (no user tasks, call activities or timers)',
    });

    await saveProcess({
      name: 'Broken',
      steps: [{ id: 1, name: 'Parse', script: '${"abc"?number}' }],
    });
    await saveApi({ path: 'broken', process: 'Broken', template: 'never' });
    const failed = await call(server.url, 'GET', '/live/acme/composite/broken', { token: admin() });
    expect(failed.body).toMatchObject({ status: 500, code: 'script-error', line: 1, column: 3 });
    expect(failed.body.message).toMatch(/^process "Broken": step 1 \(Parse\) script, line 1, column 3: /);
    // a user of the account in LIVE sees that it failed, the log has the details
    const hidden = await call(server.url, 'GET', '/live/acme/composite/broken', { token: user() });
    expect(hidden.body).toEqual({
      status: 500,
      code: 'script-error',
      message: "The composite API's script failed (see the account's log).",
    });
    const deleted = await call(server.url, 'DELETE', `/api/v1/processes/${stored.id}`, { token: admin() });
    expect(deleted.status).toBe(204);
    expect(
      (await call(server.url, 'GET', '/live/acme/composite/later', { token: admin() })).body.message,
    ).toBe('process "Later": no process definition is named "Later"');
  });

  it('an error end event fails the call, naming it', async () => {
    await saveProcess({
      name: 'Failing',
      steps: [{ id: 1, script: 'x' }],
      graph: {
        nodes: [
          { id: 'start', kind: 'start' },
          { id: 't1', kind: 'task', step: 1 },
          { id: 'bad', kind: 'end', name: 'Bad', error: 'E1' },
        ],
        flows: [
          { id: 'f1', source: 'start', target: 't1' },
          { id: 'f2', source: 't1', target: 'bad' },
        ],
      },
    });
    await saveApi({ path: 'failing', process: 'Failing', template: 'never' });
    const r = await call(server.url, 'GET', '/live/acme/composite/failing', { token: admin() });
    expect(r.body).toEqual({
      status: 500,
      code: 'script-error',
      message: 'process "Failing": endEvent bad (Bad): error "E1"',
    });
  });
});
