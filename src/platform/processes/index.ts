/**
 * What the process host keeps (docs/hosts.md): stored definitions, the run of each request, each
 * step's record, manual tasks. The host (src/hosts/processes) moves requests through them.
 */
import { sql, unprefixed, type Queryable, type Row, type Sql, type Store } from '../../store/index.js';
import type { ArtefactVersions } from '../versions.js';
import { ProcessDefinitions } from './definitions.js';
import { NamedLeases } from './leases.js';
import { ProcessRuns, type NewRunRow, type ProcessRun, type RunCursor } from './runs.js';
import { StepRecords, type RecordToBegin, type StepChanges, type StepRecord } from './steps.js';
import type { Lease } from './leases.js';
import {
  returnedRequest,
  finishStatements,
  requestColumnsPrefixed,
  type ProcessRequest,
} from '../requests.js';
import { ManualTasks } from './tasks.js';
import { ProcessTimers } from './timers.js';
import { ProcessTriggers } from './triggers.js';

/** What a step's end statement does after its move (Processes.endStep): a record begun, or the request finished. */
export type StepEndThen = { begin: RecordToBegin } | { finish: { status: number; lockOwner: string } };

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
    private readonly clock: () => number,
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

  /**
   * A script task's end in one statement where the engine allows (ProcessRuns.moveAfter): its
   * document written (`json`, when given), its record changed, its request read, and its run
   * moved to `cursor` unless the request's status is final or waiting; `moved` undefined when it
   * did not move; `then`: when it moved, the next step's record begun (running), or the request
   * finished with `status` and its locks released (the caller's run ends with it). Undefined where it cannot be one statement: the caller makes them one by one.
   */
  async endStep(
    run: ProcessRun,
    recordId: number,
    changes: StepChanges,
    document: { json?: string | undefined; data: Record<string, unknown> },
    cursor: RunCursor,
    lease: Lease,
    then?: StepEndThen,
  ): Promise<
    | {
        record: StepRecord;
        request: ProcessRequest;
        moved: ProcessRun | undefined;
        begun?: StepRecord;
        finished?: ProcessRequest;
      }
    | undefined
  > {
    const { accountId, requestId } = run;
    const ending = this.steps.ending(accountId, recordId, changes, requestId, document.json);
    const after: { name: string; statement: Sql; prefix?: string }[] = [];
    if (then && 'begin' in then)
      after.push({
        name: 'begun',
        statement: this.steps.beginning(accountId, { ...then.begin, requestId }),
        prefix: 'b',
      });
    else if (then) {
      const { status, lockOwner } = then.finish;
      const { finished, released } = finishStatements(accountId, requestId, status, this.clock(), lockOwner);
      after.push(
        { name: 'finished', statement: finished, prefix: 'f' },
        { name: 'released', statement: released },
      );
    }
    const done = await this.runs.moveAfter(ending, run, cursor, run.userId, lease, after);
    if (!done) return undefined;
    const { b: begun, f: finished } = done.returned;
    return {
      ...this.steps.ended(done.ended, document.data),
      moved: done.moved,
      ...(begun ? { begun: this.steps.begun(begun) } : {}),
      ...(finished ? { finished: returnedRequest(finished) } : {}),
    };
  }

  /** Whether createStarted can create in one statement on this engine. */
  get createsInOne(): boolean {
    return this.store.dialect.modifyingWith;
  }

  /**
   * A request, its run and its first task's record (running, when `begin` is given) created by one
   * statement, where the engine allows data-modifying statements in a WITH (Dialect.modifyingWith)
   * and the run's definition is a stored version: all or nothing without a transaction around
   * them. `request`: Requests.inserting's. Null when the request's id is taken; undefined where it
   * cannot be one statement (the caller creates them in a transaction).
   */
  async createStarted(
    accountId: string,
    request: { statement: Sql; id: string },
    run: Omit<NewRunRow, 'requestId'>,
    begin?: RecordToBegin,
  ): Promise<{ request: ProcessRequest; run: ProcessRun; begun?: StepRecord } | null | undefined> {
    if (!this.store.dialect.modifyingWith) return undefined;
    const requestId = request.id;
    const inserting = this.runs.inserting(accountId, { ...run, requestId }, 'created');
    if (!inserting) return undefined;
    // the run's entry is named `moved`, as the one StepRecords.beginning follows
    const row = await this.store.get<Row>(sql`
      WITH created AS (${request.statement} RETURNING ${requestColumnsPrefixed('q')}),
      moved AS (${inserting})${
        begin ? sql`, begun AS (${this.steps.beginning(accountId, { ...begin, requestId })})` : sql``
      }
      SELECT created.*, moved.*${begin ? sql`, begun.*` : sql``}
      FROM created JOIN moved ON true${begin ? sql` LEFT JOIN begun ON true` : sql``}`);
    const stored = row && (await this.runs.returned(row));
    if (!row || !stored) return null;
    return {
      request: returnedRequest(unprefixed(row, 'q')),
      run: stored,
      ...(begin && row.b_id !== null && row.b_id !== undefined
        ? { begun: this.steps.begun(unprefixed(row, 'b')) }
        : {}),
    };
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
export {
  FIRST_CURSOR,
  isForked,
  type ProcessRun,
  type RunCursor,
  type Token,
  type TokenState,
} from './runs.js';
export type { JoinArrival } from './tokens.js';
export type { ProcessTimer, TimerKind } from './timers.js';
export { triggerOf, type ProcessTrigger, type TriggerEvent } from './triggers.js';
export { matchesTrigger, type CollectionTrigger } from './collection-trigger.js';
export { describeTimer, MIN_CYCLE_MS, nextTick, type StartTimer } from './start-events.js';
export type { RecordToBegin, StepError, StepRecord, StepStatus } from './steps.js';
export { taskId, taskMissing, type ManualTask, type TaskRef, type TaskStatus } from './tasks.js';
export { isTaskToken, TASK_CONTEXTS, taskPath, taskToken, taskUrl, type TaskContext } from './urls.js';
