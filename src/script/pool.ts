/**
 * The sandbox workers (worker-source.ts): started on demand up to a maximum, reused from script
 * to script (each script gets a fresh QuickJS runtime inside), replaced when one fails or outlives
 * its job. Scripts beyond the maximum wait their turn, within their wall time. Workers do not keep
 * the process alive.
 */
import { createRequire } from 'node:module';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import type { ScriptLimits } from './limits.js';
import { PRELUDE } from './prelude.js';
import { WORKER_SOURCE } from './worker-source.js';

/** What a worker reports about one run. */
export interface WorkerOutcome {
  /** The output getter's tagged text: `s<text>`, `j<json>` or `n`. */
  output?: string;
  failure?: WorkerFailure;
  timing: RunTiming;
}

export interface WorkerFailure {
  kind: 'exception' | 'syntax' | 'cpu-time' | 'wall-time' | 'memory' | 'stack' | 'internal';
  name?: string;
  message?: string;
  line?: number;
  column?: number;
}

export interface RunTiming {
  /** The part of preparing the fresh runtime + context + RMP* objects the script waited for (ms): 0 when prepared ahead. */
  setupMs: number;
  /** What preparing that sandbox took, ahead of the script or not (ms). */
  prepareMs: number;
  /** The whole run in the worker, setup included (ms). */
  totalMs: number;
  /** Time blocked on platform calls (ms). */
  waitedMs: number;
  calls: number;
}

export interface SandboxJob {
  source: string;
  table: string;
  limits: ScriptLimits;
  /** More fields for the worker's job message (structured-cloneable; a SharedArrayBuffer stays shared). */
  extra?: Record<string, unknown>;
  /** Ends the run from outside: the worker is terminated and the run reports this failure kind. */
  abort?: AbortSignal;
}

/**
 * The program a pool's workers run: the QuickJS program of worker-source.ts by default; the
 * Python backend (python/) hands its own, speaking the same messages.
 */
export interface SandboxProgram {
  /** CommonJS source, evaluated with `eval: true`. */
  source: string;
  /** The worker's workerData besides the bridge's signal and reply port. */
  data(memoryBytes: number): Record<string, unknown>;
  /** The worker's native stack, when the default (WORKER_STACK_MB) does not suit its interpreter. */
  stackSizeMb?: number;
}

let quickjsProgram: SandboxProgram | undefined;

function defaultProgram(): SandboxProgram {
  quickjsProgram ??= {
    source: WORKER_SOURCE,
    data: (memoryBytes) => ({
      quickjs: createRequire(import.meta.url).resolve('quickjs-emscripten'),
      prelude: PRELUDE,
      memoryBytes,
    }),
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
    program: SandboxProgram = defaultProgram(),
  ) {
    const shared = new SharedArrayBuffer(4);
    this.signal = new Int32Array(shared);
    const { port1, port2 } = new MessageChannel();
    this.replies = port1;
    this.worker = new Worker(program.source, {
      eval: true,
      // Not the parent's flags: under `node --input-type=module -e …` (or a loader such as tsx)
      // the CommonJS source would be read as an ES module and fail on `require`.
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
    // After the listeners: adding a 'message' listener refs the worker's port again, and a
    // process (flowmark render) would never exit.
    this.worker.unref();
    this.replies.unref();
  }

  run(job: SandboxJob, onCall: CallHandler): Promise<WorkerOutcome> {
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
      this.worker.postMessage({
        ...job.extra,
        run,
        source: job.source,
        table: job.table,
        limits: job.limits,
      });
    });
  }

  private onMessage(m: WorkerMessage): void {
    const current = this.current;
    if (m.type === 'ready' || !current || m.run !== current.run) return;
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
    this.replies.postMessage({ call, reply });
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

type WorkerMessage =
  | { type: 'ready'; ms: number }
  | { type: 'call'; run: number; call: number; method: number; args: string }
  | {
      type: 'done';
      run: number;
      output?: string;
      failure?: WorkerFailure;
      timing: RunTiming;
      /** The worker asks to be replaced. */
      broken?: boolean;
    };

function abortKind(reason: unknown): WorkerFailure['kind'] {
  return reason === 'cpu-time' || reason === 'memory' || reason === 'wall-time' ? reason : 'internal';
}

function failureReply(e: unknown): string {
  return 'e' + JSON.stringify({ message: e instanceof Error ? e.message : String(e) });
}

type Waiter = ((w: SandboxWorker) => void) & { memoryBytes?: number };

export class SandboxPool {
  private readonly idle: SandboxWorker[] = [];
  private readonly all = new Set<SandboxWorker>();
  private readonly waiting: Waiter[] = [];

  constructor(
    private maxWorkers: number,
    private readonly program?: SandboxProgram,
  ) {}

  setMaxWorkers(n: number): void {
    if (!Number.isInteger(n) || n < 1 || n > 256)
      throw new RangeError(`script sandbox: workers must be an integer from 1 to 256, got ${n}`);
    this.maxWorkers = n;
  }

  get size(): number {
    return this.all.size;
  }

  /** Runs a job on a free worker of its memory size (waiting at most `waitMs` for one). */
  async run(job: SandboxJob, onCall: CallHandler, waitMs: number): Promise<WorkerOutcome> {
    const worker = await this.acquire(job.limits.memoryBytes, waitMs);
    try {
      return await worker.run(job, onCall);
    } finally {
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
    await Promise.all(workers.map((w) => w.terminate()));
  }

  private acquire(memoryBytes: number, waitMs: number): Promise<SandboxWorker> {
    const free = this.takeIdle(memoryBytes);
    if (free) return Promise.resolve(free);
    return new Promise<SandboxWorker>((resolve, reject) => {
      const take: Waiter = (w: SandboxWorker) => {
        clearTimeout(timer);
        resolve(w);
      };
      take.memoryBytes = memoryBytes;
      const timer = setTimeout(() => {
        const at = this.waiting.indexOf(take);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(
          new SandboxUnavailableError(
            `no script sandbox became free within ${waitMs} ms (${this.maxWorkers} scripts running)`,
          ),
        );
      }, waitMs);
      timer.unref();
      this.waiting.push(take);
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
    // Serve the waiting scripts, in order, as far as workers allow.
    while (this.waiting.length) {
      const next = this.waiting[0]!;
      const w = this.takeIdle(next.memoryBytes!);
      if (!w) break;
      this.waiting.shift();
      next(w);
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
  }
}
