/**
 * The program of a Python sandbox worker thread, CommonJS (built to worker.cjs): as an ES module
 * the same program never reaches Pyodide's fatal error on a structure nested past the native
 * stack (test/script/python.test.ts, "nested too deep"): the script runs on until its CPU time.
 * The pool of ../pool.ts starts it from dist/ and speaks the same messages as with the QuickJS worker: ../worker/messages.ts). It loads one
 * Pyodide interpreter (CPython in WebAssembly, from the package's own files: nothing is
 * fetched; from the first worker's Pyodide memory snapshot of the interpreter as loaded, with
 * the setup source run, when the pool has one, else cold, making that snapshot for the workers
 * after it), closes it (sandbox.py: the JavaScript bridge modules removed, an audit hook), closes
 * the JavaScript world around it (no code generation from strings, no `process`, `fetch` …),
 * and takes a snapshot of the interpreter's whole WebAssembly memory. Every script then starts
 * from those bytes: after a script the memory is written back, so nothing a script did —
 * patched modules, builtins, sys.modules, caches, objects — is seen by the next one.
 *
 * Platform calls: the script writes `<method id> <JSON>` to the device /dev/rmp; the device's
 * write handler posts a CallRequest to the main thread and blocks on the shared counter
 * (Atomics.wait) until the reply comes (../worker/host-call.ts, as in the QuickJS worker); the
 * script reads the reply from the device.
 *
 * Limits: the memory may grow by memoryBytes past the snapshot (WebAssembly.Memory's grow is
 * refused beyond: malloc fails, Python raises MemoryError); the main thread writes SIGINT into
 * the job's interrupt buffer at the CPU or wall time limit (KeyboardInterrupt) and terminates the
 * worker when the script does not stop; the recursion limit comes from stackBytes.
 */
import { parentPort, receiveMessageOnPort, workerData as data } from 'node:worker_threads';
import { hostCaller, STOPPED, type BridgeRun } from '../worker/host-call.cjs';
import type { PythonWorkerData, RunJob, RunResult, WorkerMessage } from '../worker/messages.js' with {
  'resolution-mode': 'import',
};

/** What this program uses of Pyodide's interface. */
interface PyProxy {
  (...args: unknown[]): unknown;
  destroy(): void;
}
interface Stream {
  node?: unknown;
}
interface Pyodide {
  FS: {
    makedev(major: number, minor: number): number;
    registerDevice(dev: number, ops: Record<string, (...args: any[]) => unknown>): void;
    mkdev(path: string, mode: number, dev: number): void;
    streams: Array<Stream | null | undefined>;
  };
  setStdout(options: { batched: (text: string) => void }): void;
  setStderr(options: { batched: (text: string) => void }): void;
  runPython(code: string): unknown;
  globals: { get(name: string): PyProxy; delete(name: string): void };
  setInterruptBuffer(buffer: Int32Array | undefined): void;
  makeMemorySnapshot(): Uint8Array;
  _module: { HEAPU8: Uint8Array };
}

interface Loaded {
  py: Pyodide;
  runner: (source: string, table: string, seed: number, recursion: number) => string;
  module: Pyodide['_module'];
  snapshot: Uint8Array;
  streams: unknown[];
  restoreMs: number;
}

const workerData = data as PythonWorkerData;
const port = parentPort!;
const post = (message: WorkerMessage): void => port.postMessage(message);
const signal = new Int32Array(workerData.signal);
const perf = performance;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const random = crypto.getRandomValues.bind(crypto);
const PAGE = 65536;
const started = perf.now();

// The memory cap: once the interpreter is ready, its memory may not grow past the snapshot plus
// memoryBytes. Emscripten's growMemory catches the refusal and malloc returns NULL.
let capBytes = Infinity;
const MemoryProto = WebAssembly.Memory.prototype;
const grow = MemoryProto.grow;
MemoryProto.grow = function (this: WebAssembly.Memory, delta: number) {
  if (this.buffer.byteLength + delta * PAGE > capBytes) throw new RangeError('the script memory is full');
  return grow.call(this, delta);
};

let current: BridgeRun | null = null;

const callHost = hostCaller({
  post,
  replies: workerData.replies,
  receive: receiveMessageOnPort,
  signal,
  now: () => perf.now(),
});

function installDevice(py: Pyodide): void {
  const FS = py.FS;
  let reply = new Uint8Array(0);
  let pos = 0;
  const dev = FS.makedev(64, 0);
  FS.registerDevice(dev, {
    open() {},
    close() {},
    read(_stream: unknown, buffer: Uint8Array, offset: number, length: number) {
      const n = Math.min(length, reply.length - pos);
      buffer.set(reply.subarray(pos, pos + n), offset);
      pos += n;
      return n;
    },
    write(_stream: unknown, buffer: Uint8Array, offset: number, length: number) {
      const text = decoder.decode(buffer.slice(offset, offset + length));
      const space = text.indexOf(' ');
      const answer =
        space > 0 ? callHost(current, Number(text.slice(0, space)), text.slice(space + 1)) : STOPPED;
      reply = encoder.encode(answer);
      pos = 0;
      return length;
    },
  });
  FS.mkdev('/dev/rmp', 0o666, dev);
}

/** No code generation from strings, no capability globals: what a bridge escape would look for. */
function closeJavaScript(): void {
  const refused = function Function() {
    throw new EvalError('code generation is disabled in the sandbox');
  };
  refused.prototype = Function.prototype;
  for (const f of [function () {}, async function () {}, function* () {}, async function* () {}]) {
    Object.defineProperty(Object.getPrototypeOf(f), 'constructor', {
      value: refused,
      writable: false,
      configurable: false,
    });
  }
  Object.defineProperty(globalThis, 'Function', { value: refused, writable: false, configurable: false });
  Object.defineProperty(globalThis, 'eval', { value: refused, writable: false, configurable: false });
  const names = [
    'process',
    'fetch',
    'WebSocket',
    'EventSource',
    'BroadcastChannel',
    'MessageChannel',
    'MessagePort',
    'Worker',
    'XMLHttpRequest',
    'Request',
    'Response',
    'Headers',
    'FormData',
    'require',
    'module',
    'importScripts',
    'navigator',
    'Buffer',
    'global',
  ];
  const global = globalThis as Record<string, unknown>;
  for (const name of names) {
    try {
      delete global[name];
    } catch {
      /* defined below instead */
    }
    if (name in globalThis)
      Object.defineProperty(globalThis, name, { value: undefined, writable: false, configurable: false });
  }
}

const ready = (async (): Promise<Loaded> => {
  // A path known only at run time (the pyodide package's folder, from workerData).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { loadPyodide } = require(workerData.pyodide + '/pyodide.js') as {
    loadPyodide(options: Record<string, unknown>): Promise<Pyodide>;
  };
  const discard = (): void => {};
  const options = {
    indexURL: workerData.pyodide + '/',
    packages: [],
    stdout: discard,
    stderr: discard,
    stdin: () => null,
    jsglobals: Object.create(null),
    env: { HOME: '/home/pyodide' },
  };
  // From an earlier worker's snapshot of the interpreter as loaded, the setup source run (its
  // `_flowmark_setup` defined, not called), when there is one: a fraction of a cold start. Else a
  // cold start that makes that snapshot, for the workers after this one.
  let py: Pyodide | undefined;
  let made: Uint8Array | undefined;
  if (workerData.snapshot) {
    try {
      py = await loadPyodide({ ...options, _loadSnapshot: workerData.snapshot });
    } catch {
      py = undefined; // started cold below
    }
  } else {
    py = await loadPyodide({ ...options, _makeSnapshot: true });
    py.runPython(workerData.setup);
    made = py.makeMemorySnapshot();
  }
  if (!py) {
    py = await loadPyodide(options);
    py.runPython(workerData.setup);
  }
  py.setStdout({ batched: discard });
  py.setStderr({ batched: discard });
  installDevice(py);
  const setup = py.globals.get('_flowmark_setup');
  const runner = setup() as Loaded['runner'];
  setup.destroy();
  py.globals.delete('_flowmark_setup');
  closeJavaScript();
  const module = py._module;
  // The open files live on the JavaScript side, outside the snapshot: a script that closed or
  // replaced one (os.close, os.dup2 on the device) leaves its worker to be replaced.
  const streams = py.FS.streams.map((stream) => stream && stream.node);
  const snapshot = module.HEAPU8.slice();
  capBytes = snapshot.length + Math.ceil(workerData.memoryBytes / PAGE) * PAGE;
  if (made) port.postMessage({ type: 'ready', ms: perf.now() - started, snapshot: made }, [made.buffer]);
  else post({ type: 'ready', ms: perf.now() - started });
  return { py, runner, module, snapshot, streams, restoreMs: 0 };
})();

port.on('message', (job: RunJob) => {
  ready.then(
    (state) => runJob(state, job),
    (e: unknown) =>
      finish(
        job,
        {
          failure: {
            kind: 'internal',
            message: 'the sandbox could not start: ' + (e && (e as Error).message),
          },
          timing: zeroTiming(),
        },
        true,
      ),
  );
});

function zeroTiming(): RunResult['timing'] {
  return { setupMs: 0, prepareMs: 0, totalMs: 0, waitedMs: 0, calls: 0 };
}

function finish(job: RunJob, result: RunResult, broken: boolean): void {
  post({ type: 'done', run: job.run, broken, ...result });
}

/** The interpreter's memory as it was when the snapshot was taken (the grown part zeroed). */
function restore(state: Loaded): void {
  const t = perf.now();
  const heap = state.module.HEAPU8;
  heap.set(state.snapshot);
  heap.fill(0, state.snapshot.length);
  state.restoreMs = perf.now() - t;
}

function sameStreams(state: Loaded): boolean {
  const now = state.py.FS.streams;
  const length = Math.max(now.length, state.streams.length);
  for (let fd = 0; fd < length; fd++) {
    if (((now[fd] && now[fd]!.node) || undefined) !== (state.streams[fd] || undefined)) return false;
  }
  return true;
}

function seed(): number {
  const words = random(new Uint32Array(2));
  return (words[0]! & 0x1fffff) * 4294967296 + words[1]!;
}

function runJob(state: Loaded, job: RunJob): void {
  const limits = job.limits;
  const begin = perf.now();
  const run: BridgeRun = { job, begin, waited: 0, stop: null, seq: 0, calls: 0 };
  const control = new Int32Array(job.interrupt!);
  const clock = new Float64Array(job.interrupt!, 8, 1);
  let result: RunResult;
  let broken = false;
  current = run;
  try {
    control[0] = 0;
    state.py.setInterruptBuffer(control);
    clock[0] = perf.timeOrigin + perf.now();
    Atomics.store(control, 1, 1);
    const recursion = Math.max(50, Math.min(1000, Math.floor(limits.stackBytes / 256)));
    const text = state.runner(job.source, job.table, seed(), recursion);
    result = JSON.parse(text) as RunResult;
    // The interpreter itself failed (Pyodide's fatal error, seen by Python as an exception): never reused.
    if (result.failure && result.failure.kind === 'internal') broken = true;
    if (run.stop !== null && (!result.failure || result.failure.kind === 'cpu-time'))
      result = { failure: { kind: run.stop } } as RunResult;
  } catch (e) {
    const full = state.module.HEAPU8.length + 2 * PAGE > capBytes;
    const overflow = e instanceof RangeError && !full;
    result = {
      failure: {
        kind: full ? 'memory' : overflow ? 'stack' : 'internal',
        message: String(e && (e as Error).message),
      },
    } as RunResult;
    broken = true;
  }
  Atomics.store(control, 1, 2);
  current = null;
  // prepareMs: writing the snapshot back after the previous script (done then, off this script's path).
  result.timing = {
    setupMs: 0,
    prepareMs: state.restoreMs,
    totalMs: perf.now() - begin,
    waitedMs: run.waited,
    calls: run.calls,
  };
  if (!sameStreams(state)) broken = true;
  // The memory never shrinks: a worker left with less than half its budget to grow is replaced.
  if (capBytes - state.module.HEAPU8.length < workerData.memoryBytes / 2) broken = true;
  finish(job, result, broken);
  if (!broken) {
    try {
      state.py.setInterruptBuffer(undefined);
    } catch {
      /* the next script sets its own */
    }
    restore(state);
  }
}
