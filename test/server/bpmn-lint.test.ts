/**
 * The checks of a BPMN model when it is saved (docs/console.md, "Validation"), over REST on both
 * engines: bpmnlint's recommended rules and flowmark's subset check come back as warnings in the
 * save's `findings` (the model is stored); a JSON save has none; a model that cannot become a
 * process is refused (400) and the stored one stays.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { createHosts } from '../../src/hosts/index.js';
import { evalHost } from '../../src/hosts/eval-host.js';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from './support.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/bpmn/${name}`, import.meta.url), 'utf8');
const warning = (id: string, rule: string, message: string) => ({ id, rule, message, severity: 'warning' });
const subset = (id: string, what: string) =>
  warning(
    id,
    'flowmark/executable-subset',
    `${what} is outside the executable subset: a request of this process is refused`,
  );

describeEachEngine('server: the findings of a saved BPMN model', (engine) => {
  const server = useServer(engine, (platform) => ({
    hosts: { ...evalHost(platform), ...createHosts(platform, { routeCacheMs: 0 }) },
  }));
  const xml = (body: string) => ({
    token: server.acme.admin.token,
    body,
    headers: { 'content-type': 'application/xml' },
  });
  let id = 0;

  it("answers bpmnlint's findings as warnings, and stores the model", async () => {
    const created = await call(server.url, 'POST', '/api/v1/processes', xml(fixture('route.bpmn')));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Route', format: 'bpmn', unsupported: [] });
    expect(created.body.findings).toEqual([
      warning('f3', 'bpmnlint/conditional-flows', 'Sequence flow is missing condition'),
      warning('Done', 'bpmnlint/fake-join', 'Incoming flows do not join'),
      warning('Size', 'bpmnlint/label-required', 'Element is missing label/name'),
      warning('f2', 'bpmnlint/label-required', 'Element is missing label/name'),
    ]);
    id = created.body.id as number;
    const started = await call(server.url, 'POST', '/api/v1/requests', {
      token: server.acme.user.token,
      body: { process: 'Route', mode: 'TEST', data: { amount: 500 } },
    });
    expect(started.status).toBe(201);
    expect(started.body.status).toBe(201);
  });

  it('adds each element outside the executable subset to the findings of a replaced model', async () => {
    const replaced = await call(
      server.url,
      'PUT',
      `/api/v1/processes/${id}`,
      xml(fixture('unsupported.bpmn')),
    );
    expect(replaced.status).toBe(200);
    const findings = replaced.body.findings as Array<{ id: string; rule: string }>;
    expect(findings.filter((f) => f.rule === 'flowmark/executable-subset')).toEqual([
      subset('Work', 'bpmn:ScriptTask (scriptFormat "groovy") (line 6)'),
      subset('Tangle', 'bpmn:ComplexGateway (line 9)'),
      subset(
        'Plain',
        'bpmn:MultiInstanceLoopCharacteristics (no loopCardinality nor flowmark:collection) (line 10)',
      ),
      subset('Wait', 'bpmn:IntermediateCatchEvent (bpmn:TimerEventDefinition) (line 13)'),
    ]);
    // The model has no diagram and its nodes list no incoming/outgoing flows: bpmnlint says so.
    const counts: Record<string, number> = {};
    for (const f of findings) counts[f.rule] = (counts[f.rule] ?? 0) + 1;
    expect(counts).toEqual({
      'bpmnlint/label-required': 3,
      'bpmnlint/no-bpmndi': 10,
      'bpmnlint/no-complex-gateway': 1,
      'bpmnlint/no-disconnected': 6,
      'bpmnlint/no-implicit-end': 5,
      'bpmnlint/no-implicit-start': 5,
      'flowmark/executable-subset': 4,
    });
    expect(findings.find((f) => f.rule === 'bpmnlint/no-complex-gateway')).toEqual(
      warning('Tangle', 'bpmnlint/no-complex-gateway', 'Element type <bpmn:ComplexGateway> is discouraged'),
    );
  });

  it('answers no findings for JSON, and refuses a model that cannot become a process', async () => {
    const json = await call(server.url, 'PUT', `/api/v1/processes/${id}`, {
      token: server.acme.admin.token,
      body: { name: 'Route', steps: [{ id: 1, script: 'x' }] },
    });
    expect(json.status).toBe(200);
    expect(json.body).toMatchObject({ format: 'json', findings: [] });
    const refused = await call(
      server.url,
      'PUT',
      `/api/v1/processes/${id}`,
      xml(
        '<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="D" targetNamespace="urn:x"/>',
      ),
    );
    expect(refused.body).toEqual({
      status: 400,
      code: 'invalid',
      message: 'BPMN document: it has no bpmn:Process',
    });
    const kept = await call(server.url, 'GET', `/api/v1/processes/${id}`, { token: server.acme.admin.token });
    expect(kept.body).toMatchObject({ format: 'json', definition: { steps: [{ id: 1, script: 'x' }] } });
  });
});
