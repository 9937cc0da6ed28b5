/**
 * A BPMN 2.0 document as a process definition (docs/hosts.md, "BPMN"): its first process's flow
 * nodes and sequence flows become the graph, its script tasks, user tasks and call activities the
 * steps. An element outside the executable subset is listed in `unsupported` (type, id, line) and
 * the document is kept as `bpmn`: the definition saves, exports as it came, and refuses to run.
 */
import { BpmnModdle, type ModdleElement } from 'bpmn-moddle';
import { PlatformError } from '../../errors.js';
import { timerProblem, type FlowNode, type SequenceFlow, type UnsupportedElement } from '../graph.js';
import type { StartTimer } from '../start-events.js';
import type { CollectionTrigger } from '../collection-trigger.js';
import { isPlainObject } from '../../model.js';
import { flowmarkDescriptor } from '../../../bpmn-extension/descriptor.js';
import { errorMessage } from '../../../errors/index.js';
import { isElement, list } from './elements.js';
import { lanesOfTasks, type AccountLane, type LaneOfTask } from './lanes.js';

/** A definition in its JSON form (what parseDefinition checks). */
export type DefinitionValue = Record<string, unknown>;

/** Elements that never run (artifacts, data, pools): kept without being part of the flow. */
const INERT = new Set([
  'bpmn:TextAnnotation',
  'bpmn:Association',
  'bpmn:Group',
  'bpmn:DataObject',
  'bpmn:DataObjectReference',
  'bpmn:DataStoreReference',
]);
const SCRIPT_FORMATS: Record<string, 'freemarker' | 'js' | 'python'> = {
  freemarker: 'freemarker',
  ftl: 'freemarker',
  javascript: 'js',
  js: 'js',
  python: 'python',
};
const STEP_ID = /^Step_(\d{1,9})$/;

export function moddle(): BpmnModdle {
  return new BpmnModdle({ flowmark: flowmarkDescriptor });
}

/** Whether a text is (meant as) an XML document rather than JSON. */
export function looksLikeXml(text: string): boolean {
  return text.trimStart().startsWith('<');
}

/**
 * `accountLanes`: the account's lanes, which the BPMN lanes name (none given: a task in a lane is
 * listed as outside the subset, as a lane no flowmark lane matches).
 */
export async function readBpmn(
  xml: string,
  accountLanes: readonly AccountLane[] = [],
): Promise<DefinitionValue> {
  let parsed;
  try {
    parsed = await moddle().fromXML(xml);
  } catch (e) {
    throw new PlatformError('invalid', `BPMN document: ${firstLine(errorMessage(e))}`);
  }
  const root = parsed.rootElement;
  if (root.$type !== 'bpmn:Definitions')
    throw new PlatformError(
      'invalid',
      `BPMN document: the root element is ${root.$type}, not bpmn:Definitions`,
    );
  const lines = lineFinder(xml);
  const unsupported: UnsupportedElement[] = [];
  const flag = (type: string, id: string | undefined) =>
    unsupported.push({ type, id: id ?? '', line: id === undefined ? null : lines(id) });
  // The text is already decoded: a declared encoding bpmn-moddle does not know changes nothing.
  for (const warning of parsed.warnings.filter(
    (w) => !w.message.startsWith('unsupported document encoding'),
  )) {
    const line = /line: (\d+)/.exec(warning.message);
    unsupported.push({
      type: `unparsable content: ${firstLine(warning.message)}`,
      id: warning.element?.id ?? '',
      line: line ? Number(line[1]) : null,
    });
  }
  const roots = list(root.rootElements);
  const processes = roots.filter((r) => r.$type === 'bpmn:Process');
  const process = processes.find((p) => list(p.flowElements).length > 0) ?? processes[0];
  if (!process) throw new PlatformError('invalid', 'BPMN document: it has no bpmn:Process');
  for (const other of processes)
    if (other !== process && list(other.flowElements).length > 0) flag(other.$type, other.id);
  for (const collaboration of roots.filter((r) => r.$type === 'bpmn:Collaboration'))
    for (const messageFlow of list(collaboration.messageFlows)) flag(messageFlow.$type, messageFlow.id);
  const lanes = lanesOfTasks(process, accountLanes);

  const stepIds = new Map<ModdleElement, number>();
  const elements = list(process.flowElements);
  const activities = elements.filter((e) =>
    ['bpmn:Task', 'bpmn:ScriptTask', 'bpmn:UserTask', 'bpmn:CallActivity'].includes(e.$type),
  );
  const taken = new Set<number>();
  for (const a of activities) {
    const explicit = typeof a.step === 'number' ? a.step : Number(STEP_ID.exec(a.id ?? '')?.[1] ?? NaN);
    if (Number.isSafeInteger(explicit) && explicit > 0 && !taken.has(explicit)) {
      stepIds.set(a, explicit);
      taken.add(explicit);
    }
  }
  let next = 1;
  for (const a of activities)
    if (!stepIds.has(a)) {
      while (taken.has(next)) next++;
      stepIds.set(a, next);
      taken.add(next);
    }

  const nodes: FlowNode[] = [];
  const steps: DefinitionValue[] = [];
  const flows: SequenceFlow[] = [];
  const inFlow = new Set<string>();
  for (const e of elements) {
    const id = e.id ?? '';
    const named = e.name ? { name: e.name } : {};
    const definitions = list(e.eventDefinitions);
    switch (e.$type) {
      case 'bpmn:StartEvent': {
        const watched = collectionTrigger(e);
        const trigger = watched && definitions.length === 0 ? watched : startTrigger(definitions);
        if (trigger === undefined) for (const d of definitions) flag(`${e.$type} (${d.$type})`, id);
        else if (nodes.some((n) => n.kind === 'start')) flag(`${e.$type} (a second start event)`, id);
        else
          nodes.push({
            id,
            kind: 'start',
            ...named,
            ...trigger,
            ...(e.enabled === false ? { enabled: false } : {}),
          });
        break;
      }
      case 'bpmn:EndEvent': {
        const [d, ...more] = definitions;
        if (!d) nodes.push({ id, kind: 'end', ...named });
        else if (more.length > 0) flag(`${e.$type} (several event definitions)`, id);
        else if (d.$type === 'bpmn:ErrorEventDefinition')
          nodes.push({ id, kind: 'end', ...named, error: errorCode(d) });
        else if (d.$type === 'bpmn:TerminateEventDefinition')
          nodes.push({ id, kind: 'end', ...named, terminate: true });
        else flag(`${e.$type} (${d.$type})`, id);
        break;
      }
      case 'bpmn:IntermediateCatchEvent': {
        const [d, ...more] = definitions;
        const wait = more.length === 0 ? timerWait(d, e, lines) : undefined;
        if (wait !== undefined) nodes.push({ id, kind: 'timer', ...named, wait });
        else flag(`${e.$type}${d ? ` (${d.$type})` : ''}`, id);
        break;
      }
      case 'bpmn:ExclusiveGateway':
        nodes.push({
          id,
          kind: 'exclusive',
          ...named,
          ...(isElement(e.default) ? { default: e.default.id! } : {}),
        });
        break;
      case 'bpmn:ParallelGateway':
        nodes.push({ id, kind: 'parallel', ...named });
        break;
      case 'bpmn:BoundaryEvent': {
        const [d, ...more] = definitions;
        const host = isElement(e.attachedToRef) ? e.attachedToRef : undefined;
        if (d?.$type === 'bpmn:ErrorEventDefinition' && more.length === 0 && host && stepIds.has(host)) {
          const code = errorCode(d);
          nodes.push({
            id,
            kind: 'boundary-error',
            ...named,
            attachedTo: host.id!,
            ...(d.errorRef ? { error: code } : {}),
          });
        } else if (
          d?.$type === 'bpmn:TimerEventDefinition' &&
          more.length === 0 &&
          host &&
          stepIds.has(host)
        ) {
          const wait = timerWait(d, e, lines);
          if (wait === undefined) flag(`${e.$type} (${d.$type})`, id);
          else if (!waits(host)) flag(`${e.$type} (${d.$type} on a ${host.$type}, which never waits)`, id);
          else
            nodes.push({
              id,
              kind: 'boundary-timer',
              ...named,
              attachedTo: host.id!,
              wait,
              ...(e.cancelActivity === false ? { interrupting: false as const } : {}),
            });
        } else flag(`${e.$type}${d ? ` (${d.$type})` : ''}`, id);
        break;
      }
      case 'bpmn:InclusiveGateway':
        nodes.push({
          id,
          kind: 'inclusive',
          ...named,
          ...(isElement(e.default) ? { default: e.default.id! } : {}),
        });
        break;
      case 'bpmn:Task':
      case 'bpmn:ScriptTask':
      case 'bpmn:UserTask':
      case 'bpmn:CallActivity': {
        const step = activityStep(e, stepIds.get(e)!, flag, lanes.get(e), lines);
        if (step) {
          steps.push(step);
          nodes.push({ id, kind: 'task', step: stepIds.get(e)! });
        }
        break;
      }
      case 'bpmn:SequenceFlow':
        break;
      default:
        if (!INERT.has(e.$type)) flag(e.$type, id);
    }
  }
  for (const n of nodes) inFlow.add(n.id);
  for (const e of elements.filter((x) => x.$type === 'bpmn:SequenceFlow')) {
    const source = isElement(e.sourceRef) ? e.sourceRef : undefined;
    const target = isElement(e.targetRef) ? e.targetRef : undefined;
    if (!source || !target || !inFlow.has(source.id!) || !inFlow.has(target.id!)) continue;
    const condition = isElement(e.conditionExpression) ? String(e.conditionExpression.body ?? '') : undefined;
    if (
      condition !== undefined &&
      source.$type !== 'bpmn:ExclusiveGateway' &&
      source.$type !== 'bpmn:InclusiveGateway'
    ) {
      flag(`${e.$type} (a condition not leaving an exclusive or inclusive gateway)`, e.id);
      continue;
    }
    flows.push({
      id: e.id!,
      ...(e.name ? { name: e.name } : {}),
      source: source.id!,
      target: target.id!,
      ...(condition !== undefined ? { condition: condition.trim() } : {}),
    });
  }
  const name = process.name ?? root.name ?? process.id ?? 'BPMN process';
  return {
    name,
    ...(typeof process.project === 'number' ? { project: process.project } : {}),
    steps,
    graph: { nodes, flows },
    ...(unsupported.length > 0 ? { unsupported } : {}),
    bpmn: xml,
  };
}

/** The step of a script task, user task or call activity; undefined (and flagged) when it cannot run. */
function activityStep(
  e: ModdleElement,
  id: number,
  flag: (type: string, id: string | undefined) => void,
  inLane: LaneOfTask | undefined,
  lines: (id: string) => number | null,
): DefinitionValue | undefined {
  const extensions = extensionsOf(e);
  const of = (type: string) => extensions.filter((x) => x.$type === type);
  const variables = (type: string) =>
    of(type).map((v) => ({ name: String(v.name ?? ''), template: String(v.value ?? '') }));
  const step: DefinitionValue = { id, ...(e.name ? { name: e.name } : {}) };
  // The task's own flowmark:lane wins over the BPMN lane it is drawn in.
  if (typeof e.lane === 'number') step.lane = e.lane;
  else if (inLane && 'lane' in inLane) step.lane = inLane.lane;
  else if (inLane) {
    const lane = inLane.laneElement;
    const line = lane.id === undefined ? null : lines(lane.id);
    flag(
      `${e.$type} (in bpmn:Lane ${JSON.stringify(lane.id ?? '')}${line === null ? '' : `, line ${line}`}: ${inLane.problem})`,
      e.id,
    );
  }
  const input = variables('flowmark:Input');
  const output = variables('flowmark:Output');
  if (input.length > 0) step.input = input;
  if (output.length > 0) step.output = output;
  const [loop] = of('flowmark:Loop');
  if (isElement(e.loopCharacteristics)) {
    const marker = markerLoop(e.loopCharacteristics, !!loop);
    if (typeof marker === 'string') {
      flag(marker, e.id);
      return undefined;
    }
    step.loop = marker;
  } else if (loop) {
    for (const key of ['count', 'over', 'while'])
      if (typeof loop[key] === 'string') {
        step.loop = {
          [key]: loop[key],
          ...(loop.parallel === true && key !== 'while' ? { parallel: true } : {}),
        };
        break;
      }
    step.loop ??= {};
  }
  const [retry] = of('flowmark:Retry');
  if (retry)
    step.retry = {
      attempts: retry.attempts,
      ...(retry.backoff !== undefined ? { backoff: retry.backoff } : {}),
    };
  switch (e.$type) {
    case 'bpmn:Task':
      // An abstract task does nothing but its variables: a script step without a script.
      step.type = 'script';
      return step;
    case 'bpmn:ScriptTask': {
      const format = SCRIPT_FORMATS[String(e.scriptFormat ?? 'freemarker').toLowerCase()];
      if (!format) {
        flag(`${e.$type} (scriptFormat ${JSON.stringify(e.scriptFormat)})`, e.id);
        return undefined;
      }
      const body = typeof e.script === 'string' ? e.script : undefined;
      step.type = 'script';
      if (body !== undefined)
        step.script = format === 'freemarker' ? body : `<@script env="${format}">${body}</@script>`;
      return step;
    }
    case 'bpmn:UserTask': {
      step.type = 'manual';
      const fields = of('flowmark:Field').map((f) => String(f.name ?? ''));
      if (fields.length > 0) step.fields = fields;
      if (typeof e.widgets === 'string' && e.widgets.trim() !== '')
        step.widgets = e.widgets.split(',').map((w) => w.trim());
      if (typeof e.deadline === 'string') step.deadline = e.deadline;
      if (typeof e.onTimeout === 'number') step.on_timeout = e.onTimeout;
      const [reminder] = of('flowmark:Reminder');
      if (reminder) step.reminder = { after: reminder.after, message: String(reminder.value ?? '') };
      return step;
    }
    default: {
      step.type = 'subprocess';
      const [inline] = of('flowmark:Definition');
      if (inline) {
        try {
          step.process = JSON.parse(String(inline.value ?? ''));
        } catch {
          throw new PlatformError(
            'invalid',
            `BPMN document: the flowmark:definition of ${e.$type} ${JSON.stringify(e.id)} is not JSON`,
          );
        }
      } else step.process = e.calledElement;
      if (typeof e.wait === 'boolean') step.wait = e.wait;
      return step;
    }
  }
}

/**
 * A timer event definition's wait (`timeDuration` or `timeDate`); undefined when it has none or a
 * cycle (outside the subset). A text that is no duration, date-time or template is refused here,
 * when the model is saved, naming the event and its line.
 */
function timerWait(
  d: ModdleElement | undefined,
  event: ModdleElement,
  lines: (id: string) => number | null,
): string | undefined {
  if (d?.$type !== 'bpmn:TimerEventDefinition' || d.timeCycle) return undefined;
  const when = d.timeDuration ?? d.timeDate;
  const wait = isElement(when) ? String(when.body ?? '').trim() : '';
  if (wait === '') return undefined;
  const problem = timerProblem(wait);
  if (problem) {
    const line = event.id === undefined ? null : lines(event.id);
    const type = event.$type.replace(/^bpmn:(.)/, (_, c: string) => c.toLowerCase());
    throw new PlatformError(
      'invalid',
      `BPMN document: ${type} ${JSON.stringify(event.id ?? '')}${line === null ? '' : ` (line ${line})`}: its timer ${problem}`,
    );
  }
  return wait;
}

/** Whether an activity waits (a user task, a call activity that waits for its child): a timer boundary event can fire. */
function waits(activity: ModdleElement): boolean {
  return (
    activity.$type === 'bpmn:UserTask' || (activity.$type === 'bpmn:CallActivity' && activity.wait !== false)
  );
}

/**
 * A loop marker as a step's loop: a multi-instance with `loopCardinality` (count) or
 * `flowmark:collection` (over), `parallel` unless `isSequential`; a standard loop with its
 * `loopCondition` (while when `testBefore`, else doWhile). A text: why it is outside the subset.
 */
function markerLoop(
  marker: ModdleElement,
  alsoFlowmarkLoop: boolean,
): Record<string, string | boolean> | string {
  const expression = (value: unknown) => (isElement(value) ? String(value.body ?? '').trim() : '');
  const why = (reason: string) => `${marker.$type} (${reason})`;
  if (alsoFlowmarkLoop) return why('and a flowmark:loop on the same task');
  if (marker.$type === 'bpmn:StandardLoopCharacteristics') {
    if (marker.loopMaximum !== undefined) return why('loopMaximum');
    const condition = expression(marker.loopCondition);
    if (condition === '') return why('no loopCondition');
    return marker.testBefore === true ? { while: condition } : { doWhile: condition };
  }
  if (marker.$type !== 'bpmn:MultiInstanceLoopCharacteristics') return marker.$type;
  for (const unsupported of [
    'completionCondition',
    'loopDataInputRef',
    'loopDataOutputRef',
    'inputDataItem',
    'outputDataItem',
  ])
    if (marker[unsupported] !== undefined) return why(unsupported);
  const count = expression(marker.loopCardinality);
  const over = typeof marker.collection === 'string' ? marker.collection.trim() : '';
  if (count !== '' && over !== '') return why('both loopCardinality and flowmark:collection');
  const parallel: Record<string, boolean> = marker.isSequential === true ? {} : { parallel: true };
  if (count !== '') return { count, ...parallel };
  if (over !== '') return { over, ...parallel };
  return why('no loopCardinality nor flowmark:collection');
}

/**
 * A start event's trigger: none, one timer (its one time: timeDate, timeDuration or timeCycle)
 * or one message (the referenced bpmn:message's name, else its id); undefined: outside the subset.
 */
function startTrigger(definitions: ModdleElement[]): { timer?: StartTimer; message?: string } | undefined {
  if (definitions.length === 0) return {};
  const [d, ...more] = definitions;
  if (more.length > 0) return undefined;
  if (d!.$type === 'bpmn:TimerEventDefinition') {
    const times = (['timeDate', 'timeDuration', 'timeCycle'] as const).filter((k) => isElement(d![k]));
    if (times.length !== 1) return undefined;
    const kind = times[0]!;
    const text = String((d![kind] as ModdleElement).body ?? '').trim();
    const key = ({ timeDate: 'date', timeDuration: 'duration', timeCycle: 'cycle' } as const)[kind];
    // flowmark:timezone is checked with the timer (parseStartTimer): a cron cycle's only.
    const zone = typeof d!.timezone === 'string' ? { timezone: d!.timezone } : {};
    return { timer: { [key]: text, ...zone } as StartTimer };
  }
  if (d!.$type === 'bpmn:MessageEventDefinition' && isElement(d!.messageRef)) {
    const ref = d!.messageRef;
    return { message: String(ref.name ?? ref.id ?? '') };
  }
  return undefined;
}

/**
 * A start event's `<flowmark:collectionTrigger collection="orders">{"status": "new"}</…>`: the
 * collection and its filter, a JSON object (empty: every document).
 */
function collectionTrigger(e: ModdleElement): { collection: CollectionTrigger } | undefined {
  const found = extensionsOf(e).find((x) => x.$type === 'flowmark:CollectionTrigger');
  if (!found) return undefined;
  const text = String(found.value ?? '').trim();
  let filter: unknown;
  try {
    filter = text === '' ? {} : JSON.parse(text);
  } catch {
    filter = undefined;
  }
  if (!isPlainObject(filter))
    throw new PlatformError(
      'invalid',
      `startEvent ${e.id ?? ''}: the filter of flowmark:collectionTrigger must be a JSON object ({"status": "new"}), not ${JSON.stringify(text.slice(0, 60))}`,
    );
  return { collection: { name: String(found.collection ?? ''), filter } };
}

/** The elements of an element's `extensionElements`. */
function extensionsOf(e: ModdleElement): ModdleElement[] {
  return list((e.extensionElements as ModdleElement | undefined)?.values);
}

function errorCode(definition: ModdleElement): string {
  const ref = isElement(definition.errorRef) ? definition.errorRef : undefined;
  return String(ref?.errorCode ?? ref?.id ?? '');
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}

/** The line of the element with an id (1-based), from the document's text. */
function lineFinder(xml: string): (id: string) => number | null {
  return (id) => {
    const escaped = id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const match = new RegExp(`\\sid\\s*=\\s*["']${escaped}["']`).exec(xml);
    if (!match) return null;
    let line = 1;
    for (let i = 0; i < match.index; i++) if (xml.charCodeAt(i) === 10) line++;
    return line;
  };
}
