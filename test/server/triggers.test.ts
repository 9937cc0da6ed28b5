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
      'process definition.graph.nodes[0].timer.cycle: the timeCycle "0 25 * * *" of start event "Go" is not an ISO 8601 repetition (R/PT1H) nor a cron expression of five fields (minute hour day month weekday, UTC): CronPattern: Invalid value for hour: 25',
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
    expect(await triggers.find(saved.body.id)).toMatchObject({ firedCount: 1 });
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
