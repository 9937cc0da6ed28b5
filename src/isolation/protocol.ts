/**
 * The messages between the HTTP thread and an evaluation worker (docs/server.md "Isolation"): one
 * typed record per task and per reply, shared by both sides. Values cross by structured clone,
 * which keeps plain data, Dates, Maps and typed arrays but turns a Buffer into a Uint8Array: the
 * bodies that may be Buffers are re-wrapped on arrival (`asBuffer`).
 */
import type { ErrorBody } from '../server/errors.js';
import type { TraceCarrier } from '../traces/hooks.js';

/** The host methods an evaluation worker serves (src/server/hosts.ts: ServerHosts). */
export type HostMethod =
  | 'evaluate'
  | 'composite'
  | 'webInterface'
  | 'task'
  | 'startRequest'
  | 'sendMessage'
  | 'describeRequest'
  | 'resumeRequest'
  | 'cancelRequest'
  /** The sweeper's work (hosts/processes/sweeper.ts), claimed on the HTTP thread, run here. */
  | 'recoverRun'
  | 'fireTimer'
  | 'fireSchedule'
  | 'fireCollectionEvent';

/** What the HTTP thread asks of the pool. */
export type TaskRequest =
  /** A host's method with its arguments. */
  | { kind: 'host'; method: HostMethod; args: unknown[] }
  /** A method of the collection service (the REST routes that query, update, aggregate). */
  | { kind: 'collections'; method: string; args: unknown[] };

/**
 * A task as a worker receives it: the request, the index of its deadline in the thread's shared
 * slots (`deadlineSlots`), and — for a task that answers an HTTP caller at once — the time by
 * which it must answer (its arrival plus the evaluation's wall time: the time it waited for a
 * thread counts).
 */
export type EvaluationTask = TaskRequest & {
  slot: number;
  respondBy?: number;
  /** The span that sent it (W3C trace context), when tracing is on: the task's spans are its children. */
  trace?: TraceCarrier;
  /** The cell the task runs in (docs/deploy.md "Cells"): the caller's, when the store has cells. */
  cell?: string;
};

/** What a task may tell while it runs (an import's progress), before its reply. */
export type Progress = Record<string, unknown>;

/** Stands for a progress callback of a collection call: the worker puts one that reports to the pool. */
export const PROGRESS_ARGUMENT = '\u0000progress';

export type EvaluationReply =
  | {
      ok: true;
      value: unknown;
      /** Bytes the task's budget charged (collection tasks). */ allocated?: number;
    }
  | { ok: false; error: RelayedErrorBody };

/** An error as the API answers it, computed where it was raised. */
export interface RelayedErrorBody {
  body: ErrorBody;
  /** The server's fault: the HTTP thread logs `detail` and shows the client only `Internal server error.` */
  internal: boolean;
  retryAfter?: number;
  /** The original error's name, message and stack, for the log. */
  detail?: string;
}

/** A Buffer again, when structured clone turned it into a Uint8Array. */
export function asBuffer<T>(value: T): T | Buffer {
  return value instanceof Uint8Array && !Buffer.isBuffer(value)
    ? Buffer.from(value.buffer, value.byteOffset, value.byteLength)
    : value;
}

/** Stands for the budget of a collection call: the worker puts its own there. */
export const BUDGET_ARGUMENT = '\u0000budget';

/**
 * A thread's deadlines, one slot per task it may run at once (epoch ms; 0 while the task has
 * started no evaluation): the pool clears a task's slot before sending it, the thread raises it
 * as the task's evaluations start, and the pool's watchdog reads it.
 */
export function deadlineSlots(tasks: number): { buffer: SharedArrayBuffer; view: Float64Array } {
  const buffer = new SharedArrayBuffer(Float64Array.BYTES_PER_ELEMENT * tasks);
  return { buffer, view: new Float64Array(buffer) };
}
