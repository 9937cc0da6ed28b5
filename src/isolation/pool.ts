/**
 * The evaluation pool (docs/server.md "Isolation"): the worker threads that run every evaluation
 * of a server process, so the HTTP thread only authenticates, routes and relays.
 *
 * - Threads come from Piscina, each with a bounded heap (`resourceLimits`) and one task at a time;
 *   a thread that dies (out of heap, or stopped) is replaced at once, the others go on.
 * - Fair between accounts: one account holds at most `accountThreads` threads; its further tasks
 *   wait in its own queue (at most `accountQueue`, then 429), and a free thread goes to the
 *   accounts in turn.
 * - A watchdog reads each running task's deadline (published by the worker whenever an
 *   evaluation starts) and aborts the task once it is `graceMs` past: Piscina terminates its
 *   thread, so CPU-bound code cannot outrun its deadline, and the caller gets the time-limit error.
 */
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { Piscina } from 'piscina';
import {
  DEADLINE,
  deadlineSlot,
  type EvaluationReply,
  type EvaluationTask,
  type TaskRequest,
} from './protocol.js';
import type { WorkerSettings } from './worker.js';

const SPARE_THREADS = 1;
const EVALUATION_NICE = 5;

export interface PoolSettings {
  /** Evaluation threads of this process. */
  threads: number;
  /** Each thread's heap (old generation), in MiB. */
  heapMb: number;
  /** Threads one account may hold at once. */
  accountThreads: number;
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
  'task',
  'resumeRequest',
  'cancelRequest',
]);

/** A task answering its caller with one evaluation: the time it waits for a thread counts against its wall time. */
function answersAtOnce(task: TaskRequest): boolean {
  return task.kind === 'collections' || (task.kind === 'host' && !PROCESS_METHODS.has(task.method));
}

interface Waiting {
  account: string;
  task: TaskRequest;
  resolve(reply: EvaluationReply): void;
  reject(error: unknown): void;
  queuedAt: number;
}

interface Running {
  account: string;
  slot: Float64Array;
  startedAt: number;
  respondBy: number | undefined;
  abort: AbortController;
  stopped?: EvaluationStopped;
}

/** The built worker program (dist/isolation/worker.js), also when this module runs from src/ under a test runner. */
export function workerFile(): string {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.js')) return fileURLToPath(new URL('./worker.js', import.meta.url));
  const built = fileURLToPath(new URL('../../dist/isolation/worker.js', import.meta.url));
  if (!existsSync(built)) throw new Error(`the evaluation worker is not built (${built}): run npm run build`);
  return built;
}

export class EvaluationPool {
  private readonly piscina: Piscina<EvaluationTask, EvaluationReply>;
  private readonly queues = new Map<string, Waiting[]>();
  private readonly busy = new Map<string, number>();
  private readonly running = new Set<Running>();
  private active = 0;
  private ready = 0;
  private closed = false;
  private readonly watchdog: NodeJS.Timeout;

  constructor(
    readonly settings: PoolSettings,
    workerSettings: WorkerSettings,
    /** The worker program (default: flowmark's, src/isolation/worker.ts built). */
    filename: string = workerFile(),
  ) {
    // One thread more than run at once: when a thread is stopped, the spare is already up and the
    // replacement starts beside it, so the next call never waits for a thread to load the library.
    this.piscina = new Piscina({
      filename,
      minThreads: settings.threads + SPARE_THREADS,
      maxThreads: settings.threads + SPARE_THREADS,
      concurrentTasksPerWorker: 1,
      idleTimeout: Number.MAX_SAFE_INTEGER,
      resourceLimits: { maxOldGenerationSizeMb: settings.heapMb },
      workerData: workerSettings,
      // the heap-limit flags of the server process are not the thread's
      execArgv: [],
      // evaluations yield the CPU to the HTTP thread (Linux; a no-op where unsupported)
      niceIncrement: EVALUATION_NICE,
    });
    // Only threads that have loaded the library take tasks (a replacement counts once it is ready).
    this.piscina.on('workerCreate', () => {
      this.ready++;
      this.dispatch();
    });
    this.piscina.on('workerDestroy', () => this.ready--);
    this.watchdog = setInterval(() => this.watch(), Math.min(100, settings.graceMs));
    this.watchdog.unref();
  }

  /** Runs `task` for `account` when a thread is free for it; the worker's reply. */
  run(account: string, task: TaskRequest): Promise<EvaluationReply> {
    if (this.closed)
      return Promise.reject(new EvaluationStopped(503, 'unavailable', 'The server is stopping.', 1));
    let queue = this.queues.get(account);
    if (!queue) this.queues.set(account, (queue = []));
    if (
      queue.length >= this.settings.accountQueue &&
      (this.busy.get(account) ?? 0) >= this.settings.accountThreads
    )
      return Promise.reject(
        new EvaluationStopped(
          429,
          'too-many-evaluations',
          `Too many evaluations of the account ${account} at once (${this.settings.accountThreads} running, ` +
            `${this.settings.accountQueue} waiting): try again shortly.`,
          1,
        ),
      );
    return new Promise((resolve, reject) => {
      queue.push({ account, task, resolve, reject, queuedAt: Date.now() });
      this.dispatch();
    });
  }

  /** Tasks running and waiting, for tests and the logs. */
  get load(): { running: number; waiting: number; threads: number } {
    let waiting = 0;
    for (const q of this.queues.values()) waiting += q.length;
    return { running: this.active, waiting, threads: this.ready };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.watchdog);
    for (const queue of this.queues.values())
      for (const w of queue.splice(0))
        w.reject(new EvaluationStopped(503, 'unavailable', 'The server is stopping.', 1));
    await this.piscina.close();
  }

  /** Starts waiting tasks while threads are free, taking the accounts in turn. */
  private dispatch(): void {
    while (this.active < Math.min(this.settings.threads, this.ready)) {
      const next = this.nextWaiting();
      if (!next) return;
      this.start(next);
    }
  }

  private nextWaiting(): Waiting | undefined {
    for (const [account, queue] of this.queues) {
      if (queue.length === 0) {
        this.queues.delete(account);
        continue;
      }
      if ((this.busy.get(account) ?? 0) >= this.settings.accountThreads) continue;
      const waiting = queue.shift()!;
      // this account goes to the back of the turn
      this.queues.delete(account);
      if (queue.length) this.queues.set(account, queue);
      return waiting;
    }
    return undefined;
  }

  private start(waiting: Waiting): void {
    const { buffer, view } = deadlineSlot();
    const respondBy = answersAtOnce(waiting.task) ? waiting.queuedAt + this.settings.wallTimeMs : undefined;
    const running: Running = {
      account: waiting.account,
      slot: view,
      startedAt: Date.now(),
      respondBy,
      abort: new AbortController(),
    };
    this.running.add(running);
    this.active++;
    this.busy.set(waiting.account, (this.busy.get(waiting.account) ?? 0) + 1);
    const task: EvaluationTask = {
      ...waiting.task,
      deadline: buffer,
      ...(respondBy !== undefined ? { respondBy } : {}),
    };
    this.piscina
      .run(task, { signal: running.abort.signal })
      .then(waiting.resolve, (e: unknown) => waiting.reject(running.stopped ?? stoppedBy(e, this.settings)))
      .finally(() => {
        this.running.delete(running);
        this.active--;
        const n = (this.busy.get(waiting.account) ?? 1) - 1;
        if (n) this.busy.set(waiting.account, n);
        else this.busy.delete(waiting.account);
        this.dispatch();
      });
  }

  private watch(): void {
    const now = Date.now();
    for (const r of this.running) {
      if (r.stopped) continue;
      const published = r.slot[DEADLINE]! || r.startedAt + this.settings.wallTimeMs;
      const deadline = r.respondBy === undefined ? published : Math.min(published, r.respondBy);
      if (now > deadline + this.settings.graceMs) {
        r.stopped = new EvaluationStopped(
          422,
          'time-limit',
          `The evaluation exceeded its time limit of ${seconds(this.settings.wallTimeMs)} and was stopped.`,
        );
        r.abort.abort();
      }
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

/** The error a task's thread failure becomes. */
function stoppedBy(e: unknown, settings: PoolSettings): EvaluationStopped {
  const code = (e as { code?: unknown })?.code;
  if (code === 'ERR_WORKER_OUT_OF_MEMORY')
    return new EvaluationStopped(
      413,
      'too-large',
      `The evaluation ran out of memory (an evaluation's heap is ${settings.heapMb} MiB) and was stopped.`,
    );
  return new EvaluationStopped(
    500,
    'internal',
    `The evaluation's worker failed: ${e instanceof Error ? e.message : String(e)}`,
  );
}
