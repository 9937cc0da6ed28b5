/**
 * The program of a sandbox worker thread (CommonJS, evaluated with `eval: true`, like the regex
 * worker of src/platform/files). It holds one QuickJS WebAssembly module (the synchronous
 * release build) and runs one script at a time, each in a fresh QuickJS context.
 *
 * Each script gets a context no script ran in before, in a runtime its account's earlier scripts
 * may have used (runtimeFor: retired after a script that did not end cleanly, before another
 * account's script, and every RUNTIME_SCRIPTS scripts); the next context is prepared as soon as a
 * script ends, so its setup is mostly off the scripts' path.
 *
 * A platform call blocks the worker, never the server: the worker posts {call} to the main
 * thread, waits on a shared counter (Atomics.wait) and takes the reply from its reply port
 * (receiveMessageOnPort), so the script sees a synchronous function while the main thread runs
 * the asynchronous registry function. Limits: the module's memory capped at the worker's
 * memoryBytes (fixed when the worker starts), QuickJS's stack limit, an interrupt handler for CPU
 * time (time waiting on calls excluded) and wall time, and the wait itself bounded by the wall
 * time; the main thread terminates a worker that outlives its job.
 *
 * Messages in:  {run, source, table, limits, account}
 * Messages out: {type:'call', run, call, method, args} · {type:'done', run, output?, failure?, timing, broken?}
 *               · {type:'retire'} (a finished script's runtime could not be freed)
 */
import { HOST_CALL_SOURCE } from './host-call-source.js';

export const WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData, receiveMessageOnPort } = require('node:worker_threads');
const { newQuickJSWASMModule, newVariant, RELEASE_SYNC } = require(workerData.quickjs);
const signal = new Int32Array(workerData.signal);
const replies = workerData.replies;
const PRELUDE = workerData.prelude;
const LEGACY_PRELUDE = workerData.legacyPrelude;
const MARKING = workerData.marking;
const perf = performance;
const started = performance.now();
// The module's linear memory, capped: QuickJS's own byte accounting is not reliable in this build
// (no malloc_usable_size), so the hard bound on a script's memory is how far this memory may grow.
// Past it, malloc fails and QuickJS raises "out of memory".
const PAGE = 65536;
const BASE_PAGES = 256; // the module's minimum: code data, C stack and the first heap (16 MiB)
const memory = new WebAssembly.Memory({
  initial: BASE_PAGES,
  maximum: BASE_PAGES + Math.ceil(workerData.memoryBytes / PAGE),
});
const CAP_BYTES = (BASE_PAGES + Math.ceil(workerData.memoryBytes / PAGE)) * PAGE;
// Within a quarter of the script's memory of the cap: a large allocation (an array doubling) failed.
const nearlyFull = () => memory.buffer.byteLength + Math.max(2 * PAGE, workerData.memoryBytes / 4) > CAP_BYTES;
// Handing a string to QuickJS mallocs without checking the result, so a reply is only handed
// over when the heap can still give twice its size; otherwise the script gets an error made
// while there was room (FULL_REPLY).
const roomFor = (text) => hasRoom(2 * Buffer.byteLength(text) + PAGE);
const FULL_REPLY = 'e' + JSON.stringify({ message: "the script's memory is full: no room for the result" });
const ready = newQuickJSWASMModule(newVariant(RELEASE_SYNC, { wasmMemory: memory })).then((module) => {
  // The Emscripten module's allocator, the one QuickJS uses (for hasRoom).
  heap.malloc = module.module._malloc;
  heap.free = module.module._free;
  parentPort.postMessage({ type: 'ready', ms: performance.now() - started });
  return module;
});

// Set when a finished script's runtime could not be freed: the module's state is unknown, so no
// other script runs here; the main thread replaces the worker (see 'retire').
let unusable = false;

parentPort.on('message', (job) => {
  if (unusable) {
    finish(job, { failure: { kind: 'internal', message: 'the sandbox could not clean up after the previous script' } }, true);
    return;
  }
  ready.then(
    (module) => runJob(module, job),
    (e) => finish(job, { failure: { kind: 'internal', message: 'the sandbox could not start: ' + (e && e.message) } }, true),
  );
});

// broken: the main thread replaces this worker (a runtime that failed to clean up leaves the
// module in an unknown state; a heap grown near its cap leaves too little room).
function finish(job, result, broken) {
  parentPort.postMessage(Object.assign({ type: 'done', run: job.run, broken }, result));
}

const FRAME = /script\.js:(\d+):(\d+)/;

function describe(dumped, stop) {
  const failure = { kind: stop || 'exception' };
  if (dumped !== null && typeof dumped === 'object' && typeof dumped.message === 'string') {
    failure.name = typeof dumped.name === 'string' ? dumped.name : 'Error';
    failure.message = dumped.message;
    const at = FRAME.exec(typeof dumped.stack === 'string' ? dumped.stack : '');
    if (at) {
      failure.line = Number(at[1]);
      failure.column = Number(at[2]);
    } else if (typeof dumped.lineNumber === 'number') {
      failure.line = dumped.lineNumber;
    }
    if (!stop) {
      // A parse error's stack is the bare position; a SyntaxError thrown while running has frames.
      if (failure.name === 'SyntaxError' && /^\s*at script\.js:\d+/.test(String(dumped.stack))) failure.kind = 'syntax';
      if (failure.name === 'InternalError' && failure.message === 'out of memory') failure.kind = 'memory';
      if (failure.name === 'InternalError' && failure.message === 'stack overflow') failure.kind = 'stack';
    }
  } else if ((dumped === null || dumped === undefined || dumped === '') && !stop && nearlyFull()) {
    // No room was left even for the error object: QuickJS then throws null, or an empty string,
    // once the heap is at (or within a failed allocation of) its cap.
    failure.kind = 'memory';
  } else {
    failure.name = '';
    let text;
    try {
      text = JSON.stringify(dumped);
    } catch (e) {
      text = undefined;
    }
    failure.message = 'uncaught ' + (text === undefined ? String(dumped) : text).slice(0, 500);
  }
  return failure;
}

// The runtime a worker's scripts share, one account's at a time, each script in a context of its
// own (docs/script.md, "One runtime, a fresh context per script"): creating and freeing a runtime
// per script cost about as much as the script's context itself. It is retired (freed, which
// collects everything its scripts left) after RUNTIME_SCRIPTS scripts or RUNTIME_CPU_MS of their
// computing, before a script of another account, and after any script that did not end cleanly
// (a limit, a host failure, promise jobs still pending).
const RUNTIME_SCRIPTS = 32;
const RUNTIME_CPU_MS = 20;
let shared = null;

function runtimeFor(module, account) {
  if (shared !== null && shared.account !== account && !retireRuntime()) throw new Error('the previous runtime could not be freed');
  if (shared === null) shared = { rt: module.newRuntime(), account, scripts: 0, cpuMs: 0 };
  return shared;
}

/** Frees the shared runtime (its contexts are already freed); false when the module could not clean up. */
function retireRuntime() {
  const state = shared;
  shared = null;
  if (state === null) return true;
  try {
    if (state.rt.alive) state.rt.dispose();
    return true;
  } catch (e) {
    return false;
  }
}

// Whether the heap can still give a script its whole memoryBytes in one block (growing the memory
// up to its cap if need be): a kept runtime holds what its earlier scripts left until it is
// collected, and no script may start with less room than a fresh worker gives it.
const heap = { malloc: null, free: null };
function hasRoom(bytes) {
  const at = heap.malloc(bytes);
  if (at === 0) return false;
  heap.free(at);
  return true;
}

// A context with the RMP* objects, made before it is needed: right after a script ends the
// worker prepares the next one, so a script rarely waits for its setup. Nothing runs in it before
// its script; the host function serves whichever run the sandbox is given.
let spare = null;

// The method table as the prelude takes it (prelude.ts): one line per object, name TAB entries.
let lastTable = null;
let lastLines = '';
function tableLines(table) {
  if (table !== lastTable) {
    lastLines = JSON.parse(table).map((o) => o[0] + '\t' + JSON.stringify(o[1])).join('\n');
    lastTable = table;
  }
  return lastLines;
}

function prepare(module, table, account) {
  const begin = performance.now();
  const state = runtimeFor(module, account);
  const sb = { table, account, state, run: null, ctx: null, getter: null, full: null, prepareMs: 0 };
  try {
    const ctx = (sb.ctx = state.rt.newContext());
    sb.full = ctx.newString(FULL_REPLY);
    const host = ctx.newFunction('host', (method, args) => {
      const reply = callHost(sb.run, ctx.getNumber(method), ctx.getString(args));
      return roomFor(reply) ? ctx.newString(reply) : sb.full.dup();
    });
    // A table that is an object ({legacy, variables}) asks for the legacy engine's globals.
    const legacy = table.charAt(0) === '{';
    const prelude = ctx.unwrapResult(ctx.evalCode(legacy ? LEGACY_PRELUDE : PRELUDE, 'rmp.js'));
    const tableHandle = ctx.newString(legacy ? table : tableLines(table));
    const markingHandle = ctx.newString(legacy ? '' : MARKING);
    sb.getter = ctx.unwrapResult(ctx.callFunction(prelude, ctx.undefined, host, tableHandle, markingHandle));
    prelude.dispose();
    tableHandle.dispose();
    markingHandle.dispose();
    host.dispose();
  } catch (e) {
    release(sb);
    retireRuntime();
    throw e;
  }
  sb.prepareMs = performance.now() - begin;
  return sb;
}

/** Frees a sandbox's context (not its runtime); false when the module could not clean up. */
function release(sb) {
  try {
    if (sb.getter && sb.getter.alive) sb.getter.dispose();
    if (sb.full && sb.full.alive) sb.full.dispose();
    if (sb.ctx && sb.ctx.alive) sb.ctx.dispose();
    return true;
  } catch (e) {
    return false;
  }
}

${HOST_CALL_SOURCE}

function runJob(module, job) {
  const limits = job.limits;
  const account = typeof job.account === 'string' ? job.account : '';
  const begin = performance.now();
  const run = { job, begin, waited: 0, stop: null, seq: 0, calls: 0 };
  let result;
  let broken = false;
  let sb = spare;
  spare = null;
  let setupMs = 0;
  let prepareMs = 0;
  let inJobs = false;
  try {
    if (sb && (sb.table !== job.table || sb.account !== account)) {
      if (!release(sb)) broken = true;
      sb = null;
    }
    if (!sb) {
      sb = prepare(module, job.table, account);
      setupMs = sb.prepareMs;
    }
    // Room for the script's whole memoryBytes, or a fresh runtime; still none: the worker is
    // replaced after this script.
    if (!hasRoom(limits.memoryBytes)) {
      const t = performance.now();
      if (!release(sb) || !retireRuntime()) throw new Error('the previous runtime could not be freed');
      sb = null;
      sb = prepare(module, job.table, account);
      setupMs += performance.now() - t;
      if (!hasRoom(limits.memoryBytes)) broken = true;
    }
    prepareMs = sb.prepareMs;
    sb.run = run;
    const { ctx } = sb;
    const rt = sb.state.rt;
    rt.setMaxStackSize(limits.stackBytes);
    rt.setInterruptHandler(() => {
      if (run.stop === null) {
        const elapsed = performance.now() - begin;
        if (elapsed > limits.wallTimeMs) run.stop = 'wall-time';
        else if (elapsed - run.waited > limits.cpuTimeMs) run.stop = 'cpu-time';
      }
      return run.stop !== null;
    });

    let failure;
    const evaluated = ctx.evalCode(job.source, 'script.js');
    if (evaluated.error) {
      failure = evaluated.error;
    } else {
      evaluated.value.dispose();
      // Promise callbacks (async functions, then) run now, under the same limits.
      inJobs = true;
      while (!failure && rt.hasPendingJob()) {
        const jobs = rt.executePendingJobs(-1);
        if (jobs.error) failure = jobs.error;
      }
    }
    // Past this point only our own code runs in the runtime: no interrupt, room to report.
    rt.removeInterruptHandler();
    if (failure) {
      let dumped;
      try {
        dumped = ctx.dump(failure);
      } catch (e) {
        dumped = { name: 'InternalError', message: 'the error could not be read' };
      }
      failure.dispose();
      result = { failure: describe(dumped, run.stop) };
    } else if (run.stop !== null) {
      result = { failure: { kind: run.stop } };
    } else {
      const out = ctx.unwrapResult(ctx.callFunction(sb.getter, ctx.undefined));
      result = { output: ctx.getString(out) };
      out.dispose();
    }
  } catch (e) {
    // Host-level failures: the interpreter's native stack (deep recursion past stackBytes' margin) or the module.
    const overflow = e instanceof RangeError;
    result = { failure: { kind: overflow ? 'stack' : 'internal', name: e && e.name, message: String(e && e.message) } };
    broken = true;
  }
  if (sb) sb.run = null;
  // A promise job interrupted at a limit can leave QuickJS's reference counts unbalanced (objects
  // of the job's reaction are never freed), and JS_FreeRuntime then aborts on its assertion
  // list_empty(&rt->gc_obj_list). Such a runtime is not freed: the worker, its module and all its
  // memory are replaced instead.
  if (sb && run.stop !== null && inJobs) broken = true;
  const totalMs = performance.now() - begin;
  result.timing = { setupMs, prepareMs, totalMs, waitedMs: run.waited, calls: run.calls };
  // The result goes out before the cleanup. A context or runtime that cannot be freed makes the
  // worker broken; the main thread learns it from the next 'done' (or the worker retires itself
  // before taking another job: see 'retire').
  if (broken) {
    finish(job, result, true);
    return;
  }
  finish(job, result, false);
  if (!release(sb)) {
    unusable = true;
    parentPort.postMessage({ type: 'retire' });
    return;
  }
  // The runtime is kept for the next script only when this one ended cleanly: finished or threw,
  // no limit reached, no promise job left (a job left behind would run in the next script).
  const state = sb.state;
  state.scripts++;
  state.cpuMs += totalMs - run.waited;
  const kind = result.failure && result.failure.kind;
  const clean = run.stop === null && (kind === undefined || kind === 'exception' || kind === 'syntax');
  let pending = true;
  try {
    pending = state.rt.hasPendingJob();
  } catch (e) {}
  if (!clean || pending || state.scripts >= RUNTIME_SCRIPTS || state.cpuMs >= RUNTIME_CPU_MS) {
    if (!retireRuntime()) {
      unusable = true;
      parentPort.postMessage({ type: 'retire' });
      return;
    }
  }
  // Right away (the result is already on its way): the next script finds its sandbox ready.
  try {
    spare = prepare(module, job.table, account);
  } catch (e) {
    spare = null;
  }
}
`;
