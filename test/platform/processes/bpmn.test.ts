/**
 * BPMN 2.0 documents in and out of definitions (docs/hosts.md, "BPMN"): the flowmark extension
 * elements, the script formats, elements outside the executable subset listed with their line,
 * and a JSON definition exported with its diagram and read back unchanged.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readBpmn, writeBpmn } from '../../../src/platform/processes/bpmn/index.js';
import { parseDefinition } from '../../../src/platform/processes/index.js';

const fixture = (name: string) =>
  readFileSync(new URL(`../../fixtures/bpmn/${name}`, import.meta.url), 'utf8');

const EVERY_FIELD = {
  name: 'Purchase',
  project: 2,
  steps: [
    {
      id: 1,
      name: 'Prepare',
      input: { total: '${a}' },
      script: '{"x": 1}',
      output: { ok: 'true' },
      retry: { attempts: 3, backoff: 'PT2S' },
    },
    {
      id: 2,
      type: 'manual',
      name: 'Approve',
      lane: 4,
      fields: ['decision'],
      widgets: ['w1', 'w2'],
      deadline: '2h',
      reminder: { after: '1h', message: 'still open' },
      on_timeout: 4,
    },
    { id: 3, type: 'subprocess', process: 'Booking', wait: false, loop: { count: '3' } },
    { id: 4, script: '<@script env="js">RMPData.setOutput(1)</@script>' },
    { id: 5, type: 'subprocess', process: { name: 'inline', steps: [{ id: 1 }] } },
    { id: 6, script: '<@script env="python">print(1)</@script>' },
  ],
};

describe('BPMN', () => {
  it('reads tasks, their extension elements and script formats into steps on a graph', async () => {
    const value = await readBpmn(fixture('approval.bpmn'));
    const definition = parseDefinition(value);
    expect(definition.steps).toEqual([
      {
        id: 1,
        name: 'Prepare',
        lane: null,
        input: [{ name: 'total', template: '${(amount * 2)?c}' }],
        output: [],
        loop: null,
        type: 'script',
        script: null,
      },
      {
        id: 2,
        name: 'Approve',
        lane: null,
        input: [],
        output: [{ name: 'approved', template: '${P_result.ok?c}' }],
        loop: null,
        type: 'manual',
        fields: ['ok'],
        widgets: [],
        deadline: null,
        reminder: null,
        onTimeout: null,
      },
      {
        id: 3,
        name: 'Shout',
        lane: null,
        input: [],
        output: [],
        loop: null,
        type: 'script',
        script: '<@script env="js">RMPData.setOutput("JS " + (21 * 2))</@script>',
      },
    ]);
    expect(definition.graph).toEqual({
      nodes: [
        { id: 'Start', kind: 'start' },
        { id: 'Prepare', kind: 'task', step: 1 },
        { id: 'Approve', kind: 'task', step: 2 },
        { id: 'Shout', kind: 'task', step: 3 },
        { id: 'End', kind: 'end' },
      ],
      flows: [
        { id: 'f1', source: 'Start', target: 'Prepare' },
        { id: 'f2', source: 'Prepare', target: 'Approve' },
        { id: 'f3', source: 'Approve', target: 'Shout' },
        { id: 'f4', source: 'Shout', target: 'End' },
      ],
    });
    expect(definition.unsupported).toBeUndefined();
    expect(definition.bpmn).toBe(fixture('approval.bpmn'));
  });

  it('lists the elements outside the executable subset with their type, id and line', async () => {
    const definition = parseDefinition(await readBpmn(fixture('unsupported.bpmn')));
    expect(definition.unsupported).toEqual([
      { type: 'bpmn:ScriptTask (scriptFormat "groovy")', id: 'Work', line: 6 },
      { type: 'bpmn:ComplexGateway', id: 'Tangle', line: 9 },
      {
        type: 'bpmn:MultiInstanceLoopCharacteristics (no loopCardinality nor flowmark:collection)',
        id: 'Plain',
        line: 10,
      },
      { type: 'bpmn:IntermediateCatchEvent (bpmn:TimerEventDefinition)', id: 'Wait', line: 13 },
    ]);
    expect(definition.name).toBe('Odd');
  });

  it('flags event definitions, loops and conditions it does not run', async () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="urn:x">
  <process id="P">
    <startEvent id="S"><timerEventDefinition id="T" /></startEvent>
    <scriptTask id="A"><standardLoopCharacteristics /></scriptTask>
    <userTask id="B" />
    <endEvent id="E"><signalEventDefinition id="Sig" /></endEvent>
    <endEvent id="E2" />
    <sequenceFlow id="c" sourceRef="B" targetRef="E2"><conditionExpression>\${true}</conditionExpression></sequenceFlow>
  </process>
</definitions>`;
    expect((await readBpmn(xml)).unsupported).toEqual([
      { type: 'bpmn:StartEvent (bpmn:TimerEventDefinition)', id: 'S', line: 4 },
      { type: 'bpmn:StandardLoopCharacteristics (no loopCondition)', id: 'A', line: 5 },
      { type: 'bpmn:EndEvent (bpmn:SignalEventDefinition)', id: 'E', line: 7 },
      {
        type: 'bpmn:SequenceFlow (a condition not leaving an exclusive or inclusive gateway)',
        id: 'c',
        line: 9,
      },
    ]);
  });

  it('refuses what is not a BPMN document', async () => {
    await expect(readBpmn('<definitions')).rejects.toThrow(/^BPMN document: /);
    await expect(
      readBpmn('<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d"/>'),
    ).rejects.toThrow('BPMN document: it has no bpmn:Process');
  });

  it('exports a JSON definition with its diagram, and reads it back unchanged', async () => {
    const definition = parseDefinition(EVERY_FIELD);
    const xml = await writeBpmn(definition);
    expect(xml).toContain('xmlns:flowmark="urn:flowmark:bpmn"');
    expect(xml).toContain(
      '<bpmn:scriptTask id="Step_1" name="Prepare" flowmark:step="1" scriptFormat="freemarker">',
    );
    expect(xml).toContain('<flowmark:retry attempts="3" backoff="PT2S" />');
    expect(xml).toContain('<bpmn:scriptTask id="Step_4" flowmark:step="4" scriptFormat="javascript">');
    expect(xml).toContain('<bpmn:script>print(1)</bpmn:script>');
    expect(xml).toContain(
      '<bpmn:userTask id="Step_2" name="Approve" flowmark:step="2" flowmark:deadline="2h" flowmark:onTimeout="4" flowmark:widgets="w1,w2">',
    );
    // Its lane (4, not among the account's lanes given: none) is a bpmn:lane of a pool.
    expect(xml).toContain('<bpmn:lane id="Lane_4" name="Lane 4" flowmark:lane="4">');
    expect(xml).toContain('<flowmark:reminder after="1h">still open</flowmark:reminder>');
    expect(xml).toContain(
      '<bpmn:callActivity id="Step_3" flowmark:step="3" calledElement="Booking" flowmark:wait="false">',
    );
    // One shape per node (start, 6 tasks, end), the pool and its lane; one edge per flow (7).
    expect(xml.match(/<bpmndi:BPMNShape /g)).toHaveLength(10);
    expect(xml.match(/<bpmndi:BPMNEdge /g)).toHaveLength(7);
    // Step 1 has no lane: below the lane, in the pool.
    expect(xml).toContain(
      '<bpmndi:BPMNShape id="Step_1_di" bpmnElement="Step_1">\n        <dc:Bounds x="330" y="210" width="100" height="80" />',
    );
    const back = parseDefinition(await readBpmn(xml));
    const { bpmn, graph, ...rest } = back;
    expect(bpmn).toBe(xml);
    expect(rest).toEqual(definition);
    expect(graph!.nodes.map((n) => n.id)).toEqual([
      'StartEvent_1',
      'Step_1',
      'Step_2',
      'Step_3',
      'Step_4',
      'Step_5',
      'Step_6',
      'EndEvent_1',
    ]);
    // A stored BPMN model exports as it came.
    expect(await writeBpmn(back)).toBe(xml);
  });

  it('exports gateways, conditions, default flows, error events and boundary events', async () => {
    const definition = parseDefinition({
      name: 'Routes',
      steps: [
        { id: 1, script: 'a' },
        { id: 2, script: 'b' },
      ],
      graph: {
        nodes: [
          { id: 's', kind: 'start' },
          { id: 'g', kind: 'exclusive', default: 'f3' },
          { id: 't1', kind: 'task', step: 1 },
          { id: 't2', kind: 'task', step: 2 },
          { id: 'b', kind: 'boundary-error', attachedTo: 't1', error: 'E42' },
          { id: 'p', kind: 'parallel' },
          { id: 'e', kind: 'end' },
          { id: 'x', kind: 'end', error: 'E42' },
          { id: 'z', kind: 'end', terminate: true },
        ],
        flows: [
          { id: 'f1', source: 's', target: 'g' },
          { id: 'f2', source: 'g', target: 't1', condition: '${(n > 1)?c}' },
          { id: 'f3', source: 'g', target: 't2' },
          { id: 'f4', source: 't1', target: 'p' },
          { id: 'f5', source: 'p', target: 'e' },
          { id: 'f6', source: 'p', target: 'z' },
          { id: 'f7', source: 'b', target: 'x' },
          { id: 'f8', source: 't2', target: 'e' },
        ],
      },
    });
    const xml = await writeBpmn(definition);
    expect(xml).toContain('<bpmn:error id="Error_1" name="E42" errorCode="E42" />');
    expect(xml).toContain('<bpmn:exclusiveGateway id="g" default="f3">');
    expect(xml).toContain(
      '<bpmn:boundaryEvent id="b" attachedToRef="t1">\n      <bpmn:outgoing>f7</bpmn:outgoing>\n      <bpmn:errorEventDefinition id="b_error" errorRef="Error_1" />',
    );
    expect(xml).toContain(
      '<bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">${(n &gt; 1)?c}</bpmn:conditionExpression>',
    );
    const { bpmn: _b, ...back } = parseDefinition(await readBpmn(xml));
    expect(back).toEqual(definition);
  });
});

describe('BPMN: timer boundary events and inclusive gateways', () => {
  it('exports and reads back both kinds of timer boundary event and an inclusive gateway with its default', async () => {
    const definition = parseDefinition({
      name: 'Timed routes',
      steps: [
        { id: 1, type: 'manual', name: 'Ask' },
        { id: 2, type: 'subprocess', process: 'Child' },
        { id: 3, script: 'late' },
      ],
      graph: {
        nodes: [
          { id: 's', kind: 'start' },
          { id: 'or', kind: 'inclusive', default: 'f3' },
          { id: 't1', kind: 'task', step: 1 },
          { id: 't2', kind: 'task', step: 2 },
          { id: 't3', kind: 'task', step: 3 },
          { id: 'late', kind: 'boundary-timer', attachedTo: 't1', wait: 'PT1H' },
          {
            id: 'nudge',
            kind: 'boundary-timer',
            attachedTo: 't2',
            wait: '2030-01-01T00:00:00Z',
            interrupting: false,
          },
          { id: 'join', kind: 'inclusive' },
          { id: 'e', kind: 'end' },
        ],
        flows: [
          { id: 'f1', source: 's', target: 'or' },
          { id: 'f2', source: 'or', target: 't1', condition: '${a?c}' },
          { id: 'f3', source: 'or', target: 't2' },
          { id: 'f4', source: 't1', target: 'join' },
          { id: 'f5', source: 't2', target: 'join' },
          { id: 'f6', source: 'join', target: 'e' },
          { id: 'f7', source: 'late', target: 't3' },
          { id: 'f8', source: 'nudge', target: 't3' },
          { id: 'f9', source: 't3', target: 'e' },
        ],
      },
    });
    const xml = await writeBpmn(definition);
    expect(xml).toContain('<bpmn:inclusiveGateway id="or" default="f3">');
    expect(xml).toContain(
      '<bpmn:boundaryEvent id="late" attachedToRef="t1">\n      <bpmn:outgoing>f7</bpmn:outgoing>\n      <bpmn:timerEventDefinition id="late_timer">\n        <bpmn:timeDuration xsi:type="bpmn:tFormalExpression">PT1H</bpmn:timeDuration>',
    );
    expect(xml).toContain('<bpmn:boundaryEvent id="nudge" cancelActivity="false" attachedToRef="t2">');
    expect(xml).toContain(
      '<bpmn:timeDate xsi:type="bpmn:tFormalExpression">2030-01-01T00:00:00Z</bpmn:timeDate>',
    );
    const { bpmn: _b, ...back } = parseDefinition(await readBpmn(xml));
    expect(back).toEqual(definition);
  });
});
