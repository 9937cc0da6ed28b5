/**
 * Crash isolation for `flowmark serve`: a primary process (node:cluster) runs N server workers that
 * share the listening port. A worker that dies — uncaught exception, out of heap, V8 fatal error,
 * SIGKILL — is replaced after a short delay that grows while workers keep dying young (crash-loop
 * backoff); the survivors keep serving meanwhile. Each worker's heap is bounded
 * (`--max-old-space-size`), so a runaway allocation ends one worker, not the machine.
 *
 * The primary serves nothing itself. Stopping sends each worker `{flowmark: 'stop'}` (the worker
 * finishes its requests in flight and exits); a worker still alive after `stopGraceMs` is killed.
 * A worker's `{flowmark: 'relay', …}` message is passed on to every other worker (the login
 * throttle's counts).
 */
import cluster, { type Address, type Worker } from 'node:cluster';
import type { ThrottleChange, ThrottleShare } from './auth/throttle.js';
import { isMetricsMessage, primaryMetrics, type MetricsMessage } from '../metrics/gather.js';
import { errorMessage } from '../errors/index.js';
import { propertyOf } from '../safety/narrow.js';

export interface SupervisorOptions {
  /** Server workers to keep running. */
  workers: number;
  /** The program each worker runs and its arguments. */
  exec: string;
  args: string[];
  /** Each worker's V8 old-generation heap, in MiB. */
  heapMb: number;
  /** Lines for the operator (worker started, died, restarted). */
  log(line: string): void;
  /** How long stopping waits for a worker before killing it (default 8 s). */
  stopGraceMs?: number;
}

/** The message a worker stops on. */
export const STOP_MESSAGE = { flowmark: 'stop' } as const;

/** A worker's message the supervisor passes on to every other worker. */
interface RelayMessage {
  flowmark: 'relay';
  [field: string]: unknown;
}

function isRelay(m: unknown): m is RelayMessage {
  return propertyOf(m, 'flowmark') === 'relay';
}

/** Delay before replacing a worker: 250 ms, doubling per consecutive early death, at most 30 s. */
export function restartDelayMs(earlyDeaths: number): number {
  return Math.min(250 * 2 ** Math.max(0, earlyDeaths - 1), 30_000);
}

/** A worker that lived this long before dying resets the backoff. */
const HEALTHY_AFTER_MS = 30_000;

interface Slot {
  index: number;
  worker?: Worker;
  /** Its worker listens (else it is still starting). */
  listening: boolean;
  startedAt: number;
  earlyDeaths: number;
  restart?: NodeJS.Timeout;
}

export class Supervisor {
  private readonly slots: Slot[] = [];
  private stopping = false;
  private listened = false;
  private gatherMetrics: (() => Promise<string>) | undefined;

  constructor(private readonly options: SupervisorOptions) {}

  /**
   * Starts the workers; resolves with the address once the first one listens. Rejects when a
   * worker exits before any worker listened (a port in use, a store that cannot be opened …).
   */
  start(): Promise<Address> {
    if (!cluster.isPrimary) throw new Error('supervisor: only the primary process supervises');
    cluster.setupPrimary({
      exec: this.options.exec,
      args: this.options.args,
      execArgv: [`--max-old-space-size=${this.options.heapMb}`],
    });
    return new Promise<Address>((resolve, reject) => {
      const onListening = (_w: Worker, address: Address) => {
        this.listened = true;
        cluster.off('listening', onListening);
        cluster.off('exit', onEarlyExit);
        resolve(address);
      };
      const onEarlyExit = (w: Worker, code: number | null, signal: string | null) => {
        if (this.stopping) return;
        cluster.off('listening', onListening);
        cluster.off('exit', onEarlyExit);
        void this.stop().then(() =>
          reject(
            new Error(`server worker (pid ${w.process.pid}) ${exitText(code, signal)} before listening`),
          ),
        );
      };
      cluster.on('listening', onListening);
      cluster.on('exit', onEarlyExit);
      for (let i = 0; i < this.options.workers; i++) {
        const slot: Slot = { index: i + 1, listening: false, startedAt: 0, earlyDeaths: 0 };
        this.slots.push(slot);
        this.fork(slot);
      }
    });
  }

  /**
   * Resolves once every worker listens, or after `timeoutMs` (one that keeps failing to start is
   * restarted meanwhile; what follows must not wait on it for ever).
   */
  everyListening(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    return new Promise((resolve) => {
      const check = () => {
        if (this.stopping || Date.now() >= deadline || this.slots.every((s) => s.listening)) resolve();
        else setTimeout(check, 20).unref();
      };
      check();
    });
  }

  /** Stops every worker (gracefully, then by force after the grace period); resolves when all exited. */
  async stop(): Promise<void> {
    this.stopping = true;
    const grace = this.options.stopGraceMs ?? 8_000;
    await Promise.all(
      this.slots.map(async (slot) => {
        clearTimeout(slot.restart);
        const worker = slot.worker;
        if (!worker || worker.isDead()) return;
        const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
        const force = setTimeout(() => {
          this.options.log(
            `flowmark: worker ${slot.index} (pid ${worker.process.pid}) did not stop in time: killed`,
          );
          worker.process.kill('SIGKILL');
        }, grace);
        try {
          // One still starting has no request to finish, and might miss the message.
          if (slot.listening && worker.isConnected()) worker.send(STOP_MESSAGE);
          else worker.process.kill('SIGKILL');
        } catch {
          worker.process.kill('SIGKILL');
        }
        await exited;
        clearTimeout(force);
      }),
    );
  }

  /** Kills every worker now (a second stop signal: the operator does not want to wait). */
  kill(): void {
    this.stopping = true;
    for (const slot of this.slots) {
      clearTimeout(slot.restart);
      if (slot.worker && !slot.worker.isDead()) slot.worker.process.kill('SIGKILL');
    }
  }

  private fork(slot: Slot): void {
    const worker = cluster.fork({ FLOWMARK_WORKER_INDEX: String(slot.index) });
    slot.worker = worker;
    slot.listening = false;
    slot.startedAt = Date.now();
    worker.once('listening', () => {
      slot.listening = true;
      this.options.log(`flowmark: worker ${slot.index} (pid ${worker.process.pid}) listening`);
    });
    worker.once('exit', (code, signal) => this.onExit(slot, worker, code, signal));
    worker.on('message', (m: unknown) => {
      if (isRelay(m)) this.relay(worker, m);
      else if (isMetricsMessage(m)) this.answerMetrics(worker, m.id);
    });
  }

  /** A worker answering a scrape of /metrics: every worker's metrics, summed. */
  private answerMetrics(to: Worker, id: number): void {
    this.gatherMetrics ??= primaryMetrics();
    const answer = (m: MetricsMessage) => {
      try {
        if (to.isConnected()) to.send(m);
      } catch {
        // gone meanwhile
      }
    };
    this.gatherMetrics().then(
      (text) => answer({ flowmark: 'metrics', id, text }),
      (e: unknown) => answer({ flowmark: 'metrics', id, error: errorMessage(e) }),
    );
  }

  private relay(from: Worker, message: RelayMessage): void {
    for (const slot of this.slots) {
      const to = slot.worker;
      if (!to || to === from || !to.isConnected()) continue;
      try {
        to.send(message);
      } catch {
        // gone meanwhile: its replacement starts afresh
      }
    }
  }

  private onExit(slot: Slot, worker: Worker, code: number | null, signal: string | null): void {
    if (slot.worker !== worker) return;
    slot.worker = undefined;
    if (this.stopping || !this.listened) return;
    slot.earlyDeaths = Date.now() - slot.startedAt < HEALTHY_AFTER_MS ? slot.earlyDeaths + 1 : 1;
    const delay = restartDelayMs(slot.earlyDeaths);
    this.options.log(
      `flowmark: worker ${slot.index} (pid ${worker.process.pid}) ${exitText(code, signal)}; restarting it in ${delay} ms`,
    );
    slot.restart = setTimeout(() => {
      slot.restart = undefined;
      if (!this.stopping) this.fork(slot);
    }, delay);
  }
}

function exitText(code: number | null, signal: string | null): string {
  return signal ? `was killed (${signal})` : `exited (code ${code})`;
}

/**
 * In a worker: calls `stop` once when the primary asks (STOP_MESSAGE). The stop signals go to the
 * primary, which stops the workers in order: a worker ignores SIGINT and SIGTERM (Ctrl-C in a
 * terminal reaches the whole process group). A worker whose primary is gone (killed) is ended at
 * once by node:cluster itself.
 */
export function onSupervisorStop(stop: () => void): () => void {
  let stopped = false;
  const onMessage = (m: unknown) => {
    if (stopped || propertyOf(m, 'flowmark') !== STOP_MESSAGE.flowmark) return;
    stopped = true;
    stop();
  };
  const ignore = () => {};
  process.on('message', onMessage);
  process.on('SIGINT', ignore);
  process.on('SIGTERM', ignore);
  return () => {
    process.off('message', onMessage);
    process.off('SIGINT', ignore);
    process.off('SIGTERM', ignore);
  };
}

/** In a worker: the login throttles' changes, shared with the other workers through the supervisor. */
export function workerThrottleShare(): ThrottleShare {
  return {
    publish(throttle, change) {
      if (process.connected) process.send?.({ flowmark: 'relay', throttle, change });
    },
    subscribe(listener) {
      process.on('message', (m: unknown) => {
        if (isRelay(m) && (m.throttle === 'login' || m.throttle === 'address'))
          listener(m.throttle, m.change as ThrottleChange);
      });
    },
  };
}
