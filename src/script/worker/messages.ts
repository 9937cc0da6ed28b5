/**
 * The messages between a script pool (../pool.ts) and its worker threads — the QuickJS worker
 * (quickjs.ts) and the Python worker (../python/worker.ts) speak the same ones. Both sides
 * import these types, so a field renamed on one side fails the build on the other.
 *
 * In:  RunJob (pool → worker); Reply on the reply port (pool → worker, then the shared counter
 *      is bumped).
 * Out: Ready · CallRequest · Done · Retire (worker → pool).
 */
import type { InWorkerJob } from '../in-worker-functions.js';
import type { ScriptLimits } from '../limits.js';

export type { InWorkerJob };

/** Why a script did not finish, as the worker saw it. */
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
  /** Time blocked on platform calls, or running them in the worker (ms). */
  waitedMs: number;
  /** Platform calls sent to the main thread. */
  calls: number;
  /** Platform calls answered in the worker (pure functions, in-worker-functions.ts). */
  inWorkerCalls?: number;
}

/** Where the worker imports its table of in-worker functions from (in-worker-plan.ts). */
export interface InWorkerModule {
  module: string;
  /** tsx's ESM API, registered first when flowmark runs from its TypeScript sources. */
  tsx?: string;
}

/**
 * The method table a job carries (api.ts writes it once per API, as JSON text: the workers cache
 * what they parsed by the text's identity): per RMP* object, its methods' names and ids. The
 * QuickJS worker (quickjs.ts) and sandbox.py build the objects from it.
 */
export interface TableObject {
  object: string;
  methods: Array<{ name: string; id: number }>;
}

/** A method the worker answers itself (in-worker-plan.ts writes them, in-worker-route.ts reads them). */
export interface InWorkerMethod {
  id: number;
  /** The registry function. */
  fn: string;
  /** As the script names it: `RMPUtilities.jsonPut`. */
  label: string;
  /** It reads the clock. */
  clock: boolean;
}

/** One script to run. */
export interface RunJob {
  run: number;
  source: string;
  /** The method table (TableObject[] as JSON, api.ts), or the legacy engine's `{legacy, variables}`. */
  table: string;
  limits: ScriptLimits;
  account: string;
  inWorker?: InWorkerJob;
  /** The Python worker's interrupt buffer: [0] Pyodide's signal, [1] state; bytes 8–15 its start. */
  interrupt?: SharedArrayBuffer;
}

/** The reply to a CallRequest: the tagged text `v<json>`, `m<json>`, `u` or `e<json>` (call-codec.ts). */
export interface Reply {
  call: number;
  reply: string;
}

export interface Ready {
  type: 'ready';
  ms: number;
  /**
   * A Python worker started without `snapshot` (PythonWorkerData): Pyodide's memory snapshot of
   * the interpreter as loaded with the setup source run (`_flowmark_setup` defined, not called),
   * before any script, for the workers started after it with the same setup.
   */
  snapshot?: Uint8Array;
}

/** A finished script's runtime could not be freed: the worker asks to be replaced. */
export interface Retire {
  type: 'retire';
}

/** A platform call of run `run`: method id and its arguments' JSON (`m[…]` with marks). */
export interface CallRequest {
  type: 'call';
  run: number;
  call: number;
  method: number;
  args: string;
}

export interface RunResult {
  /** The output's tagged text: `s<text>`, `j<json>`, `n`, or the legacy getter's `l…`. */
  output?: string;
  failure?: WorkerFailure;
  timing: RunTiming;
}

export interface Done extends RunResult {
  type: 'done';
  run: number;
  /** The worker asks to be replaced. */
  broken: boolean;
}

export type WorkerMessage = Ready | Retire | CallRequest | Done;

/** The part of workerData every script worker gets: the bridge's counter and reply port. */
export interface BridgeData {
  signal: SharedArrayBuffer;
  replies: import('node:worker_threads').MessagePort;
  memoryBytes: number;
}

/** The QuickJS worker's workerData. */
export interface QuickJSWorkerData extends BridgeData {
  inWorker?: InWorkerModule;
}

/** The Python worker's workerData. */
export interface PythonWorkerData extends BridgeData {
  /** The pyodide package's folder. */
  pyodide: string;
  /** Python source defining `_flowmark_setup()` (sandbox.py). */
  setup: string;
  /**
   * An earlier worker's snapshot of the interpreter as loaded (Ready.snapshot), made with this
   * `setup`: the worker starts from it instead of initialising CPython and running the setup
   * source again (seconds), then calls `_flowmark_setup()` as usual.
   */
  snapshot?: Uint8Array;
}

export function done(run: number, result: RunResult, broken: boolean): Done {
  return { type: 'done', run, broken, ...result };
}
