/**
 * The evaluation pool (docs/server.md "Isolation"): the worker threads that run every evaluation
 * of a server process, so the HTTP thread only authenticates, routes and relays.
 *
 * - Each thread (thread.ts) has a bounded heap (`resourceLimits`); a thread that ends (out of
 *   heap, stopped, crashed) is replaced at once, the others go on, and a spare thread is up so the
 *   next task does not wait for a replacement to load the library.
 * - A thread serves one account at a time, up to `threadTasks` of its tasks at once: they
 *   interleave where they wait (a lock, the store, an HTTP call, a sub-process), and stopping the
 *   thread can only harm that account's own evaluations.
 * - Fair between accounts: one account holds at most `accountThreads` threads; its further tasks
 *   wait in its own queue (at most `accountQueue`, then 429), and a free thread goes to the
 *   accounts in turn.
 * - A watchdog reads each running task's deadline (published by the worker whenever one of the
 *   task's evaluations starts) and terminates the task's thread once it is `graceMs` past, so
 *   CPU-bound code cannot outrun its deadline: that task's caller gets the time-limit error, the
 *   account's other tasks on the thread 503 with Retry-After.
 * - When the process exits (process.exit: a cluster worker whose supervisor died, a crash), every
 *   thread is stopped at once (see `haltOnExit`).
 */
import { builtSibling } from '../config/built-files.js';
import { currentCell } from '../store/cells.js';
import { type EvaluationReply, type Progress, type TaskRequest } from './protocol.js';
import { EvaluationThread, type TaskCallbacks, type ThreadEnd } from './thread.js';
import type { LeaseKeeper } from '../platform/processes/leases.js';
import type { WorkerSettings } from './worker.js';
import { evaluations } from '../metrics/families.js';
import { AggregatorRegistry } from 'prom-client';
import { propertyOf } from '../safety/narrow.js';
import { tracing, type TraceCarrier } from '../traces/hooks.js';

const SPARE_THREADS = 1;
const EVALUATION_NICE = 5;

export interface PoolSettings {
  /** Evaluation threads of this process. */
  threads: number;
  /** Each thread's heap (old generation), in MiB. */
  heapMb: number;
  /** Threads one account may hold at once. */
  accountThreads: number;
  /** Tasks of its account one thread runs at once. */
  threadTasks: number;
  /** Tasks one account may have waiting. */
  accountQueue: number;
  /** The evaluation wall time: a task waits for a thread at most this long, and runs at most this long without starting an evaluation. */
  wallTimeMs: number;
  /** How far past its deadline a task runs before its thread is stopped. */
  graceMs: number;
}

/** Why a task did not answer: the API error it becomes. */
export class EvaluationStopped extends Error {
  override name = 'EvaluationStopped';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

/** Host methods that drive process requests: their steps may take a wall time each. */
const PROCESS_METHODS: ReadonlySet<string> = new Set([
  'startRequest',
  'sendMessage',
  'task',
  'resumeRequest',
  'cancelRequest',
  'recoverRun',
  'fireTimer',
  'fireSchedule',
  'fireCollectionEvent',
]);

/** The `surface` label of a task in `flowmark_evaluation_duration_seconds`. */
function surfaceOf(task: TaskRequest): string {
  if (task.kind === 'collections') return 'collections';
  switch (task.method) {
    case 'evaluate':
      return 'eval';
    case 'recoverRun':
    case 'fireTimer':
      return 'sweep';
    case 'composite':
    case 'webInterface':
    case 'task':
      return task.method;
    default:
      return 'process';
  }
}

/**
 * The `outcome` label of a task's reply: `ok`, the API error's code, `template-error` for an eval
 * whose template failed (answered 200 with the error), `http-4xx`/`http-5xx` for an answer a
 * script gave with such a status (a composite API, a web interface).
 */
function outcomeOf(reply: EvaluationReply): string {
  if (!reply.ok) return reply.error.body.code;
  const value = reply.value;
  if (value && typeof value === 'object') {
    const error = propertyOf(value, 'error');
    const status = propertyOf(value, 'status');
    if (error && typeof error === 'object') return 'template-error';
    if (typeof status === 'number' && status >= 400 && status < 600)
      return `http-${Math.floor(status / 100)}xx`;
  }
  return 'ok';
}

/** A task answering its caller with one evaluation: the time it waits for a thread counts against its wall time. */
function answersAtOnce(task: TaskRequest): boolean {
  return task.kind === 'collections' || (task.kind === 'host' && !PROCESS_METHODS.has(task.method));
}

interface Waiting {
  account: string;
  /** The cell the caller ran in (cells.ts): the task runs there too. */
  cell: string | undefined;
  task: TaskRequest;
  /** The caller's span, when tracing is on. */
  trace: TraceCarrier | undefined;
  onProgress: ((p: Progress) => void) | undefined;
  resolve(reply: EvaluationReply): void;
  reject(error: unknown): void;
  queuedAt: number;
}

/** A task on its thread: where the thread sends its end (TaskCallbacks). */
interface Running extends TaskCallbacks {
  thread: EvaluationThread;
  /** Its index in the thread's deadline slots. */
  slot: number;
  startedAt: number;
  respondBy: number | undefined;
  stopped?: EvaluationStopped;
}

/** A thread serving an account: its tasks by slot. */
interface Lease {
  account: string;
  tasks: Map<number, Running>;
  /** Slots below `slots` that are free again (the others below it are taken). */
  freed: number[];
  slots: number;
}

/** A built module of this folder (dist/isolation/NAME.js), also when this module runs from src/ under a test runner. */
function builtFile(name: string): string {
  return builtSibling(import.meta.url, `${name}.js`, 'the evaluation worker');
}

/** The evaluation worker's handler (worker.ts, built). */
export const workerFile = (): string => builtFile('worker');

export interface PoolOptions {
  /** The handler module (default: flowmark's, src/isolation/worker.ts built). */
  handler?: string;
  /**
   * Renews, on this thread, the leases the threads hold on process runs: a step that keeps its
   * thread busy keeps its lease, and the leases of a thread that ended lapse.
   */
  leases?: LeaseKeeper;
  /**
   * Start one thread now and the others only after `startRest()`, one at a time, each once the
   * one before is ready: a server process starting loads the library in one thread beside its
   * HTTP thread instead of in every thread at once (default: every thread now).
   */
  staggered?: boolean;
}

export class EvaluationPool {
  private readonly threads = new Set<EvaluationThread>();
  /** The leases on process runs each thread holds (request id → holds). */
  private readonly held = new Map<EvaluationThread, Map<string, number>>();
  /** Each live thread's metrics as last gathered, and those of the threads that ended. */
  private readonly lastMetrics = new Map<EvaluationThread, unknown[]>();
  private retired: unknown[][] = [];
  private readonly queues = new Map<string, Waiting[]>();
  private readonly durations = new Map<string, { observe(seconds: number): void }>();
  /** The threads serving an account now. */
  private readonly leased = new Map<EvaluationThread, Lease>();
  private closed = false;
  private failedStarts = 0;
  /** Threads whose failed start is retried after a delay (not in `threads` meanwhile). */
  private retrying = 0;
  /** A staggered pool's other threads may start (startRest). */
  private restAllowed: boolean;
  private readonly watchdog: NodeJS.Timeout;
  private readonly spawn: () => void;
  /**
   * Node stops a process's worker threads one after another as it exits, each once the one before
   * has ended: the last went on running its tasks for up to seconds (longer when the others have
   * threads of their own, as the script sandboxes), driving process steps whose leases this thread
   * no longer renewed — a step's effects (a counter, a write) then landed after its server was
   * gone, and a lease shorter than that let another server run the same step meanwhile. Stopping
   * them all in the `exit` event ends their JavaScript before the process goes on exiting.
   */
  private readonly haltOnExit = () => {
    this.closed = true;
    for (const thread of this.threads) thread.stop().catch(() => undefined);
  };

  constructor(
    readonly settings: PoolSettings,
    workerSettings: WorkerSettings,
    { handler = workerFile(), leases, staggered = false }: PoolOptions = {},
  ) {
    const main = builtFile('thread-main');
    this.spawn = () => {
      if (this.closed) return;
      this.threads.add(
        new EvaluationThread({
          main,
          handler,
          settings: workerSettings,
          heapMb: settings.heapMb,
          tasks: settings.threadTasks,
          nice: EVALUATION_NICE,
          // the threads trace when this thread does, and send their spans here to be exported
          traces: tracing !== undefined,
          onSpan: (span) => tracing?.received([span]),
          onReady: () => {
            this.failedStarts = 0;
            this.dispatch();
            this.topUp();
          },
          onLease: (thread, { hold, requestId }) => {
            if (!leases) return;
            let held = this.held.get(thread);
            if (!held) this.held.set(thread, (held = new Map()));
            const n = (held.get(requestId) ?? 0) + (hold ? 1 : -1);
            if (n > 0) held.set(requestId, n);
            else held.delete(requestId);
            if (hold) leases.hold(requestId);
            else leases.release(requestId);
          },
          onExit: (thread, wasReady) => {
            this.threads.delete(thread);
            const last = this.lastMetrics.get(thread);
            if (last) this.retired.push(last);
            this.lastMetrics.delete(thread);
            // its runs' leases lapse: the sweeper resumes them
            for (const [requestId, n] of this.held.get(thread) ?? [])
              for (let i = 0; i < n; i++) leases?.release(requestId);
            this.held.delete(thread);
            if (wasReady) return this.spawn();
            // a thread that could not even start (a broken install): retry with a growing delay
            const delay = Math.min(30_000, 250 * 2 ** this.failedStarts++);
            this.retrying++;
            setTimeout(() => {
              this.retrying--;
              this.spawn();
            }, delay).unref();
          },
        }),
      );
    };
    // One thread more than run at once: when a thread is stopped, the spare is already up and the
    // replacement starts beside it, so the next call never waits for a thread to load the library.
    this.restAllowed = !staggered;
    for (let i = 0; i < (staggered ? 1 : settings.threads + SPARE_THREADS); i++) this.spawn();
    this.watchdog = setInterval(() => this.watch(), Math.min(100, settings.graceMs));
    this.watchdog.unref();
    process.on('exit', this.haltOnExit);
  }

  /** A staggered pool's other threads start, one at a time (the server listens: docs/server.md "Isolation"). */
  startRest(): void {
    this.restAllowed = true;
    this.topUp();
  }

  /** Starts one more thread while the pool has fewer than it keeps and none is starting. */
  private topUp(): void {
    if (this.closed || !this.restAllowed) return;
    if (this.threads.size + this.retrying >= this.settings.threads + SPARE_THREADS) return;
    for (const t of this.threads) if (!t.ready) return;
    this.spawn();
  }

  /** Runs `task` for `account` when a thread is free for it; the worker's reply. */
  run(account: string, task: TaskRequest, onProgress?: (p: Progress) => void): Promise<EvaluationReply> {
    const arrived = performance.now();
    const surface = surfaceOf(task);
    const refused = (e: EvaluationStopped) => {
      this.observe(surface, e.code, arrived);
      return Promise.reject(e);
    };
    if (this.closed) return refused(new EvaluationStopped(503, 'unavailable', 'The server is stopping.', 1));
    let queue = this.queues.get(account);
    if (!queue) this.queues.set(account, (queue = []));
    if (queue.length >= this.settings.accountQueue && this.full(account))
      return refused(
        new EvaluationStopped(
          429,
          'too-many-evaluations',
          `Too many evaluations of the account ${account} at once (${this.runningOf(account)} running, ` +
            `${this.settings.accountQueue} waiting): try again shortly.`,
          1,
        ),
      );
    return new Promise<EvaluationReply>((resolve, reject) => {
      queue.push({
        account,
        cell: currentCell(),
        task,
        trace: tracing?.carry(),
        onProgress,
        resolve: (reply) => {
          this.observe(surface, outcomeOf(reply), arrived);
          resolve(reply);
        },
        reject: (e) => {
          this.observe(surface, e instanceof EvaluationStopped ? e.code : 'internal', arrived);
          reject(e);
        },
        queuedAt: Date.now(),
      });
      this.dispatch();
    });
  }

  /** `flowmark_evaluation_duration_seconds`, by a child per label pair (labels() hashes them on each call). */
  private observe(surface: string, outcome: string, arrived: number): void {
    const key = `${surface} ${outcome}`;
    let child = this.durations.get(key);
    if (!child) this.durations.set(key, (child = evaluations.labels(surface, outcome)));
    child.observe((performance.now() - arrived) / 1000);
  }

  /**
   * The metrics of every thread (prom-client's JSON), those of threads that ended included (as
   * last gathered): a thread busy with CPU-bound work past `timeoutMs` counts as last gathered.
   */
  async threadMetrics(timeoutMs = 500): Promise<unknown[][]> {
    const threads = [...this.threads];
    const answers = await Promise.all(threads.map((t) => t.metrics(timeoutMs)));
    threads.forEach((t, i) => {
      const answer = answers[i];
      if (answer && this.threads.has(t)) this.lastMetrics.set(t, answer);
    });
    if (this.retired.length > 1)
      this.retired = [await AggregatorRegistry.aggregate(this.retired as never).getMetricsAsJSON()];
    return [...this.retired, ...this.lastMetrics.values()];
  }

  /** Tasks running and waiting, for tests and the logs. */
  get load(): { running: number; waiting: number; threads: number; failedStarts: number } {
    let waiting = 0;
    for (const q of this.queues.values()) waiting += q.length;
    let running = 0;
    for (const l of this.leased.values()) running += l.tasks.size;
    let ready = 0;
    for (const t of this.threads) if (t.ready) ready++;
    return { running, waiting, threads: ready, failedStarts: this.failedStarts };
  }

  async close(): Promise<void> {
    this.closed = true;
    process.off('exit', this.haltOnExit);
    clearInterval(this.watchdog);
    for (const queue of this.queues.values())
      for (const w of queue.splice(0))
        w.reject(new EvaluationStopped(503, 'unavailable', 'The server is stopping.', 1));
    await Promise.all([...this.threads].map((t) => t.stop()));
  }

  /** Starts waiting tasks while threads have room, taking the accounts in turn. */
  private dispatch(): void {
    for (;;) {
      const next = this.nextWaiting();
      if (!next) return;
      this.start(next.waiting, next.thread);
    }
  }

  /** Tasks of `account` running now. */
  private runningOf(account: string): number {
    let n = 0;
    for (const l of this.leased.values()) if (l.account === account) n += l.tasks.size;
    return n;
  }

  /** `account` holds all the threads it may, each running all the tasks it may. */
  private full(account: string): boolean {
    let threads = 0;
    for (const l of this.leased.values()) {
      if (l.account !== account) continue;
      if (l.tasks.size < this.settings.threadTasks) return false;
      threads++;
    }
    return threads >= this.settings.accountThreads;
  }

  /** A thread with room for a task of `account`: one it holds, else a free one it may take. */
  private threadFor(account: string): EvaluationThread | undefined {
    let held = 0;
    for (const [thread, l] of this.leased) {
      if (l.account !== account) continue;
      if (thread.ready && l.tasks.size < this.settings.threadTasks) return thread;
      held++;
    }
    if (held >= this.settings.accountThreads || this.leased.size >= this.settings.threads) return undefined;
    for (const t of this.threads) if (t.ready && !this.leased.has(t)) return t;
    return undefined;
  }

  private nextWaiting(): { waiting: Waiting; thread: EvaluationThread } | undefined {
    for (const [account, queue] of this.queues) {
      if (queue.length === 0) {
        this.queues.delete(account);
        continue;
      }
      const thread = this.threadFor(account);
      if (!thread) continue;
      const waiting = queue.shift()!;
      // this account goes to the back of the turn
      this.queues.delete(account);
      if (queue.length) this.queues.set(account, queue);
      return { waiting, thread };
    }
    return undefined;
  }

  private start(waiting: Waiting, thread: EvaluationThread): void {
    let lease = this.leased.get(thread);
    if (!lease)
      this.leased.set(thread, (lease = { account: waiting.account, tasks: new Map(), freed: [], slots: 0 }));
    const held = lease;
    const slot = held.freed.pop() ?? held.slots++;
    const respondBy = answersAtOnce(waiting.task) ? waiting.queuedAt + this.settings.wallTimeMs : undefined;
    const settle = () => {
      held.tasks.delete(slot);
      held.freed.push(slot);
      if (held.tasks.size === 0 && this.leased.get(thread) === held) this.leased.delete(thread);
      this.dispatch();
    };
    const running: Running = {
      thread,
      slot,
      startedAt: Date.now(),
      respondBy,
      onProgress: waiting.onProgress,
      resolve: (reply) => {
        settle();
        waiting.resolve(reply);
      },
      reject: (end) => {
        settle();
        waiting.reject(running.stopped ?? stoppedBy(end, this.settings, held.account));
      },
    };
    held.tasks.set(slot, running);
    thread.run(waiting.task, slot, respondBy, waiting.trace, waiting.cell, running);
  }

  private watch(): void {
    const now = Date.now();
    for (const [thread, lease] of this.leased) {
      let overdue: Running | undefined;
      for (const r of lease.tasks.values()) {
        if (r.stopped) continue;
        const published = thread.deadlines[r.slot]! || r.startedAt + this.settings.wallTimeMs;
        const deadline = r.respondBy === undefined ? published : Math.min(published, r.respondBy);
        if (now > deadline + this.settings.graceMs) overdue = r;
      }
      if (!overdue) continue;
      // A task past its deadline by the grace has outrun its own checks: only stopping its
      // thread ends it, and with it the account's other tasks there.
      for (const r of lease.tasks.values())
        r.stopped ??=
          r === overdue
            ? new EvaluationStopped(
                422,
                'time-limit',
                `The evaluation exceeded its time limit of ${seconds(this.settings.wallTimeMs)} and was stopped.`,
              )
            : new EvaluationStopped(
                503,
                'unavailable',
                `The evaluation was stopped with another evaluation of the account ${lease.account} that ` +
                  'outran its time limit on the same thread: try again.',
                1,
              );
      this.leased.delete(thread);
      void thread.stop();
    }
    for (const [account, queue] of this.queues)
      while (queue.length && now - queue[0]!.queuedAt > this.settings.wallTimeMs)
        queue
          .shift()!
          .reject(
            new EvaluationStopped(
              429,
              'too-many-evaluations',
              `The account ${account}'s evaluations waited ${seconds(this.settings.wallTimeMs)} for a thread: try again shortly.`,
              1,
            ),
          );
  }
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** The error a task's thread ending becomes. */
function stoppedBy(end: ThreadEnd, settings: PoolSettings, account: string): EvaluationStopped {
  if (end.reason === 'out-of-memory')
    return new EvaluationStopped(
      413,
      'too-large',
      settings.threadTasks === 1
        ? `The evaluation ran out of memory (an evaluation's heap is ${settings.heapMb} MiB) and was stopped.`
        : `The evaluation ran out of memory (the heap of the account ${account}'s evaluations on one thread ` +
            `is ${settings.heapMb} MiB) and was stopped.`,
    );
  const why = end.reason === 'crashed' && end.error instanceof Error ? end.error.message : end.reason;
  return new EvaluationStopped(500, 'internal', `The evaluation's thread ended: ${why}`);
}
