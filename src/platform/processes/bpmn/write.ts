/**
 * A definition as a BPMN 2.0 document (docs/hosts.md, "BPMN"): the document it was saved from, as
 * it came; else its graph (a JSON list of steps: the linear graph) with the flowmark extension
 * elements, laid out left to right with diagram interchange (BPMNDI) shapes and edges.
 */
import type { ModdleElement } from 'bpmn-moddle';
import type { ManualStep, ProcessDefinition, StepDefinition, SubprocessStep } from '../definition.js';
import { graphOf, GraphIndex, type FlowNode } from '../graph.js';
import { layout, type Box } from './layout.js';
import { moddle } from './read.js';
import type { AccountLane } from './lanes.js';

const SCRIPT = /^<@script env="(js|python)">([\s\S]*)<\/@script>$/;

/** `accountLanes` names the lanes the steps run in (a lane not among them: `Lane <id>`). */
export async function writeBpmn(
  definition: ProcessDefinition,
  accountLanes: readonly AccountLane[] = [],
): Promise<string> {
  if (definition.bpmn !== undefined) return definition.bpmn;
  const m = moddle();
  const graph = graphOf(definition);
  const index = new GraphIndex(graph);
  const steps = new Map(definition.steps.map((s) => [s.id, s]));
  const elements = new Map<string, ModdleElement>();
  const errors: ModdleElement[] = [];
  const errorOf = (code: string) => {
    let error = errors.find((e) => e.errorCode === code);
    if (!error) {
      error = m.create('bpmn:Error', { id: `Error_${errors.length + 1}`, name: code, errorCode: code });
      errors.push(error);
    }
    return error;
  };
  const messages: ModdleElement[] = [];
  const messageOf = (name: string) => {
    const message = m.create('bpmn:Message', { id: `Message_${messages.length + 1}`, name });
    messages.push(message);
    return message;
  };
  const flowElements: ModdleElement[] = [];
  for (const node of graph.nodes) {
    const element = nodeElement(m, node, steps, errorOf, messageOf);
    elements.set(node.id, element);
    flowElements.push(element);
  }
  for (const node of graph.nodes)
    if (node.kind === 'boundary-error' || node.kind === 'boundary-timer')
      elements.get(node.id)!.set('attachedToRef', elements.get(node.attachedTo));
  for (const flow of graph.flows) {
    const source = elements.get(flow.source)!;
    const target = elements.get(flow.target)!;
    const element = m.create('bpmn:SequenceFlow', {
      id: flow.id,
      ...(flow.name ? { name: flow.name } : {}),
      sourceRef: source,
      targetRef: target,
      ...(flow.condition !== undefined
        ? { conditionExpression: m.create('bpmn:FormalExpression', { body: flow.condition }) }
        : {}),
    });
    push(source, 'outgoing', element);
    push(target, 'incoming', element);
    elements.set(flow.id, element);
    flowElements.push(element);
  }
  for (const node of graph.nodes)
    if ((node.kind === 'exclusive' || node.kind === 'inclusive') && node.default !== undefined)
      elements.get(node.id)!.set('default', elements.get(node.default));
  const process = m.create('bpmn:Process', {
    id: 'Process_1',
    name: definition.name,
    isExecutable: true,
    flowElements,
    ...(definition.project !== null ? { project: definition.project } : {}),
  });
  const bands = laneBands(index, steps);
  const { boxes, bands: stripes } = layout(index, bands.bandOf);
  const planeElements: ModdleElement[] = [];
  let collaboration: ModdleElement | undefined;
  if (bands.lanes.length > 0) {
    const lanes = bands.lanes.map((laneId, band) =>
      m.create('bpmn:Lane', {
        id: `Lane_${laneId}`,
        name: accountLanes.find((l) => l.id === laneId)?.name ?? `Lane ${laneId}`,
        lane: laneId,
        flowNodeRef: graph.nodes
          .filter((n) => bands.bandOf.get(n.id) === band)
          .map((n) => elements.get(n.id)),
      }),
    );
    process.set('laneSets', [m.create('bpmn:LaneSet', { id: 'LaneSet_1', lanes })]);
    const participant = m.create('bpmn:Participant', {
      id: 'Participant_1',
      name: definition.name,
      processRef: process,
    });
    collaboration = m.create('bpmn:Collaboration', { id: 'Collaboration_1', participants: [participant] });
    const right = Math.max(...[...boxes.values()].map((b) => b.x + b.width)) + 40;
    const top = stripes[0]!.y;
    const bottom = stripes.at(-1)!.y + stripes.at(-1)!.height;
    const left = 100;
    planeElements.push(
      m.create('bpmndi:BPMNShape', {
        id: 'Participant_1_di',
        bpmnElement: participant,
        isHorizontal: true,
        bounds: m.create('dc:Bounds', { x: left, y: top, width: right - left, height: bottom - top }),
      }),
    );
    // The band of tasks without a lane (the last one, if any) is the pool's, outside every lane.
    lanes.forEach((lane, band) =>
      planeElements.push(
        m.create('bpmndi:BPMNShape', {
          id: `${lane.id}_di`,
          bpmnElement: lane,
          isHorizontal: true,
          bounds: m.create('dc:Bounds', {
            x: left + 30,
            y: stripes[band]!.y,
            width: right - left - 30,
            height: stripes[band]!.height,
          }),
        }),
      ),
    );
  }
  for (const node of graph.nodes) {
    const box = boxes.get(node.id)!;
    planeElements.push(
      m.create('bpmndi:BPMNShape', {
        id: `${node.id}_di`,
        bpmnElement: elements.get(node.id),
        bounds: m.create('dc:Bounds', { ...box }),
        ...(node.kind === 'exclusive' ? { isMarkerVisible: true } : {}),
      }),
    );
  }
  for (const flow of graph.flows)
    planeElements.push(
      m.create('bpmndi:BPMNEdge', {
        id: `${flow.id}_di`,
        bpmnElement: elements.get(flow.id),
        waypoint: waypoints(boxes.get(flow.source)!, boxes.get(flow.target)!).map((p) =>
          m.create('dc:Point', p),
        ),
      }),
    );
  const diagram = m.create('bpmndi:BPMNDiagram', {
    id: 'BPMNDiagram_1',
    plane: m.create('bpmndi:BPMNPlane', {
      id: 'BPMNPlane_1',
      bpmnElement: collaboration ?? process,
      planeElement: planeElements,
    }),
  });
  const root = m.create('bpmn:Definitions', {
    id: 'Definitions_1',
    targetNamespace: 'urn:flowmark:processes',
    exporter: 'flowmark',
    rootElements: [...errors, ...messages, ...(collaboration ? [collaboration] : []), process],
    diagrams: [diagram],
  });
  const { xml } = await m.toXML(root, { format: true });
  return `${xml}\n`;
}

/**
 * The lanes of a definition's diagram: one per lane its steps run in (in the order of their tasks),
 * then one without a lane for the steps that have none. A task is in its step's lane, a boundary
 * event with its task, another node with the nearest task before it (else after it).
 */
function laneBands(
  index: GraphIndex,
  steps: Map<number, StepDefinition>,
): { lanes: number[]; bandOf: Map<string, number> } {
  const laneOf = new Map<string, number | null>();
  for (const node of index.graph.nodes)
    if (node.kind === 'task') laneOf.set(node.id, steps.get(node.step)?.lane ?? null);
  const lanes = [...new Set([...laneOf.values()].filter((l): l is number => l !== null))];
  const bandOf = new Map<string, number>();
  if (lanes.length === 0) return { lanes, bandOf };
  const band = (lane: number | null) => (lane === null ? lanes.length : lanes.indexOf(lane));
  const incoming = new Map<string, string[]>();
  for (const flow of index.graph.flows)
    incoming.set(flow.target, [...(incoming.get(flow.target) ?? []), flow.source]);
  const nearest = (start: string, next: (id: string) => string[]): number | undefined => {
    const seen = new Set([start]);
    let frontier = [start];
    while (frontier.length > 0) {
      const found = frontier.find((id) => laneOf.has(id));
      if (found !== undefined) return band(laneOf.get(found)!);
      frontier = frontier.flatMap(next).filter((id) => !seen.has(id) && seen.add(id));
    }
    return undefined;
  };
  const before = (id: string) => incoming.get(id) ?? [];
  const after = (id: string) => (index.outgoing.get(id) ?? []).map((f) => f.target);
  for (const node of index.graph.nodes) {
    const at = node.kind === 'boundary-error' || node.kind === 'boundary-timer' ? node.attachedTo : node.id;
    bandOf.set(node.id, nearest(at, before) ?? nearest(at, after) ?? 0);
  }
  return { lanes, bandOf };
}

function push(element: ModdleElement, property: string, value: ModdleElement): void {
  const list = (element.get(property) as ModdleElement[] | undefined) ?? [];
  list.push(value);
  element.set(property, list);
}

function nodeElement(
  m: ReturnType<typeof moddle>,
  node: FlowNode,
  steps: Map<number, StepDefinition>,
  errorOf: (code: string) => ModdleElement,
  messageOf: (name: string) => ModdleElement,
): ModdleElement {
  const named = node.name ? { name: node.name } : {};
  switch (node.kind) {
    case 'start': {
      const definitions = node.timer
        ? [
            m.create('bpmn:TimerEventDefinition', {
              id: `${node.id}_timer`,
              [{ date: 'timeDate', duration: 'timeDuration', cycle: 'timeCycle' }[
                Object.keys(node.timer)[0]!
              ]!]: m.create('bpmn:FormalExpression', { body: Object.values(node.timer)[0] }),
              ...('timezone' in node.timer ? { timezone: node.timer.timezone } : {}),
            }),
          ]
        : node.message !== undefined
          ? [
              m.create('bpmn:MessageEventDefinition', {
                id: `${node.id}_message`,
                messageRef: messageOf(node.message),
              }),
            ]
          : [];
      return m.create('bpmn:StartEvent', {
        id: node.id,
        ...named,
        eventDefinitions: definitions,
        ...(node.collection
          ? {
              extensionElements: m.create('bpmn:ExtensionElements', {
                values: [
                  m.create('flowmark:CollectionTrigger', {
                    collection: node.collection.name,
                    value: JSON.stringify(node.collection.filter),
                  }),
                ],
              }),
            }
          : {}),
        ...(node.enabled === false ? { enabled: false } : {}),
      });
    }
    case 'end': {
      const definitions = node.terminate
        ? [m.create('bpmn:TerminateEventDefinition', { id: `${node.id}_terminate` })]
        : node.error !== undefined
          ? [m.create('bpmn:ErrorEventDefinition', { id: `${node.id}_error`, errorRef: errorOf(node.error) })]
          : [];
      return m.create('bpmn:EndEvent', { id: node.id, ...named, eventDefinitions: definitions });
    }
    case 'exclusive':
      return m.create('bpmn:ExclusiveGateway', { id: node.id, ...named });
    case 'parallel':
      return m.create('bpmn:ParallelGateway', { id: node.id, ...named });
    case 'inclusive':
      return m.create('bpmn:InclusiveGateway', { id: node.id, ...named });
    case 'boundary-timer':
      return m.create('bpmn:BoundaryEvent', {
        id: node.id,
        ...named,
        ...(node.interrupting === false ? { cancelActivity: false } : {}),
        eventDefinitions: [timerDefinition(m, node)],
      });
    case 'boundary-error':
      return m.create('bpmn:BoundaryEvent', {
        id: node.id,
        ...named,
        eventDefinitions: [
          m.create('bpmn:ErrorEventDefinition', {
            id: `${node.id}_error`,
            ...(node.error !== undefined ? { errorRef: errorOf(node.error) } : {}),
          }),
        ],
      });
    case 'task':
      return taskElement(m, node.id, steps.get(node.step)!);
    case 'timer':
      return m.create('bpmn:IntermediateCatchEvent', {
        id: node.id,
        ...named,
        eventDefinitions: [timerDefinition(m, node)],
      });
  }
}

function timerDefinition(m: ReturnType<typeof moddle>, node: { id: string; wait: string }): ModdleElement {
  const when = /^\d{4}-\d\d-\d\dT/.test(node.wait.trim()) ? 'timeDate' : 'timeDuration';
  return m.create('bpmn:TimerEventDefinition', {
    id: `${node.id}_timer`,
    [when]: m.create('bpmn:FormalExpression', { body: node.wait }),
  });
}

function taskElement(m: ReturnType<typeof moddle>, id: string, step: StepDefinition): ModdleElement {
  const values: ModdleElement[] = [];
  for (const v of step.input) values.push(m.create('flowmark:Input', { name: v.name, value: v.template }));
  for (const v of step.output) values.push(m.create('flowmark:Output', { name: v.name, value: v.template }));
  let marker: ModdleElement | undefined;
  if (step.loop && 'doWhile' in step.loop)
    marker = m.create('bpmn:StandardLoopCharacteristics', {
      loopCondition: m.create('bpmn:FormalExpression', { body: step.loop.doWhile }),
    });
  else if (step.loop) values.push(m.create('flowmark:Loop', { ...step.loop }));
  if (step.retry)
    values.push(m.create('flowmark:Retry', { attempts: step.retry.attempts, backoff: step.retry.backoff }));
  const common: Record<string, unknown> = {
    id,
    step: step.id,
    ...(step.name ? { name: step.name } : {}),
    ...(marker ? { loopCharacteristics: marker } : {}),
  };
  switch (step.type) {
    case 'script': {
      const script = step.script === null ? null : SCRIPT.exec(step.script);
      return m.create('bpmn:ScriptTask', {
        ...common,
        scriptFormat: script ? (script[1] === 'python' ? 'python' : 'javascript') : 'freemarker',
        ...(step.script !== null ? { script: script ? script[2] : step.script } : {}),
        ...extensions(m, values),
      });
    }
    case 'manual':
      return m.create('bpmn:UserTask', { ...common, ...manual(m, step, values), ...extensions(m, values) });
    case 'subprocess':
      return m.create('bpmn:CallActivity', { ...common, ...call(m, step, values), ...extensions(m, values) });
  }
}

function manual(
  m: ReturnType<typeof moddle>,
  step: ManualStep,
  values: ModdleElement[],
): Record<string, unknown> {
  for (const field of step.fields ?? []) values.push(m.create('flowmark:Field', { name: field }));
  if (step.reminder)
    values.push(m.create('flowmark:Reminder', { after: step.reminder.after, value: step.reminder.message }));
  return {
    ...(step.deadline !== null ? { deadline: step.deadline } : {}),
    ...(step.onTimeout !== null ? { onTimeout: step.onTimeout } : {}),
    ...(step.widgets.length > 0 ? { widgets: step.widgets.join(',') } : {}),
  };
}

function call(
  m: ReturnType<typeof moddle>,
  step: SubprocessStep,
  values: ModdleElement[],
): Record<string, unknown> {
  if (typeof step.process !== 'string')
    values.push(
      m.create('flowmark:Definition', {
        // An unnamed step's name is "" once normalised, which a definition may not say.
        value: JSON.stringify(step.process, (key, v: unknown) =>
          key === 'name' && v === '' ? undefined : v,
        ),
      }),
    );
  return {
    ...(typeof step.process === 'string' ? { calledElement: step.process } : {}),
    ...(step.wait ? {} : { wait: false }),
  };
}

function extensions(m: ReturnType<typeof moddle>, values: ModdleElement[]): Record<string, unknown> {
  return values.length === 0 ? {} : { extensionElements: m.create('bpmn:ExtensionElements', { values }) };
}

/** An edge from the right of one shape to the left of the next, with a bend when they are not level. */
function waypoints(from: Box, to: Box): Array<{ x: number; y: number }> {
  const start = { x: from.x + from.width, y: from.y + from.height / 2 };
  const end = { x: to.x, y: to.y + to.height / 2 };
  if (end.x <= start.x) {
    // A flow going back: under both shapes.
    const below = Math.max(from.y + from.height, to.y + to.height) + 30;
    const down = { x: from.x + from.width / 2, y: from.y + from.height };
    const up = { x: to.x + to.width / 2, y: to.y + to.height };
    return [down, { x: down.x, y: below }, { x: up.x, y: below }, up];
  }
  if (start.y === end.y) return [start, end];
  const middle = Math.round((start.x + end.x) / 2);
  return [start, { x: middle, y: start.y }, { x: middle, y: end.y }, end];
}
