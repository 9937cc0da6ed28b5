/**
 * Over HTTP with the real hosts: `/health` and `/ready`, and a real (short) deadline fired by the
 * sweeper the server starts when it is ready, a BPMN intermediate timer and a timer boundary
 * event it fires.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { createHosts } from '../../src/hosts/index.js';
import { evalHost } from '../../src/hosts/eval-host.js';
import { createServer } from '../../src/server/index.js';
import { defineMigration, migrations } from '../../src/store/index.js';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from './support.js';

describeEachEngine('health and timers over HTTP', (engine) => {
  const server = useServer(engine, (platform) => ({
    hosts: {
      ...evalHost(platform),
      ...createHosts(platform, { sweeper: { intervalMs: 100 }, lease: { owner: 'http-test', ttlMs: 2000 } }),
    },
  }));

  it('/health: alive with its store; /ready: every migration applied', async () => {
    expect(await call(server.url, 'GET', '/health')).toMatchObject({
      status: 200,
      body: { status: 'ok', engine: engine.name },
    });
    expect(await call(server.url, 'GET', '/ready')).toMatchObject({
      status: 200,
      body: { status: 'ready', engine: engine.name, migrations: migrations.length },
    });
  });

  it('a manual task with a deadline of 1 s: the request ends with 401 OUTDATED once it passed', async () => {
    const { token } = server.acme.admin;
    const definition = {
      name: 'Quick approval',
      steps: [{ id: 1, type: 'manual', name: 'Approve', deadline: '1s' }, { id: 2 }],
    };
    expect((await call(server.url, 'POST', '/api/v1/processes', { token, body: definition })).status).toBe(
      201,
    );
    const began = Date.now();
    const started = await call(server.url, 'POST', '/api/v1/requests', {
      token,
      body: { process: 'Quick approval', mode: 'TEST', data: {} },
    });
    expect(started.status).toBe(201);
    const id = started.body.id as string;
    const run = () => call(server.url, 'GET', `/api/v1/requests/${id}/run`, { token });
    expect((await run()).body.request.status).toBe(102);
    let view;
    do {
      await new Promise((r) => setTimeout(r, 50));
      view = (await run()).body;
    } while (view.request.status === 102 && Date.now() - began < 10_000);
    expect(Date.now() - began).toBeGreaterThanOrEqual(1000);
    expect(view.request.status).toBe(401);
    expect(view.request.message).toBe("step 1 (Approve): the task's deadline passed");
    expect(view.tasks.map((t: { status: string }) => t.status)).toEqual(['CANCELLED']);
  });

  /**
   * Saves the BPMN model `xml`, starts its process `name` (it waits: 102) and reads its run until
   * it ends (10 s at most): it ends completed, not before the 1 s timer. The last view, and the read.
   */
  const runToEnd = async (xml: string, name: string) => {
    const { token } = server.acme.admin;
    const saved = await call(server.url, 'POST', '/api/v1/processes', {
      token,
      body: xml,
      headers: { 'content-type': 'application/xml' },
    });
    expect(saved.status).toBe(201);
    const began = Date.now();
    const started = await call(server.url, 'POST', '/api/v1/requests', {
      token,
      body: { process: name, mode: 'TEST', data: {} },
    });
    const id = started.body.id as string;
    expect(started.body.status).toBe(102);
    const run = () => call(server.url, 'GET', `/api/v1/requests/${id}/run`, { token });
    let view;
    do {
      await new Promise((r) => setTimeout(r, 50));
      view = (await run()).body;
      // 101 while the request runs again once fired.
    } while (view.request.status < 200 && Date.now() - began < 10_000);
    expect(Date.now() - began).toBeGreaterThanOrEqual(1000);
    expect(view.request.status).toBe(201);
    return { view, run };
  };

  it('a BPMN intermediate timer of 1 s: the sweeper fires it and the request goes on to its end', async () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="D" targetNamespace="urn:t">
  <bpmn:process id="Timed" name="Timed" isExecutable="true">
    <bpmn:startEvent id="s" />
    <bpmn:scriptTask id="Before" name="Before"><bpmn:script>before</bpmn:script></bpmn:scriptTask>
    <bpmn:intermediateCatchEvent id="Pause">
      <bpmn:timerEventDefinition><bpmn:timeDuration>PT1S</bpmn:timeDuration></bpmn:timerEventDefinition>
    </bpmn:intermediateCatchEvent>
    <bpmn:scriptTask id="After" name="After"><bpmn:script>after</bpmn:script></bpmn:scriptTask>
    <bpmn:endEvent id="e" />
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="Before" />
    <bpmn:sequenceFlow id="f2" sourceRef="Before" targetRef="Pause" />
    <bpmn:sequenceFlow id="f3" sourceRef="Pause" targetRef="After" />
    <bpmn:sequenceFlow id="f4" sourceRef="After" targetRef="e" />
  </bpmn:process>
</bpmn:definitions>`;
    const { view } = await runToEnd(xml, 'Timed');
    expect(view.steps.map((s: { result: unknown }) => s.result)).toEqual(['before', 'after']);
  });

  it('a parallel fork with a 1 s timer in one branch and an error boundary event on the other: the join fires once both arrived', async () => {
    const xml = readFileSync(new URL('../fixtures/bpmn/parallel-timer-error.bpmn', import.meta.url), 'utf8');
    const { view } = await runToEnd(xml, 'Timer and error');
    // The risky branch ran (failed, caught, recovered) while the other waited for its timer.
    expect(
      view.steps.map((s: { stepId: number; status: string; result: unknown }) => [
        s.stepId,
        s.status,
        s.result,
      ]),
    ).toEqual([
      [2, 'failed', null],
      [3, 'done', 'recovered'],
      [1, 'done', 'slow'],
      [4, 'done', 'slow + recovered'],
    ]);
  });

  it('a timer boundary event of 1 s on a user task: the sweeper interrupts the task once, the flow leaves by the event', async () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="D" targetNamespace="urn:t">
  <bpmn:process id="SignInTime" name="Sign in time" isExecutable="true">
    <bpmn:startEvent id="s" />
    <bpmn:userTask id="Sign" name="Sign" />
    <bpmn:boundaryEvent id="Late" name="Late" attachedToRef="Sign">
      <bpmn:timerEventDefinition><bpmn:timeDuration>PT1S</bpmn:timeDuration></bpmn:timerEventDefinition>
    </bpmn:boundaryEvent>
    <bpmn:scriptTask id="Signed" name="Signed"><bpmn:script>signed</bpmn:script></bpmn:scriptTask>
    <bpmn:scriptTask id="Remind" name="Remind"><bpmn:script>too late</bpmn:script></bpmn:scriptTask>
    <bpmn:endEvent id="e" />
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="Sign" />
    <bpmn:sequenceFlow id="f2" sourceRef="Sign" targetRef="Signed" />
    <bpmn:sequenceFlow id="f3" sourceRef="Signed" targetRef="e" />
    <bpmn:sequenceFlow id="f4" sourceRef="Late" targetRef="Remind" />
    <bpmn:sequenceFlow id="f5" sourceRef="Remind" targetRef="e" />
  </bpmn:process>
</bpmn:definitions>`;
    const { view, run } = await runToEnd(xml, 'Sign in time');
    expect(view.steps.map((s: { stepId: number; status: string }) => [s.stepId, s.status])).toEqual([
      [1, 'failed'],
      [3, 'done'],
    ]);
    expect(view.tasks.map((t: { status: string }) => t.status)).toEqual(['CANCELLED']);
    // The sweeper fired it once: a second sweep finds nothing more to do.
    await new Promise((r) => setTimeout(r, 300));
    const again = (await run()).body;
    expect(again.steps).toHaveLength(2);
    expect(again.request.status).toBe(201);
  });

  it('refuses a JSON graph with a timer boundary event on a step that never waits', async () => {
    const { token } = server.acme.admin;
    const saved = await call(server.url, 'POST', '/api/v1/processes', {
      token,
      body: {
        name: 'Never waits',
        steps: [{ id: 1, script: 'x' }],
        graph: {
          nodes: [
            { id: 's', kind: 'start' },
            { id: 't', kind: 'task', step: 1 },
            { id: 'late', kind: 'boundary-timer', attachedTo: 't', wait: 'PT1M' },
            { id: 'e', kind: 'end' },
          ],
          flows: [
            { id: 'f1', source: 's', target: 't' },
            { id: 'f2', source: 't', target: 'e' },
            { id: 'f3', source: 'late', target: 'e' },
          ],
        },
      },
    });
    expect(saved.status).toBe(400);
    expect(saved.body.message).toBe(
      'process definition.graph.nodes[2].attachedTo: task t runs step 1, which never waits (not a manual step nor a sub-process it waits for): a timer boundary event on it would never fire',
    );
    const bad = await call(server.url, 'POST', '/api/v1/processes', {
      token,
      body: {
        name: 'Bad wait',
        steps: [{ id: 1, type: 'manual' }],
        graph: {
          nodes: [
            { id: 's', kind: 'start' },
            { id: 't', kind: 'task', step: 1 },
            { id: 'late', kind: 'boundary-timer', attachedTo: 't', wait: 'tomorrow' },
            { id: 'e', kind: 'end' },
          ],
          flows: [
            { id: 'f1', source: 's', target: 't' },
            { id: 'f2', source: 't', target: 'e' },
          ],
        },
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe(
      'process definition.graph.nodes[2].wait: "tomorrow" is not a duration (90s, 15m, 2h, 1d, PT1H30M), an ISO-8601 date-time nor a template',
    );
  });
});

describeEachEngine('/ready on a store missing a migration', (engine) => {
  it('answers 503 naming the migration', async () => {
    const extra = defineMigration({ id: '9999_not_yet', up: async () => {} });
    const app = await createServer({ store: engine.store, migrations: [...migrations, extra] });
    try {
      const r = await app.inject({ method: 'GET', url: '/ready' });
      expect(r.statusCode).toBe(503);
      expect(r.json()).toEqual({
        status: 503,
        code: 'unavailable',
        message: "The store's schema is not up to date: 9999_not_yet not applied.",
      });
    } finally {
      await app.close();
    }
  });
});
