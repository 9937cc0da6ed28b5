/**
 * BPMN over the REST API on both engines (docs/hosts.md, "BPMN"): a document saved with
 * Content-Type application/xml or text/xml, its unsupported elements listed in the answer, a
 * stored definition exported as BPMN (?format=bpmn, Accept: application/xml), a request of a BPMN
 * definition started, and one with elements outside the subset refused naming them.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { createHosts } from '../../src/hosts/index.js';
import { evalHost } from '../../src/hosts/eval-host.js';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from './support.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/bpmn/${name}`, import.meta.url), 'utf8');

describeEachEngine('server: BPMN process definitions', (engine) => {
  const server = useServer(engine, (platform) => ({
    hosts: { ...evalHost(platform), ...createHosts(platform, { routeCacheMs: 0 }) },
  }));
  const admin = () => server.acme.admin.token;
  const xml = (body: string, type = 'application/xml') => ({
    token: admin(),
    body,
    headers: { 'content-type': type },
  });

  it('stores a BPMN document, exports it as it came, and runs it', async () => {
    const created = await call(server.url, 'POST', '/api/v1/processes', xml(fixture('approval.bpmn')));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Approval', format: 'bpmn', unsupported: [] });
    expect(created.body.definition.graph.nodes).toHaveLength(5);
    expect(created.body.definition.bpmn).toBeUndefined();
    const id = created.body.id as number;

    const exported = await call(server.url, 'GET', `/api/v1/processes/${id}?format=bpmn`, { token: admin() });
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(exported.body).toBe(fixture('approval.bpmn'));
    const accepted = await call(server.url, 'GET', `/api/v1/processes/${id}`, {
      token: admin(),
      headers: { accept: 'application/xml' },
    });
    expect(accepted.body).toBe(fixture('approval.bpmn'));
    const asJson = await call(server.url, 'GET', `/api/v1/processes/${id}`, { token: admin() });
    expect(asJson.body).toMatchObject({ id, format: 'bpmn' });

    const started = await call(server.url, 'POST', '/api/v1/requests', {
      token: server.acme.user.token,
      body: { process: 'Approval', mode: 'TEST', data: { amount: 21 } },
    });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ status: 102, data: { amount: 21, total: 42 } });
  });

  it('lists the elements outside the executable subset when saved, and refuses to run them', async () => {
    const created = await call(
      server.url,
      'POST',
      '/api/v1/processes',
      xml(fixture('unsupported.bpmn'), 'text/xml'),
    );
    expect(created.status).toBe(201);
    expect(created.body.unsupported).toEqual([
      { type: 'bpmn:ScriptTask (scriptFormat "groovy")', id: 'Work', line: 6 },
      { type: 'bpmn:ComplexGateway', id: 'Tangle', line: 9 },
      {
        type: 'bpmn:MultiInstanceLoopCharacteristics (no loopCardinality nor flowmark:collection)',
        id: 'Plain',
        line: 10,
      },
      { type: 'bpmn:IntermediateCatchEvent (bpmn:TimerEventDefinition)', id: 'Wait', line: 13 },
    ]);
    const exported = await call(server.url, 'GET', `/api/v1/processes/${created.body.id}?format=bpmn`, {
      token: admin(),
    });
    expect(exported.body).toBe(fixture('unsupported.bpmn'));
    const refused = await call(server.url, 'POST', '/api/v1/requests', {
      token: server.acme.user.token,
      body: { process: 'Odd', mode: 'TEST' },
    });
    expect(refused.body).toEqual({
      status: 400,
      code: 'invalid',
      message:
        'process "Odd" cannot run: outside the executable subset: bpmn:ScriptTask (scriptFormat "groovy") "Work" (line 6), ' +
        'bpmn:ComplexGateway "Tangle" (line 9), bpmn:MultiInstanceLoopCharacteristics (no loopCardinality nor flowmark:collection) "Plain" (line 10), bpmn:IntermediateCatchEvent (bpmn:TimerEventDefinition) "Wait" (line 13)',
    });
  });

  it('exports a JSON definition as BPMN with its diagram, which saves back as the same steps', async () => {
    const definition = {
      name: 'Twice',
      steps: [
        { id: 1, name: 'One', script: '${1}' },
        { id: 2, type: 'manual', name: 'Two', fields: ['x'] },
      ],
    };
    const created = await call(server.url, 'POST', '/api/v1/processes', { token: admin(), body: definition });
    expect(created.body).toMatchObject({ format: 'json', unsupported: [] });
    const exported = await call(server.url, 'GET', `/api/v1/processes/${created.body.id}?format=bpmn`, {
      token: admin(),
    });
    expect(exported.body).toContain(
      '<bpmn:scriptTask id="Step_1" name="One" flowmark:step="1" scriptFormat="freemarker">',
    );
    expect(exported.body).toContain('<bpmndi:BPMNShape id="Step_2_di" bpmnElement="Step_2">');
    const replaced = await call(
      server.url,
      'PUT',
      `/api/v1/processes/${created.body.id}`,
      xml((exported.body as string).replace('name="Twice"', 'name="Twice again"')),
    );
    expect(replaced.status).toBe(200);
    expect(replaced.body.name).toBe('Twice again');
    expect(replaced.body.definition.steps).toEqual(created.body.definition.steps);
  });

  it('refuses a malformed document and a JSON definition carrying a BPMN source', async () => {
    const malformed = await call(server.url, 'POST', '/api/v1/processes', xml('<definitions'));
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toMatch(/^BPMN document: /);
    const smuggled = await call(server.url, 'POST', '/api/v1/processes', {
      token: admin(),
      body: { name: 'x', steps: [{ id: 1 }], bpmn: '<x/>' },
    });
    expect(smuggled.body).toEqual({
      status: 400,
      code: 'invalid',
      message: 'process definition.bpmn: send the BPMN document itself (Content-Type: application/xml)',
    });
  });

  it('runs an inclusive gateway and refuses a timer boundary event with a bad duration, naming it', async () => {
    const created = await call(server.url, 'POST', '/api/v1/processes', xml(fixture('inclusive.bpmn')));
    expect(created.status).toBe(201);
    expect(created.body.unsupported).toEqual([]);
    const started = await call(server.url, 'POST', '/api/v1/requests', {
      token: server.acme.user.token,
      body: { process: 'Notify', mode: 'TEST', data: { phone: '555' } },
    });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ status: 201, data: { phone: '555', report: '- / sms to 555 / -' } });
    const bad = await call(
      server.url,
      'POST',
      '/api/v1/processes',
      xml(
        fixture('approval.bpmn').replace(
          '</bpmn:process>',
          '<bpmn:boundaryEvent id="Late" attachedToRef="Approve"><bpmn:timerEventDefinition><bpmn:timeDate>next week</bpmn:timeDate></bpmn:timerEventDefinition></bpmn:boundaryEvent>\n</bpmn:process>',
        ),
      ),
    );
    expect(bad.body).toEqual({
      status: 400,
      code: 'invalid',
      message:
        'BPMN document: boundaryEvent "Late" (line 26): its timer "next week" is not a duration (90s, 15m, 2h, 1d, PT1H30M), an ISO-8601 date-time nor a template',
    });
  });
});
