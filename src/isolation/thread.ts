/**
 * One evaluation thread as the pool sees it: a worker thread (thread-main.ts) with a bounded heap
 * that runs up to `tasks` tasks at once (they interleave where they wait: the store, a lock, an
 * HTTP call), can be terminated at any instruction, and reports its end. The tasks in flight when
 * the thread ends are rejected with the reason: stopped by the pool, out of heap, or crashed.
 */
import { Worker } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { Outbox } from './outbox.js';
import { deadlineSlots, type EvaluationReply, type Progress, type TaskRequest } from './protocol.js';
import type { LeaseNotice, PoolMessage, ThreadData, ThreadMessage } from './thread-main.js';
import type { TraceCarrier } from '../traces/hooks.js';
import { propertyOf } from '../safety/narrow.js';
import type { SpanRecord } from '../traces/hooks.js';

export interface ThreadOptions {
  /** The built thread program (thread-main.js). */
  main: string;
  /** The handler module run inside it. */
  handler: string;
  settings: unknown;
  heapMb: number;
  /** Tasks it runs at once. */
  tasks: number;
  nice: number;
  /** The thread records spans (docs/deploy.md "Traces"), each sent to `onSpan` as it ends. */
  traces?: boolean;
  onSpan?(span: SpanRecord): void;
  onReady(thread: EvaluationThread): void;
  /** The thread holds a lease on a process run from now, or no longer. */
  onLease?(thread: EvaluationThread, notice: LeaseNotice): void;
  /** `wasReady`: it had loaded its handler (else it died starting). */
  onExit(thread: EvaluationThread, wasReady: boolean): void;
}

/** Why a thread ended under a task. */
export type ThreadEnd =
  { reason: 'stopped' } | { reason: 'out-of-memory' } | { reason: 'crashed'; error: unknown };

/** Where a task's end goes: its reply, or the thread's end under it; and its progress as it runs. */
export interface TaskCallbacks {
  resolve(r: EvaluationReply): void;
  reject(e: ThreadEnd): void;
  onProgress: ((p: Progress) => void) | undefined;
}

export class EvaluationThread {
  private readonly worker: Worker;
  private readonly outbox: Outbox<PoolMessage>;
  private readonly inFlight = new Map<number, TaskCallbacks>();
  private nextId = 0;
  private readonly metricsAsked = new Map<number, (metrics: unknown[]) => void>();
  private ended: ThreadEnd | undefined;
  ready = false;
  private started = false;
  /** Where the thread publishes each task's deadline, by the task's slot (protocol.ts: deadlineSlots). */
  readonly deadlines: Float64Array;

  constructor(private readonly options: ThreadOptions) {
    const slot = deadlineSlots(options.tasks);
    this.deadlines = slot.view;
    const data: ThreadData = {
      handler: pathToFileURL(options.handler).href,
      nice: options.nice,
      settings: options.settings,
      deadlines: slot.buffer,
      traces: options.traces ?? false,
    };
    this.worker = new Worker(options.main, {
      workerData: data,
      resourceLimits: { maxOldGenerationSizeMb: options.heapMb },
      // the heap flags of the server process are not the thread's
      execArgv: [],
    });
    this.worker.on('message', (batch: ThreadMessage[]) => {
      for (const m of batch) this.receive(m);
    });
    this.outbox = new Outbox<PoolMessage>((batch) => this.worker.postMessage(batch));
    this.worker.on('error', (error) => {
      this.ended ??=
        propertyOf(error, 'code') === 'ERR_WORKER_OUT_OF_MEMORY'
          ? { reason: 'out-of-memory' }
          : { reason: 'crashed', error };
    });
    this.worker.on('exit', () => {
      const wasReady = this.started;
      this.ready = false;
      this.rejectAll(this.ended ?? { reason: 'crashed', error: new Error('the thread exited') });
      options.onExit(this, wasReady);
    });
  }

  private receive(m: ThreadMessage): void {
    if (Array.isArray(m)) {
      const task = this.inFlight.get(m[0]);
      this.inFlight.delete(m[0]);
      task?.resolve(m[1] === 1 ? { ok: true, value: m[2], allocated: m[3] } : { ok: false, error: m[2] });
    } else if (m.type === 'ready') {
      this.ready = this.started = true;
      this.options.onReady(this);
    } else if (m.type === 'lease') {
      this.options.onLease?.(this, { hold: m.hold, requestId: m.requestId });
    } else if (m.type === 'metrics') {
      this.metricsAsked.get(m.id)?.(m.metrics);
      this.metricsAsked.delete(m.id);
    } else if (m.type === 'span') {
      this.options.onSpan?.(m.span);
    } else {
      this.inFlight.get(m.id)?.onProgress?.(m.progress);
    }
  }

  /** Tasks in flight. */
  get active(): number {
    return this.inFlight.size;
  }

  /**
   * Runs a task (the thread must be ready; `slot` free among its deadline slots): its end goes to
   * `callbacks` (no promise of its own: the pool's record of the task takes it).
   */
  run(
    request: TaskRequest,
    slot: number,
    respondBy: number | undefined,
    trace: TraceCarrier | undefined,
    cell: string | undefined,
    callbacks: TaskCallbacks,
  ): void {
    const id = this.nextId++;
    this.inFlight.set(id, callbacks);
    this.deadlines[slot] = 0;
    this.outbox.send(
      request.kind === 'host'
        ? [id, 'host', request.method, request.args, slot, respondBy, trace, cell]
        : [id, 'collections', request.method, request.args, slot, respondBy, trace, cell],
    );
  }

  /**
   * The thread's metrics (prom-client's JSON); undefined when it does not answer within
   * `timeoutMs` (busy with CPU-bound work) or ends meanwhile.
   */
  metrics(timeoutMs: number): Promise<unknown[] | undefined> {
    if (this.ended || !this.started) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const id = this.nextId++;
      const timer = setTimeout(() => {
        this.metricsAsked.delete(id);
        resolve(undefined);
      }, timeoutMs);
      timer.unref();
      this.metricsAsked.set(id, (metrics) => {
        clearTimeout(timer);
        resolve(metrics);
      });
      this.outbox.send({ metrics: id });
    });
  }

  /** Ends the thread wherever it is; the tasks in flight are rejected with `stopped` at once. */
  stop(): Promise<number> {
    this.ended ??= { reason: 'stopped' };
    this.ready = false;
    this.rejectAll(this.ended);
    return this.worker.terminate();
  }

  private rejectAll(end: ThreadEnd): void {
    const tasks = [...this.inFlight.values()];
    this.inFlight.clear();
    for (const t of tasks) t.reject(end);
  }
}
