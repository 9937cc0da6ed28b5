/**
 * The program of an evaluation thread: lowers its CPU priority below the HTTP thread's, loads the
 * task handler (`workerData.handler`: a module whose default export makes the handler from the
 * pool's settings, its deadline slots and a way to tell the leases it holds on process runs, at
 * once or by a promise), says it is ready, then answers each task message (TaskMessage) with its
 * reply (ReplyMessage); tasks run side by side (the pool sends at most its `tasks`).
 *
 * A task and its reply cross as flat arrays rather than nested records: structured clone writes
 * an object's every key and rebuilds it property by property on the other side, an array only its
 * elements (docs/performance.md "The evaluation pool's hop").
 */
import { getPriority, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { registry } from '../metrics/families.js';
import { Outbox } from './outbox.js';
import { onTimeCheck } from '../limits/index.js';
import type { EvaluationReply, EvaluationTask, HostMethod, Progress, RelayedErrorBody } from './protocol.js';
import type { SpanRecord, TraceCarrier } from '../traces/hooks.js';

export interface ThreadData {
  /** The handler module's file URL. */
  handler: string;
  /** Added to the thread's nice value (Linux: per thread); 0 leaves it. */
  nice: number;
  /** Handed to the handler module's default export. */
  settings: unknown;
  /** The thread's deadline slots (protocol.ts: deadlineSlots), handed to the handler module too. */
  deadlines: SharedArrayBuffer;
  /** Record spans (docs/deploy.md "Traces"), sent to the pool as they end. */
  traces: boolean;
}

/** A lease on a process run the thread holds from now, or no longer (see LeaseNotice). */
export interface LeaseNotice {
  hold: boolean;
  requestId: string;
}

/**
 * A task's reply: `[id, 1, value, allocated]` when it answered, `[id, 0, error]` when it failed
 * (protocol.ts: EvaluationReply).
 */
export type ReplyMessage =
  | [id: number, ok: 1, value: unknown, allocated: number | undefined]
  | [id: number, ok: 0, error: RelayedErrorBody];

export type ThreadMessage =
  | ReplyMessage
  | { type: 'ready' }
  | ({ type: 'lease' } & LeaseNotice)
  | { type: 'progress'; id: number; progress: Progress }
  /** A span the thread ended, exported by the HTTP thread (traces/setup.ts). */
  | { type: 'span'; span: SpanRecord }
  /** The thread's metrics (src/metrics/families.ts) as prom-client's JSON, asked by `{metrics: id}`. */
  | { type: 'metrics'; id: number; metrics: unknown[] };

/** A task: its id and the fields of its EvaluationTask, in this order. */
export type TaskMessage = [
  id: number,
  ...request: [kind: 'host', method: HostMethod] | [kind: 'collections', method: string],
  args: unknown[],
  slot: number,
  respondBy: number | undefined,
  trace: TraceCarrier | undefined,
  cell: string | undefined,
];

/** What the pool sends a thread: a task, or a request for its metrics. */
export type PoolMessage = TaskMessage | { metrics: number };

const data = workerData as ThreadData;
if (data.nice)
  try {
    // On Linux, priority 0 means "the calling thread": the HTTP thread keeps its own.
    setPriority(Math.min(19, getPriority() + data.nice));
  } catch {
    // not permitted here: the thread runs at the process's priority
  }

const port = parentPort!;
/** A task's reply, at once when the task waited for nothing (a composite API whose routes and context are cached). */
type Handler = (
  task: EvaluationTask,
  progress: (p: Progress) => void,
) => EvaluationReply | Promise<EvaluationReply>;
const outbox = new Outbox<ThreadMessage>((batch) => port.postMessage(batch));
if (data.traces) {
  // before the handler loads: the library then compiles its functions with a span per call
  const [{ traceInThread }, { wrapCalls }] = await Promise.all([
    import('../traces/setup.js'),
    import('../functions/invoke.js'),
  ]);
  const traced = traceInThread((span) => outbox.send({ type: 'span', span }));
  wrapCalls((name, call) => traced.call(name, call));
}
const loaded = (await import(data.handler)) as {
  default: (
    settings: unknown,
    deadlines: Float64Array,
    leases: (notice: LeaseNotice) => void,
  ) => Handler | Promise<Handler>;
};
onTimeCheck(outbox.flush);
const handle = await loaded.default(data.settings, new Float64Array(data.deadlines), (notice) =>
  outbox.send({ type: 'lease', ...notice }),
);
port.on('message', (batch: PoolMessage[]) => {
  for (const message of batch) receive(message);
});
function receive(message: PoolMessage): void {
  if (!Array.isArray(message)) {
    const id = message.metrics;
    void registry.getMetricsAsJSON().then((metrics) => outbox.send({ type: 'metrics', id, metrics }));
    return;
  }
  const [id, , , args, slot, respondBy, trace, cell] = message;
  const task: EvaluationTask =
    message[1] === 'host'
      ? { kind: 'host', method: message[2], args, slot, respondBy, trace, cell }
      : { kind: 'collections', method: message[2], args, slot, respondBy, trace, cell };
  const progress = (p: Progress) => outbox.send({ type: 'progress', id, progress: p });
  const reply = handle(task, progress);
  const send = (r: EvaluationReply) => outbox.send(r.ok ? [id, 1, r.value, r.allocated] : [id, 0, r.error]);
  if (reply instanceof Promise) void reply.then(send);
  else send(reply);
}
port.postMessage([{ type: 'ready' }] satisfies ThreadMessage[]);
