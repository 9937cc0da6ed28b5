/**
 * The program of an evaluation thread: lowers its CPU priority below the HTTP thread's, loads the
 * task handler (`workerData.handler`: a module whose default export makes the handler from the
 * pool's settings, at once or by a promise), says it is ready, then answers each task message `{id, task}` with `{id, reply}`, one at a
 * time (the pool sends a thread one task at a time).
 */
import { getPriority, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type { EvaluationReply, EvaluationTask, Progress } from './protocol.js';

export interface ThreadData {
  /** The handler module's file URL. */
  handler: string;
  /** Added to the thread's nice value (Linux: per thread); 0 leaves it. */
  nice: number;
  /** Handed to the handler module's default export. */
  settings: unknown;
  /** The thread's deadline slot (protocol.ts: DEADLINE), handed to the handler module too. */
  deadline: SharedArrayBuffer;
}

export type ThreadMessage =
  | { type: 'ready' }
  | { type: 'progress'; id: number; progress: Progress }
  | { type: 'reply'; id: number; reply: EvaluationReply };

const data = workerData as ThreadData;
if (data.nice)
  try {
    // On Linux, priority 0 means "the calling thread": the HTTP thread keeps its own.
    setPriority(Math.min(19, getPriority() + data.nice));
  } catch {
    // not permitted here: the thread runs at the process's priority
  }

const port = parentPort!;
type Handler = (task: EvaluationTask, progress: (p: Progress) => void) => Promise<EvaluationReply>;
const loaded = (await import(data.handler)) as {
  default: (settings: unknown, deadline: Float64Array) => Handler | Promise<Handler>;
};
const handle = await loaded.default(data.settings, new Float64Array(data.deadline));
port.on('message', (message: { id: number; task: EvaluationTask }) => {
  const { id } = message;
  const progress = (p: Progress) =>
    port.postMessage({ type: 'progress', id, progress: p } satisfies ThreadMessage);
  void handle(message.task, progress).then((reply) =>
    port.postMessage({ type: 'reply', id, reply } satisfies ThreadMessage),
  );
});
port.postMessage({ type: 'ready' } satisfies ThreadMessage);
