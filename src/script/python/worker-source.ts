/**
 * The program of a Python sandbox worker thread (CommonJS, evaluated with `eval: true`; the pool
 * of ../pool.ts runs it and speaks the same messages as with the QuickJS worker). It loads one
 * Pyodide interpreter (CPython in WebAssembly, from the package's own files: nothing is
 * fetched), closes it (prelude.ts: the JavaScript bridge modules removed, an audit hook), closes
 * the JavaScript world around it (no code generation from strings, no `process`, `fetch` …),
 * and takes a snapshot of the interpreter's whole WebAssembly memory. Every script then starts
 * from those bytes: after a script the memory is written back, so nothing a script did —
 * patched modules, builtins, sys.modules, caches, objects — is seen by the next one.
 *
 * Platform calls: the script writes `<method id> <JSON>` to the device /dev/rmp; the device's
 * write handler posts {call} to the main thread and blocks on the shared counter (Atomics.wait)
 * until the reply comes (as in the QuickJS worker); the script reads the reply from the device.
 *
 * Limits: the memory may grow by memoryBytes past the snapshot (WebAssembly.Memory's grow is
 * refused beyond: malloc fails, Python raises MemoryError); the main thread writes SIGINT into
 * the job's interrupt buffer at the CPU or wall time limit (KeyboardInterrupt) and terminates the
 * worker when the script does not stop; the recursion limit comes from stackBytes.
 *
 * Messages in:  {run, source, table, limits, interrupt: SharedArrayBuffer}
 * Messages out: {type:'ready'} · {type:'call', run, call, method, args} · {type:'done', run, …}
 */
import { HOST_CALL_SOURCE } from '../host-call-source.js';

export const PY_WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData, receiveMessageOnPort } = require('node:worker_threads');
const signal = new Int32Array(workerData.signal);
const replies = workerData.replies;
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
MemoryProto.grow = function (delta) {
  if (this.buffer.byteLength + delta * PAGE > capBytes) throw new RangeError('the script memory is full');
  return grow.call(this, delta);
};

let current = null;

${HOST_CALL_SOURCE}

function installDevice(py) {
  const FS = py.FS;
  let reply = new Uint8Array(0);
  let pos = 0;
  const dev = FS.makedev(64, 0);
  FS.registerDevice(dev, {
    open() {},
    close() {},
    read(stream, buffer, offset, length) {
      const n = Math.min(length, reply.length - pos);
      buffer.set(reply.subarray(pos, pos + n), offset);
      pos += n;
      return n;
    },
    write(stream, buffer, offset, length) {
      const text = decoder.decode(buffer.slice(offset, offset + length));
      const space = text.indexOf(' ');
      const answer = space > 0 ? callHost(current, Number(text.slice(0, space)), text.slice(space + 1)) : stopped();
      reply = encoder.encode(answer);
      pos = 0;
      return length;
    },
  });
  FS.mkdev('/dev/rmp', 0o666, dev);
}

/** No code generation from strings, no capability globals: what a bridge escape would look for. */
function closeJavaScript() {
  const refused = function Function() {
    throw new EvalError('code generation is disabled in the sandbox');
  };
  refused.prototype = Function.prototype;
  for (const f of [function () {}, async function () {}, function* () {}, async function* () {}]) {
    Object.defineProperty(Object.getPrototypeOf(f), 'constructor', { value: refused, writable: false, configurable: false });
  }
  Object.defineProperty(globalThis, 'Function', { value: refused, writable: false, configurable: false });
  Object.defineProperty(globalThis, 'eval', { value: refused, writable: false, configurable: false });
  const names = ['process', 'fetch', 'WebSocket', 'EventSource', 'BroadcastChannel', 'MessageChannel',
    'MessagePort', 'Worker', 'XMLHttpRequest', 'Request', 'Response', 'Headers', 'FormData',
    'require', 'module', 'importScripts', 'navigator', 'Buffer', 'global'];
  for (const name of names) {
    try {
      delete globalThis[name];
    } catch (e) {}
    if (name in globalThis) Object.defineProperty(globalThis, name, { value: undefined, writable: false, configurable: false });
  }
}

const ready = (async () => {
  const { loadPyodide } = require(workerData.pyodide + '/pyodide.js');
  const discard = () => {};
  const py = await loadPyodide({
    indexURL: workerData.pyodide + '/',
    packages: [],
    stdout: discard,
    stderr: discard,
    stdin: () => null,
    jsglobals: Object.create(null),
    env: { HOME: '/home/pyodide' },
  });
  py.setStdout({ batched: discard });
  py.setStderr({ batched: discard });
  installDevice(py);
  py.runPython(workerData.setup);
  const setup = py.globals.get('_flowmark_setup');
  const runner = setup();
  setup.destroy();
  py.globals.delete('_flowmark_setup');
  closeJavaScript();
  const module = py._module;
  // The open files live on the JavaScript side, outside the snapshot: a script that closed or
  // replaced one (os.close, os.dup2 on the device) leaves its worker to be replaced.
  const streams = py.FS.streams.map((stream) => stream && stream.node);
  const snapshot = module.HEAPU8.slice();
  capBytes = snapshot.length + Math.ceil(workerData.memoryBytes / PAGE) * PAGE;
  parentPort.postMessage({ type: 'ready', ms: perf.now() - started });
  return { py, runner, module, snapshot, streams, restoreMs: 0, loadMs: perf.now() - started };
})();

parentPort.on('message', (job) => {
  ready.then(
    (state) => runJob(state, job),
    (e) => finish(job, { failure: { kind: 'internal', message: 'the sandbox could not start: ' + (e && e.message) }, timing: zeroTiming() }, true),
  );
});

function zeroTiming() {
  return { setupMs: 0, prepareMs: 0, totalMs: 0, waitedMs: 0, calls: 0 };
}

function finish(job, result, broken) {
  parentPort.postMessage(Object.assign({ type: 'done', run: job.run, broken }, result));
}

/** The interpreter's memory as it was when the snapshot was taken (the grown part zeroed). */
function restore(state) {
  const t = perf.now();
  const heap = state.module.HEAPU8;
  heap.set(state.snapshot);
  heap.fill(0, state.snapshot.length);
  state.restoreMs = perf.now() - t;
}

function sameStreams(state) {
  const now = state.py.FS.streams;
  const length = Math.max(now.length, state.streams.length);
  for (let fd = 0; fd < length; fd++) {
    if (((now[fd] && now[fd].node) || undefined) !== (state.streams[fd] || undefined)) return false;
  }
  return true;
}

function seed() {
  const words = random(new Uint32Array(2));
  return (words[0] & 0x1fffff) * 4294967296 + words[1];
}

function runJob(state, job) {
  const limits = job.limits;
  const begin = perf.now();
  const run = { job, begin, waited: 0, stop: null, seq: 0, calls: 0 };
  const control = new Int32Array(job.interrupt);
  const clock = new Float64Array(job.interrupt, 8, 1);
  let result;
  let broken = false;
  current = run;
  try {
    control[0] = 0;
    state.py.setInterruptBuffer(control);
    clock[0] = perf.timeOrigin + perf.now();
    Atomics.store(control, 1, 1);
    const recursion = Math.max(50, Math.min(1000, Math.floor(limits.stackBytes / 256)));
    const text = state.runner(job.source, job.table, seed(), recursion);
    result = JSON.parse(text);
    // The interpreter itself failed (Pyodide's fatal error, seen by Python as an exception): never reused.
    if (result.failure && result.failure.kind === 'internal') broken = true;
    if (run.stop !== null && (!result.failure || result.failure.kind === 'cpu-time')) result = { failure: { kind: run.stop } };
  } catch (e) {
    const full = state.module.HEAPU8.length + 2 * PAGE > capBytes;
    const overflow = e instanceof RangeError && !full;
    result = { failure: { kind: full ? 'memory' : overflow ? 'stack' : 'internal', message: String(e && e.message) } };
    broken = true;
  }
  Atomics.store(control, 1, 2);
  current = null;
  // prepareMs: writing the snapshot back after the previous script (done then, off this script's path).
  result.timing = { setupMs: 0, prepareMs: state.restoreMs, totalMs: perf.now() - begin, waitedMs: run.waited, calls: run.calls };
  if (!sameStreams(state)) broken = true;
  // The memory never shrinks: a worker left with less than half its budget to grow is replaced.
  if (capBytes - state.module.HEAPU8.length < workerData.memoryBytes / 2) broken = true;
  finish(job, result, broken);
  if (!broken) {
    try {
      state.py.setInterruptBuffer(undefined);
    } catch (e) {}
    restore(state);
  }
}
`;
