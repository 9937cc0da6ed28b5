/**
 * Moves process requests through their definitions (docs/hosts.md): runs each step's iterations
 * (script, manual task, sub-process), stores computed variables in the data document by the
 * typing rule, records each step's result, makes requests wait for their manual tasks and
 * sub-processes, applies P_set_request_status, and ends requests (completed, failed, cancelled)
 * releasing their locks and telling their parent.
 *
 * Every move of a request's cursor is a compare-and-set (ProcessRuns.move), and a manual task is
 * submitted once (ManualTasks.submit): two hosts never run the same step twice. While it drives
 * a request the runner holds the run's lease and renews it (leases.ts); `recover` resumes a run
 * whose lease another server lost, `fireTimer` fires a manual task's deadline or reminder.
 */
import {
  DEFAULT_LIMITS,
  type ExecutionContext,
  type ExecutionLimits,
  type Surface,
} from '../../functions/context.js';
import { contextFor, setFlowFrame } from '../../functions/request/index.js';
import {
  accountUrls,
  isFinalStatus,
  PlatformError,
  REQUEST_STATUSES,
  STATUS_ABORTED,
  STATUS_COMPLETED,
  STATUS_OUTDATED,
  STATUS_RUNNING,
  STATUS_WAITING,
  type LogEntry,
  type Platform,
  type ProcessRequest,
} from '../../platform/index.js';
import {
  DEFINITION_LIMITS,
  GraphIndex,
  graphIndexOf,
  leaseHeartbeat,
  parseDuration,
  isTemplateText,
  leaseMsFromEnv,
  PROCESS_OWNER,
  stepById,
  taskId,
  taskMissing,
  taskUrl,
  type ManualStep,
  type ProcessDefinition,
  type JoinArrival,
  type ProcessRun,
  type RunCursor,
  type ScriptStep,
  type StepDefinition,
  type StepRecord,
  type StepStatus,
  type SubprocessStep,
  type Lease,
  type ManualTask,
  type LeaseKeeper,
  type LeaseSettings,
  type ProcessTimer,
  type TaskRef,
  type VariableDefinition,
  type FlowNode,
  type SequenceFlow,
  type TokenState,
  type Token,
  type RecordToBegin,
  type StepEndThen,
  FIRST_CURSOR,
  isForked,
} from '../../platform/processes/index.js';
import { toJsonObject, toJsonValue } from '../../platform/model.js';
import { markRequestInput, requestStrings } from '../../template/index.js';
import { ContextReads, DirectoryReads } from '../../functions/request/reads.js';
import { renderIn } from '../render.js';
import { typedValue } from '../typing.js';
import { abortedEntry, failureMessage, loggedMessage, StepFailure, stepError } from './failure.js';
import { tracing } from '../../traces/hooks.js';
import { decideLoop, dueTime } from './loops.js';
import { stepLabel, type NewRun, type ProcessEvent, type RunnerOptions } from './runner-api.js';
import { checkDataSize, checkNewDocumentSize, checkSubmission } from './submission.js';
import { storeNewRun } from './creation.js';
import { releaseAllStatement } from '../../platform/locks.js';
import { armBoundaryTimers, fireBoundary } from './boundary-timers.js';
import { branchName, nodeLabel, tokenState, walk, type Arrival } from './walk.js';
import { joinComplete, joined } from './joins.js';

export { stepLabel, type NewRun, type ProcessEvent, type RunnerOptions } from './runner-api.js';

/** How one iteration of a step went: done (with the loop's bound to keep), no iteration left, or waiting. */
/** A run claimed for its next node, with what was read with it (ProcessRunner.claim). */
interface Claim {
  claimed: ProcessRun;
  request: ProcessRequest;
  previous: unknown;
  begun: StepRecord | undefined;
  /** A script task's evaluation context, read with the claim. */
  context: Promise<ExecutionContext> | undefined;
}

/**
 * What the caller of a claim read or wrote already in its transaction, as stored (not read again):
 * the run — ready, or `running` when the caller's own write claimed it — the request, and the
 * result of the last step done.
 */
interface Known {
  run: ProcessRun;
  request: ProcessRequest;
  previous: unknown;
  /** The task's record, begun by the statement that moved the run (ProcessRunner.endInOne). */
  begun?: StepRecord;
}

/** How a script task's end left its request: settled (ended or waiting), or the next claim and, at the end, the request completed. */
type ScriptStepEnding =
  | { updated: StepRecord; settled: Settled }
  | { updated: StepRecord; next: Claim | undefined; completed?: ProcessRequest };

/** A step's data document after its output variables; `json` its text when the step writes it, `changes` what the step set. */
interface StepOutputs {
  data: Record<string, unknown>;
  json?: string | undefined;
  changes: Record<string, unknown>;
}

/** A request's data document a step holds, and how many writes of its context's functions it includes. */
interface HeldDocument {
  data: Record<string, unknown>;
  writes: number;
}

/** What advance reads after a step, when the step's last write read it already (one transaction less). */
interface Settled {
  request: ProcessRequest;
  /** The step's result as stored. */
  last: unknown;
}

type Outcome =
  | { kind: 'next'; loop: RunCursor['loop']; settled?: Settled }
  | { kind: 'leave' }
  | { kind: 'waiting' }
  /** The step failed and the request went on elsewhere (a retry, an error boundary event): its cursor moved. */
  | { kind: 'moved' }
  /**
   * The step's end, its move and the next node's claim committed together (a walk that needs no
   * script): `next` is that claim, undefined when the request ended or another server took it.
   */
  | { kind: 'advanced'; next: Claim | undefined };

type Parameters = Record<string, unknown>;

/** How a step that waited ended (ProcessRunner.endWaiting). */
type WaitEnded = 'moved' | 'advance' | 'lost';

/** What follow answers when the walk moved the token itself (a join went on): claim it again. */
type Moved = 'moved';

/**
 * How long the steps of a request driven share what their contexts read (the account, users,
 * delegations, the project and its versions): a drive that waits (a retry's backoff) reads them
 * again.
 */
const READS_KEPT_MS = 1_000;
/** Accounts whose reads startReads keeps at once (beyond, the oldest kept is dropped). */
const ACCOUNTS_READ_KEPT = 1_000;

/** Times a step is resumed after its server or thread stopped under it, before its request fails. */
export const MAX_RECOVERIES = 3;

const conflict = (message: string) => new PlatformError('conflict', message);

/** Thrown by a walk's condition when the walk is tried without the document (plainWalk). */
const NEEDS_CONDITION = new Error('a gateway condition needs the data document');

/**
 * Where a walk from `from` arrives when it meets no conditional flow, timer or error end event:
 * before a task, or past the last step at the end; undefined for any other walk.
 */
async function plainWalkFrom(
  definition: ProcessDefinition,
  index: GraphIndex,
  from: FlowNode,
  state: TokenState,
  result: unknown,
  forked = false,
): Promise<RunCursor | undefined> {
  let arrival: Arrival;
  try {
    arrival = await walk(index, from, state, result, () => {
      throw NEEDS_CONDITION;
    });
  } catch {
    return undefined;
  }
  if (arrival.kind === 'end') {
    // a token of a forked request ends alone (ProcessRunner.tokenEnds)
    if (!arrival.terminate && (forked || arrival.state.tokens)) return undefined;
    return { step: definition.steps.length, iteration: 0, phase: 'ready' };
  }
  if (arrival.kind !== 'task') return undefined;
  const next = definition.steps.findIndex((s) => s.id === arrival.step);
  return { ...arrival.state, step: next, iteration: 0, phase: 'ready' };
}

/** A token a walk sent out, as the cursor of a token about to take its flow (for a join's reach). */
const waitingCursor = (token: Token): RunCursor => ({
  step: 0,
  iteration: 0,
  phase: 'ready',
  flow: token.flow,
});

/** A step's result as stored: JSON, and no bigger than a data document. */
function storedResult(step: StepDefinition, result: unknown, maxBytes: number): unknown {
  const value = toJsonValue(result, 'the step result');
  const bytes = Buffer.byteLength(JSON.stringify(value));
  if (bytes > maxBytes)
    throw new StepFailure(
      `${stepLabel(step)}: its result has ${bytes} bytes, over the data document's maximum of ${maxBytes}`,
    );
  return value;
}

export class ProcessRunner {
  readonly limits: ExecutionLimits;
  readonly lease: LeaseSettings;
  private readonly heartbeat: LeaseKeeper;

  constructor(
    readonly platform: Platform,
    readonly options: RunnerOptions = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.lease = {
      owner: options.lease?.owner ?? PROCESS_OWNER,
      ttlMs: options.lease?.ttlMs ?? leaseMsFromEnv(),
    };
    this.heartbeat = options.leases ?? leaseHeartbeat(platform.processes.runs, this.lease);
  }

  /** The requests this runner drives now (LeaseKeeper.driving). */
  driving(): string[] {
    return this.heartbeat.driving();
  }

  /** The lease this runner writes now. */
  leaseUntil(): Lease {
    return { owner: this.lease.owner, expires: Date.now() + this.lease.ttlMs };
  }

  /** The time timers are measured with (the runner's clock). */
  now(): number {
    return (this.options.clock ?? Date.now)();
  }

  /** Runs `fn` holding (renewing) the lease of a request. */
  private async holding<T>(requestId: string, fn: () => Promise<T>): Promise<T> {
    this.heartbeat.hold(requestId);
    this.share(requestId);
    try {
      const traced = tracing;
      return await (traced ? traced.process('request', { 'flowmark.request.id': requestId }, fn) : fn());
    } finally {
      this.heartbeat.release(requestId);
      this.unshare(requestId);
    }
  }

  /** The steps of the request share their contexts' reads until as many `unshare`. */
  private share(requestId: string, reads?: ContextReads): void {
    const driven = this.driven.get(requestId);
    if (driven) driven.holds++;
    else this.driven.set(requestId, { holds: 1, reads: reads ?? new ContextReads(), ...this.freshKept() });
  }

  private unshare(requestId: string): void {
    const driven = this.driven.get(requestId);
    if (driven && --driven.holds === 0) this.driven.delete(requestId);
  }

  /** The requests this runner drives, with the records their steps' contexts share (ContextReads). */
  private readonly driven = new Map<
    string,
    { holds: number; reads: ContextReads; since: number; changes: number }
  >();

  /**
   * What the contexts of a request driven now share: read again once they are READS_KEPT_MS old,
   * or at once when a user or delegation changed in this server process (Directory.changes).
   */
  private readsOf(requestId: string): ContextReads | undefined {
    const driven = this.driven.get(requestId);
    if (!driven) return undefined;
    if (this.stale(driven)) Object.assign(driven, this.freshKept(), { reads: new ContextReads() });
    return driven.reads;
  }

  /** Reads kept since `since` are read again once READS_KEPT_MS old, or at once when the directory changed here. */
  private stale(kept: { since: number; changes: number }): boolean {
    return Date.now() - kept.since > READS_KEPT_MS || kept.changes !== this.platform.directory.changes;
  }

  /** When reads kept from now were taken: the time and the directory's change count. */
  private freshKept(): { since: number; changes: number } {
    return { since: Date.now(), changes: this.platform.directory.changes };
  }

  /**
   * The reads a request of the account starts with: the account, its users and their delegations
   * shared with the account's other requests started here in the last READS_KEPT_MS, unless a user
   * or delegation changed in this server process since (Directory.changes); the rest its own. A
   * change made through another server process is seen once they expire (docs/hosts.md).
   */
  startReads(accountId: string): ContextReads {
    let kept = this.accountReads.get(accountId);
    if (!kept || this.stale(kept)) {
      this.accountReads.delete(accountId);
      // the oldest first: an account's entry is set anew each time it is read again
      if (this.accountReads.size >= ACCOUNTS_READ_KEPT)
        this.accountReads.delete(this.accountReads.keys().next().value!);
      kept = { reads: new DirectoryReads(), ...this.freshKept() };
      this.accountReads.set(accountId, kept);
    }
    return new ContextReads(kept.reads);
  }

  /** What the requests of an account started here share (startReads), by account. */
  private readonly accountReads = new Map<
    string,
    { reads: DirectoryReads; since: number; changes: number }
  >();

  private emit(event: ProcessEvent): void {
    this.options.observer?.(event);
  }

  // ---------------------------------------------------------------------------------------------
  // Requests

  /** Creates a request and its run (not driven yet); returns its id. */
  async create(accountId: string, input: NewRun): Promise<string> {
    return (await this.stored(accountId, input, async () => undefined)).request.id;
  }

  /**
   * Creates a request and runs it until it waits or ends, its first node claimed in the
   * transaction that creates it; `onCreated` hears its id before it runs.
   */
  async start(
    accountId: string,
    input: NewRun | (() => Promise<NewRun>),
    onCreated?: (requestId: string) => void,
    reads: ContextReads = new ContextReads(),
  ): Promise<{ requestId: string; ended: ProcessRequest | undefined }> {
    // A start event followed by a plain walk: the run is created standing before its first task.
    const place = async (definition: ProcessDefinition) => {
      const graph = definition.graph && new GraphIndex(definition.graph);
      const startNode = graph && [...graph.nodes.values()].find((n) => n.kind === 'start');
      const walked =
        graph && startNode ? await plainWalkFrom(definition, graph, startNode, {}, null) : undefined;
      // a fork at the start: its tokens are sent out by the run's first move (from the start event)
      const cursor = walked?.tokens ? undefined : (walked ?? (graph ? undefined : FIRST_CURSOR));
      // before a task: the run is created claimed (running), with nothing before it to read
      return cursor && { ...cursor, phase: 'running' as const };
    };
    // the first claim's context shares its reads with the steps that follow (`reads`: what the start read)
    const shared: string[] = [];
    try {
      const created = await this.stored(
        accountId,
        input,
        (request, run, begun) => {
          this.share(request.id, reads);
          shared.push(request.id);
          const known: Known = { run, request, previous: undefined, ...(begun ? { begun } : {}) };
          return this.claim(accountId, request.id, undefined, known);
        },
        place,
        firstRecord,
      );
      const requestId = created.request.id;
      onCreated?.(requestId);
      this.endings.set(requestId, undefined);
      try {
        await this.holding(requestId, () => this.steps(accountId, requestId, created.then));
        await this.settle(requestId);
        return { requestId, ended: this.endings.get(requestId) };
      } finally {
        this.endings.delete(requestId);
      }
    } finally {
      for (const id of shared) this.unshare(id);
    }
  }

  /** The requests `start` drives, each with its request as its end stored it, once it ended. */
  private readonly endings = new Map<string, ProcessRequest | undefined>();

  /**
   * A new request and its run stored (`then` in their transaction), and its `started` event;
   * `input` read in that transaction when it is a function; `place`: where the run stands.
   */
  private async stored<T>(
    accountId: string,
    input: NewRun | (() => Promise<NewRun>),
    then: (request: ProcessRequest, run: ProcessRun, begun?: StepRecord) => Promise<T>,
    place?: (definition: ProcessDefinition) => Promise<RunCursor | undefined>,
    first?: (run: NewRun, cursor: RunCursor) => RecordToBegin | undefined,
  ): Promise<{ request: ProcessRequest; then: T }> {
    const created = await storeNewRun(
      this.platform,
      accountId,
      input,
      async (run) => {
        const data = toJsonObject(run.data, 'the data document');
        checkNewDocumentSize(data, this.limits.dataDocumentBytes);
        const first = place && (await place(run.definition));
        return { data, ...(first ? { first } : {}) };
      },
      () => this.leaseUntil(),
      this.options.inject,
      then,
      first,
    );
    this.emit({
      type: 'started',
      requestId: created.request.id,
      parentId: created.input.parentId,
      name: created.input.definition.name,
    });
    return created;
  }

  /** Runs a request's steps (of its token `token`, else of its run's own) until it waits or ends. */
  drive(accountId: string, requestId: string, token?: string): Promise<void> {
    return this.holding(requestId, () => this.steps(accountId, requestId, undefined, token));
  }

  // ---------------------------------------------------------------------------------------------
  // Tokens: the branches a fork sends out run beside the token that forked

  /** Tokens moves sent out, by request, not driven yet (launched once their move committed). */
  private readonly sentOut = new Map<string, ProcessRun[]>();
  /** The tokens this runner drives, by request. */
  private readonly branches = new Map<string, Set<Promise<void>>>();

  /** Moves a token (ProcessRuns.move); the tokens the move sends out are driven after it commits. */
  private async move(
    run: ProcessRun,
    cursor: RunCursor,
    userId: number | null = run.userId,
    lease?: Lease,
  ): Promise<ProcessRun | undefined> {
    const moved = await this.platform.processes.runs.move(run, cursor, userId, lease);
    if (moved?.spawned) this.sendOut(moved.spawned);
    return moved;
  }

  /** Tokens sent out (rows written in the caller's transaction), to drive once it committed. */
  sendOut(tokens: readonly ProcessRun[]): void {
    for (const token of tokens) {
      const list = this.sentOut.get(token.requestId) ?? [];
      list.push(token);
      this.sentOut.set(token.requestId, list);
    }
  }

  /**
   * Drives the request's tokens sent out so far, each on its own (they run at the same time). One
   * that fails here keeps its lease until it expires: a sweeper resumes it then.
   */
  private launch(requestId: string): void {
    const tokens = this.sentOut.get(requestId);
    if (!tokens) return;
    this.sentOut.delete(requestId);
    const running = this.branches.get(requestId) ?? new Set<Promise<void>>();
    this.branches.set(requestId, running);
    for (const token of tokens) {
      const branch: Promise<void> = this.drive(token.accountId, requestId, token.token)
        .catch(() => undefined)
        .finally(() => {
          running.delete(branch);
          if (running.size === 0) this.branches.delete(requestId);
        });
      running.add(branch);
    }
  }

  /** Resolves when the request's tokens this runner drives have stopped (waiting or ended). */
  async settle(requestId: string): Promise<void> {
    for (let running = this.branches.get(requestId); running; running = this.branches.get(requestId))
      await Promise.allSettled([...running]);
  }

  /** The request's other live tokens (the run's own unless idle, and the token rows), with its tokens locked. */
  private async others(main: ProcessRun, self: ProcessRun): Promise<ProcessRun[]> {
    const rows = main.cursor.forked ? await this.platform.processes.runs.tokens.list(main) : [];
    const live = rows.filter((t) => t.token !== self.token);
    if (self.token !== undefined && main.cursor.phase !== 'idle' && main.cursor.phase !== 'ended')
      live.unshift(main);
    return live;
  }

  /**
   * A token arrived at a join (parallel: one per incoming flow; inclusive: per branch): its arrival
   * (unique) and its end commit together, the request's tokens locked; the arrival that completes
   * the join makes this token the join's continuation instead (ready at the join: 'moved').
   */
  private async arrive(run: ProcessRun, index: GraphIndex, arrival: Arrival & { kind: 'join' }) {
    const { accountId, requestId } = run;
    const { runs } = this.platform.processes;
    const key =
      arrival.node.kind === 'parallel' ? arrival.flow.id : (arrival.token.branch ?? branchName(arrival.flow));
    const pending = arrival.state.tokens ?? [];
    let completed: ProcessRequest | undefined;
    const moved = await this.platform.processes.transaction(async () => {
      const main = await runs.lockTokens(accountId, requestId);
      await runs.tokens.arrive(accountId, requestId, {
        node: arrival.node.id,
        arrival: key,
        ...(arrival.token.branch !== undefined ? { branch: arrival.token.branch } : {}),
        result: arrival.token.result ?? null,
      });
      const arrivals = await runs.tokens.arrivals(accountId, requestId);
      const others = [...(await this.others(main, run)).map((t) => t.cursor), ...pending.map(waitingCursor)];
      if (joinComplete(index, run.definition.steps, arrival.node, arrivals, others)) {
        await this.goOnFromJoin(run, arrivals, arrival.node.id, pending, 'arrived at a join');
        return true;
      }
      completed = await this.tokenGone(run, main, index, pending, others);
      return false;
    });
    if (completed) await this.ended(completed);
    return moved ? 'moved' : undefined;
  }

  /**
   * A completed join (its arrivals consumed) makes this token its continuation: ready at the join,
   * with the branches' results (`P_branch_*`) and the tokens its walk sent out. In the caller's
   * transaction, the request's tokens locked.
   */
  private async goOnFromJoin(
    run: ProcessRun,
    arrivals: readonly JoinArrival[],
    join: string,
    pending: readonly Token[],
    what: string,
  ): Promise<void> {
    await this.platform.processes.runs.tokens.consume(run.accountId, run.requestId, join);
    const { params, branch } = joined(arrivals, join);
    const cursor: RunCursor = {
      step: run.cursor.step,
      iteration: 0,
      phase: 'ready',
      at: join,
      params,
      ...(branch !== undefined ? { branch } : {}),
      ...(pending.length > 0 ? { tokens: [...pending] } : {}),
    };
    if (!(await this.move(run, cursor, run.userId, this.leaseUntil())))
      throw conflict(`The request moved while its token ${what}.`);
  }

  /**
   * A token of a forked request reached a none end event: it ends, the request's tokens locked.
   * An inclusive join no live token can reach any more goes on with it instead ('moved'); the
   * last token to end completes the request (or fails it when a join still waits).
   */
  private async tokenEnds(
    run: ProcessRun,
    index: GraphIndex,
    pending: readonly Token[],
  ): Promise<Moved | undefined> {
    const { accountId, requestId } = run;
    const { runs } = this.platform.processes;
    let completed: ProcessRequest | undefined;
    const moved = await this.platform.processes.transaction(async () => {
      const main = await runs.lockTokens(accountId, requestId);
      const arrivals = await runs.tokens.arrivals(accountId, requestId);
      const others = [...(await this.others(main, run)).map((t) => t.cursor), ...pending.map(waitingCursor)];
      for (const { node: id } of arrivals) {
        const node = index.nodes.get(id);
        if (node?.kind !== 'inclusive' || !joinComplete(index, run.definition.steps, node, arrivals, others))
          continue;
        await this.goOnFromJoin(run, arrivals, id, pending, 'ended');
        return true;
      }
      completed = await this.tokenGone(run, main, index, pending, others);
      return false;
    });
    if (completed) await this.ended(completed);
    return moved ? 'moved' : undefined;
  }

  /**
   * Ends a token in the caller's transaction (the request's tokens locked): a token row goes, the
   * run's own row becomes idle; the tokens a walk sent out are written. When no token is left the
   * request ends (its end to announce is returned): completed, or failed when a join still waits.
   * When the tokens left all wait, the request waits (102).
   */
  private async tokenGone(
    run: ProcessRun,
    main: ProcessRun,
    index: GraphIndex,
    pending: readonly Token[],
    others: readonly RunCursor[],
  ): Promise<ProcessRequest | undefined> {
    const { accountId, requestId } = run;
    const { runs } = this.platform.processes;
    if (pending.length > 0) this.sendOut(await runs.tokens.spawn(run, pending, this.leaseUntil()));
    const gone = run.token
      ? await runs.tokens.drop(run)
      : (await this.move(run, { step: run.cursor.step, iteration: 0, phase: 'idle', forked: true })) !==
        undefined;
    if (!gone) throw conflict('The request moved while its token ended.');
    if (others.length > 0) {
      if (!others.some((c) => c.phase === 'ready' || c.phase === 'running'))
        await this.platform.requests.transition(accountId, requestId, [STATUS_RUNNING], STATUS_WAITING);
      return undefined;
    }
    const [waiting] = await runs.tokens.arrivals(accountId, requestId);
    if (!waiting) return this.endWithin(main, STATUS_COMPLETED);
    await this.platform.requests.update(accountId, requestId, {
      status: STATUS_ABORTED,
      message: `${nodeLabel(index.nodes.get(waiting.node)!)}: the request's other branches ended without reaching it`,
    });
    return this.endWithin(main, STATUS_ABORTED);
  }

  /**
   * A token goes waiting (a task, a sub-process, a timer): the request waits (102) unless another
   * of its tokens is ready or running — decided with the request's tokens locked.
   */
  private async park(run: ProcessRun, cursor: RunCursor): Promise<ProcessRun | undefined> {
    const { accountId, requestId } = run;
    if (!isForked(run) && !cursor.tokens) {
      await this.platform.requests.transition(accountId, requestId, [STATUS_RUNNING], STATUS_WAITING);
      return this.move(run, cursor);
    }
    return this.platform.processes.transaction(async () => {
      const main = await this.platform.processes.runs.lockTokens(accountId, requestId);
      const others = await this.others(main, run);
      if (!cursor.tokens && !others.some((t) => t.cursor.phase === 'ready' || t.cursor.phase === 'running'))
        await this.platform.requests.transition(accountId, requestId, [STATUS_RUNNING], STATUS_WAITING);
      return this.move(run, cursor);
    });
  }

  /** `first`: the first node's claim, when the caller's transaction took it; `token`: a token row's id. */
  private async steps(accountId: string, requestId: string, first?: Claim, token?: string): Promise<void> {
    try {
      await this.tokenSteps(accountId, requestId, first, token);
    } finally {
      this.launch(requestId);
    }
  }

  private async tokenSteps(
    accountId: string,
    requestId: string,
    first?: Claim,
    token?: string,
  ): Promise<void> {
    /** The next node's claim, when the move that ended the last one took it already. */
    let next: Claim | undefined = first;
    for (;;) {
      this.launch(requestId);
      const taken =
        next ?? (await this.platform.processes.transaction(() => this.claim(accountId, requestId, token)));
      next = undefined;
      if (!taken) return;
      const { claimed, request, previous, begun, context } = taken;
      if (isFinalStatus(request.status)) return this.end(claimed, request.status);
      if (claimed.cursor.at !== undefined || claimed.cursor.flow !== undefined) {
        // A graph's start event, a join that went on, or a token a fork sent out: it moves to its next task.
        const index = graphIndexOf(claimed.definition);
        const { at, flow, branch, carry, params } = claimed.cursor;
        const from: FlowNode | Token =
          flow !== undefined
            ? {
                flow,
                ...(branch !== undefined ? { branch } : {}),
                ...(carry !== undefined ? { result: carry } : {}),
              }
            : index.nodes.get(at!)!;
        const state = tokenState(claimed.cursor);
        // after a join P_branch_<name>; after a parallel multi-instance, its results (P_result)
        if (params && 'kind' in from && ['parallel', 'inclusive', 'task'].includes(from.kind))
          state.params = params;
        const cursor = await this.follow(claimed, request, from, state, undefined, null);
        if (cursor === 'moved') continue;
        if (!cursor) return;
        const moved = await this.platform.processes.transaction(async () => {
          if (!(await this.move(claimed, cursor, claimed.userId, this.leaseUntil()))) return false;
          next = await this.claim(accountId, requestId, token);
          return true;
        });
        if (!moved) return;
        continue;
      }
      const step = claimed.definition.steps[claimed.cursor.step];
      if (!step) return this.end(claimed, STATUS_COMPLETED);
      if (step.loop && 'parallel' in step.loop && claimed.cursor.instance === undefined) {
        const fanned = await this.fanOut(claimed, request, step, previous);
        if (fanned === 'stop') return;
        if (fanned === 'leave') {
          const advanced = await this.advance(claimed, step, { kind: 'leave' }, true);
          if (!advanced) return;
          if (advanced !== true) next = advanced;
        }
        continue;
      }
      const iterate = () => this.iterate(claimed, request, step, previous, begun, context);
      const traced = tracing;
      const outcome = await (traced
        ? traced.process('step', { 'flowmark.step.id': step.id, 'flowmark.step.type': step.type }, iterate)
        : iterate());
      if (outcome === undefined || outcome.kind === 'waiting') return;
      if (outcome.kind === 'moved') continue;
      if (outcome.kind === 'advanced') {
        if (!outcome.next) return;
        next = outcome.next;
        continue;
      }
      const advanced = await this.advance(claimed, step, outcome, true);
      if (!advanced) return;
      if (advanced !== true) next = advanced;
    }
  }

  /**
   * A parallel multi-instance step starts (docs/hosts.md, "Multi-instance"): its count or items
   * fixed, each instance is a token of its own standing at the step's iteration — this token the
   * first, rows for the others, in one transaction — and they run side by side ('moved': claim
   * again). No instance: the step is skipped ('leave'). The instances meet when they end
   * (instanceEnds).
   */
  private async fanOut(
    run: ProcessRun,
    request: ProcessRequest,
    step: StepDefinition,
    previous: unknown,
  ): Promise<'moved' | 'leave' | 'stop'> {
    let loop: RunCursor['loop'];
    try {
      const decision = await this.loopDecision(
        run,
        request,
        step,
        await this.parameters(run, step, previous),
      );
      if (!decision.go) {
        this.emitStep(run, step, await this.begin(run, step, 'skipped'));
        return 'leave';
      }
      loop = decision.loop;
    } catch (e) {
      return (await this.fail(run, step, undefined, e)) ? 'moved' : 'stop';
    }
    const count = loop?.count ?? loop?.items?.length ?? 0;
    const first: RunCursor = {
      ...(run.cursor.branch !== undefined ? { branch: run.cursor.branch } : {}),
      ...(run.cursor.params ? { params: run.cursor.params } : {}),
      step: run.cursor.step,
      iteration: 0,
      phase: 'ready',
      loop,
      instance: true,
    };
    const moved = await this.platform.processes.transaction(async () => {
      const lease = this.leaseUntil();
      const mine = await this.move(run, run.token ? first : { ...first, forked: true }, run.userId, lease);
      if (!mine) return false;
      const others = Array.from({ length: count - 1 }, (_, i) => ({ ...first, iteration: i + 1 }));
      if (others.length > 0)
        this.sendOut(await this.platform.processes.runs.tokens.spawnAt(mine, others, lease));
      return true;
    });
    return moved ? 'moved' : 'stop';
  }

  /**
   * An instance of a parallel multi-instance step ended: its arrival (keyed by the task node and
   * its iteration) and its end commit together, the request's tokens locked; the last to arrive
   * goes on from the task with the instances' results in item order as the next task's P_result.
   */
  private async instanceEnds(run: ProcessRun, step: StepDefinition, result: unknown): Promise<boolean> {
    const { accountId, requestId } = run;
    const { runs } = this.platform.processes;
    const index = graphIndexOf(run.definition);
    const task = index.taskOfStep.get(step.id)!;
    const count = run.cursor.loop?.count ?? run.cursor.loop?.items?.length ?? 0;
    let completed: ProcessRequest | undefined;
    const moved = await this.platform.processes.transaction(async () => {
      const main = await runs.lockTokens(accountId, requestId);
      await runs.tokens.arrive(accountId, requestId, {
        node: task.id,
        arrival: String(run.cursor.iteration),
        result: result ?? null,
      });
      const here = (await runs.tokens.arrivals(accountId, requestId)).filter((a) => a.node === task.id);
      if (here.length >= count) {
        await runs.tokens.consume(accountId, requestId, task.id);
        const results = here.sort((a, b) => Number(a.arrival) - Number(b.arrival)).map((a) => a.result);
        const cursor: RunCursor = {
          ...(run.cursor.branch !== undefined ? { branch: run.cursor.branch } : {}),
          step: run.cursor.step,
          iteration: 0,
          phase: 'ready',
          at: task.id,
          params: { P_result: results },
        };
        if (!(await this.move(run, cursor, run.userId, this.leaseUntil())))
          throw conflict('The request moved while its instance ended.');
        return true;
      }
      const others = (await this.others(main, run)).map((t) => t.cursor);
      completed = await this.tokenGone(run, main, index, [], others);
      return false;
    });
    if (completed) await this.ended(completed);
    return moved;
  }

  /**
   * Claims a run whose cursor is ready for its next node, with the reads that go with it, in the
   * caller's transaction: the request, the last result, and — for a task that runs no script
   * before it starts (no loop to decide) — its step record begun and, for a script task, its
   * evaluation context read. A context that fails is cached failed: the task fails with its error.
   */
  private async claim(
    accountId: string,
    requestId: string,
    token?: string,
    known?: Known,
  ): Promise<Claim | undefined> {
    let claimed: ProcessRun | undefined = known?.run;
    if (claimed?.cursor.phase !== 'running') {
      const run =
        claimed ??
        (token === undefined
          ? await this.platform.processes.runs.require(accountId, requestId)
          : await this.platform.processes.runs.token(accountId, requestId, token));
      if (run?.cursor.phase !== 'ready') return undefined;
      claimed = await this.move(run, { ...run.cursor, phase: 'running' }, run.userId, this.leaseUntil());
    }
    if (!claimed) return undefined;
    const request = known?.request ?? (await this.platform.requests.require(accountId, requestId));
    const previous = known
      ? known.previous
      : (await this.platform.processes.steps.lastDone(accountId, requestId))?.result;
    const task = taskAt(claimed.definition, claimed.cursor);
    let begun: StepRecord | undefined;
    let context: Promise<ExecutionContext> | undefined;
    if (task && !task.loop && !isFinalStatus(request.status)) {
      begun = known?.begun ?? (await this.begin(claimed, task, 'running'));
      if (task.type === 'script') {
        context = this.createContext(claimed, request, task, 'process-task', true);
        await context.catch(() => undefined);
      }
    }
    return { claimed, request, previous, begun, context };
  }

  /** Ends a request with a final status set by a user or an administrator (400 CANCELLED, 302 KILLED, 401 OUTDATED). */
  async stop(accountId: string, requestId: string, status: number): Promise<void> {
    const changed = await this.platform.requests.transition(
      accountId,
      requestId,
      [STATUS_RUNNING, STATUS_WAITING],
      status,
    );
    if (!changed) {
      await this.platform.requests.require(accountId, requestId);
      throw conflict('The request has already ended.');
    }
    const run = await this.platform.processes.runs.find(accountId, requestId);
    // A step being run ends the request itself when it finishes (it sees the final status).
    if (run && run.cursor.phase !== 'running' && run.cursor.phase !== 'ended') await this.end(run, status);
  }

  /** Continues a request its script paused (P_set_request_status(102)). */
  async resume(accountId: string, requestId: string): Promise<void> {
    const run = await this.platform.processes.runs.require(accountId, requestId);
    if (run.cursor.phase !== 'paused')
      throw conflict(
        run.cursor.phase === 'task'
          ? 'The request waits for its manual task, not for a resume.'
          : run.cursor.phase === 'child'
            ? 'The request waits for its sub-process, not for a resume.'
            : 'The request is not paused.',
      );
    // The status and the cursor (with its lease) commit together.
    await this.platform.processes.transaction(async () => {
      if (!(await this.platform.requests.transition(accountId, requestId, [STATUS_WAITING], STATUS_RUNNING)))
        throw conflict('The request is not paused.');
      const ready = { ...run.cursor, phase: 'ready' as const };
      if (!(await this.move(run, ready, run.userId, this.leaseUntil())))
        throw conflict('The request is being resumed by someone else.');
    });
    await this.drive(accountId, requestId);
  }

  /**
   * Submits a manual task (rights already checked): its fields join the data document, the step's
   * output variables are computed with P_result = the submission, and the request goes on.
   */
  submit(
    accountId: string,
    ref: TaskRef,
    fields: Record<string, unknown>,
    userId: number | null,
  ): Promise<void> {
    return this.holding(ref.requestId, async () => {
      await this.submitted(accountId, ref, fields, userId);
      await this.settle(ref.requestId);
    });
  }

  private async submitted(
    accountId: string,
    ref: TaskRef,
    fields: Record<string, unknown>,
    userId: number | null,
  ): Promise<void> {
    const task = await this.platform.processes.tasks.find(accountId, ref);
    if (!task) throw taskMissing();
    if (task.status === 'SUBMITTED') throw conflict('The task has already been submitted.');
    if (task.status === 'CANCELLED') throw conflict('The task was cancelled: its request has ended.');
    const data = checkSubmission(task.fields, fields);
    await this.platform.processes.runs.require(accountId, ref.requestId);
    // the token waiting for it: the run's own, or one of a forked request's token rows
    let run: ProcessRun | undefined;
    let record: StepRecord | undefined;
    for (const token of await this.platform.processes.runs.allTokens(accountId, ref.requestId)) {
      if (token.cursor.phase !== 'task' || token.cursor.record === undefined) continue;
      const found = await this.platform.processes.steps.find(accountId, token.cursor.record);
      if (found?.taskId === task.id) {
        run = token;
        record = found;
        break;
      }
    }
    if (!run || !record) throw conflict('The request is not waiting for this task.');
    // The submission and the lease commit together: a server that dies next leaves a run to resume.
    const claimed = await this.platform.processes.transaction(async () => {
      if (!(await this.platform.processes.tasks.submit(accountId, ref, data, userId)))
        throw conflict('The task has already been submitted.');
      const moved = await this.move(run, { ...run.cursor, phase: 'running' }, userId, this.leaseUntil());
      if (!moved) throw conflict('The request is not waiting for this task.');
      return moved;
    });
    return this.takeSubmission(claimed, task, record, data, userId);
  }

  /** A submitted task's step goes on (its run claimed): the fields join the data document, its output variables run. */
  private async takeSubmission(
    claimed: ProcessRun,
    task: ManualTask,
    record: StepRecord,
    data: Record<string, unknown>,
    userId: number | null,
  ): Promise<void> {
    const { accountId } = claimed;
    const ref: TaskRef = { requestId: task.requestId, stepId: task.stepId, iteration: task.iteration };
    const resumed = await this.platform.requests.transition(
      accountId,
      ref.requestId,
      [STATUS_WAITING, STATUS_RUNNING],
      STATUS_RUNNING,
    );
    if (!resumed)
      return this.end(claimed, (await this.platform.requests.require(accountId, ref.requestId)).status);
    const user = userId === null ? null : await this.platform.directory.users.find(accountId, userId);
    if (task.instanceId)
      await this.platform.applications.update(
        accountId,
        { userId, login: user?.login ?? null },
        task.instanceId,
        { data, status: 'SUBMITTED' },
        'submit',
      );
    const step = claimed.definition.steps[claimed.cursor.step]!;
    let ended: WaitEnded;
    try {
      const request = await this.platform.requests.require(accountId, ref.requestId);
      const merged = { ...request.data, ...data };
      checkDataSize(stepLabel(step), 'the submission', merged, this.limits.dataDocumentBytes);
      // P_result is the caller's submission: marked, so its objects never act as query operators.
      const params = await this.parameters(claimed, step, markRequestInput(data));
      const ctx = await this.context(claimed, request, step, 'process-task');
      setFlowFrame(ctx, { stepId: step.id, iteration: ref.iteration, lastResult: () => data });
      // the submission and the output variables: one write of the document, with the step's end
      const held = { data: merged, writes: ctx.requestDataWrites ?? 0 };
      const outputs = await this.outputs(ctx, claimed, step, params, held, data);
      const json = outputs.json ?? (Object.keys(data).length > 0 ? JSON.stringify(outputs.data) : undefined);
      ended = await this.endWaiting(claimed, step, record, data, { ...outputs, json });
    } catch (e) {
      if (await this.fail(claimed, step, record, e))
        await this.drive(accountId, ref.requestId, claimed.token);
      return;
    }
    if (ended === 'moved') await this.drive(accountId, ref.requestId, claimed.token);
    else if (
      ended === 'advance' &&
      (await this.advance(claimed, step, { kind: 'next', loop: claimed.cursor.loop }))
    )
      await this.drive(accountId, ref.requestId, claimed.token);
  }

  /**
   * The end of a step that waited (a submitted task, an ended call activity): the document its
   * output variables left is written once, with its record done. With a plain walk after it the
   * move commits with them ('moved': drive it) and the write needs no copy of the document as it
   * was; else ('advance') advance moves it and a re-run starts from that copy. 'lost': another
   * server moved the request.
   */
  private async endWaiting(
    run: ProcessRun,
    step: StepDefinition,
    record: StepRecord,
    result: unknown,
    outputs: StepOutputs,
  ): Promise<WaitEnded> {
    const stored = storedResult(step, result, this.limits.dataDocumentBytes);
    const plan = step.loop ? undefined : await this.plainWalk(run, step, stored);
    type Ending = { updated: StepRecord; ended: WaitEnded };
    const { updated, ended } = await this.platform.processes.transaction(async (): Promise<Ending> => {
      const data = await this.writeOutputs(run, step, outputs, plan !== undefined);
      if (!plan) return { updated: await this.record(run, step, record, stored), ended: 'advance' };
      const { updated, request } = await this.recordReading(run, record, stored, data);
      if (isFinalStatus(request.status) || request.status === STATUS_WAITING)
        return { updated, ended: 'advance' };
      const moved = await this.move(run, plan, run.userId, this.leaseUntil());
      return { updated, ended: moved ? 'moved' : 'lost' };
    });
    this.emitStep(run, step, updated);
    return ended;
  }

  // ---------------------------------------------------------------------------------------------
  // Durability: resuming what a server lost, timers

  /**
   * Resumes a run claimed after its lease expired (ProcessRuns.claimExpired): the request goes on
   * from its last committed step; the step it was running re-runs from its start, with the data
   * document as it was when that step started (docs/hosts.md, "Durable requests and timers").
   */
  recover(run: ProcessRun): Promise<void> {
    return this.holding(run.requestId, async () => {
      await this.resumeLost(run);
      this.launch(run.requestId);
      await this.settle(run.requestId);
    });
  }

  private async resumeLost(run: ProcessRun): Promise<void> {
    const { accountId, requestId, cursor } = run;
    const request = await this.platform.requests.require(accountId, requestId);
    if (isFinalStatus(request.status)) return this.end(run, request.status);
    if (cursor.phase === 'ready') return this.steps(accountId, requestId, undefined, run.token);
    if (cursor.phase === 'child' && cursor.child !== undefined) {
      // Its sub-process ended, and the server telling it died.
      const child = await this.platform.requests.require(accountId, cursor.child);
      if (isFinalStatus(child.status)) return this.childDone(accountId, requestId, child);
    }
    if (cursor.phase !== 'running') {
      // Nothing to run: moving it in place gives the lease up.
      await this.move(run, cursor);
      return;
    }
    // a forked request's branches share the document: it is not set back (docs/hosts.md)
    const data = isForked(run)
      ? undefined
      : await this.platform.processes.runs.stepData(accountId, requestId);
    if (data) await this.platform.requests.update(accountId, requestId, { data });
    const step = run.definition.steps[cursor.step];
    const ref: TaskRef = { requestId, stepId: step?.id ?? 0, iteration: cursor.iteration };
    const record =
      cursor.record === undefined
        ? undefined
        : await this.platform.processes.steps.find(accountId, cursor.record);
    if (step?.type === 'manual' && record) {
      // Its task had been submitted: the submission is taken again.
      const task = await this.platform.processes.tasks.find(accountId, ref);
      if (task?.status === 'SUBMITTED')
        return this.takeSubmission(run, task, record, task.result ?? {}, task.submittedBy);
    }
    if (step?.type === 'subprocess' && cursor.child !== undefined) {
      // It was taking its ended sub-process's result: it takes it again.
      const child = await this.platform.requests.require(accountId, cursor.child);
      if (isFinalStatus(child.status)) return this.takeChildResult(run, child);
    }
    if (step) {
      await this.platform.processes.steps.discard(accountId, requestId, step.id, cursor.iteration);
      if (step.type === 'manual') await this.platform.processes.tasks.discard(accountId, ref);
    }
    if (step && run.recoveries > MAX_RECOVERIES) {
      // It stopped its server or thread each time it ran: it is not run again.
      await this.fail(
        run,
        step,
        undefined,
        new Error(
          `${stepLabel(step)}: interrupted ${run.recoveries} times (its server or evaluation thread ` +
            'stopped while it ran each time), not run again',
        ),
      );
      return;
    }
    const { record: _record, child: _child, ...kept } = cursor;
    const again: RunCursor = { ...kept, phase: 'ready' };
    if (await this.move(run, again, run.userId, this.leaseUntil()))
      await this.steps(accountId, requestId, undefined, run.token);
  }

  /**
   * Fires a due timer once, if its task is still open: a reminder writes its message to the
   * account's log, a deadline ends the request with 401 OUTDATED. The timer is marked fired in
   * the transaction that makes its effect; false when it had been fired already.
   */
  async fireTimer(timer: ProcessTimer): Promise<boolean> {
    if (timer.kind === 'wait') return this.fireWait(timer);
    if (timer.kind === 'boundary') return fireBoundary(this, timer);
    const { accountId, requestId } = timer;
    const ref: TaskRef = { requestId, stepId: timer.stepId, iteration: timer.iteration };
    const now = this.now();
    if (timer.kind === 'reminder') {
      const entry = await this.reminder(timer, ref);
      return this.platform.processes.transaction(async () => {
        if (!(await this.platform.processes.timers.markFired(timer.id, this.lease.owner, now))) return false;
        if (entry) await this.platform.logs.write(accountId, entry);
        return true;
      });
    }
    const run = await this.platform.processes.runs.find(accountId, requestId);
    const step = run && stepById(run.definition, timer.stepId);
    const message = `${step ? stepLabel(step) : `step ${timer.stepId}`}: the task's deadline passed`;
    const next =
      run && step?.type === 'manual' && step.onTimeout !== null
        ? run.definition.steps.findIndex((s) => s.id === step.onTimeout)
        : -1;
    let then: 'end' | 'go on' | undefined;
    const fired = await this.platform.processes.transaction(async () => {
      if (!(await this.platform.processes.timers.markFired(timer.id, this.lease.owner, now))) return false;
      if (!(await this.platform.processes.tasks.cancelIfOpen(accountId, ref))) return true;
      if (next >= 0) {
        // on_timeout: the task's step fails and the request goes on at that step.
        const current = await this.platform.processes.runs.require(accountId, requestId);
        if (current.cursor.phase !== 'task' || current.cursor.record === undefined) return true;
        await this.platform.processes.steps.update(accountId, current.cursor.record, {
          status: 'failed',
          error: { message },
        });
        const moved = await this.move(
          current,
          { ...tokenState(current.cursor), step: next, iteration: 0, phase: 'ready' },
          current.userId,
          this.leaseUntil(),
        );
        if (!moved) throw conflict('The request moved while its deadline fired.');
        await this.platform.requests.transition(accountId, requestId, [STATUS_WAITING], STATUS_RUNNING);
        then = 'go on';
        return true;
      }
      const ended = await this.platform.requests.transition(
        accountId,
        requestId,
        [STATUS_RUNNING, STATUS_WAITING],
        STATUS_OUTDATED,
      );
      if (!ended) return true;
      await this.platform.requests.update(accountId, requestId, { message });
      // Ending it (below) is owed: if this server dies first, the lease expires and a sweeper ends it.
      await this.platform.processes.runs.lease(accountId, requestId, this.leaseUntil());
      then = 'end';
      return true;
    });
    if (then === 'go on') await this.drive(accountId, requestId);
    else if (then === 'end')
      await this.holding(requestId, async () =>
        this.end(await this.platform.processes.runs.require(accountId, requestId), STATUS_OUTDATED),
      );
    return fired;
  }

  /** The log entry of a reminder whose task is still open (its template's failure is logged instead). */
  private async reminder(
    timer: ProcessTimer,
    ref: TaskRef,
  ): Promise<Omit<LogEntry, 'id' | 'accountId' | 'createdAt'> | undefined> {
    const task = await this.platform.processes.tasks.find(timer.accountId, ref);
    const run = await this.platform.processes.runs.find(timer.accountId, timer.requestId);
    const step = run && stepById(run.definition, timer.stepId);
    if (task?.status !== 'OPEN' || !run || !step || timer.message === null) return undefined;
    const request = await this.platform.requests.require(timer.accountId, timer.requestId);
    const entry = { requestId: request.id, projectId: request.projectId, userId: null, mode: request.mode };
    try {
      const previous = (await this.platform.processes.steps.lastDone(run.accountId, run.requestId))?.result;
      const parameters = await this.parameters(run, step, previous);
      const ctx = await this.createContext(run, request, step, 'process-task');
      const message = await renderIn(ctx, timer.message, {
        name: `${stepLabel(step)} reminder`,
        data: request.data,
        parameters,
      });
      return { ...entry, level: 'INFO', message };
    } catch (e) {
      return {
        ...entry,
        level: 'SEVERE',
        message: `${stepLabel(step)} reminder: ${loggedMessage(e, stepError(e))}`,
      };
    }
  }

  /** Makes the timers of a manual task that is opening: its deadline, its reminder. */
  private async timers(
    ctx: ExecutionContext,
    run: ProcessRun,
    step: ManualStep,
    ref: TaskRef,
    params: Parameters,
  ): Promise<void> {
    if (step.deadline !== null)
      await this.platform.processes.timers.create(run.accountId, ref, {
        kind: 'deadline',
        dueAt: await this.dueAt(ctx, run, step, step.deadline, 'deadline', params),
      });
    if (step.reminder !== null)
      await this.platform.processes.timers.create(run.accountId, ref, {
        kind: 'reminder',
        dueAt: await this.dueAt(ctx, run, step, step.reminder.after, 'reminder', params),
        message: step.reminder.message,
      });
  }

  /** When a timer is due: a duration from now, or a template printing one, an epoch-ms time or an ISO-8601 date-time. */
  private async dueAt(
    ctx: ExecutionContext,
    run: ProcessRun,
    step: StepDefinition,
    source: string,
    what: 'deadline' | 'reminder',
    params: Parameters,
  ): Promise<number> {
    let value: unknown = source;
    if (isTemplateText(source)) {
      const { data } = await this.platform.requests.require(run.accountId, run.requestId);
      const output = await renderIn(ctx, source, {
        name: `${stepLabel(step)} ${what}`,
        data,
        parameters: params,
      });
      value = typedValue(output);
    }
    return dueTime(value, this.now(), stepLabel(step), what);
  }

  // ---------------------------------------------------------------------------------------------
  // Steps

  /** Runs the current iteration of a step; undefined when the request failed or ended. */
  /**
   * One iteration of `step`; `previous`: the result of the last step done, read with the claim;
   * `begun`: its record when the claim began it.
   */
  private async iterate(
    run: ProcessRun,
    request: ProcessRequest,
    step: StepDefinition,
    previous: unknown,
    begun: StepRecord | undefined,
    context?: Promise<ExecutionContext>,
  ): Promise<Outcome | undefined> {
    let record = begun;
    try {
      const params = await this.parameters(run, step, previous);
      let loop = run.cursor.loop;
      if (step.loop) {
        const decision = await this.loopDecision(run, request, step, params);
        if (!decision.go) {
          if (run.cursor.iteration === 0) {
            const skipped = await this.begin(run, step, 'skipped');
            this.emitStep(run, step, skipped);
          }
          return { kind: 'leave' };
        }
        loop = decision.loop;
        params.P_item = loop?.items?.[run.cursor.iteration];
      }
      const cursor: RunCursor = { ...run.cursor, loop };
      record ??= await this.begin(run, step, 'running');
      switch (step.type) {
        case 'script': {
          const ended = await this.scriptStep(run, request, step, record, params, previous, context);
          return 'next' in ended
            ? { kind: 'advanced', next: ended.next }
            : { kind: 'next', loop, settled: ended };
        }
        case 'manual':
          return await this.manualStep(run, request, step, record, params, previous, cursor);
        case 'subprocess':
          return await this.subprocessStep(run, request, step, record, params, previous, cursor);
      }
    } catch (e) {
      return (await this.fail(run, step, record, e)) ? { kind: 'moved' } : undefined;
    }
  }

  private async scriptStep(
    run: ProcessRun,
    request: ProcessRequest,
    step: ScriptStep,
    record: StepRecord,
    params: Parameters,
    previous: unknown,
    context?: Promise<ExecutionContext>,
  ): Promise<Settled | { next: Claim | undefined }> {
    const ctx = await (context ?? this.context(run, request, step, 'process-task'));
    let last = previous;
    setFlowFrame(ctx, { stepId: step.id, iteration: run.cursor.iteration, lastResult: () => last });
    const inputs = await this.variables(ctx, run, step, step.input, params, 'input');
    let result: unknown = inputs;
    // the document as claimed, unless something ran since that may have changed it
    const held: HeldDocument =
      step.input.length === 0 && !step.loop ? { data: request.data, writes: 0 } : await this.reread(ctx, run);
    if (step.script !== null) {
      const output = await renderIn(ctx, step.script, {
        name: `${stepLabel(step)} script`,
        data: held.data,
        parameters: params,
      });
      result = typedValue(output);
    }
    last = result;
    params.P_result = result;
    // the output variables' one write waits for the transaction below
    const outputs = await this.outputs(ctx, run, step, params, held);
    const stored = storedResult(step, result, this.limits.dataDocumentBytes);
    // A walk to the next node that runs no gateway condition does not need the document as the
    // step left it: the step's end, its move and the next node's claim commit together.
    const plan = step.loop ? undefined : await this.plainWalk(run, step, stored);
    // A request of one token: the move claims the next node itself (ready then running, in one
    // write), and what the transaction holds is not read again; at the end, it finishes the run
    // (endWithin need not).
    const ends = plan !== undefined && plan.step >= run.definition.steps.length;
    const alone = plan !== undefined && !isForked(run) && !plan.tokens;
    const target: RunCursor | undefined =
      plan && (alone ? { ...plan, phase: ends ? 'ended' : 'running' } : plan);
    // at the end, in the same statement: the request's end, when it is no more than its status and
    // its locks (no variable written by this task, no task to cancel, no parent to tell)
    const endsInOne =
      ends &&
      outputs.json === undefined &&
      run.depth === 0 &&
      !run.definition.steps.some((s) => s.type === 'manual');
    const ended: ScriptStepEnding =
      (alone && target && (!ends || endsInOne)
        ? await this.endInOne(run, record, stored, outputs, target, ends)
        : undefined) ??
      (await this.platform.processes.transaction(async (): Promise<ScriptStepEnding> => {
        let updated: StepRecord;
        let request: ProcessRequest;
        let moved: ProcessRun | undefined;
        // the document's write, the record's end, the request's read and the move: one statement
        // where the engine allows (PostgreSQL), for a request of one token
        const one =
          target && alone ? await this.endStatement(run, record, stored, outputs, target) : undefined;
        if (one) ({ record: updated, request, moved } = one);
        else {
          // With a move below, the step ends in this transaction: its write needs no copy of the
          // document as it was (nothing of the step was committed before).
          const data = await this.writeOutputs(run, step, outputs, plan !== undefined);
          ({ updated, request } = await this.recordReading(run, record, stored, data));
        }
        const settled: Settled = { request, last: updated.result };
        if (!target || isFinalStatus(request.status) || request.status === STATUS_WAITING)
          return { updated, settled };
        if (!one) moved = await this.move(run, target, run.userId, this.leaseUntil());
        if (!moved) return { updated, next: undefined };
        if (ends)
          return {
            updated,
            next: undefined,
            completed: await this.endWithin(moved, STATUS_COMPLETED, true, alone),
          };
        const known = alone ? { run: moved, request, previous: updated.result } : undefined;
        return { updated, next: await this.claim(run.accountId, run.requestId, run.token, known) };
      }));
    this.emitStep(run, step, ended.updated);
    if ('settled' in ended) return ended.settled;
    if (ended.completed) await this.ended(ended.completed);
    return { next: ended.next };
  }

  /**
   * A script task's end before another node, for a request of one token, as one statement and no
   * transaction around it (PostgreSQL, ProcessRuns.moveAfter): its document written, its record
   * ended, its request read, the run moved and claimed, and the next task's record begun (or at
   * the end, `ends`: the run finished, the request's status set and its locks released) — all
   * or nothing, as the transaction it replaces. The claim's context is read after (shared reads:
   * mostly none). Undefined where the engine cannot: the caller ends the step in a transaction.
   */
  private async endInOne(
    run: ProcessRun,
    record: StepRecord,
    stored: unknown,
    outputs: StepOutputs,
    target: RunCursor,
    ends: boolean,
  ): Promise<ScriptStepEnding | undefined> {
    const next = recordToBegin(run.definition, target, run.userId);
    const one = await this.endStatement(
      run,
      record,
      stored,
      outputs,
      target,
      ends
        ? { finish: { status: STATUS_COMPLETED, lockOwner: `request:${run.requestId}` } }
        : next
          ? { begin: next }
          : undefined,
    );
    if (!one) return undefined;
    const { record: updated, request, moved, begun } = one;
    if (isFinalStatus(request.status) || request.status === STATUS_WAITING)
      return { updated, settled: { request, last: updated.result } };
    if (!moved) return { updated, next: undefined };
    // ended as this statement set it, or as it stands when a cancel changed the status meanwhile
    if (ends)
      return {
        updated,
        next: undefined,
        completed: one.finished ?? (await this.platform.requests.require(run.accountId, run.requestId)),
      };
    const known: Known = { run: moved, request, previous: updated.result, ...(begun ? { begun } : {}) };
    return { updated, next: await this.claim(run.accountId, run.requestId, run.token, known) };
  }

  /** A script task's end with its result `stored`, as one statement (Processes.endStep; `then` as there). */
  private endStatement(
    run: ProcessRun,
    record: StepRecord,
    stored: unknown,
    outputs: StepOutputs,
    target: RunCursor,
    then?: StepEndThen,
  ) {
    const done = { status: 'done' as const, result: stored };
    return this.platform.processes.endStep(run, record.id, done, outputs, target, this.leaseUntil(), then);
  }

  /**
   * The cursor after `step` when the walk from it meets no conditional flow, a timer or an error
   * end event (which need the document or write): undefined otherwise, and advance walks then.
   */
  private async plainWalk(
    run: ProcessRun,
    step: StepDefinition,
    result: unknown,
  ): Promise<RunCursor | undefined> {
    const index = graphIndexOf(run.definition);
    const from = index.taskOfStep.get(step.id);
    return (
      from &&
      plainWalkFrom(run.definition, index, from, tokenState(run.cursor), result ?? null, isForked(run))
    );
  }

  private async manualStep(
    run: ProcessRun,
    request: ProcessRequest,
    step: ManualStep,
    record: StepRecord,
    params: Parameters,
    previous: unknown,
    cursor: RunCursor,
  ): Promise<Outcome | undefined> {
    const ref: TaskRef = { requestId: run.requestId, stepId: step.id, iteration: run.cursor.iteration };
    const user =
      run.userId === null ? undefined : await this.platform.directory.users.find(run.accountId, run.userId);
    const actor = { userId: run.userId, login: user?.login ?? null };
    const instance = await this.platform.applications.create(run.accountId, actor, {
      requestId: run.requestId,
      stepId: step.id,
      mode: request.mode,
      projectId: request.projectId,
      title: step.name || stepLabel(step),
      uploadWidgets: step.widgets,
    });
    const task = await this.platform.processes.tasks.create(run.accountId, {
      ...ref,
      laneId: step.lane,
      instanceId: instance.id,
      fields: step.fields,
    });
    await this.platform.processes.steps.update(run.accountId, record.id, { taskId: task.id });
    const ctx = await this.context(run, request, step, 'manual-task-input');
    ctx.applicationInstanceId = instance.id;
    setFlowFrame(ctx, { stepId: step.id, iteration: ref.iteration, task: ref, lastResult: () => previous });
    const inputs = await this.variables(ctx, run, step, step.input, params, 'input');
    if (Object.keys(inputs).length > 0)
      await this.platform.applications.update(run.accountId, actor, instance.id, { data: inputs }, 'prepare');
    if (await this.endedByScript(run)) return undefined;
    await this.timers(ctx, run, step, ref, params);
    await armBoundaryTimers(this, ctx, run, step, record, params);
    await this.platform.processes.steps.update(run.accountId, record.id, { status: 'waiting' });
    await this.park(run, { ...cursor, phase: 'task', record: record.id });
    this.emit({
      type: 'waiting',
      requestId: run.requestId,
      stepId: step.id,
      iteration: ref.iteration,
      reason: 'task',
      url: params.P_task_url as string,
    });
    return { kind: 'waiting' };
  }

  private async subprocessStep(
    run: ProcessRun,
    request: ProcessRequest,
    step: SubprocessStep,
    record: StepRecord,
    params: Parameters,
    previous: unknown,
    cursor: RunCursor,
  ): Promise<Outcome | undefined> {
    const ctx = await this.context(run, request, step, 'process-task');
    let last = previous;
    setFlowFrame(ctx, { stepId: step.id, iteration: run.cursor.iteration, lastResult: () => last });
    await this.variables(ctx, run, step, step.input, params, 'input');
    if (await this.endedByScript(run)) return undefined;
    let definition: ProcessDefinition;
    let definitionId: number | null = null;
    let definitionVersionId: number | null = null;
    if (typeof step.process === 'string') {
      const stored = await this.platform.processes.definitions.find(run.accountId, step.process);
      if (!stored)
        throw new StepFailure(
          `${stepLabel(step)}: no process definition is named ${JSON.stringify(step.process)}`,
        );
      definition = stored.definition;
      definitionId = stored.id;
      definitionVersionId = stored.versionId;
    } else definition = step.process;
    if (run.depth + 1 > DEFINITION_LIMITS.nesting)
      throw new StepFailure(
        `${stepLabel(step)}: sub-processes are nested more than ${DEFINITION_LIMITS.nesting} levels deep`,
      );
    if (step.wait) await armBoundaryTimers(this, ctx, run, step, record, params);
    const current = await this.platform.requests.require(run.accountId, run.requestId);
    // The child (request and run) and the parent's step record naming it commit together: a
    // crash between them would leave a child no parent waits for and a step that starts another.
    const childId = await this.platform.processes.transaction(async () => {
      const childId = await this.create(run.accountId, {
        definition,
        definitionId,
        definitionVersionId,
        data: {},
        mode: current.mode,
        projectId: definition.project ?? current.projectId,
        initiatorId: current.initiatorId,
        userId: run.userId,
        parentId: run.requestId,
        depth: run.depth + 1,
      });
      await this.options.inject?.('child-created');
      await this.platform.processes.steps.update(run.accountId, record.id, { childRequestId: childId });
      return childId;
    });
    if (!step.wait) {
      await this.drive(run.accountId, childId);
      const result = { request: childId };
      last = result;
      params.P_result = result;
      // the output variables: one write of the document, with the step's end
      const outputs = await this.outputs(ctx, run, step, params, await this.reread(ctx, run));
      const updated = await this.platform.processes.transaction(async () => {
        await this.writeOutputs(run, step, outputs, false);
        return this.record(run, step, record, result);
      });
      this.emitStep(run, step, updated);
      return { kind: 'next', loop: cursor.loop };
    }
    await this.platform.processes.steps.update(run.accountId, record.id, { status: 'waiting' });
    await this.park(run, { ...cursor, phase: 'child', record: record.id, child: childId });
    this.emit({
      type: 'waiting',
      requestId: run.requestId,
      stepId: step.id,
      iteration: run.cursor.iteration,
      reason: 'child',
      child: childId,
    });
    await this.drive(run.accountId, childId);
    return { kind: 'waiting' };
  }

  /** A sub-process ended: the parent's waiting step takes its data document as result, or fails. */
  private childEnded(accountId: string, parentId: string, child: ProcessRequest): Promise<void> {
    return this.holding(parentId, () => this.childDone(accountId, parentId, child));
  }

  private async childDone(accountId: string, parentId: string, child: ProcessRequest): Promise<void> {
    const run = (await this.platform.processes.runs.allTokens(accountId, parentId)).find(
      (t) => t.cursor.phase === 'child' && t.cursor.child === child.id,
    );
    if (!run) return;
    const claimed = await this.move(run, { ...run.cursor, phase: 'running' }, run.userId, this.leaseUntil());
    if (!claimed) return;
    return this.takeChildResult(claimed, child);
  }

  /** A sub-process ended (the parent's run claimed): its data document is the step's result, or the step fails. */
  private async takeChildResult(claimed: ProcessRun, child: ProcessRequest): Promise<void> {
    const { accountId, requestId: parentId } = claimed;
    const parent = await this.platform.requests.require(accountId, parentId);
    if (isFinalStatus(parent.status)) return this.end(claimed, parent.status);
    await this.platform.requests.transition(accountId, parentId, [STATUS_WAITING], STATUS_RUNNING);
    const step = claimed.definition.steps[claimed.cursor.step]!;
    const record = await this.platform.processes.steps.find(accountId, claimed.cursor.record!);
    let ended: WaitEnded;
    try {
      if (child.status !== STATUS_COMPLETED) {
        const name = REQUEST_STATUSES[child.status as keyof typeof REQUEST_STATUSES]?.name ?? '';
        throw new StepFailure(
          `${stepLabel(step)}: sub-process request ${child.id} ended with status ${child.status} ${name}` +
            (child.message ? `: ${child.message}` : ''),
          await this.errorCode(accountId, child.id),
        );
      }
      const result = child.data;
      const params = await this.parameters(claimed, step, result);
      const ctx = await this.context(claimed, parent, step, 'process-task');
      setFlowFrame(ctx, { stepId: step.id, iteration: claimed.cursor.iteration, lastResult: () => result });
      // the output variables: one write of the document, with the step's end
      const held = { data: parent.data, writes: ctx.requestDataWrites ?? 0 };
      ended = await this.endWaiting(
        claimed,
        step,
        record!,
        result,
        await this.outputs(ctx, claimed, step, params, held),
      );
    } catch (e) {
      if (await this.fail(claimed, step, record, e)) await this.drive(accountId, parentId, claimed.token);
      return;
    }
    if (ended === 'moved') await this.drive(accountId, parentId, claimed.token);
    else if (
      ended === 'advance' &&
      (await this.advance(claimed, step, { kind: 'next', loop: claimed.cursor.loop }))
    )
      await this.drive(accountId, parentId, claimed.token);
  }

  /** Whether a loop runs its current iteration (fixing its count or items at the first). */
  private async loopDecision(
    run: ProcessRun,
    request: ProcessRequest,
    step: StepDefinition,
    params: Parameters,
  ): Promise<{ go: boolean; loop: RunCursor['loop'] }> {
    const loop = step.loop!;
    const max = Math.min(
      this.options.maxIterations ?? DEFINITION_LIMITS.iterations,
      DEFINITION_LIMITS.iterations,
    );
    const label = stepLabel(step);
    const evaluate = async (source: string) => {
      const ctx = await this.context(run, request, step, 'process-task');
      const output = await renderIn(ctx, source, {
        name: `${label} loop`,
        data: request.data,
        parameters: params,
      });
      return typedValue(output);
    };
    return decideLoop(loop, run.cursor, label, max, this.limits.dataDocumentBytes, evaluate);
  }

  // ---------------------------------------------------------------------------------------------
  // Pieces

  /** The host's parameters of a step's templates: P_result, P_task, P_task_url, P_index, P_item. */
  private async parameters(run: ProcessRun, step: StepDefinition, result: unknown): Promise<Parameters> {
    const ref: TaskRef = { requestId: run.requestId, stepId: step.id, iteration: run.cursor.iteration };
    let url: string | undefined;
    if (step.type === 'manual') {
      const account = await this.platform.accounts.require(run.accountId);
      url = taskUrl(accountUrls(account).live, ref);
    }
    return {
      P_result: result,
      P_task: { id: taskId(ref), step: step.id, name: step.name, type: step.type, iteration: ref.iteration },
      P_task_url: url,
      P_index: step.loop ? ref.iteration : undefined,
      P_item: run.cursor.loop?.items?.[ref.iteration],
      P_branch: run.cursor.branch?.split('/').pop(),
      ...run.cursor.params,
    };
  }

  /** The context of a step's templates: one per iteration and surface (the loop's condition shares the step's). */
  private context(
    run: ProcessRun,
    request: ProcessRequest,
    step: StepDefinition,
    surface: Surface,
  ): Promise<ExecutionContext> {
    const key = `${run.requestId}|${run.token ?? ''}|${run.version}|${run.cursor.iteration}|${step.id}|${surface}`;
    if (this.lastContext?.key !== key)
      this.lastContext = { key, ctx: this.createContext(run, request, step, surface) };
    return this.lastContext.ctx;
  }

  private lastContext: { key: string; ctx: Promise<ExecutionContext> } | undefined;

  /** `within`: the caller's transaction holds its reads (else they take one of their own). */
  private async createContext(
    run: ProcessRun,
    request: ProcessRequest,
    step: StepDefinition | undefined,
    surface: Surface,
    within = false,
  ): Promise<ExecutionContext> {
    const { clock, random, randomBytes } = this.options;
    const reads = this.readsOf(run.requestId);
    const read = () =>
      contextFor({
        platform: this.platform,
        account: run.accountId,
        user: run.userId,
        mode: request.mode,
        surface,
        request: request.id,
        requestRead: request,
        // the process's scripts act with its project's design authority, whoever started it
        designed: true,
        limits: this.limits,
        ...(clock ? { clock } : {}),
        ...(random ? { random } : {}),
        ...(randomBytes ? { randomBytes } : {}),
        ...(reads ? { reads } : {}),
      });
    // its reads (account, request, users, delegations …) in one transaction
    const ctx = await (within ? read() : this.platform.processes.transaction(read));
    if (step && step.lane !== null) ctx.laneId = step.lane;
    // The data document came from the request's starter and its task submissions: its `$` texts
    // are never field paths or variables in a step's collection queries (template/provenance.ts).
    ctx.requestStrings = requestStrings(request.data);
    return ctx;
  }

  /** The request's data document read again, with the count of the context's writes it includes. */
  private async reread(ctx: ExecutionContext, run: ProcessRun): Promise<HeldDocument> {
    const writes = ctx.requestDataWrites ?? 0;
    const { data } = await this.platform.requests.require(run.accountId, run.requestId);
    return { data, writes };
  }

  /**
   * Computes a script task's output variables in order against the document in hand, each set in
   * it (typed, the size checked) before the next: the document after them, and its JSON text when
   * they changed it (written once, by the transaction that ends the step). A function that wrote
   * the document meanwhile (inject_params …) has it read again.
   */
  private async outputs(
    ctx: ExecutionContext,
    run: ProcessRun,
    step: StepDefinition,
    params: Parameters,
    held: HeldDocument,
    /** Changes `held` has beyond the stored document (a task's submission), kept over a reread. */
    base: Record<string, unknown> = {},
  ): Promise<StepOutputs> {
    let { data, writes } = held;
    if (step.output.length === 0) {
      if ((ctx.requestDataWrites ?? 0) !== writes) data = { ...(await this.reread(ctx, run)).data, ...base };
      return { data, changes: base };
    }
    const changes: Record<string, unknown> = { ...base };
    let json = '';
    for (const variable of step.output) {
      if ((ctx.requestDataWrites ?? 0) !== writes) {
        const current = await this.reread(ctx, run);
        data = { ...current.data, ...changes };
        writes = current.writes;
      }
      const output = await renderIn(ctx, variable.template, {
        name: `${stepLabel(step)} output ${variable.name}`,
        data,
        parameters: params,
      });
      const value = typedValue(output);
      changes[variable.name] = value;
      data = { ...data, [variable.name]: value };
      json = JSON.stringify(data);
      const bytes = Buffer.byteLength(json);
      if (bytes > this.limits.dataDocumentBytes)
        throw new StepFailure(
          `${stepLabel(step)}, output variable ${variable.name}: the data document would reach ${bytes} bytes, ` +
            `over its maximum of ${this.limits.dataDocumentBytes} bytes: the process is stopped`,
        );
    }
    if ((ctx.requestDataWrites ?? 0) !== writes) {
      data = { ...(await this.reread(ctx, run)).data, ...changes };
      json = JSON.stringify(data);
      checkDataSize(stepLabel(step), 'the output variables', data, this.limits.dataDocumentBytes);
    }
    return { data, json, changes };
  }

  /**
   * Writes the data document a step leaves, in the transaction that ends the step; answers the
   * document as written. A forked request's branches share the document and run at once: the
   * step's own changes merge into the document as stored, its row locked, so a branch that wrote
   * meanwhile keeps its variables (docs/hosts.md, "Data at a join").
   */
  private async writeOutputs(
    run: ProcessRun,
    step: StepDefinition,
    outputs: StepOutputs,
    ending: boolean,
  ): Promise<Record<string, unknown>> {
    const { accountId, requestId } = run;
    if (outputs.json === undefined) return outputs.data;
    if (isForked(run)) {
      const data = { ...(await this.platform.requests.lockedData(accountId, requestId)), ...outputs.changes };
      checkDataSize(stepLabel(step), 'the output variables', data, this.limits.dataDocumentBytes);
      await this.platform.requests.writeStepData(accountId, requestId, JSON.stringify(data));
      return data;
    }
    if (ending) await this.platform.requests.writeStepData(accountId, requestId, outputs.json);
    else await this.platform.requests.update(accountId, requestId, { data: outputs.data });
    return outputs.data;
  }

  /** Computes variables in order, each stored in the data document (typed) before the next. */
  private async variables(
    ctx: ExecutionContext,
    run: ProcessRun,
    step: StepDefinition,
    list: readonly VariableDefinition[],
    params: Parameters,
    phase: 'input' | 'output',
  ): Promise<Record<string, unknown>> {
    const values: Record<string, unknown> = {};
    if (list.length === 0) return values;
    // Functions may have changed the document meanwhile (inject_objects, inject_params …): it
    // is read again, and written, in one transaction.
    const write = (name: string, value: unknown) => async () => {
      const data = {
        ...(await this.platform.requests.lockedData(run.accountId, run.requestId)),
        [name]: value,
      };
      checkDataSize(stepLabel(step), `${phase} variable ${name}`, data, this.limits.dataDocumentBytes);
      return this.platform.requests.update(run.accountId, run.requestId, { data });
    };
    let request = await this.platform.requests.require(run.accountId, run.requestId);
    for (const variable of list) {
      const output = await renderIn(ctx, variable.template, {
        name: `${stepLabel(step)} ${phase} ${variable.name}`,
        data: request.data,
        parameters: params,
      });
      const value = typedValue(output);
      request = await this.platform.processes.transaction(write(variable.name, value));
      values[variable.name] = value;
    }
    return values;
  }

  private async begin(run: ProcessRun, step: StepDefinition, status: StepStatus): Promise<StepRecord> {
    return this.platform.processes.steps.begin(run.accountId, {
      requestId: run.requestId,
      stepId: step.id,
      iteration: run.cursor.iteration,
      type: step.type,
      laneId: step.lane,
      userId: run.userId,
      status,
    });
  }

  /** Stores a step's result (bounded by the data document's size) and marks its record done. */
  private async record(
    run: ProcessRun,
    step: StepDefinition,
    record: StepRecord,
    result: unknown,
  ): Promise<StepRecord> {
    return this.platform.processes.steps.update(run.accountId, record.id, {
      status: 'done',
      result: storedResult(step, result, this.limits.dataDocumentBytes),
    });
  }

  /**
   * A step's record done with its (stored) result, and its request read with the document `data`
   * (the status a script or a cancel may have set): one statement on PostgreSQL.
   */
  private async recordReading(
    run: ProcessRun,
    record: StepRecord,
    stored: unknown,
    data: Record<string, unknown>,
  ): Promise<{ updated: StepRecord; request: ProcessRequest }> {
    const { accountId, requestId } = run;
    const read = await this.platform.processes.steps.updateReading(
      accountId,
      record.id,
      { status: 'done', result: stored },
      data,
    );
    const request =
      read.request ?? (await this.platform.requests.requireWithData(accountId, requestId, data));
    return { updated: read.record, request };
  }

  private emitStep(run: ProcessRun, step: StepDefinition, record: StepRecord): void {
    this.emit({
      type: 'step',
      requestId: run.requestId,
      stepId: step.id,
      name: step.name,
      stepType: step.type,
      iteration: record.iteration,
      status: record.status,
      ...(record.status === 'done' ? { result: record.result } : {}),
      ...(record.error ? { error: record.error } : {}),
    });
  }

  /**
   * After a step: the status a script set decides — final ends the request, 102 pauses it — else
   * the cursor moves on. Its reads and its move are two transactions, one on each side of the
   * walk to the next node (whose gateway conditions are scripts, run outside any transaction).
   */
  private async advance(run: ProcessRun, step: StepDefinition, outcome: Outcome): Promise<boolean>;
  private async advance(
    run: ProcessRun,
    step: StepDefinition,
    outcome: Outcome,
    claimNext: true,
  ): Promise<boolean | Claim>;
  private async advance(
    run: ProcessRun,
    step: StepDefinition,
    outcome: Outcome,
    claimNext = false,
  ): Promise<boolean | Claim> {
    const { accountId, requestId } = run;
    const before =
      (outcome.kind === 'next' ? outcome.settled : undefined) ??
      (await this.platform.processes.transaction(async () => ({
        request: await this.platform.requests.require(accountId, requestId),
        // a forked request's last step may be another branch's: the token's own record
        last:
          isForked(run) && run.cursor.record !== undefined
            ? (await this.platform.processes.steps.find(accountId, run.cursor.record))?.result
            : (await this.platform.processes.steps.lastDone(accountId, requestId))?.result,
      })));
    let cursor: RunCursor;
    if (outcome.kind === 'next' && run.cursor.instance) return this.instanceEnds(run, step, before.last);
    if (outcome.kind === 'next' && step.loop) {
      const { record: _r, child: _c, attempt: _a, ...kept } = run.cursor;
      cursor = { ...kept, iteration: run.cursor.iteration + 1, phase: 'ready', loop: outcome.loop };
    } else {
      if (isFinalStatus(before.request.status)) {
        await this.end(run, before.request.status);
        return false;
      }
      const index = graphIndexOf(run.definition);
      const next = await this.follow(
        run,
        before.request,
        index.taskOfStep.get(step.id)!,
        tokenState(run.cursor),
        step,
        before.last ?? null,
      );
      if (!next) return false;
      if (next === 'moved') return true;
      cursor = next;
    }
    const after = await this.platform.processes.transaction(async () => {
      // its status; the document is the one the walk read
      const request = await this.platform.requests.requireWithData(accountId, requestId, before.request.data);
      if (isFinalStatus(request.status)) return { request, moved: false, next: undefined };
      if (request.status === STATUS_WAITING) {
        await this.move(run, { ...cursor, phase: 'paused' });
        return { request, moved: false, next: undefined };
      }
      const moved = await this.move(run, cursor, run.userId, this.leaseUntil());
      // the next node's claim commits with this move (the caller drives it next)
      const next = moved && claimNext ? await this.claim(accountId, requestId, run.token) : undefined;
      return { request, moved: moved !== undefined, next };
    });
    if (isFinalStatus(after.request.status)) {
      await this.end(run, after.request.status);
      return false;
    }
    if (after.request.status === STATUS_WAITING) {
      this.emit({
        type: 'waiting',
        requestId,
        stepId: step.id,
        iteration: run.cursor.iteration,
        reason: 'paused',
      });
      return false;
    }
    return after.next ?? after.moved;
  }

  /** True (and the request ended) when a script set a final status during the step. */
  private async endedByScript(run: ProcessRun): Promise<boolean> {
    const request = await this.platform.requests.require(run.accountId, run.requestId);
    if (!isFinalStatus(request.status)) return false;
    await this.end(run, request.status);
    return true;
  }

  /**
   * A step failed: its record keeps the error. Then it runs again (its retry policy), or the
   * request goes on from an error boundary event of its task (true: the cursor moved), or the
   * request ends with 301 and the message as P_message.
   */
  private async fail(
    run: ProcessRun,
    step: StepDefinition,
    record: StepRecord | undefined,
    e: unknown,
  ): Promise<boolean> {
    const error = stepError(e);
    const failed = record
      ? await this.platform.processes.steps.update(run.accountId, record.id, { status: 'failed', error })
      : await this.platform.processes.steps
          .begin(run.accountId, {
            requestId: run.requestId,
            stepId: step.id,
            iteration: run.cursor.iteration,
            type: step.type,
            laneId: step.lane,
            userId: run.userId,
          })
          .then((r) =>
            this.platform.processes.steps.update(run.accountId, r.id, { status: 'failed', error }),
          );
    this.emitStep(run, step, failed);
    const request = await this.platform.requests.require(run.accountId, run.requestId);
    if (!isFinalStatus(request.status)) {
      if (await this.retry(run, step)) return true;
      const code = e instanceof StepFailure ? e.code : undefined;
      const index = graphIndexOf(run.definition);
      const task = index.taskOfStep.get(step.id);
      const boundary =
        task && index.boundaries.get(task.id)?.find((b) => b.error === undefined || b.error === code);
      if (boundary) {
        if (request.status !== STATUS_RUNNING)
          await this.platform.requests.update(run.accountId, run.requestId, {
            status: STATUS_RUNNING,
            message: '',
          });
        const state: TokenState = {
          ...tokenState(run.cursor),
          params: { P_error: { ...error, ...(code !== undefined ? { code } : {}) } },
        };
        const cursor = await this.follow(run, request, boundary, state, step, null);
        if (cursor === 'moved') return true;
        if (!cursor) return false;
        return (await this.move(run, cursor, run.userId, this.leaseUntil())) !== undefined;
      }
    }
    // A failure ends the request with 301 whatever status its script set before.
    await this.platform.requests.update(run.accountId, run.requestId, {
      status: STATUS_ABORTED,
      message: failureMessage(error),
    });
    await this.end(run, STATUS_ABORTED);
    return false;
  }

  /** Runs a failed step's iteration again after its backoff when its retry policy has attempts left. */
  private async retry(run: ProcessRun, step: StepDefinition): Promise<boolean> {
    const attempt = run.cursor.attempt ?? 0;
    if (!step.retry || attempt + 1 >= step.retry.attempts) return false;
    const ref: TaskRef = { requestId: run.requestId, stepId: step.id, iteration: run.cursor.iteration };
    if (step.type === 'manual') await this.platform.processes.tasks.discard(run.accountId, ref);
    const request = await this.platform.requests.require(run.accountId, run.requestId);
    if (request.status !== STATUS_RUNNING)
      await this.platform.requests.update(run.accountId, run.requestId, {
        status: STATUS_RUNNING,
        message: '',
      });
    // The wait holds the run's lease: a server that dies meanwhile leaves the attempt to a sweeper.
    const backoff = parseDuration(step.retry.backoff) ?? 0;
    if (backoff > 0) await new Promise((resolve) => setTimeout(resolve, backoff));
    const { record: _r, child: _c, ...kept } = run.cursor;
    const again: RunCursor = { ...kept, phase: 'ready', attempt: attempt + 1 };
    return (await this.move(run, again, run.userId, this.leaseUntil())) !== undefined;
  }

  /**
   * The cursor after a node (a task that ended, a start or boundary event): the walk through
   * gateways and events to the next task, or past the last step when the request completes.
   * Undefined when the walk ended the request (an error end event, a gateway that failed).
   */
  private async follow(
    run: ProcessRun,
    request: ProcessRequest,
    from: FlowNode | Token,
    state: TokenState,
    step: StepDefinition | undefined,
    result: unknown,
  ): Promise<RunCursor | Moved | undefined> {
    const index = graphIndexOf(run.definition);
    const holds = (flow: SequenceFlow, gateway: FlowNode) =>
      this.condition(run, request, step, state, flow, gateway, result);
    let arrival: Arrival;
    try {
      arrival = await walk(index, from, state, result, holds);
    } catch (e) {
      await this.platform.requests.update(run.accountId, run.requestId, {
        status: STATUS_ABORTED,
        message: failureMessage(stepError(e)),
      });
      await this.end(run, STATUS_ABORTED);
      return undefined;
    }
    if (arrival.kind === 'error') {
      // The run keeps the node it ended at: a call activity's error boundary event reads its code.
      const main = run.token ? await this.platform.processes.runs.require(run.accountId, run.requestId) : run;
      const ended = await this.move(main, { ...main.cursor, at: arrival.node.id });
      await this.platform.requests.update(run.accountId, run.requestId, {
        status: STATUS_ABORTED,
        message: `${nodeLabel(arrival.node)}: error ${JSON.stringify(arrival.code)}`,
      });
      await this.end(ended ?? run, STATUS_ABORTED);
      return undefined;
    }
    if (arrival.kind === 'join') return this.arrive(run, index, arrival);
    if (arrival.kind === 'end' && !arrival.terminate && (isForked(run) || arrival.state.tokens))
      return this.tokenEnds(run, index, arrival.state.tokens ?? []);
    if (arrival.kind === 'end') return { step: run.definition.steps.length, iteration: 0, phase: 'ready' };
    if (arrival.kind === 'timer') {
      await this.waitTimer(run, request, step, arrival.node, arrival.state);
      return undefined;
    }
    const next = run.definition.steps.findIndex((s) => s.id === arrival.step);
    return { ...arrival.state, step: next, iteration: 0, phase: 'ready' };
  }

  /**
   * A token reached an intermediate timer catch event: the timer (a `wait` row of the existing
   * timers), the cursor waiting at the node and the request waiting (102) commit together; the
   * sweeper fires it (fireTimer) and the token goes on from the node.
   */
  private async waitTimer(
    run: ProcessRun,
    request: ProcessRequest,
    step: StepDefinition | undefined,
    node: FlowNode & { kind: 'timer' },
    state: TokenState,
  ): Promise<void> {
    let dueAt: number;
    try {
      let value: unknown = node.wait;
      if (isTemplateText(node.wait)) {
        const ctx = await this.createContext(run, request, step, 'process-task');
        const { data } = await this.platform.requests.require(run.accountId, run.requestId);
        value = typedValue(
          await renderIn(ctx, node.wait, {
            name: `${nodeLabel(node)} timer`,
            data,
            parameters: { P_branch: state.branch?.split('/').pop(), ...state.params },
          }),
        );
      }
      dueAt = dueTime(value, this.now(), nodeLabel(node), 'timer');
    } catch (e) {
      await this.platform.requests.update(run.accountId, run.requestId, {
        status: STATUS_ABORTED,
        message: failureMessage(stepError(e)),
      });
      await this.end(run, STATUS_ABORTED);
      return;
    }
    const cursor: RunCursor = { ...state, step: run.cursor.step, iteration: 0, phase: 'timer', at: node.id };
    await this.platform.processes.transaction(async () => {
      await this.platform.processes.timers.create(
        run.accountId,
        { requestId: run.requestId, stepId: 0, iteration: 0 },
        // a token row's timer names it after the node: `<node> <token>`
        { kind: 'wait', dueAt, message: run.token === undefined ? node.id : `${node.id} ${run.token}` },
      );
      if (!(await this.park(run, cursor)))
        throw conflict('The request moved while its token reached a timer.');
    });
  }

  /** An intermediate timer fired: the request runs again from the timer's node (false: fired already). */
  private async fireWait(timer: ProcessTimer): Promise<boolean> {
    const { accountId, requestId } = timer;
    let go = false;
    const [node, token] = (timer.message ?? '').split(' ');
    const fired = await this.platform.processes.transaction(async () => {
      if (!(await this.platform.processes.timers.markFired(timer.id, this.lease.owner, this.now())))
        return false;
      const run = await this.platform.processes.runs.token(accountId, requestId, token);
      if (run?.cursor.phase !== 'timer' || run.cursor.at !== node) return true;
      // another branch may run meanwhile (101)
      const statuses = [STATUS_WAITING, STATUS_RUNNING];
      if (!(await this.platform.requests.transition(accountId, requestId, statuses, STATUS_RUNNING)))
        return true;
      if (!(await this.move(run, { ...run.cursor, phase: 'ready' }, run.userId, this.leaseUntil())))
        throw conflict('The request moved while its timer fired.');
      go = true;
      return true;
    });
    if (go) {
      await this.drive(accountId, requestId, token);
      await this.settle(requestId);
    }
    return fired;
  }

  /** Whether a sequence flow's condition holds: a template printing `true` or `false`. */
  private async condition(
    run: ProcessRun,
    request: ProcessRequest,
    step: StepDefinition | undefined,
    state: TokenState,
    flow: SequenceFlow,
    gateway: FlowNode,
    result: unknown,
  ): Promise<boolean> {
    const ctx = await this.createContext(run, request, step, 'process-task');
    const { data } = await this.platform.requests.require(run.accountId, run.requestId);
    const output = await renderIn(ctx, flow.condition!, {
      name: `${nodeLabel(gateway)} condition of ${flow.id}`,
      data,
      parameters: { P_result: result, P_branch: state.branch?.split('/').pop(), ...state.params },
    });
    const value = output.trim();
    if (value !== 'true' && value !== 'false')
      throw new StepFailure(
        `${nodeLabel(gateway)}: the condition of sequence flow ${flow.id} printed ${JSON.stringify(value.slice(0, 100))}, not true or false`,
      );
    return value === 'true';
  }

  /** The error code of a request that ended at an error end event, if it did. */
  private async errorCode(accountId: string, requestId: string): Promise<string | undefined> {
    const run = await this.platform.processes.runs.find(accountId, requestId);
    const at = run?.cursor.at;
    const node = at === undefined ? undefined : run!.definition.graph?.nodes.find((n) => n.id === at);
    return node?.kind === 'end' ? node.error : undefined;
  }

  /**
   * Ends a request: its status, its run, its open tasks, its locks, in one transaction (a server
   * that dies before it commits leaves the run leased: the sweeper ends it again); then its
   * parent goes on.
   */
  private async end(run: ProcessRun, status: number): Promise<void> {
    await this.ended(await this.platform.processes.transaction(() => this.endWithin(run, status)));
  }

  /**
   * What ends a request in the store, in the caller's transaction; `ended` follows its commit.
   * `finished`: the caller's move (guarded by the run's version) has finished the run already.
   */
  private async endWithin(
    run: ProcessRun,
    status: number,
    current = false,
    finished = false,
  ): Promise<ProcessRequest> {
    const { accountId, requestId } = run;
    // the request's row before its run's (ProcessRuns.lockRequest): the lease below writes the run
    if (!finished) await this.platform.processes.runs.lockRequest(accountId, requestId);
    // Until the run is finished (last), a lease on it and on a parent waiting for it says that
    // work is owed: if this server dies meanwhile, a sweeper ends it and lets the parent go on.
    if (!finished && run.cursor.phase !== 'running' && run.cursor.phase !== 'ready')
      await this.platform.processes.runs.lease(accountId, requestId, this.leaseUntil());
    // the request's locks are released with its status (one statement on PostgreSQL)
    const ended =
      (await this.platform.requests.transition(
        accountId,
        requestId,
        [STATUS_RUNNING, STATUS_WAITING],
        status,
        releaseAllStatement(accountId, `request:${requestId}`),
      )) ?? (await this.platform.requests.require(accountId, requestId));
    // a failure set 301 and its message before: the request's log says why it ends
    if (status === STATUS_ABORTED && ended.status === STATUS_ABORTED)
      await this.platform.logs.write(accountId, abortedEntry(ended));
    // manual steps are what open tasks
    if (run.definition.steps.some((s) => s.type === 'manual'))
      await this.platform.processes.tasks.cancelOpen(accountId, requestId);
    if (ended.parentId !== null) {
      const parent = await this.platform.processes.runs.find(accountId, ended.parentId);
      if (parent?.cursor.phase === 'child' && parent.cursor.child === requestId)
        await this.platform.processes.runs.lease(accountId, ended.parentId, this.leaseUntil());
    }
    if (!finished) await this.platform.processes.runs.finish(accountId, requestId, current ? run : undefined);
    return ended;
  }

  /** After a request's end committed: its event, then its parent goes on. */
  private async ended(request: ProcessRequest): Promise<void> {
    if (this.endings.has(request.id)) this.endings.set(request.id, request);
    this.emit({ type: 'ended', requestId: request.id, status: request.status, message: request.message });
    if (request.parentId !== null) await this.childEnded(request.accountId, request.parentId, request);
  }
}

/** The task a cursor stands at: undefined at a node of the graph or on a flow. */
function taskAt(definition: ProcessDefinition, cursor: RunCursor): StepDefinition | undefined {
  return cursor.at === undefined && cursor.flow === undefined ? definition.steps[cursor.step] : undefined;
}

/**
 * The record the claim of the task at `cursor` begins (ProcessRunner.claim, begin), as a statement
 * that moves a run there can begin it: undefined before a loop (its script decides first) or
 * outside a task.
 */
function recordToBegin(
  definition: ProcessDefinition,
  cursor: RunCursor,
  userId: number | null,
): RecordToBegin | undefined {
  const task = taskAt(definition, cursor);
  if (!task || task.loop) return undefined;
  return { stepId: task.id, iteration: cursor.iteration, type: task.type, laneId: task.lane, userId };
}

/** The record a run created claimed before its first task begins with (storeNewRun). */
function firstRecord(run: NewRun, cursor: RunCursor): RecordToBegin | undefined {
  return cursor.phase === 'running' ? recordToBegin(run.definition, cursor, run.userId) : undefined;
}
