/**
 * The process definition format (docs/hosts.md): a name, an optional project, and an ordered list
 * of steps — script steps, manual tasks and sub-processes — each with input and output variables
 * (templates), an optional lane and an optional loop. `parseDefinition` checks a JSON value
 * against it and returns the normalised definition (variables as ordered lists, defaults filled),
 * or raises `PlatformError('invalid', 'process definition: steps[1].input.total: …')`.
 */
import { PlatformError } from '../errors.js';
import { isForbiddenKey, isPlainObject } from '../model.js';
import { isTemplateText, parseDuration } from './durations.js';
import { parseGraph, parseUnsupported, type ProcessGraph, type UnsupportedElement } from './graph.js';

export { isTemplateText, parseDuration } from './durations.js';

export const STEP_TYPES = ['script', 'manual', 'subprocess'] as const;
export type StepType = (typeof STEP_TYPES)[number];

/** One variable: its name in the data document and the template computing its value. */
export interface VariableDefinition {
  name: string;
  template: string;
}

/** How a step repeats: a number of times, once per element of an array, or while a condition holds. */
/** `doWhile`: the condition is computed after each iteration (before the next), so the first always runs. */
/** `parallel` (a multi-instance's, count or over only): its instances run side by side, each a token. */
export type LoopDefinition =
  | { count: string; parallel?: true }
  | { over: string; parallel?: true }
  | { while: string }
  | { doWhile: string };

interface StepBase {
  /** Positive integer, unique in the definition (get_next_url's stepId). */
  id: number;
  name: string;
  /** The lane the step runs in (ExecutionContext.laneId; for a manual task: who may submit it). */
  lane: number | null;
  input: VariableDefinition[];
  output: VariableDefinition[];
  loop: LoopDefinition | null;
  /** How often a failed step runs again, and how long it waits first (absent: never). */
  retry?: RetryPolicy;
}

/** `attempts`: how many times the step runs at most (the first run included); `backoff`: a duration. */
export interface RetryPolicy {
  attempts: number;
  backoff: string;
}

export interface ScriptStep extends StepBase {
  type: 'script';
  /** A template whose output (typed, docs/hosts.md) is the step's result, P_result; null: none. */
  script: string | null;
}

export interface ManualStep extends StepBase {
  type: 'manual';
  /** The fields a submission may carry; null: any field. */
  fields: string[] | null;
  /** Ids of the upload widgets of the task's form (attach_file). */
  widgets: string[];
  /** When the task's request ends with 401 OUTDATED if the task is still open: a duration or a template. */
  deadline: string | null;
  /** A message (template) written to the account's log at a time after the task opened, if still open. */
  reminder: { after: string; message: string } | null;
  /** The step the request goes on at when the deadline passes (instead of ending with 401). */
  onTimeout: number | null;
}

export interface SubprocessStep extends StepBase {
  type: 'subprocess';
  /** The child's definition, inline, or the name of a stored definition. */
  process: ProcessDefinition | string;
  /** true (default): the step ends when the child request ends; false: it ends once the child started. */
  wait: boolean;
}

export type StepDefinition = ScriptStep | ManualStep | SubprocessStep;

export interface ProcessDefinition {
  name: string;
  /** The project the requests belong to (P_version, vaults, i18n, get_project_metadata). */
  project: number | null;
  steps: StepDefinition[];
  /** The flow of the steps (graph.ts); absent: the steps run in order. */
  graph?: ProcessGraph;
  /** Elements of the BPMN model outside the executable subset: a request of it is refused. */
  unsupported?: UnsupportedElement[];
  /** The BPMN XML the definition was saved from (exported as it is). */
  bpmn?: string;
}

export const DEFINITION_LIMITS = {
  steps: 1000,
  variablesPerStep: 1000,
  templateChars: 512 * 1024,
  /** Inline sub-process definitions nested in one another. */
  nesting: 10,
  /** Iterations of one loop. */
  iterations: 1000,
  /** Attempts of a retry policy. */
  attempts: 100,
  /** Characters of a stored BPMN model. */
  bpmnChars: 4 * 1024 * 1024,
};

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** The most errors one answer names (one per step). */
const MAX_ERRORS = 20;
const WIDGET = /^[A-Za-z0-9_.:-]{1,128}$/;
const STEP_FIELDS: Record<StepType, readonly string[]> = {
  script: ['id', 'type', 'name', 'lane', 'input', 'output', 'loop', 'retry', 'script'],
  manual: [
    'id',
    'type',
    'name',
    'lane',
    'input',
    'output',
    'loop',
    'retry',
    'fields',
    'widgets',
    'deadline',
    'reminder',
    'on_timeout',
  ],
  subprocess: ['id', 'type', 'name', 'lane', 'input', 'output', 'loop', 'retry', 'process', 'wait'],
};

/** Whether a name may be a variable of the data document: an identifier, not P_ (reserved), not a prototype key. */
export function isVariableName(name: string): boolean {
  return NAME.test(name) && name.length <= 255 && !name.startsWith('P_') && !isForbiddenKey(name);
}

/** Checks and normalises a process definition (a parsed JSON value). */
export function parseDefinition(value: unknown): ProcessDefinition {
  return definitionAt(value, 'process definition', 0);
}

function invalid(path: string, message: string): PlatformError {
  return new PlatformError('invalid', `${path}: ${message}`);
}

function definitionAt(value: unknown, path: string, depth: number): ProcessDefinition {
  if (depth > DEFINITION_LIMITS.nesting)
    throw invalid(path, `sub-processes are nested more than ${DEFINITION_LIMITS.nesting} levels deep`);
  if (!isPlainObject(value)) throw invalid(path, 'must be an object');
  onlyFields(value, ['name', 'project', 'steps', 'graph', 'unsupported', 'bpmn'], path);
  // Each step is checked on its own, so one answer names the first error of every step (at most
  // MAX_ERRORS lines, one per error: `<path>: <message>`).
  const problems: string[] = [];
  const attempt = <T>(check: () => T): T | undefined => {
    try {
      return check();
    } catch (e) {
      if (!(e instanceof PlatformError) || e.code !== 'invalid') throw e;
      problems.push(...e.message.split('\n'));
      return undefined;
    }
  };
  const name = attempt(() => text(value.name, `${path}.name`));
  let project: number | null = null;
  if (value.project !== undefined && value.project !== null)
    project = attempt(() => positiveInteger(value.project, `${path}.project`)) ?? null;
  // A graph may have no task (start → end); a list of steps alone must have one.
  if (!Array.isArray(value.steps) || (value.steps.length === 0 && value.graph === undefined))
    problems.push(invalid(`${path}.steps`, 'must be a non-empty array of steps').message);
  else if (value.steps.length > DEFINITION_LIMITS.steps)
    problems.push(invalid(`${path}.steps`, `has more than ${DEFINITION_LIMITS.steps} steps`).message);
  const ids = new Set<number>();
  const steps: StepDefinition[] = [];
  if (Array.isArray(value.steps) && value.steps.length <= DEFINITION_LIMITS.steps)
    value.steps.forEach((s: unknown, i) => {
      const step = attempt(() => stepAt(s, `${path}.steps[${i}]`, depth));
      if (!step) return;
      if (ids.has(step.id))
        problems.push(invalid(`${path}.steps[${i}].id`, `step id ${step.id} is used twice`).message);
      ids.add(step.id);
      steps.push(step);
    });
  if (problems.length === 0)
    steps.forEach((step, i) => {
      if (step.type !== 'manual' || step.onTimeout === null) return;
      if (step.deadline === null)
        problems.push(invalid(`${path}.steps[${i}].on_timeout`, 'needs a deadline').message);
      else if (!ids.has(step.onTimeout))
        problems.push(
          invalid(`${path}.steps[${i}].on_timeout`, `step ${step.onTimeout} is not a step of this process`)
            .message,
        );
    });
  let graph: ProcessGraph | undefined;
  if (problems.length === 0 && value.graph !== undefined)
    graph = attempt(() =>
      parseGraph(
        value.graph,
        steps.map((s) => s.id),
        `${path}.graph`,
        !(Array.isArray(value.unsupported) && value.unsupported.length > 0),
        new Set(
          steps.filter((s) => s.type === 'manual' || (s.type === 'subprocess' && s.wait)).map((s) => s.id),
        ),
      ),
    );
  let unsupported: UnsupportedElement[] | undefined;
  if (value.unsupported !== undefined)
    unsupported = attempt(() => parseUnsupported(value.unsupported, `${path}.unsupported`));
  let bpmn: string | undefined;
  if (value.bpmn !== undefined)
    bpmn = attempt(() => {
      if (typeof value.bpmn !== 'string' || value.bpmn.length > DEFINITION_LIMITS.bpmnChars)
        throw invalid(
          `${path}.bpmn`,
          `must be a BPMN document of at most ${DEFINITION_LIMITS.bpmnChars} characters`,
        );
      return value.bpmn;
    });
  if (problems.length > 0) {
    const shown = problems.slice(0, MAX_ERRORS);
    if (problems.length > MAX_ERRORS) shown.push(`… and ${problems.length - MAX_ERRORS} more`);
    throw new PlatformError('invalid', shown.join('\n'));
  }
  return {
    name: name!,
    project,
    steps,
    ...(graph ? { graph } : {}),
    ...(unsupported && unsupported.length > 0 ? { unsupported } : {}),
    ...(bpmn !== undefined ? { bpmn } : {}),
  };
}

function stepAt(value: unknown, path: string, depth: number): StepDefinition {
  if (!isPlainObject(value)) throw invalid(path, 'must be an object');
  const type = value.type ?? 'script';
  if (type !== 'script' && type !== 'manual' && type !== 'subprocess')
    throw invalid(`${path}.type`, `must be script, manual or subprocess, not ${JSON.stringify(type)}`);
  onlyFields(value, STEP_FIELDS[type], path);
  const base: StepBase = {
    id: positiveInteger(value.id, `${path}.id`),
    name: value.name === undefined ? '' : text(value.name, `${path}.name`),
    lane:
      value.lane === undefined || value.lane === null ? null : positiveInteger(value.lane, `${path}.lane`),
    input: variables(value.input, `${path}.input`),
    output: variables(value.output, `${path}.output`),
    loop: value.loop === undefined || value.loop === null ? null : loop(value.loop, `${path}.loop`),
    ...(value.retry === undefined || value.retry === null
      ? {}
      : { retry: retry(value.retry, `${path}.retry`) }),
  };
  switch (type) {
    case 'script':
      return {
        ...base,
        type,
        script:
          value.script === undefined || value.script === null
            ? null
            : template(value.script, `${path}.script`),
      };
    case 'manual':
      return {
        ...base,
        type,
        fields:
          value.fields === undefined || value.fields === null
            ? null
            : fieldNames(value.fields, `${path}.fields`),
        widgets: value.widgets === undefined ? [] : widgetIds(value.widgets, `${path}.widgets`),
        deadline:
          value.deadline === undefined || value.deadline === null
            ? null
            : delay(value.deadline, `${path}.deadline`),
        reminder:
          value.reminder === undefined || value.reminder === null
            ? null
            : reminder(value.reminder, `${path}.reminder`),
        onTimeout:
          value.on_timeout === undefined || value.on_timeout === null
            ? null
            : positiveInteger(value.on_timeout, `${path}.on_timeout`),
      };
    case 'subprocess': {
      let process: ProcessDefinition | string;
      if (typeof value.process === 'string') process = text(value.process, `${path}.process`);
      else if (isPlainObject(value.process))
        process = definitionAt(value.process, `${path}.process`, depth + 1);
      else throw invalid(`${path}.process`, 'must be a process definition or the name of a stored one');
      if (value.wait !== undefined && typeof value.wait !== 'boolean')
        throw invalid(`${path}.wait`, 'must be true or false');
      return { ...base, type, process, wait: value.wait !== false };
    }
  }
}

/** Variables as an object ({"total": "${a + b}"}, in key order) or a list ([{"name", "template"}]). */
function variables(value: unknown, path: string): VariableDefinition[] {
  if (value === undefined || value === null) return [];
  let list: VariableDefinition[];
  if (Array.isArray(value)) {
    list = value.map((v, i) => {
      if (!isPlainObject(v)) throw invalid(`${path}[${i}]`, 'must be {"name": …, "template": …}');
      onlyFields(v, ['name', 'template'], `${path}[${i}]`);
      return {
        name: variableName(v.name, `${path}[${i}].name`),
        template: template(v.template, `${path}[${i}].template`),
      };
    });
  } else if (isPlainObject(value)) {
    list = Object.entries(value).map(([name, t]) => ({
      name: variableName(name, `${path}.${name}`),
      template: template(t, `${path}.${name}`),
    }));
  } else throw invalid(path, 'must be an object of name → template, or a list of {"name", "template"}');
  if (list.length > DEFINITION_LIMITS.variablesPerStep)
    throw invalid(path, `has more than ${DEFINITION_LIMITS.variablesPerStep} variables`);
  return list;
}

function delay(value: unknown, path: string): string {
  const t = template(value, path);
  if (!isTemplateText(t) && parseDuration(t) === undefined)
    throw invalid(
      path,
      `must be a duration (90s, 15m, 2h, 1d, PT1H30M) or a template, not ${JSON.stringify(t)}`,
    );
  return t;
}

function reminder(value: unknown, path: string): { after: string; message: string } {
  if (!isPlainObject(value)) throw invalid(path, 'must be {"after": …, "message": …}');
  onlyFields(value, ['after', 'message'], path);
  return { after: delay(value.after, `${path}.after`), message: template(value.message, `${path}.message`) };
}

function retry(value: unknown, path: string): RetryPolicy {
  if (!isPlainObject(value)) throw invalid(path, 'must be {"attempts": …, "backoff": …}');
  onlyFields(value, ['attempts', 'backoff'], path);
  const attempts = value.attempts;
  if (
    typeof attempts !== 'number' ||
    !Number.isSafeInteger(attempts) ||
    attempts < 1 ||
    attempts > DEFINITION_LIMITS.attempts
  )
    throw invalid(
      `${path}.attempts`,
      `must be a whole number from 1 to ${DEFINITION_LIMITS.attempts}, not ${JSON.stringify(attempts)}`,
    );
  const backoff = value.backoff === undefined ? '0s' : value.backoff;
  if (typeof backoff !== 'string' || parseDuration(backoff) === undefined)
    throw invalid(`${path}.backoff`, `must be a duration (90s, 15m, PT2S), not ${JSON.stringify(backoff)}`);
  return { attempts, backoff };
}

function loop(value: unknown, path: string): LoopDefinition {
  if (!isPlainObject(value))
    throw invalid(path, 'must be {"count": …}, {"over": …}, {"while": …} or {"doWhile": …}');
  const keys = Object.keys(value).filter((k) => k !== 'parallel');
  if (keys.length !== 1 || !['count', 'over', 'while', 'doWhile'].includes(keys[0]!))
    throw invalid(path, 'must have exactly one of count, over, while, doWhile');
  const key = keys[0] as 'count' | 'over' | 'while' | 'doWhile';
  const parallel = value.parallel;
  if (parallel !== undefined && parallel !== false && parallel !== true)
    throw invalid(`${path}.parallel`, 'must be true or false');
  if (parallel === true && key !== 'count' && key !== 'over')
    throw invalid(`${path}.parallel`, 'is for a loop over count or over only');
  const template_ = template(value[key], `${path}.${key}`);
  return (parallel === true ? { [key]: template_, parallel } : { [key]: template_ }) as LoopDefinition;
}

function variableName(value: unknown, path: string): string {
  if (typeof value !== 'string' || !isVariableName(value))
    throw invalid(
      path,
      `${JSON.stringify(value)} is not a variable name (letters, digits and _, not starting with a digit or P_)`,
    );
  return value;
}

function fieldNames(value: unknown, path: string): string[] {
  if (!Array.isArray(value)) throw invalid(path, 'must be an array of variable names');
  return [...new Set(value.map((v, i) => variableName(v, `${path}[${i}]`)))];
}

function widgetIds(value: unknown, path: string): string[] {
  if (!Array.isArray(value)) throw invalid(path, 'must be an array of upload widget ids');
  return value.map((v, i) => {
    if (typeof v !== 'string' || !WIDGET.test(v))
      throw invalid(`${path}[${i}]`, `invalid widget id ${JSON.stringify(v)}`);
    return v;
  });
}

function template(value: unknown, path: string): string {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value !== 'string') throw invalid(path, 'must be a template (a string)');
  if (value.length > DEFINITION_LIMITS.templateChars)
    throw invalid(path, `is longer than ${DEFINITION_LIMITS.templateChars} characters`);
  return value;
}

function text(value: unknown, path: string): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > 255)
    throw invalid(path, 'must be a text of 1 to 255 characters');
  return value;
}

function positiveInteger(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
    throw invalid(path, `must be a positive integer, not ${JSON.stringify(value)}`);
  return value;
}

function onlyFields(value: Record<string, unknown>, allowed: readonly string[], path: string): void {
  for (const key of Object.keys(value))
    if (!allowed.includes(key))
      throw invalid(path, `unknown field ${JSON.stringify(key)} (known: ${allowed.join(', ')})`);
}

/** The steps of a definition with the given id. */
export function stepById(definition: ProcessDefinition, id: number): StepDefinition | undefined {
  return definition.steps.find((s) => s.id === id);
}
