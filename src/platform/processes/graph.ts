/**
 * The one internal shape of a process (docs/hosts.md, "The process graph"): flow nodes joined by
 * sequence flows. A JSON definition's list of steps is a linear graph (start → step 1 → … → end);
 * a BPMN model (bpmn.ts in src/hosts/processes) gives any graph of the executable subset. The
 * steps stay the definition's `steps`; a task node names its step by id.
 */
import { PlatformError } from '../errors.js';
import { isPlainObject } from '../model.js';
import { isTemplateText, parseDuration } from './durations.js';
import { parseStartMessage, parseStartTimer, type StartTimer } from './start-events.js';
import { parseCollectionTrigger, type CollectionTrigger } from './collection-trigger.js';
import { isOneOf } from '../../safety/narrow.js';

export type FlowNode =
  /**
   * `timer`, `message`: what starts a request by itself (start-events.ts, triggers.ts);
   * `enabled: false` keeps that trigger off (the process is started by hand only).
   */
  | {
      id: string;
      kind: 'start';
      name?: string;
      timer?: StartTimer;
      message?: string;
      /** Documents written to a collection start requests (collection-trigger.ts). */
      collection?: CollectionTrigger;
      enabled?: false;
    }
  /** `error`: an error end event's code; `terminate`: a terminate end event. */
  | { id: string; kind: 'end'; name?: string; error?: string; terminate?: boolean }
  | { id: string; kind: 'task'; name?: string; step: number }
  | { id: string; kind: 'exclusive'; name?: string; default?: string }
  | { id: string; kind: 'parallel'; name?: string }
  /** An intermediate timer catch event: the token waits `wait` (a duration, an ISO-8601 date-time, or a template printing one). */
  | { id: string; kind: 'timer'; name?: string; wait: string }
  /** An error boundary event on a task node: it catches the task's failure (of `error`'s code when given). */
  | { id: string; kind: 'boundary-error'; name?: string; attachedTo: string; error?: string }
  /**
   * A timer boundary event on a task node that waits (a user task, a call activity): due `wait`
   * after the task starts waiting. Interrupting (default) abandons the task; `interrupting: false`
   * sends a token out by its flows and the task goes on.
   */
  | {
      id: string;
      kind: 'boundary-timer';
      name?: string;
      attachedTo: string;
      wait: string;
      interrupting?: false;
    }
  /** Inclusive gateway: fork on every flow whose condition holds (else `default`); join what was started. */
  | { id: string; kind: 'inclusive'; name?: string; default?: string };

export type NodeKind = FlowNode['kind'];

export interface SequenceFlow {
  id: string;
  name?: string;
  source: string;
  target: string;
  /** A template whose output is `true` or `false` (an exclusive gateway's outgoing flow). */
  condition?: string;
}

export interface ProcessGraph {
  nodes: FlowNode[];
  flows: SequenceFlow[];
}

/** An element of a BPMN model outside the executable subset: kept, listed, refused when run. */
export interface UnsupportedElement {
  type: string;
  id: string;
  line: number | null;
}

export const GRAPH_LIMITS = { nodes: 5000, flows: 10000 };

const KINDS: readonly NodeKind[] = [
  'start',
  'end',
  'task',
  'exclusive',
  'parallel',
  'boundary-error',
  'timer',
  'boundary-timer',
  'inclusive',
];
const ID = /^[A-Za-z_][A-Za-z0-9_.-]{0,254}$/;

/** The linear graph of a list of steps: StartEvent_1 → Step_<id> … → EndEvent_1. */
export function linearGraph(stepIds: readonly number[]): ProcessGraph {
  const ids = ['StartEvent_1', ...stepIds.map((id) => `Step_${id}`), 'EndEvent_1'];
  const nodes: FlowNode[] = [
    { id: 'StartEvent_1', kind: 'start' },
    ...stepIds.map((step) => ({ id: `Step_${step}`, kind: 'task' as const, step })),
    { id: 'EndEvent_1', kind: 'end' },
  ];
  const flows = ids.slice(1).map((target, i) => ({ id: `Flow_${i + 1}`, source: ids[i]!, target }));
  return { nodes, flows };
}

/** A definition's graph: its own, or the linear graph of its steps. */
export function graphOf(definition: {
  steps: ReadonlyArray<{ id: number }>;
  graph?: ProcessGraph;
}): ProcessGraph {
  return definition.graph ?? linearGraph(definition.steps.map((s) => s.id));
}

const indexes = new WeakMap<object, GraphIndex>();

/** The index of a definition's graph, built once per definition object (definitions are not changed once read). */
export function graphIndexOf(definition: {
  steps: ReadonlyArray<{ id: number }>;
  graph?: ProcessGraph;
}): GraphIndex {
  let index = indexes.get(definition);
  if (!index) indexes.set(definition, (index = new GraphIndex(graphOf(definition))));
  return index;
}

/** Fast lookups over a graph (one per definition: `graphIndexOf`). */
export class GraphIndex {
  readonly nodes = new Map<string, FlowNode>();
  readonly flows = new Map<string, SequenceFlow>();
  readonly outgoing = new Map<string, SequenceFlow[]>();
  readonly incoming = new Map<string, SequenceFlow[]>();
  readonly taskOfStep = new Map<number, FlowNode & { kind: 'task' }>();
  readonly boundaries = new Map<string, Array<FlowNode & { kind: 'boundary-error' }>>();
  readonly timers = new Map<string, Array<FlowNode & { kind: 'boundary-timer' }>>();

  constructor(readonly graph: ProcessGraph) {
    for (const node of graph.nodes) {
      this.nodes.set(node.id, node);
      this.outgoing.set(node.id, []);
      this.incoming.set(node.id, []);
      if (node.kind === 'task') this.taskOfStep.set(node.step, node);
      if (node.kind === 'boundary-error')
        this.boundaries.set(node.attachedTo, [...(this.boundaries.get(node.attachedTo) ?? []), node]);
      if (node.kind === 'boundary-timer')
        this.timers.set(node.attachedTo, [...(this.timers.get(node.attachedTo) ?? []), node]);
    }
    for (const flow of graph.flows) {
      this.flows.set(flow.id, flow);
      this.outgoing.get(flow.source)?.push(flow);
      this.incoming.get(flow.target)?.push(flow);
    }
  }

  start(): FlowNode {
    return this.graph.nodes.find((n) => n.kind === 'start')!;
  }
}

function invalid(path: string, message: string): PlatformError {
  return new PlatformError('invalid', `${path}: ${message}`);
}

function text(value: unknown, path: string, max = 255): string {
  if (typeof value !== 'string' || value.length > max)
    throw invalid(path, `must be a text of at most ${max} characters`);
  return value;
}

function identifier(value: unknown, path: string): string {
  if (typeof value !== 'string' || !ID.test(value))
    throw invalid(
      path,
      `must be an element id (a letter or _, then letters, digits, _ . -), not ${JSON.stringify(value)}`,
    );
  return value;
}

function only(value: Record<string, unknown>, allowed: readonly string[], path: string): void {
  for (const key of Object.keys(value))
    if (!allowed.includes(key))
      throw invalid(path, `unknown field ${JSON.stringify(key)} (known: ${allowed.join(', ')})`);
}

/**
 * Checks a definition's `graph` against its steps: ids unique, every flow's ends exist, one start
 * event, each step on exactly one task node, a default flow leaving its gateway, a boundary event
 * on a task. `path` names the definition in errors.
 */
export function parseGraph(
  value: unknown,
  stepIds: readonly number[],
  path: string,
  /** false: the definition cannot run anyway (elements outside the subset), so it may lack its start event. */
  runnable = true,
  /** The steps that wait (user tasks, call activities that wait): only they may carry a timer boundary event. */
  waiting?: ReadonlySet<number>,
): ProcessGraph {
  if (!isPlainObject(value)) throw invalid(path, 'must be {"nodes": […], "flows": […]}');
  only(value, ['nodes', 'flows'], path);
  if (!Array.isArray(value.nodes) || value.nodes.length > GRAPH_LIMITS.nodes)
    throw invalid(`${path}.nodes`, `must be an array of at most ${GRAPH_LIMITS.nodes} flow nodes`);
  if (!Array.isArray(value.flows) || value.flows.length > GRAPH_LIMITS.flows)
    throw invalid(`${path}.flows`, `must be an array of at most ${GRAPH_LIMITS.flows} sequence flows`);
  const ids = new Set<string>();
  const unique = (id: string, at: string) => {
    if (ids.has(id)) throw invalid(at, `id ${JSON.stringify(id)} is used twice`);
    ids.add(id);
  };
  const nodes = value.nodes.map((v: unknown, i) => node(v, `${path}.nodes[${i}]`));
  nodes.forEach((n, i) => unique(n.id, `${path}.nodes[${i}].id`));
  const flows = value.flows.map((v: unknown, i) => flow(v, `${path}.flows[${i}]`));
  flows.forEach((f, i) => {
    unique(f.id, `${path}.flows[${i}].id`);
    for (const end of ['source', 'target'] as const)
      if (!nodes.some((n) => n.id === f[end]))
        throw invalid(
          `${path}.flows[${i}].${end}`,
          `${JSON.stringify(f[end])} is not a flow node of this graph`,
        );
  });
  const starts = nodes.filter((n) => n.kind === 'start');
  if (starts.length > 1 || (starts.length === 0 && runnable))
    throw invalid(`${path}.nodes`, `must have exactly one start event, not ${starts.length}`);
  const onNode = new Map<number, string>();
  nodes.forEach((n, i) => {
    const at = `${path}.nodes[${i}]`;
    if (n.kind === 'task') {
      if (!stepIds.includes(n.step))
        throw invalid(`${at}.step`, `step ${n.step} is not a step of this process`);
      if (onNode.has(n.step)) throw invalid(`${at}.step`, `step ${n.step} is on two task nodes`);
      onNode.set(n.step, n.id);
    }
    if (
      (n.kind === 'exclusive' || n.kind === 'inclusive') &&
      n.default !== undefined &&
      !flows.some((f) => f.id === n.default && f.source === n.id)
    )
      throw invalid(`${at}.default`, `${JSON.stringify(n.default)} is not a sequence flow leaving ${n.id}`);
    if (n.kind === 'boundary-error' && !nodes.some((t) => t.id === n.attachedTo && t.kind === 'task'))
      throw invalid(`${at}.attachedTo`, `${JSON.stringify(n.attachedTo)} is not a task node of this graph`);
    if (n.kind === 'boundary-timer') {
      const task = nodes.find((t) => t.id === n.attachedTo);
      if (task?.kind !== 'task')
        throw invalid(`${at}.attachedTo`, `${JSON.stringify(n.attachedTo)} is not a task node of this graph`);
      if (waiting && !waiting.has(task.step))
        throw invalid(
          `${at}.attachedTo`,
          `task ${task.id} runs step ${task.step}, which never waits (not a manual step nor a sub-process it waits for): a timer boundary event on it would never fire`,
        );
    }
  });
  const missing = stepIds.find((id) => !onNode.has(id));
  if (missing !== undefined) throw invalid(`${path}.nodes`, `step ${missing} is on no task node`);
  return { nodes, flows };
}

function node(value: unknown, path: string): FlowNode {
  if (!isPlainObject(value)) throw invalid(path, 'must be an object');
  const kind = value.kind;
  if (!isOneOf(KINDS, kind))
    throw invalid(`${path}.kind`, `must be one of ${KINDS.join(', ')}, not ${JSON.stringify(kind)}`);
  const base = {
    id: identifier(value.id, `${path}.id`),
    ...(value.name === undefined ? {} : { name: text(value.name, `${path}.name`) }),
  };
  switch (kind as NodeKind) {
    case 'start': {
      only(value, ['id', 'kind', 'name', 'timer', 'message', 'collection', 'enabled'], path);
      if ([value.timer, value.message, value.collection].filter((v) => v !== undefined).length > 1)
        throw invalid(path, 'a start event has one of a timer, a message or a collection, not several');
      if (value.enabled !== undefined && value.enabled !== false && value.enabled !== true)
        throw invalid(`${path}.enabled`, 'must be true or false');
      return {
        ...base,
        kind: 'start',
        ...(value.timer === undefined
          ? {}
          : { timer: parseStartTimer(value.timer, `${path}.timer`, base.id) }),
        ...(value.message === undefined
          ? {}
          : { message: parseStartMessage(value.message, `${path}.message`) }),
        ...(value.collection === undefined
          ? {}
          : { collection: parseCollectionTrigger(value.collection, `${path}.collection`) }),
        ...(value.enabled === false ? { enabled: false as const } : {}),
      };
    }
    case 'end':
      only(value, ['id', 'kind', 'name', 'error', 'terminate'], path);
      if (value.terminate !== undefined && typeof value.terminate !== 'boolean')
        throw invalid(`${path}.terminate`, 'must be true or false');
      return {
        ...base,
        kind: 'end',
        ...(value.error === undefined ? {} : { error: text(value.error, `${path}.error`) }),
        ...(value.terminate === true ? { terminate: true } : {}),
      };
    case 'task': {
      only(value, ['id', 'kind', 'name', 'step'], path);
      const step = value.step;
      if (typeof step !== 'number' || !Number.isSafeInteger(step) || step < 1)
        throw invalid(`${path}.step`, `must be a step id, not ${JSON.stringify(step)}`);
      return { ...base, kind: 'task', step };
    }
    case 'exclusive':
      only(value, ['id', 'kind', 'name', 'default'], path);
      return {
        ...base,
        kind: 'exclusive',
        ...(value.default === undefined ? {} : { default: identifier(value.default, `${path}.default`) }),
      };
    case 'parallel':
      only(value, ['id', 'kind', 'name'], path);
      return { ...base, kind: 'parallel' };
    case 'inclusive':
      only(value, ['id', 'kind', 'name', 'default'], path);
      return {
        ...base,
        kind: 'inclusive',
        ...(value.default === undefined ? {} : { default: identifier(value.default, `${path}.default`) }),
      };
    case 'boundary-timer':
      only(value, ['id', 'kind', 'name', 'attachedTo', 'wait', 'interrupting'], path);
      if (value.interrupting !== undefined && typeof value.interrupting !== 'boolean')
        throw invalid(`${path}.interrupting`, 'must be true or false');
      return {
        ...base,
        kind: 'boundary-timer',
        attachedTo: identifier(value.attachedTo, `${path}.attachedTo`),
        wait: timerWait(value.wait, `${path}.wait`),
        ...(value.interrupting === false ? { interrupting: false as const } : {}),
      };
    case 'timer':
      only(value, ['id', 'kind', 'name', 'wait'], path);
      if (typeof value.wait !== 'string' || value.wait.trim() === '')
        throw invalid(`${path}.wait`, 'must be a duration, a date-time or a template');
      return { ...base, kind: 'timer', wait: text(value.wait, `${path}.wait`, 64 * 1024) };
    case 'boundary-error':
      only(value, ['id', 'kind', 'name', 'attachedTo', 'error'], path);
      return {
        ...base,
        kind: 'boundary-error',
        attachedTo: identifier(value.attachedTo, `${path}.attachedTo`),
        ...(value.error === undefined ? {} : { error: text(value.error, `${path}.error`) }),
      };
  }
}

/** A timer's `wait`: a template (computed when the timer starts), else a duration or an ISO-8601 date-time. */
function timerWait(value: unknown, path: string): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw invalid(path, 'must be a duration, a date-time or a template');
  const wait = text(value, path, 64 * 1024);
  const problem = timerProblem(wait);
  if (problem) throw invalid(path, problem);
  return wait;
}

/** Why a timer's text cannot be a wait (undefined when it can): not a template, a duration nor a date-time. */
export function timerProblem(wait: string): string | undefined {
  if (isTemplateText(wait) || parseDuration(wait) !== undefined) return undefined;
  const t = wait.trim();
  if (/^\d{4}-\d\d-\d\dT/.test(t) && !Number.isNaN(Date.parse(t))) return undefined;
  return `${JSON.stringify(t.slice(0, 100))} is not a duration (90s, 15m, 2h, 1d, PT1H30M), an ISO-8601 date-time nor a template`;
}

function flow(value: unknown, path: string): SequenceFlow {
  if (!isPlainObject(value)) throw invalid(path, 'must be an object');
  only(value, ['id', 'name', 'source', 'target', 'condition'], path);
  return {
    id: identifier(value.id, `${path}.id`),
    ...(value.name === undefined ? {} : { name: text(value.name, `${path}.name`) }),
    source: identifier(value.source, `${path}.source`),
    target: identifier(value.target, `${path}.target`),
    ...(value.condition === undefined
      ? {}
      : { condition: text(value.condition, `${path}.condition`, 512 * 1024) }),
  };
}

/** Checks a definition's `unsupported` list (what a BPMN import found outside the subset). */
export function parseUnsupported(value: unknown, path: string): UnsupportedElement[] {
  if (!Array.isArray(value) || value.length > GRAPH_LIMITS.nodes)
    throw invalid(path, `must be an array of at most ${GRAPH_LIMITS.nodes} elements`);
  return value.map((v: unknown, i) => {
    const at = `${path}[${i}]`;
    if (!isPlainObject(v)) throw invalid(at, 'must be {"type", "id", "line"}');
    only(v, ['type', 'id', 'line'], at);
    const line = v.line;
    if (line !== null && (typeof line !== 'number' || !Number.isSafeInteger(line) || line < 1))
      throw invalid(`${at}.line`, 'must be a line number or null');
    return { type: text(v.type, `${at}.type`), id: text(v.id, `${at}.id`), line };
  });
}
