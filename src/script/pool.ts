/**
 * The sandbox workers (worker/quickjs.ts, or python/worker.ts): started on demand up to a maximum, reused from script
 * to script (each script gets a fresh QuickJS context inside), replaced when one fails or outlives
 * its job. Scripts beyond the maximum wait their turn, within their wall time. Workers do not keep
 * the process alive.
 */
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import type { ScriptLimits } from './limits.js';
import { inWorkerModule } from './in-worker-plan.js';
import { builtScriptFile } from './program-file.js';
import type {
  BridgeData,
  Reply,
  Ready,
  RunJob,
  RunResult,
  RunTiming,
  WorkerFailure,
  WorkerMessage,
} from './worker/messages.js';
import { errorMessage } from '../errors/index.js';

/** What a worker reports about one run. */
export type WorkerOutcome = RunResult;
export type { RunTiming, WorkerFailure };

export interface SandboxJob {
  source: string;
  table: string;
  limits: ScriptLimits;
  /** More fields for the worker's job message (structured-cloneable; a SharedArrayBuffer stays shared). */
  extra?: Pick<RunJob, 'inWorker' | 'interrupt'>;
  /** Ends the run from outside: the worker is terminated and the run reports this failure kind. */
  abort?: AbortSignal;
}

/**
 * The program a pool's workers run: the QuickJS program of worker/quickjs.ts by default; the
 * Python backend (python/) hands its own, speaking the same messages (worker/messages.ts).
 */
export interface SandboxProgram {
  /** The worker's module, built (program-file.ts); asked when a worker starts. */
  file(): URL;
  /** The worker's workerData besides the bridge's signal and reply port. */
  data(memoryBytes: number): Omit<BridgeData, 'signal' | 'replies'> & Record<string, unknown>;
  /** The worker's native stack, when the default (WORKER_STACK_MB) does not suit its interpreter. */
  stackSizeMb?: number;
  /** Told each worker's `ready` message (the Python program keeps the interpreter snapshot it carries). */
  ready?(message: Ready): void;
}

let quickjsProgram: SandboxProgram | undefined;

function defaultProgram(): SandboxProgram {
  quickjsProgram ??= {
    file: () => builtScriptFile('worker/quickjs-main'),
    data: (memoryBytes) => ({ memoryBytes, inWorker: inWorkerModule() }),
  };
  return quickjsProgram;
}

/** Answers one platform call of the script: the reply text the prelude decodes. */
export type CallHandler = (method: number, args: string) => string | Promise<string>;

/** Past the wall time, how long a worker may take to report before it is terminated. */
const GRACE_MS = 2_000;

/** The worker's own JavaScript heap (the script's heap is QuickJS's, bounded by memoryBytes). */
const WORKER_HEAP_MB = 256;

/** The worker's native stack: room above QuickJS's own stack limit, so deep recursion ends in QuickJS's error. */
const WORKER_STACK_MB = 8;

export class SandboxUnavailableError extends Error {
  override name = 'SandboxUnavailableError';
}

interface CurrentRun {
  run: number;
  onCall: CallHandler;
  resolve(outcome: WorkerOutcome): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

class SandboxWorker {
  private readonly worker: Worker;
  private readonly signal: Int32Array;
  private readonly replies: MessagePort;
  private current: CurrentRun | undefined;
  private nextRun = 1;
  dead = false;

  constructor(
    /** The memory its scripts may grow into (the module's memory is capped when it starts). */
    readonly memoryBytes: number,
    private readonly onDeath: (w: SandboxWorker) => void,
    private readonly program: SandboxProgram = defaultProgram(),
  ) {
    const shared = new SharedArrayBuffer(4);
    this.signal = new Int32Array(shared);
    const { port1, port2 } = new MessageChannel();
    this.replies = port1;
    this.worker = new Worker(program.file(), {
      // Not the parent's flags (a loader such as tsx, --input-type): the worker is built JavaScript.
      execArgv: [],
      workerData: { ...program.data(memoryBytes), signal: shared, replies: port2 },
      transferList: [port2],
      resourceLimits: {
        maxOldGenerationSizeMb: WORKER_HEAP_MB,
        stackSizeMb: program.stackSizeMb ?? WORKER_STACK_MB,
      },
    });
    this.worker.on('message', (m: WorkerMessage) => this.onMessage(m));
    this.worker.on('error', (e) => this.die(new SandboxUnavailableError(`the sandbox failed: ${e.message}`)));
    this.worker.on('exit', () => this.die(new SandboxUnavailableError('the sandbox stopped')));
    // After the listeners: on Node 20 adding a 'message' listener refs the worker's port again.
    // An idle worker never keeps the process alive; a running one does (see run).
    this.worker.unref();
    this.replies.unref();
  }

  /** `account`: the worker keeps a runtime for one account's scripts at a time (worker/quickjs.ts). */
  run(job: SandboxJob, onCall: CallHandler, account = ''): Promise<WorkerOutcome> {
    if (this.current) throw new Error('sandbox worker: one run at a time');
    const run = this.nextRun++;
    return new Promise<WorkerOutcome>((resolve, reject) => {
      const stop = (kind: WorkerFailure['kind']): void => {
        if (this.current?.run !== run) return;
        clearTimeout(this.current.timer);
        this.current = undefined;
        this.kill();
        resolve({
          failure: { kind },
          timing: {
            setupMs: 0,
            prepareMs: 0,
            totalMs: job.limits.wallTimeMs + GRACE_MS,
            waitedMs: 0,
            calls: 0,
          },
        });
      };
      const timer = setTimeout(() => stop('wall-time'), job.limits.wallTimeMs + GRACE_MS);
      timer.unref();
      this.current = { run, onCall, resolve, reject, timer };
      // A running script keeps the process alive (its result is awaited); an idle worker does not.
      this.worker.ref();
      job.abort?.addEventListener('abort', () => stop(abortKind(job.abort!.reason)), { once: true });
      const message: RunJob = {
        ...job.extra,
        run,
        source: job.source,
        table: job.table,
        limits: job.limits,
        account,
      };
      this.worker.postMessage(message);
    });
  }

  private onMessage(m: WorkerMessage): void {
    const current = this.current;
    if (m.type === 'retire') {
      // The worker could not free a finished script's runtime (it reported that script first). An
      // idle worker goes now; a run already sent to it ends as broken (worker/quickjs.ts).
      if (!current) this.retire();
      return;
    }
    if (m.type === 'ready') {
      this.program.ready?.(m);
      return;
    }
    if (!current || m.run !== current.run) return;
    if (m.type === 'call') {
      let reply: string | Promise<string>;
      try {
        reply = current.onCall(m.method, m.args);
      } catch (e) {
        reply = failureReply(e);
      }
      if (typeof reply === 'string') this.reply(current.run, m.call, reply);
      else
        reply.then(
          (text) => this.reply(current.run, m.call, text),
          (e) => this.reply(current.run, m.call, failureReply(e)),
        );
      return;
    }
    clearTimeout(current.timer);
    this.current = undefined;
    this.worker.unref();
    if (m.broken) this.retire();
    current.resolve({ output: m.output, failure: m.failure, timing: m.timing });
  }

  private reply(run: number, call: number, reply: string): void {
    if (this.current?.run !== run || this.dead) return;
    const message: Reply = { call, reply };
    this.replies.postMessage(message);
    Atomics.add(this.signal, 0, 1);
    Atomics.notify(this.signal, 0);
  }

  /** The worker asked to be replaced after this run. */
  private retire(): void {
    if (this.dead) return;
    this.dead = true;
    this.replies.close();
    this.onDeath(this);
    void this.worker.terminate();
  }

  private kill(): void {
    if (this.dead) return;
    this.die(new SandboxUnavailableError('the sandbox was stopped'));
    void this.worker.terminate();
  }

  private die(error: Error): void {
    if (this.dead) return;
    this.dead = true;
    this.replies.close();
    const current = this.current;
    this.current = undefined;
    if (current) {
      clearTimeout(current.timer);
      current.reject(error);
    }
    this.onDeath(this);
  }

  terminate(): Promise<number> {
    this.kill();
    return this.worker.terminate();
  }
}

function abortKind(reason: unknown): WorkerFailure['kind'] {
  return reason === 'cpu-time' || reason === 'memory' || reason === 'wall-time' ? reason : 'internal';
}

function failureReply(e: unknown): string {
  return 'e' + JSON.stringify({ message: errorMessage(e) });
}

interface Waiter {
  account: string;
  memoryBytes: number;
  grant(w: SandboxWorker): void;
}

/** How the workers are shared between accounts. */
export interface Fairness {
  /** Scripts of one account running at once (default: half the workers, at least 1). */
  accountWorkers?: number;
  /** Scripts of one account waiting for a worker; beyond it a script is refused at once. */
  accountQueue: number;
}

export const DEFAULT_ACCOUNT_QUEUE = 32;

/** A script refused because its account already has `accountQueue` scripts waiting. */
export class SandboxQueueFullError extends Error {
  override name = 'SandboxQueueFullError';
  constructor(
    readonly account: string,
    readonly limit: number,
  ) {
    super(
      `account "${account}" already has ${limit} scripts waiting (the limit per account); try again later`,
    );
  }
}

/**
 * The workers, shared fairly: an account runs at most `accountWorkers` scripts at once and queues
 * at most `accountQueue` more; a freed worker goes to the next account in turn (round robin over
 * the accounts that wait, the one with the fewest scripts running first), so one account's flood
 * does not delay another's script beyond the next free worker.
 */
export class SandboxPool {
  private readonly idle: SandboxWorker[] = [];
  private readonly all = new Set<SandboxWorker>();
  /** Waiting scripts by account; the Map's order is the turn (an account served goes last). */
  private readonly queues = new Map<string, Waiter[]>();
  private readonly running = new Map<string, number>();
  private fairness: Fairness = { accountQueue: DEFAULT_ACCOUNT_QUEUE };
  private closing = false;

  constructor(
    private maxWorkers: number,
    private readonly program?: SandboxProgram,
  ) {}

  setMaxWorkers(n: number): void {
    if (!Number.isInteger(n) || n < 1 || n > 256)
      throw new RangeError(`script sandbox: workers must be an integer from 1 to 256, got ${n}`);
    this.maxWorkers = n;
    this.dispatch();
  }

  setFairness(fairness: Fairness): void {
    const { accountWorkers, accountQueue } = fairness;
    if (
      accountWorkers !== undefined &&
      (!Number.isInteger(accountWorkers) || accountWorkers < 1 || accountWorkers > 256)
    )
      throw new RangeError(
        `script sandbox: workers per account must be an integer from 1 to 256, got ${accountWorkers}`,
      );
    if (!Number.isInteger(accountQueue) || accountQueue < 0 || accountQueue > 100_000)
      throw new RangeError(
        `script sandbox: the queue per account must be an integer from 0 to 100000, got ${accountQueue}`,
      );
    this.fairness = { ...fairness };
    this.dispatch();
  }

  /** Scripts one account may run at once now. */
  get accountWorkers(): number {
    return Math.min(
      this.fairness.accountWorkers ?? Math.max(1, Math.floor(this.maxWorkers / 2)),
      this.maxWorkers,
    );
  }

  get accountQueue(): number {
    return this.fairness.accountQueue;
  }

  get size(): number {
    return this.all.size;
  }

  /**
   * Runs a job of `account` on a free worker of its memory size, waiting at most `waitMs` for one;
   * throws SandboxQueueFullError at once when the account's queue is full.
   */
  async run(job: SandboxJob, onCall: CallHandler, waitMs: number, account = ''): Promise<WorkerOutcome> {
    const worker = await this.acquire(account, job.limits.memoryBytes, waitMs);
    try {
      return await worker.run(job, onCall, account);
    } finally {
      this.running.set(account, (this.running.get(account) ?? 1) - 1);
      if (this.running.get(account) === 0) this.running.delete(account);
      this.release(worker);
    }
  }

  /** Starts a worker ahead of the first script (the WebAssembly module takes tens of ms to load). */
  warm(memoryBytes: number): void {
    if (this.all.size === 0) this.release(this.spawn(memoryBytes));
  }

  async close(): Promise<void> {
    const workers = [...this.all];
    this.idle.length = 0;
    this.all.clear();
    this.closing = true;
    try {
      await Promise.all(workers.map((w) => w.terminate()));
    } finally {
      this.closing = false;
    }
    this.dispatch(); // scripts still waiting get new workers
  }

  private acquire(account: string, memoryBytes: number, waitMs: number): Promise<SandboxWorker> {
    const queue = this.queues.get(account);
    if (!queue && (this.running.get(account) ?? 0) < this.accountWorkers) {
      const free = this.takeIdle(memoryBytes);
      if (free) {
        this.running.set(account, (this.running.get(account) ?? 0) + 1);
        return Promise.resolve(free);
      }
    }
    if ((queue?.length ?? 0) >= this.fairness.accountQueue)
      return Promise.reject(new SandboxQueueFullError(account, this.fairness.accountQueue));
    return new Promise<SandboxWorker>((resolve, reject) => {
      const waiter: Waiter = {
        account,
        memoryBytes,
        grant: (w) => {
          clearTimeout(timer);
          resolve(w);
        },
      };
      const timer = setTimeout(() => {
        const waiting = this.queues.get(account);
        const at = waiting?.indexOf(waiter) ?? -1;
        if (at >= 0) waiting!.splice(at, 1);
        if (waiting?.length === 0) this.queues.delete(account);
        reject(
          new SandboxUnavailableError(
            `no script sandbox became free within ${waitMs} ms (${this.maxWorkers} scripts running)`,
          ),
        );
      }, waitMs);
      timer.unref();
      if (queue) queue.push(waiter);
      else this.queues.set(account, [waiter]);
    });
  }

  /** An idle worker of that memory size, a new one, or one made by replacing an idle worker of another size. */
  private takeIdle(memoryBytes: number): SandboxWorker | undefined {
    const at = this.idle.findIndex((w) => w.memoryBytes === memoryBytes);
    if (at >= 0) return this.idle.splice(at, 1)[0];
    if (this.all.size < this.maxWorkers) return this.spawn(memoryBytes);
    const other = this.idle.shift();
    if (!other) return undefined;
    void other.terminate();
    return this.spawn(memoryBytes);
  }

  private release(worker: SandboxWorker): void {
    if (!worker.dead && this.all.has(worker)) this.idle.push(worker);
    this.dispatch();
  }

  /** Gives free workers to waiting scripts, the accounts taking turns, each within its share. */
  private dispatch(): void {
    if (this.closing) return;
    for (;;) {
      // The waiting account with the fewest scripts running, within its share; ties by turn.
      let next: Waiter[] | undefined;
      let account = '';
      let fewest = this.accountWorkers;
      for (const [name, queue] of this.queues) {
        const running = this.running.get(name) ?? 0;
        if (running < fewest) {
          next = queue;
          account = name;
          fewest = running;
        }
      }
      if (!next) return;
      const worker = this.takeIdle(next[0]!.memoryBytes);
      if (!worker) return;
      const waiter = next.shift()!;
      this.queues.delete(account);
      if (next.length) this.queues.set(account, next);
      this.running.set(account, (this.running.get(account) ?? 0) + 1);
      waiter.grant(worker);
    }
  }

  private spawn(memoryBytes: number): SandboxWorker {
    const worker = new SandboxWorker(memoryBytes, (w) => this.forget(w), this.program);
    this.all.add(worker);
    return worker;
  }

  private forget(worker: SandboxWorker): void {
    this.all.delete(worker);
    const at = this.idle.indexOf(worker);
    if (at >= 0) this.idle.splice(at, 1);
    this.dispatch(); // its place is free for a waiting script
  }
}
