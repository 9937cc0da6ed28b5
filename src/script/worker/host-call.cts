/**
 * The worker-side half of the synchronous platform-call bridge, shared by the QuickJS and the
 * Python worker programs: a call is posted to the main thread, then the worker waits on the
 * shared counter until its reply arrives or the script's wall time runs out. CommonJS (built to
 * host-call.cjs), as the Python worker is (../python/worker.cts); the QuickJS worker imports it too.
 */
import type { MessagePort } from 'node:worker_threads';
import type { CallRequest, Reply, RunJob } from './messages.js' with { 'resolution-mode': 'import' };

/** One script's run as the bridge sees it. */
export interface BridgeRun {
  job: RunJob;
  /** performance.now() when the run began. */
  begin: number;
  /** Time blocked on calls (ms). */
  waited: number;
  stop: 'wall-time' | 'cpu-time' | null;
  seq: number;
  calls: number;
}

export interface BridgeIO {
  post(message: CallRequest): void;
  replies: MessagePort;
  receive(port: MessagePort): { message: unknown } | undefined;
  signal: Int32Array;
  /** performance.now, kept before a worker deletes the capability globals. */
  now(): number;
}

export const STOPPED = 'e' + JSON.stringify({ message: 'the script was stopped' });

/** `callHost(run, method, args)`: one platform call, posted to the main thread, waited for on the shared counter. */
export function hostCaller(io: BridgeIO): (run: BridgeRun | null, method: number, args: string) => string {
  const { post, replies, receive, signal, now } = io;
  return (run, method, args) => {
    if (run === null || run.stop !== null) return STOPPED;
    const id = ++run.seq;
    run.calls++;
    const t = now();
    let seen = Atomics.load(signal, 0);
    post({ type: 'call', run: run.job.run, call: id, method, args });
    try {
      for (;;) {
        let received;
        while ((received = receive(replies)) !== undefined) {
          const reply = received.message as Reply;
          if (reply.call === id) return reply.reply;
        }
        const remaining = run.job.limits.wallTimeMs - (now() - run.begin);
        if (remaining <= 0 || Atomics.wait(signal, 0, seen, remaining) === 'timed-out') {
          run.stop = 'wall-time';
          return STOPPED;
        }
        seen = Atomics.load(signal, 0);
      }
    } finally {
      run.waited += now() - t;
    }
  };
}
