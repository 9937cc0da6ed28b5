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
 * Calls of pure library functions run in the worker itself (in-worker-source.ts: routeCall).
 *
 * Messages in:  {run, source, table, limits, account, inWorker?}
 * Messages out: {type:'call', run, call, method, args} · {type:'done', run, output?, failure?, timing, broken?}
 *               · {type:'retire'} (a finished script's runtime could not be freed)
 */
import { HOST_CALL_SOURCE } from './host-call-source.js';
import { IN_WORKER_SOURCE } from './in-worker-source.js';

export const WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData, receiveMessageOnPort } = require('node:worker_threads');
const { newQuickJSWASMModule, newVariant, RELEASE_SYNC } = require(workerData.quickjs);
const signal = new Int32Array(workerData.signal);
const replies = workerData.replies;
const SETUP = workerData.setup;
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
// No room left for a quarter of the script's memory: a large allocation (an array doubling) failed.
const nearlyFull = () => !hasRoom(Math.max(2 * PAGE, workerData.memoryBytes / 4));
// Handing a string to QuickJS mallocs without checking the result, so a reply is only handed
// over when the heap can still give twice its size; otherwise the script gets an error made
// while there was room (FULL_REPLY).
const roomFor = (text) => hasRoom(2 * Buffer.byteLength(text) + PAGE);
const FULL_REPLY = 'e' + JSON.stringify({ message: "the script's memory is full: no room for the result" });
const ready = newQuickJSWASMModule(newVariant(RELEASE_SYNC, { wasmMemory: memory })).then((module) => {
  // The Emscripten module's allocator, the one QuickJS uses (for hasRoom).
  heap.module = module.module;
  heap.malloc = module.module._malloc;
  heap.free = module.module._free;
  measureRoom(module);
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
// own (docs/script.md, "A fresh QuickJS context for every script"): creating and freeing a runtime
// per script cost about as much as the script's context itself. It is retired (freed, which
// collects everything its scripts left) after RUNTIME_SCRIPTS scripts or RUNTIME_CPU_MS of their
// computing, before a script of another account, and after any script that did not end cleanly
// (a limit, a host failure, promise jobs still pending).
const RUNTIME_SCRIPTS = 32;
const RUNTIME_CPU_MS = 20;
let shared = null;

function runtimeFor(module, account) {
  if (shared !== null && shared.account !== account && !retireRuntime()) throw new Error('the previous runtime could not be freed');
  if (shared === null) shared = { rt: module.newRuntime(), account, scripts: 0, cpuMs: 0, keys: new Map() };
  return shared;
}

// Property names as QuickJS strings, made once per runtime (strings belong to the runtime, not to
// a context) in the runtime's own context, and freed before it.
function keyOf(state, name) {
  let key = state.keys.get(name);
  if (key === undefined) {
    key = state.rt.getSystemContext().newString(name);
    state.keys.set(name, key);
  }
  return key;
}

/** Object.defineProperty(target, name, {value or get, enumerable}), not writable nor configurable, straight through the FFI. */
function defineOwn(sb, target, name, value, get, enumerable) {
  const ctx = sb.ctx;
  ctx.ffi.QTS_DefineProp(ctx.ctx.value, target.value, keyOf(sb.state, name).value,
    (value || ctx.undefined).value, (get || ctx.undefined).value, ctx.undefined.value, false, enumerable, value !== null);
}

/** Frees the shared runtime (its contexts are already freed); false when the module could not clean up. */
function retireRuntime() {
  const state = shared;
  shared = null;
  if (state === null) return true;
  try {
    for (const key of state.keys.values()) key.dispose();
    if (state.rt.alive) state.rt.dispose();
    return true;
  } catch (e) {
    return false;
  }
}

// Whether the heap can give one block of that size (growing the memory up to its cap if need be).
const heap = { module: null, malloc: null, free: null };
function hasRoom(bytes) {
  const at = heap.malloc(bytes);
  if (at === 0) return false;
  heap.free(at);
  return true;
}

// The room a script starts with in a fresh worker (the largest block its heap can give once a
// runtime and context are made), less ROOM_SLACK: a kept runtime holds what its earlier scripts
// left until QuickJS collects it, and no script may start with less room than that — otherwise
// the runtime is retired first (runJob). Measured once, when the module is loaded.
const ROOM_SLACK = 2 * 1024 * 1024;
let scriptRoom = 0;
function measureRoom(module) {
  const rt = module.newRuntime();
  const ctx = rt.newContext();
  let lo = 0;
  let hi = CAP_BYTES;
  while (hi - lo > PAGE) {
    const mid = Math.floor((lo + hi) / 2);
    if (hasRoom(mid)) lo = mid;
    else hi = mid;
  }
  ctx.dispose();
  rt.dispose();
  scriptRoom = Math.max(PAGE, lo - ROOM_SLACK);
}

// A context with the RMP* objects, made before it is needed: right after a script ends the
// worker prepares the next one, so a script rarely waits for its setup. Nothing runs in it before
// its script; the host function serves whichever run the sandbox is given.
let spare = null;

// The method table by object, [[objectName, [[method, id], …]], …] (api.ts), parsed once per table.
let lastTable = null;
let lastObjects = [];
function tableObjects(table) {
  if (table !== lastTable) {
    lastObjects = JSON.parse(table);
    lastTable = table;
  }
  return lastObjects;
}

function prepare(module, table, account) {
  const begin = performance.now();
  const state = runtimeFor(module, account);
  const sb = {
    table, account, state, run: null, ctx: null, held: [], prepareMs: 0,
    // The RMP* objects': the captured intrinsics (SETUP), the output, the marking (once needed).
    intrinsics: null, cached: [], output: 'n', anyMarked: false, marking: null, full: null,
    // The legacy prelude's output getter.
    getter: null,
  };
  try {
    const ctx = (sb.ctx = state.rt.newContext());
    // A table that is an object ({legacy, variables}) asks for the legacy engine's globals.
    if (table.charAt(0) === '{') prepareLegacy(sb, ctx, table);
    else prepareObjects(sb, ctx, table);
  } catch (e) {
    release(sb);
    retireRuntime();
    throw e;
  }
  sb.prepareMs = performance.now() - begin;
  return sb;
}

function prepareLegacy(sb, ctx, table) {
  const host = ctx.newFunction('host', () => ctx.newString('e' + JSON.stringify({ message: 'a legacy script makes no platform calls' })));
  const prelude = ctx.unwrapResult(ctx.evalCode(LEGACY_PRELUDE, 'rmp.js'));
  const tableHandle = ctx.newString(table);
  sb.getter = ctx.unwrapResult(ctx.callFunction(prelude, ctx.undefined, host, tableHandle));
  prelude.dispose();
  tableHandle.dispose();
  host.dispose();
}

/** Keeps a handle until the sandbox is released. */
function hold(sb, handle) {
  sb.held.push(handle);
  return handle;
}

// ---- The RMP* objects, made with host functions (no JavaScript of ours is parsed for them).
// Each global RMP* name is a read-only, non-enumerable accessor whose getter builds the frozen
// object the first time the script names it; each method is a host function (named, not a
// constructor, no prototype) that serialises its arguments with the JSON.stringify captured
// before the script ran, makes the platform call (callHost) and decodes the reply with the
// captured JSON.parse, or throws an Error made by the captured Error constructor (so its stack
// shows the script's line). Only strings cross; no host value reaches the script.
const STRINGIFY = 0, PARSE = 1, FREEZE = 2, ERROR = 3, ARRAY_OF = 4, IS_ARRAY = 5, KEYS = 6, WEAK_SET = 7;

function intrinsic(sb, i) {
  return sb.cached[i] || (sb.cached[i] = hold(sb, sb.ctx.getProp(sb.intrinsics, i)));
}

function prepareObjects(sb, ctx, table) {
  sb.intrinsics = hold(sb, ctx.unwrapResult(ctx.evalCode(SETUP, 'rmp.js')));
  fastMethods(sb);
  const objects = tableObjects(table);
  for (let i = 0; i < objects.length; i++) {
    const objectName = objects[i][0];
    const entries = objects[i][1];
    // RMPData (setOutput) is what nearly every script names: it is built now, off the script's path.
    let built = objectName === 'RMPData' ? hold(sb, buildObject(sb, objectName, entries)) : null;
    const getter = () => {
      if (built === null) built = hold(sb, buildObject(sb, objectName, entries));
      return built;
    };
    const through = () => getter().dup();
    // On the dispatcher's fast path (fastMethods): the object's pointer, owned by the caller.
    through.rmpFast = () => ctx.ffi.QTS_DupValuePointer(ctx.ctx.value, getter().value);
    const get = ctx.newFunction(objectName, through);
    defineOwn(sb, ctx.global, objectName, null, get, false);
    get.dispose();
  }
}

function buildObject(sb, objectName, entries) {
  const ctx = sb.ctx;
  const target = ctx.newObject();
  try {
    for (let j = 0; j < entries.length; j++) {
      const id = entries[j][1];
      const call = (...args) => methodThroughWrapper(sb, id, args);
      call.rmpFast = (pointers) => platformCall(sb, id, pointers);
      const method = ctx.newFunction(entries[j][0], call);
      defineOwn(sb, target, entries[j][0], method, null, true);
      method.dispose();
    }
    if (objectName === 'RMPData') {
      const through = (value) => setOutputOf(sb, value === undefined ? 0 : value.value);
      through.rmpFast = (pointers) => setOutputOf(sb, pointers.length > 0 ? pointers[0] : 0);
      const setOutput = ctx.newFunction('setOutput', through);
      // Its length as a method definition setOutput(value) has it (host functions get 0).
      const one = ctx.newNumber(1);
      ctx.defineProp(setOutput, 'length', { value: one, configurable: true });
      one.dispose();
      defineOwn(sb, target, 'setOutput', setOutput, null, true);
      setOutput.dispose();
    }
    ctx.unwrapResult(ctx.callFunction(intrinsic(sb, FREEZE), ctx.undefined, target)).dispose();
  } catch (e) {
    target.dispose();
    throw e;
  }
  return target;
}

/** RMPData.setOutput(value at that pointer; 0: none): taken now, as s<text>, j<json> or n (nothing). Gives 0 or {error}. */
function setOutputOf(sb, pointer) {
  const ctx = sb.ctx;
  const ffi = ctx.ffi;
  const c = ctx.ctx.value;
  const type = pointer === 0 ? 'undefined' : ctx.memory.consumeHeapCharPointer(ffi.QTS_Typeof(c, pointer));
  if (type === 'undefined' || ffi.QTS_IsEqual(c, pointer, ctx.null.value, 0)) {
    sb.output = 'n';
  } else if (type === 'string') {
    sb.output = 's' + ctx.memory.consumeJSCharPointer(ffi.QTS_GetString(c, pointer));
  } else {
    const json = callRaw(sb, intrinsic(sb, STRINGIFY), [pointer]);
    if (typeof json !== 'number') return json;
    const isText = ctx.memory.consumeHeapCharPointer(ffi.QTS_Typeof(c, json)) === 'string';
    sb.output = isText ? 'j' + ctx.memory.consumeJSCharPointer(ffi.QTS_GetString(c, json)) : 'n';
    freeRaw(sb, json);
  }
  return 0;
}

// A platform call is the hot path (a script may make thousands): the FFI is used directly, with
// one argument buffer per worker, so that no wrapper object is made per step.
const ARGV_SLOTS = 64;
let argv = 0;
let words = new Uint32Array(0);

/** fn(...values) in the sandbox: the result's JSValue pointer (the caller frees it), or {error: handle}. */
function callRaw(sb, fn, values) {
  const ctx = sb.ctx;
  const ffi = ctx.ffi;
  const c = ctx.ctx.value;
  if (argv === 0) argv = heap.malloc(ARGV_SLOTS * 4);
  if (words.buffer !== memory.buffer) words = new Uint32Array(memory.buffer);
  for (let i = 0; i < values.length; i++) words[(argv >> 2) + i] = values[i];
  const result = ffi.QTS_Call(c, fn.value, ctx.undefined.value, values.length, argv);
  const error = ffi.QTS_ResolveException(c, result);
  if (error) {
    ffi.QTS_FreeValuePointer(c, result);
    return { error: ctx.memory.heapValueHandle(error) };
  }
  return result;
}

function freeRaw(sb, pointer) {
  sb.ctx.ffi.QTS_FreeValuePointer(sb.ctx.ctx.value, pointer);
}

/** A JavaScript string (the caller frees it). */
function stringRaw(sb, text) {
  const m = heap.module;
  const bytes = m.lengthBytesUTF8(text) + 1;
  const chars = heap.malloc(bytes);
  if (chars === 0) return 0;
  m.stringToUTF8(text, chars, bytes);
  const value = sb.ctx.ffi.QTS_NewString(sb.ctx.ctx.value, chars);
  heap.free(chars);
  return value;
}

/** JSON.stringify(value) with the captured function: its text, or {error: handle}. */
function jsonRaw(sb, pointer) {
  const json = callRaw(sb, intrinsic(sb, STRINGIFY), [pointer]);
  if (typeof json !== 'number') return json;
  const ctx = sb.ctx;
  const text = ctx.memory.consumeJSCharPointer(ctx.ffi.QTS_GetString(ctx.ctx.value, json));
  freeRaw(sb, json);
  return text;
}

function marking(sb) {
  if (sb.marking === null) {
    const ctx = sb.ctx;
    const factory = hold(sb, ctx.unwrapResult(ctx.evalCode(MARKING, 'rmp.js')));
    const made = hold(sb, ctx.unwrapResult(ctx.callFunction(factory, ctx.undefined, intrinsic(sb, IS_ARRAY), intrinsic(sb, KEYS), intrinsic(sb, WEAK_SET))));
    sb.marking = { mark: hold(sb, ctx.getProp(made, 'markPaths')), paths: hold(sb, ctx.getProp(made, 'markedPaths')) };
  }
  return sb.marking;
}

/**
 * One method call, on the arguments' JSValue pointers: their JSON (trailing undefined ones
 * dropped), the call, the reply decoded. Gives 0 (undefined), the result's pointer (owned by the
 * caller) or {error: handle} to throw.
 */
function platformCall(sb, id, pointers) {
  const ctx = sb.ctx;
  const ffi = ctx.ffi;
  const c = ctx.ctx.value;
  let n = pointers.length;
  while (n > 0 && ffi.QTS_IsEqual(c, pointers[n - 1], ctx.undefined.value, 0)) n--;
  if (n > ARGV_SLOTS) return { error: ctx.newError('too many arguments') };
  pointers.length = n;
  const list = callRaw(sb, intrinsic(sb, ARRAY_OF), pointers);
  if (typeof list !== 'number') return list;
  let text;
  try {
    text = jsonRaw(sb, list);
    if (typeof text !== 'string') return text;
    if (sb.anyMarked) {
      const paths = callRaw(sb, marking(sb).paths, [list]);
      if (typeof paths !== 'number') return paths;
      const pathsText = jsonRaw(sb, paths);
      freeRaw(sb, paths);
      if (typeof pathsText !== 'string') return pathsText;
      if (pathsText !== '[]') text = 'm[' + text + ',' + pathsText + ']';
    }
  } finally {
    freeRaw(sb, list);
  }
  let reply = routeCall(sb.run, id, text);
  if (!roomFor(reply)) reply = FULL_REPLY;
  const tag = reply.charAt(0);
  if (tag === 'u') return 0;
  const body = stringRaw(sb, tag === 'e' ? JSON.parse(reply.slice(1)).message : reply.slice(1));
  if (body === 0) return { error: ctx.newError('out of memory') };
  // e: an Error made by the captured constructor, while the script's frame is on the stack.
  const made = callRaw(sb, intrinsic(sb, tag === 'e' ? ERROR : PARSE), [body]);
  freeRaw(sb, body);
  if (typeof made !== 'number' || tag === 'v') return made;
  const value = ctx.memory.heapValueHandle(made);
  if (tag === 'e') return { error: value };
  // m: [value, paths of the request-input objects in it]
  sb.anyMarked = true;
  const result = ctx.getProp(value, 0);
  const paths = ctx.getProp(value, 1);
  value.dispose();
  const marked = ctx.callFunction(marking(sb).mark, ctx.undefined, result, paths);
  paths.dispose();
  if (marked.error) {
    result.dispose();
    return marked;
  }
  marked.value.dispose();
  const owned = ffi.QTS_DupValuePointer(c, result.value);
  result.dispose();
  return owned;
}

/** A method as quickjs-emscripten calls a host function (handles in, a handle out). */
function methodThroughWrapper(sb, id, args) {
  const made = platformCall(sb, id, args.map((h) => h.value));
  if (made === 0) return undefined;
  if (typeof made !== 'number') return made;
  return sb.ctx.memory.heapValueHandle(made);
}

/**
 * The methods' calls skip quickjs-emscripten's per-call wrapper (a scope, a handle per argument):
 * the context's C → host dispatcher is given a first look at each call, and answers those of the
 * functions marked with an rmpFast (the RMP* getters and methods) on raw pointers, as the C side expects — an owned
 * JSValue pointer, 0 for undefined, or the pointer QTS_Throw gives. Any other host function goes
 * the usual way; without the expected internals, methods use the wrapper (methodThroughWrapper).
 */
function fastMethods(sb) {
  const ctx = sb.ctx;
  const callbacks = ctx.cToHostCallbacks;
  const refs = ctx.runtime && ctx.runtime.hostRefs;
  if (!callbacks || typeof callbacks.callFunction !== 'function' || !refs || typeof refs.get !== 'function') return false;
  const usual = callbacks.callFunction;
  const ffi = ctx.ffi;
  callbacks.callFunction = (c, thisPtr, argc, argvPtr, fnId) => {
    const fn = refs.get(fnId);
    if (fn === undefined || fn.rmpFast === undefined || c !== ctx.ctx.value) return usual(c, thisPtr, argc, argvPtr, fnId);
    try {
      const pointers = new Array(argc);
      for (let i = 0; i < argc; i++) pointers[i] = ffi.QTS_ArgvGetJSValueConstPointer(argvPtr, i);
      const made = fn.rmpFast(pointers);
      if (typeof made === 'number') return made;
      const thrown = ffi.QTS_Throw(c, made.error.value);
      made.error.dispose();
      return thrown;
    } catch (e) {
      const error = ctx.newError(e && e.message ? String(e.message) : 'the sandbox failed');
      const thrown = ffi.QTS_Throw(c, error.value);
      error.dispose();
      return thrown;
    }
  };
  return true;
}

/** Frees a sandbox's context (not its runtime); false when the module could not clean up. */
function release(sb) {
  try {
    for (const handle of sb.held) if (handle.alive) handle.dispose();
    sb.held.length = 0;
    if (sb.getter && sb.getter.alive) sb.getter.dispose();
    if (sb.ctx && sb.ctx.alive) sb.ctx.dispose();
    return true;
  } catch (e) {
    return false;
  }
}

${HOST_CALL_SOURCE}
${IN_WORKER_SOURCE}

function runJob(module, job) {
  const limits = job.limits;
  const account = typeof job.account === 'string' ? job.account : '';
  const begin = performance.now();
  const run = { job, begin, waited: 0, stop: null, seq: 0, calls: 0, inWorker: null, inWorkerMethods: undefined, inWorkerCalls: 0 };
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
    } else if (sb.getter === null) {
      result = { output: sb.output };
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
  // A script that filled the memory leaves a heap grown to its cap and cut into pieces: the worker
  // is replaced, so the next script finds the room (and the error positions) of a fresh one.
  if (result.failure && result.failure.kind === 'memory') broken = true;
  // A script that leaves the heap without a fresh worker's room (what it keeps reachable counts):
  // its context and runtime are freed before the result goes out, and if the heap still lacks the
  // room the worker is replaced — the main thread knows before it sends the next script.
  let freed = false;
  if (!broken && sb && !hasRoom(scriptRoom)) {
    if (!release(sb) || !retireRuntime() || !hasRoom(scriptRoom)) broken = true;
    freed = true;
  }
  const totalMs = performance.now() - begin;
  result.timing = { setupMs, prepareMs, totalMs, waitedMs: run.waited, calls: run.calls, inWorkerCalls: run.inWorkerCalls };
  // The result goes out before the cleanup. A context or runtime that cannot be freed makes the
  // worker broken; the main thread learns it from the next 'done' (or the worker retires itself
  // before taking another job: see 'retire').
  if (broken) {
    finish(job, result, true);
    return;
  }
  finish(job, result, false);
  if (freed) {
    try {
      spare = prepare(module, job.table, account);
    } catch (e) {
      spare = null;
    }
    return;
  }
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
