/**
 * One evaluation thread as the pool sees it: a worker thread (thread-main.ts) with a bounded heap
 * that runs one task at a time, can be terminated at any instruction, and reports its end. A task
 * in flight when the thread ends is rejected with the reason: stopped by the pool, out of heap, or
 * crashed.
 */
import { Worker } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import {
  DEADLINE,
  deadlineSlot,
  type EvaluationReply,
  type EvaluationTask,
  type Progress,
} from './protocol.js';
import type { ThreadData, ThreadMessage } from './thread-main.js';

export interface ThreadOptions {
  /** The built thread program (thread-main.js). */
  main: string;
  /** The handler module run inside it. */
  handler: string;
  settings: unknown;
  heapMb: number;
  nice: number;
  onReady(thread: EvaluationThread): void;
  /** `wasReady`: it had loaded its handler (else it died starting). */
  onExit(thread: EvaluationThread, wasReady: boolean): void;
}

/** Why a thread ended under a task. */
export type ThreadEnd =
  { reason: 'stopped' } | { reason: 'out-of-memory' } | { reason: 'crashed'; error: unknown };

export class EvaluationThread {
  private readonly worker: Worker;
  private current:
    | {
        id: number;
        resolve(r: EvaluationReply): void;
        reject(e: ThreadEnd): void;
        onProgress: ((p: Progress) => void) | undefined;
      }
    | undefined;
  private nextId = 0;
  private ended: ThreadEnd | undefined;
  ready = false;
  private started = false;
  /** Where the thread publishes the deadline of the evaluation it runs (protocol.ts: DEADLINE). */
  readonly deadline: Float64Array;

  constructor(private readonly options: ThreadOptions) {
    const slot = deadlineSlot();
    this.deadline = slot.view;
    const data: ThreadData = {
      handler: pathToFileURL(options.handler).href,
      nice: options.nice,
      settings: options.settings,
      deadline: slot.buffer,
    };
    this.worker = new Worker(options.main, {
      workerData: data,
      resourceLimits: { maxOldGenerationSizeMb: options.heapMb },
      // the heap flags of the server process are not the thread's
      execArgv: [],
    });
    this.worker.on('message', (m: ThreadMessage) => {
      if (m.type === 'ready') {
        this.ready = this.started = true;
        options.onReady(this);
      } else if (m.type === 'progress') {
        if (this.current?.id === m.id) this.current.onProgress?.(m.progress);
      } else if (this.current?.id === m.id) {
        const { resolve } = this.current;
        this.current = undefined;
        resolve(m.reply);
      }
    });
    this.worker.on('error', (error) => {
      this.ended ??=
        (error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? { reason: 'out-of-memory' }
          : { reason: 'crashed', error };
    });
    this.worker.on('exit', () => {
      const wasReady = this.started;
      this.ready = false;
      const current = this.current;
      this.current = undefined;
      current?.reject(this.ended ?? { reason: 'crashed', error: new Error('the thread exited') });
      options.onExit(this, wasReady);
    });
  }

  get busy(): boolean {
    return this.current !== undefined;
  }

  /** Runs one task (the thread must be ready and idle). */
  run(task: EvaluationTask, onProgress?: (p: Progress) => void): Promise<EvaluationReply> {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.current = { id, resolve, reject, onProgress };
      this.deadline[DEADLINE] = 0;
      this.worker.postMessage({ id, task });
    });
  }

  /** Ends the thread wherever it is; a task in flight is rejected with `stopped` at once. */
  stop(): Promise<number> {
    this.ended ??= { reason: 'stopped' };
    this.ready = false;
    const current = this.current;
    this.current = undefined;
    current?.reject(this.ended);
    return this.worker.terminate();
  }
}
