/**
 * What the process host keeps (docs/hosts.md): stored definitions, the run of each request, each
 * step's record, manual tasks. The host (src/hosts/processes) moves requests through them.
 */
import type { Queryable, Store } from '../../store/index.js';
import type { ArtefactVersions } from '../versions.js';
import { ProcessDefinitions } from './definitions.js';
import { NamedLeases } from './leases.js';
import { ProcessRuns } from './runs.js';
import { StepRecords } from './steps.js';
import { ManualTasks } from './tasks.js';
import { ProcessTimers } from './timers.js';
import { ProcessTriggers } from './triggers.js';

export class Processes {
  readonly definitions: ProcessDefinitions;
  readonly runs: ProcessRuns;
  readonly steps: StepRecords;
  readonly tasks: ManualTasks;
  readonly timers: ProcessTimers;
  readonly leases: NamedLeases;
  readonly triggers: ProcessTriggers;

  constructor(
    private readonly store: Store,
    clock: () => number,
    versions: ArtefactVersions,
  ) {
    this.triggers = new ProcessTriggers(store);
    this.definitions = new ProcessDefinitions(store, clock, this.triggers, versions);
    this.runs = new ProcessRuns(store, versions);
    this.steps = new StepRecords(store, clock);
    this.tasks = new ManualTasks(store, clock);
    this.timers = new ProcessTimers(store);
    this.leases = new NamedLeases(store);
  }

  /** Runs `fn` in one store transaction (what must commit together: a timer and its effect). */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.store.transaction(fn);
  }
}

export {
  DEFINITION_LIMITS,
  isTemplateText,
  isVariableName,
  parseDefinition,
  parseDuration,
  stepById,
  type LoopDefinition,
  type ManualStep,
  type ProcessDefinition,
  type RetryPolicy,
  type ScriptStep,
  type StepDefinition,
  type StepType,
  type SubprocessStep,
  type VariableDefinition,
} from './definition.js';
export {
  GraphIndex,
  graphIndexOf,
  graphOf,
  linearGraph,
  type FlowNode,
  type NodeKind,
  type ProcessGraph,
  type SequenceFlow,
  type UnsupportedElement,
} from './graph.js';
export { definitionMissing, type ProcessDefinitions, type StoredDefinition } from './definitions.js';
export { outsideSubset, synchronousRefusal, waitingNode } from './synchronous.js';
export {
  DEFAULT_LEASE_MS,
  Heartbeat,
  leaseHeartbeat,
  leaseMsFromEnv,
  PROCESS_OWNER,
  type Lease,
  type LeaseKeeper,
  type LeaseSettings,
} from './leases.js';
export { isForked, type ProcessRun, type RunCursor, type Token, type TokenState } from './runs.js';
export type { JoinArrival } from './tokens.js';
export type { ProcessTimer, TimerKind } from './timers.js';
export { triggerOf, type ProcessTrigger, type TriggerEvent } from './triggers.js';
export { matchesTrigger, type CollectionTrigger } from './collection-trigger.js';
export { describeTimer, MIN_CYCLE_MS, nextTick, type StartTimer } from './start-events.js';
export type { StepError, StepRecord, StepStatus } from './steps.js';
export { taskId, taskMissing, type ManualTask, type TaskRef, type TaskStatus } from './tasks.js';
export { isTaskToken, TASK_CONTEXTS, taskPath, taskToken, taskUrl, type TaskContext } from './urls.js';
