/**
 * The evaluation pool (docs/server.md "Isolation"): the worker threads that run every evaluation
 * of a server process, so the HTTP thread only authenticates, routes and relays.
 *
 * - Each thread (thread.ts) has a bounded heap (`resourceLimits`) and runs one task at a time; a
 *   thread that ends (out of heap, stopped, crashed) is replaced at once, the others go on, and a
 *   spare thread is up so the next task does not wait for a replacement to load the library.
 * - Fair between accounts: one account holds at most `accountThreads` threads; its further tasks
 *   wait in its own queue (at most `accountQueue`, then 429), and a free thread goes to the
 *   accounts in turn.
 * - A watchdog reads each running task's deadline (published by the worker whenever an
 *   evaluation starts) and terminates the task's thread once it is `graceMs` past, so CPU-bound
 *   code cannot outrun its deadline, and the caller gets the time-limit error.
 */
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import {
  DEADLINE,
  type EvaluationReply,
  type EvaluationTask,
  type Progress,
  type TaskRequest,
} from './protocol.js';
import { EvaluationThread, type ThreadEnd } from './thread.js';
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
  onProgress: ((p: Progress) => void) | undefined;
  resolve(reply: EvaluationReply): void;
  reject(error: unknown): void;
  queuedAt: number;
}

interface Running {
  account: string;
  thread: EvaluationThread;
  slot: Float64Array;
  startedAt: number;
  respondBy: number | undefined;
  stopped?: EvaluationStopped;
}

/** A built module of this folder (dist/isolation/NAME.js), also when this module runs from src/ under a test runner. */
function builtFile(name: string): string {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.js')) return fileURLToPath(new URL(`./${name}.js`, import.meta.url));
  const built = fileURLToPath(new URL(`../../dist/isolation/${name}.js`, import.meta.url));
  if (!existsSync(built)) throw new Error(`the evaluation worker is not built (${built}): run npm run build`);
  return built;
}

/** The evaluation worker's handler (worker.ts, built). */
export const workerFile = (): string => builtFile('worker');

export class EvaluationPool {
  private readonly threads = new Set<EvaluationThread>();
  private readonly queues = new Map<string, Waiting[]>();
  private readonly running = new Map<EvaluationThread, Running>();
  private closed = false;
  private failedStarts = 0;
  private readonly watchdog: NodeJS.Timeout;
  private readonly spawn: () => void;

  constructor(
    readonly settings: PoolSettings,
    workerSettings: WorkerSettings,
    /** The handler module (default: flowmark's, src/isolation/worker.ts built). */
    handler: string = workerFile(),
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
          nice: EVALUATION_NICE,
          onReady: () => {
            this.failedStarts = 0;
            this.dispatch();
          },
          onExit: (thread, wasReady) => {
            this.threads.delete(thread);
            if (wasReady) return this.spawn();
            // a thread that could not even start (a broken install): retry with a growing delay
            const delay = Math.min(30_000, 250 * 2 ** this.failedStarts++);
            setTimeout(this.spawn, delay).unref();
          },
        }),
      );
    };
    // One thread more than run at once: when a thread is stopped, the spare is already up and the
    // replacement starts beside it, so the next call never waits for a thread to load the library.
    for (let i = 0; i < settings.threads + SPARE_THREADS; i++) this.spawn();
    this.watchdog = setInterval(() => this.watch(), Math.min(100, settings.graceMs));
    this.watchdog.unref();
  }

  /** Runs `task` for `account` when a thread is free for it; the worker's reply. */
  run(account: string, task: TaskRequest, onProgress?: (p: Progress) => void): Promise<EvaluationReply> {
    if (this.closed)
      return Promise.reject(new EvaluationStopped(503, 'unavailable', 'The server is stopping.', 1));
    let queue = this.queues.get(account);
    if (!queue) this.queues.set(account, (queue = []));
    if (queue.length >= this.settings.accountQueue && this.runningOf(account) >= this.settings.accountThreads)
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
      queue.push({ account, task, onProgress, resolve, reject, queuedAt: Date.now() });
      this.dispatch();
    });
  }

  /** Tasks running and waiting, for tests and the logs. */
  get load(): { running: number; waiting: number; threads: number; failedStarts: number } {
    let waiting = 0;
    for (const q of this.queues.values()) waiting += q.length;
    let ready = 0;
    for (const t of this.threads) if (t.ready) ready++;
    return { running: this.running.size, waiting, threads: ready, failedStarts: this.failedStarts };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.watchdog);
    for (const queue of this.queues.values())
      for (const w of queue.splice(0))
        w.reject(new EvaluationStopped(503, 'unavailable', 'The server is stopping.', 1));
    await Promise.all([...this.threads].map((t) => t.stop()));
  }

  /** Starts waiting tasks while threads are free, taking the accounts in turn. */
  private dispatch(): void {
    while (this.running.size < this.settings.threads) {
      const thread = this.idleThread();
      if (!thread) return;
      const next = this.nextWaiting();
      if (!next) return;
      this.start(next, thread);
    }
  }

  /** Tasks of `account` running now (at most the thread count: counted, not kept). */
  private runningOf(account: string): number {
    let n = 0;
    for (const r of this.running.values()) if (r.account === account) n++;
    return n;
  }

  private idleThread(): EvaluationThread | undefined {
    for (const t of this.threads) if (t.ready && !t.busy) return t;
    return undefined;
  }

  private nextWaiting(): Waiting | undefined {
    for (const [account, queue] of this.queues) {
      if (queue.length === 0) {
        this.queues.delete(account);
        continue;
      }
      if (this.runningOf(account) >= this.settings.accountThreads) continue;
      const waiting = queue.shift()!;
      // this account goes to the back of the turn
      this.queues.delete(account);
      if (queue.length) this.queues.set(account, queue);
      return waiting;
    }
    return undefined;
  }

  private start(waiting: Waiting, thread: EvaluationThread): void {
    const respondBy = answersAtOnce(waiting.task) ? waiting.queuedAt + this.settings.wallTimeMs : undefined;
    const running: Running = {
      account: waiting.account,
      thread,
      slot: thread.deadline,
      startedAt: Date.now(),
      respondBy,
    };
    this.running.set(thread, running);
    const task: EvaluationTask = {
      ...waiting.task,
      ...(respondBy !== undefined ? { respondBy } : {}),
    };
    const settle = () => {
      this.running.delete(thread);
      this.dispatch();
    };
    thread.run(task, waiting.onProgress).then(
      (reply) => {
        settle();
        waiting.resolve(reply);
      },
      (end: ThreadEnd) => {
        settle();
        waiting.reject(running.stopped ?? stoppedBy(end, this.settings));
      },
    );
  }

  private watch(): void {
    const now = Date.now();
    for (const r of this.running.values()) {
      if (r.stopped) continue;
      const published = r.slot[DEADLINE]! || r.startedAt + this.settings.wallTimeMs;
      const deadline = r.respondBy === undefined ? published : Math.min(published, r.respondBy);
      if (now > deadline + this.settings.graceMs) {
        r.stopped = new EvaluationStopped(
          422,
          'time-limit',
          `The evaluation exceeded its time limit of ${seconds(this.settings.wallTimeMs)} and was stopped.`,
        );
        void r.thread.stop();
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

/** The error a task's thread ending becomes. */
function stoppedBy(end: ThreadEnd, settings: PoolSettings): EvaluationStopped {
  if (end.reason === 'out-of-memory')
    return new EvaluationStopped(
      413,
      'too-large',
      `The evaluation ran out of memory (an evaluation's heap is ${settings.heapMb} MiB) and was stopped.`,
    );
  const why = end.reason === 'crashed' && end.error instanceof Error ? end.error.message : end.reason;
  return new EvaluationStopped(500, 'internal', `The evaluation's thread ended: ${why}`);
}
