/**
 * The program of a QuickJS sandbox worker thread (quickjs-main.ts starts it; the pool of
 * ../pool.ts speaks to it with the messages of messages.ts). It holds one QuickJS WebAssembly
 * module (the synchronous release build) and runs one script at a time, each in a fresh QuickJS
 * context.
 *
 * Each script gets a context no script ran in before, in a runtime its account's earlier scripts
 * may have used (runtimeFor: retired after a script that did not end cleanly, before another
 * account's script, and every RUNTIME_SCRIPTS scripts); the next context is prepared as soon as a
 * script ends, so its setup is mostly off the scripts' path.
 *
 * A platform call blocks the worker, never the server: the worker posts a CallRequest to the main
 * thread, waits on a shared counter (Atomics.wait) and takes the Reply from its reply port
 * (receiveMessageOnPort), so the script sees a synchronous function while the main thread runs
 * the asynchronous registry function (host-call.ts). Limits: the module's memory capped at the
 * worker's memoryBytes (fixed when the worker starts), QuickJS's stack limit, an interrupt
 * handler for CPU time (time waiting on calls excluded) and wall time, and the wait itself bounded
 * by the wall time; the main thread terminates a worker that outlives its job.
 *
 * Calls of pure library functions run in the worker itself (in-worker-route.ts).
 */
import { createRequire } from 'node:module';
import type { MessagePort } from 'node:worker_threads';
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten';
import { hostCaller } from './host-call.cjs';
import { callRouter, type RoutedRun } from './in-worker-route.js';
import {
  done,
  type QuickJSWorkerData,
  type RunJob,
  type RunResult,
  type RunTiming,
  type TableObject,
  type WorkerFailure,
  type WorkerMessage,
} from './messages.js';
import { SETUP, legacyPrelude, marking as markingSource } from './sandbox-code.js';
import { errorMessage } from '../../errors/index.js';

/** The timing of a job that never ran (the sandbox could not start or clean up). */
const UNTIMED: RunTiming = { setupMs: 0, prepareMs: 0, totalMs: 0, waitedMs: 0, calls: 0 };

/** What the program needs of node:worker_threads (a stand-in runs it on one thread: bench/script.bench.ts). */
export interface WorkerIO {
  on(event: 'message', listener: (job: RunJob) => void): void;
  post(message: WorkerMessage): void;
  workerData: QuickJSWorkerData;
  receive(port: MessagePort): { message: unknown } | undefined;
}

type Pointer = number;

/** The parts of quickjs-emscripten's FFI the fast path calls (pointers as numbers). */
interface Ffi {
  QTS_DefineProp(
    c: Pointer,
    target: Pointer,
    name: Pointer,
    value: Pointer,
    get: Pointer,
    set: Pointer,
    configurable: boolean,
    enumerable: boolean,
    hasValue: boolean,
  ): void;
  QTS_Typeof(c: Pointer, v: Pointer): Pointer;
  QTS_IsEqual(c: Pointer, a: Pointer, b: Pointer, op: number): number;
  QTS_GetString(c: Pointer, v: Pointer): Pointer;
  QTS_Call(c: Pointer, fn: Pointer, self: Pointer, argc: number, argv: Pointer): Pointer;
  QTS_ResolveException(c: Pointer, v: Pointer): Pointer;
  QTS_FreeValuePointer(c: Pointer, v: Pointer): void;
  QTS_NewString(c: Pointer, chars: Pointer): Pointer;
  QTS_DupValuePointer(c: Pointer, v: Pointer): Pointer;
  QTS_Throw(c: Pointer, error: Pointer): Pointer;
  QTS_ArgvGetJSValueConstPointer(argv: Pointer, i: number): Pointer;
}

/** A host function of ours: quickjs-emscripten's wrapper calls it; the fast path calls rmpFast. */
type HostFn = ((...args: QuickJSHandle[]) => QuickJSHandle | { error: QuickJSHandle } | undefined) & {
  rmpFast?: (pointers: Pointer[]) => Made;
};

/** What QuickJSContext keeps private that the fast path uses (checked before use: fastMethods). */
interface ContextInternals {
  ctx: { value: Pointer };
  ffi: Ffi;
  memory: {
    consumeHeapCharPointer(p: Pointer): string;
    consumeJSCharPointer(p: Pointer): string;
    heapValueHandle(p: Pointer): QuickJSHandle;
  };
  cToHostCallbacks?: {
    callFunction(c: Pointer, thisPtr: Pointer, argc: number, argv: Pointer, fnId: number): Pointer;
  };
  runtime?: { hostRefs?: { get(id: number): HostFn | undefined } };
}

interface EmscriptenModule {
  _malloc(bytes: number): Pointer;
  _free(at: Pointer): void;
  lengthBytesUTF8(text: string): number;
  stringToUTF8(text: string, at: Pointer, bytes: number): void;
}

/** A value made for the script: an owned JSValue pointer (0: undefined), or an error to throw. */
type Made = Pointer | { error: QuickJSHandle };

interface RuntimeState {
  rt: QuickJSRuntime;
  account: string;
  scripts: number;
  cpuMs: number;
  keys: Map<string, QuickJSHandle>;
}

interface Sandbox {
  table: string;
  account: string;
  state: RuntimeState;
  run: QuickJSRun | null;
  ctx: QuickJSContext;
  /** Its internals (the same object). */
  raw: ContextInternals;
  held: QuickJSHandle[];
  prepareMs: number;
  // The RMP* objects': the captured intrinsics (SETUP), the output, the marking (once needed).
  intrinsics: QuickJSHandle | null;
  cached: QuickJSHandle[];
  output: string;
  anyMarked: boolean;
  marking: { mark: QuickJSHandle; paths: QuickJSHandle } | null;
  // The legacy prelude's output getter.
  getter: QuickJSHandle | null;
}

type QuickJSRun = RoutedRun;

// The captured intrinsics, by their index in SETUP's array.
const enum Intrinsic {
  STRINGIFY = 0,
  PARSE = 1,
  FREEZE = 2,
  ERROR = 3,
  ARRAY_OF = 4,
  IS_ARRAY = 5,
  KEYS = 6,
  WEAK_SET = 7,
}

const PAGE = 65536;
const BASE_PAGES = 256; // the module's minimum: code data, C stack and the first heap (16 MiB)

// The runtime a worker's scripts share, one account's at a time, each script in a context of its
// own (docs/script.md, "A fresh QuickJS context for every script"): creating and freeing a runtime
// per script cost about as much as the script's context itself. It is retired (freed, which
// collects everything its scripts left) after RUNTIME_SCRIPTS scripts or RUNTIME_CPU_MS of their
// computing, before a script of another account, and after any script that did not end cleanly
// (a limit, a host failure, promise jobs still pending).
const RUNTIME_SCRIPTS = 32;
const RUNTIME_CPU_MS = 20;

// The room a script starts with in a fresh worker (the largest block its heap can give once a
// runtime and context are made), less ROOM_SLACK: a kept runtime holds what its earlier scripts
// left until QuickJS collects it, and no script may start with less room than that — otherwise
// the runtime is retired first (runJob). Measured once, when the module is loaded.
const ROOM_SLACK = 2 * 1024 * 1024;

// A platform call is the hot path (a script may make thousands): the FFI is used directly, with
// one argument buffer per worker, so that no wrapper object is made per step.
const ARGV_SLOTS = 64;

const FRAME = /script\.js:(\d+):(\d+)/;

const messageOf = (e: unknown): string => String(e ? (e as { message?: unknown }).message : e);

export function startQuickJSWorker(io: WorkerIO): void {
  const { workerData } = io;
  const quickjs = createRequire(import.meta.url)('quickjs-emscripten') as typeof import('quickjs-emscripten');
  const signal = new Int32Array(workerData.signal);
  const started = performance.now();
  const callHost = hostCaller({
    post: (m) => io.post(m),
    replies: workerData.replies,
    receive: io.receive,
    signal,
    now: () => performance.now(),
  });
  const routeCall = callRouter(workerData.inWorker, callHost);
  const LEGACY_PRELUDE = legacyPrelude();
  const MARKING = markingSource();

  // The module's linear memory, capped: QuickJS's own byte accounting is not reliable in this build
  // (no malloc_usable_size), so the hard bound on a script's memory is how far this memory may grow.
  // Past it, malloc fails and QuickJS raises "out of memory".
  const maxPages = BASE_PAGES + Math.ceil(workerData.memoryBytes / PAGE);
  const memory = new WebAssembly.Memory({ initial: BASE_PAGES, maximum: maxPages });
  const CAP_BYTES = maxPages * PAGE;
  // No room left for a quarter of the script's memory: a large allocation (an array doubling) failed.
  const nearlyFull = (): boolean => !hasRoom(Math.max(2 * PAGE, workerData.memoryBytes / 4));
  // Handing a string to QuickJS mallocs without checking the result, so a reply is only handed
  // over when the heap can still give twice its size; otherwise the script gets an error made
  // while there was room (FULL_REPLY).
  const roomFor = (text: string): boolean => hasRoom(2 * Buffer.byteLength(text) + PAGE);
  const FULL_REPLY = 'e' + JSON.stringify({ message: "the script's memory is full: no room for the result" });

  // The Emscripten module's allocator, the one QuickJS uses (for hasRoom).
  let heap!: EmscriptenModule;
  const ready = quickjs
    .newQuickJSWASMModule(quickjs.newVariant(quickjs.RELEASE_SYNC, { wasmMemory: memory }))
    .then((module) => {
      heap = (module as unknown as { module: EmscriptenModule }).module;
      measureRoom(module);
      io.post({ type: 'ready', ms: performance.now() - started });
      return module;
    });

  // Set when a finished script's runtime could not be freed: the module's state is unknown, so no
  // other script runs here; the main thread replaces the worker (see 'retire').
  let unusable = false;

  io.on('message', (job) => {
    if (unusable) {
      finish(
        job,
        {
          failure: { kind: 'internal', message: 'the sandbox could not clean up after the previous script' },
          timing: UNTIMED,
        },
        true,
      );
      return;
    }
    ready.then(
      (module) => runJob(module, job),
      (e: unknown) =>
        finish(
          job,
          {
            failure: {
              kind: 'internal',
              message: 'the sandbox could not start: ' + (e && errorMessage(e)),
            },
            timing: UNTIMED,
          },
          true,
        ),
    );
  });

  // broken: the main thread replaces this worker (a runtime that failed to clean up leaves the
  // module in an unknown state; a heap grown near its cap leaves too little room).
  function finish(job: RunJob, result: RunResult, broken: boolean): void {
    io.post(done(job.run, result, broken));
  }

  function describe(dumped: unknown, stop: WorkerFailure['kind'] | null): WorkerFailure {
    const failure: WorkerFailure = { kind: stop || 'exception' };
    const error = dumped as {
      name?: unknown;
      message?: unknown;
      stack?: unknown;
      lineNumber?: unknown;
    } | null;
    if (error !== null && typeof error === 'object' && typeof error.message === 'string') {
      failure.name = typeof error.name === 'string' ? error.name : 'Error';
      failure.message = error.message;
      const at = FRAME.exec(typeof error.stack === 'string' ? error.stack : '');
      if (at) {
        failure.line = Number(at[1]);
        failure.column = Number(at[2]);
      } else if (typeof error.lineNumber === 'number') {
        failure.line = error.lineNumber;
      }
      if (!stop) {
        // A parse error's stack is the bare position; a SyntaxError thrown while running has frames.
        if (failure.name === 'SyntaxError' && /^\s*at script\.js:\d+/.test(String(error.stack)))
          failure.kind = 'syntax';
        if (failure.name === 'InternalError' && failure.message === 'out of memory') failure.kind = 'memory';
        if (failure.name === 'InternalError' && failure.message === 'stack overflow') failure.kind = 'stack';
      }
    } else if ((dumped === null || dumped === undefined || dumped === '') && !stop && nearlyFull()) {
      // No room was left even for the error object: QuickJS then throws null, or an empty string,
      // once the heap is at (or within a failed allocation of) its cap.
      failure.kind = 'memory';
    } else {
      failure.name = '';
      let text: string | undefined;
      try {
        text = JSON.stringify(dumped);
      } catch {
        text = undefined;
      }
      failure.message = 'uncaught ' + (text === undefined ? String(dumped) : text).slice(0, 500);
    }
    return failure;
  }

  let shared: RuntimeState | null = null;

  function runtimeFor(module: QuickJSWASMModule, account: string): RuntimeState {
    if (shared !== null && shared.account !== account && !retireRuntime())
      throw new Error('the previous runtime could not be freed');
    if (shared === null) shared = { rt: module.newRuntime(), account, scripts: 0, cpuMs: 0, keys: new Map() };
    return shared;
  }

  // Property names as QuickJS strings, made once per runtime (strings belong to the runtime, not to
  // a context) in the runtime's own context, and freed before it.
  function keyOf(state: RuntimeState, name: string): QuickJSHandle {
    let key = state.keys.get(name);
    if (key === undefined) {
      key = (state.rt as unknown as { getSystemContext(): QuickJSContext })
        .getSystemContext()
        .newString(name);
      state.keys.set(name, key);
    }
    return key;
  }

  /** Object.defineProperty(target, name, {value or get, enumerable}), not writable nor configurable, straight through the FFI. */
  function defineOwn(
    sb: Sandbox,
    target: QuickJSHandle,
    name: string,
    value: QuickJSHandle | null,
    get: QuickJSHandle | null,
    enumerable: boolean,
  ): void {
    const ctx = sb.ctx;
    sb.raw.ffi.QTS_DefineProp(
      sb.raw.ctx.value,
      handlePointer(target),
      handlePointer(keyOf(sb.state, name)),
      handlePointer(value || ctx.undefined),
      handlePointer(get || ctx.undefined),
      handlePointer(ctx.undefined),
      false,
      enumerable,
      value !== null,
    );
  }

  /** Frees the shared runtime (its contexts are already freed); false when the module could not clean up. */
  function retireRuntime(): boolean {
    const state = shared;
    shared = null;
    if (state === null) return true;
    try {
      for (const key of state.keys.values()) key.dispose();
      if (state.rt.alive) state.rt.dispose();
      return true;
    } catch {
      return false;
    }
  }

  // Whether the heap can give one block of that size (growing the memory up to its cap if need be).
  function hasRoom(bytes: number): boolean {
    const at = heap._malloc(bytes);
    if (at === 0) return false;
    heap._free(at);
    return true;
  }

  let scriptRoom = 0;
  function measureRoom(module: QuickJSWASMModule): void {
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
  let spare: Sandbox | null = null;

  // The method table by object (TableObject[], api.ts), parsed once per table.
  let lastTable: string | null = null;
  let lastObjects: TableObject[] = [];
  function tableObjects(table: string): TableObject[] {
    if (table !== lastTable) {
      lastObjects = JSON.parse(table) as TableObject[];
      lastTable = table;
    }
    return lastObjects;
  }

  function prepare(module: QuickJSWASMModule, table: string, account: string): Sandbox {
    const begin = performance.now();
    const state = runtimeFor(module, account);
    const sb = {
      table,
      account,
      state,
      run: null,
      held: [],
      prepareMs: 0,
      intrinsics: null,
      cached: [],
      output: 'n',
      anyMarked: false,
      marking: null,
      getter: null,
    } as unknown as Sandbox;
    try {
      const ctx = (sb.ctx = state.rt.newContext());
      sb.raw = ctx as unknown as ContextInternals;
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

  function prepareLegacy(sb: Sandbox, ctx: QuickJSContext, table: string): void {
    const host = ctx.newFunction('host', () =>
      ctx.newString('e' + JSON.stringify({ message: 'a legacy script makes no platform calls' })),
    );
    const prelude = ctx.unwrapResult(ctx.evalCode(LEGACY_PRELUDE, 'rmp.js'));
    const tableHandle = ctx.newString(table);
    sb.getter = ctx.unwrapResult(ctx.callFunction(prelude, ctx.undefined, host, tableHandle));
    prelude.dispose();
    tableHandle.dispose();
    host.dispose();
  }

  /** Keeps a handle until the sandbox is released. */
  function hold(sb: Sandbox, handle: QuickJSHandle): QuickJSHandle {
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
  function intrinsic(sb: Sandbox, i: Intrinsic): QuickJSHandle {
    return sb.cached[i] || (sb.cached[i] = hold(sb, sb.ctx.getProp(sb.intrinsics!, i)));
  }

  function prepareObjects(sb: Sandbox, ctx: QuickJSContext, table: string): void {
    sb.intrinsics = hold(sb, ctx.unwrapResult(ctx.evalCode(SETUP, 'rmp.js')));
    fastMethods(sb);
    const objects = tableObjects(table);
    for (let i = 0; i < objects.length; i++) {
      const objectName = objects[i]!.object;
      const entries = objects[i]!.methods;
      // RMPData (setOutput) is what nearly every script names: it is built now, off the script's path.
      let built = objectName === 'RMPData' ? hold(sb, buildObject(sb, objectName, entries)) : null;
      const getter = (): QuickJSHandle => {
        if (built === null) built = hold(sb, buildObject(sb, objectName, entries));
        return built;
      };
      const through: HostFn = () => getter().dup();
      // On the dispatcher's fast path (fastMethods): the object's pointer, owned by the caller.
      through.rmpFast = () => sb.raw.ffi.QTS_DupValuePointer(sb.raw.ctx.value, handlePointer(getter()));
      const get = ctx.newFunction(objectName, through);
      defineOwn(sb, ctx.global, objectName, null, get, false);
      get.dispose();
    }
  }

  function buildObject(sb: Sandbox, objectName: string, entries: TableObject['methods']): QuickJSHandle {
    const ctx = sb.ctx;
    const target = ctx.newObject();
    try {
      for (let j = 0; j < entries.length; j++) {
        const id = entries[j]!.id;
        const call: HostFn = (...args) => methodThroughWrapper(sb, id, args);
        call.rmpFast = (pointers) => platformCall(sb, id, pointers);
        const method = ctx.newFunction(entries[j]!.name, call);
        defineOwn(sb, target, entries[j]!.name, method, null, true);
        method.dispose();
      }
      if (objectName === 'RMPData') {
        const through: HostFn = (value) => {
          const made = setOutputOf(sb, value === undefined ? 0 : handlePointer(value));
          return typeof made === 'number' ? undefined : made;
        };
        through.rmpFast = (pointers) => setOutputOf(sb, pointers.length > 0 ? pointers[0]! : 0);
        const setOutput = ctx.newFunction('setOutput', through);
        // Its length as a method definition setOutput(value) has it (host functions get 0).
        const one = ctx.newNumber(1);
        ctx.defineProp(setOutput, 'length', { value: one, configurable: true });
        one.dispose();
        defineOwn(sb, target, 'setOutput', setOutput, null, true);
        setOutput.dispose();
      }
      ctx.unwrapResult(ctx.callFunction(intrinsic(sb, Intrinsic.FREEZE), ctx.undefined, target)).dispose();
    } catch (e) {
      target.dispose();
      throw e;
    }
    return target;
  }

  /** RMPData.setOutput(value at that pointer; 0: none): taken now, as s<text>, j<json> or n (nothing). Gives 0 or {error}. */
  function setOutputOf(sb: Sandbox, pointer: Pointer): Made {
    const ctx = sb.ctx;
    const { ffi, memory: mem } = sb.raw;
    const c = sb.raw.ctx.value;
    const type = pointer === 0 ? 'undefined' : mem.consumeHeapCharPointer(ffi.QTS_Typeof(c, pointer));
    if (type === 'undefined' || ffi.QTS_IsEqual(c, pointer, handlePointer(ctx.null), 0)) {
      sb.output = 'n';
    } else if (type === 'string') {
      sb.output = 's' + mem.consumeJSCharPointer(ffi.QTS_GetString(c, pointer));
    } else {
      const json = callRaw(sb, intrinsic(sb, Intrinsic.STRINGIFY), [pointer]);
      if (typeof json !== 'number') return json;
      const isText = mem.consumeHeapCharPointer(ffi.QTS_Typeof(c, json)) === 'string';
      sb.output = isText ? 'j' + mem.consumeJSCharPointer(ffi.QTS_GetString(c, json)) : 'n';
      freeRaw(sb, json);
    }
    return 0;
  }

  let argv = 0;
  let words = new Uint32Array(0);

  /** fn(...values) in the sandbox: the result's JSValue pointer (the caller frees it), or {error: handle}. */
  function callRaw(sb: Sandbox, fn: QuickJSHandle, values: Pointer[]): Made {
    const { ffi, memory: mem } = sb.raw;
    const c = sb.raw.ctx.value;
    if (argv === 0) argv = heap._malloc(ARGV_SLOTS * 4);
    if (words.buffer !== memory.buffer) words = new Uint32Array(memory.buffer);
    for (let i = 0; i < values.length; i++) words[(argv >> 2) + i] = values[i]!;
    const result = ffi.QTS_Call(c, handlePointer(fn), handlePointer(sb.ctx.undefined), values.length, argv);
    const error = ffi.QTS_ResolveException(c, result);
    if (error) {
      ffi.QTS_FreeValuePointer(c, result);
      return { error: mem.heapValueHandle(error) };
    }
    return result;
  }

  function freeRaw(sb: Sandbox, pointer: Pointer): void {
    sb.raw.ffi.QTS_FreeValuePointer(sb.raw.ctx.value, pointer);
  }

  /** A JavaScript string (the caller frees it). */
  function stringRaw(sb: Sandbox, text: string): Pointer {
    const bytes = heap.lengthBytesUTF8(text) + 1;
    const chars = heap._malloc(bytes);
    if (chars === 0) return 0;
    heap.stringToUTF8(text, chars, bytes);
    const value = sb.raw.ffi.QTS_NewString(sb.raw.ctx.value, chars);
    heap._free(chars);
    return value;
  }

  /** JSON.stringify(value) with the captured function: its text, or {error: handle}. */
  function jsonRaw(sb: Sandbox, pointer: Pointer): string | { error: QuickJSHandle } {
    const json = callRaw(sb, intrinsic(sb, Intrinsic.STRINGIFY), [pointer]);
    if (typeof json !== 'number') return json;
    const text = sb.raw.memory.consumeJSCharPointer(sb.raw.ffi.QTS_GetString(sb.raw.ctx.value, json));
    freeRaw(sb, json);
    return text;
  }

  function markingOf(sb: Sandbox): { mark: QuickJSHandle; paths: QuickJSHandle } {
    if (sb.marking === null) {
      const ctx = sb.ctx;
      const factory = hold(sb, ctx.unwrapResult(ctx.evalCode(MARKING, 'rmp.js')));
      const made = hold(
        sb,
        ctx.unwrapResult(
          ctx.callFunction(
            factory,
            ctx.undefined,
            intrinsic(sb, Intrinsic.IS_ARRAY),
            intrinsic(sb, Intrinsic.KEYS),
            intrinsic(sb, Intrinsic.WEAK_SET),
          ),
        ),
      );
      sb.marking = {
        mark: hold(sb, ctx.getProp(made, 'markPaths')),
        paths: hold(sb, ctx.getProp(made, 'markedPaths')),
      };
    }
    return sb.marking;
  }

  /**
   * One method call, on the arguments' JSValue pointers: their JSON (trailing undefined ones
   * dropped), the call, the reply decoded. Gives 0 (undefined), the result's pointer (owned by the
   * caller) or {error: handle} to throw.
   */
  function platformCall(sb: Sandbox, id: number, pointers: Pointer[]): Made {
    const ctx = sb.ctx;
    const { ffi, memory: mem } = sb.raw;
    const c = sb.raw.ctx.value;
    let n = pointers.length;
    while (n > 0 && ffi.QTS_IsEqual(c, pointers[n - 1]!, handlePointer(ctx.undefined), 0)) n--;
    if (n > ARGV_SLOTS) return { error: ctx.newError('too many arguments') };
    pointers.length = n;
    const list = callRaw(sb, intrinsic(sb, Intrinsic.ARRAY_OF), pointers);
    if (typeof list !== 'number') return list;
    let text;
    try {
      text = jsonRaw(sb, list);
      if (typeof text !== 'string') return text;
      if (sb.anyMarked) {
        const paths = callRaw(sb, markingOf(sb).paths, [list]);
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
    const body = stringRaw(
      sb,
      tag === 'e' ? (JSON.parse(reply.slice(1)) as { message: string }).message : reply.slice(1),
    );
    if (body === 0) return { error: ctx.newError('out of memory') };
    // e: an Error made by the captured constructor, while the script's frame is on the stack.
    const made = callRaw(sb, intrinsic(sb, tag === 'e' ? Intrinsic.ERROR : Intrinsic.PARSE), [body]);
    freeRaw(sb, body);
    if (typeof made !== 'number' || tag === 'v') return made;
    const value = mem.heapValueHandle(made);
    if (tag === 'e') return { error: value };
    // m: [value, paths of the request-input objects in it]
    sb.anyMarked = true;
    const result = ctx.getProp(value, 0);
    const paths = ctx.getProp(value, 1);
    value.dispose();
    const marked = ctx.callFunction(markingOf(sb).mark, ctx.undefined, result, paths);
    paths.dispose();
    if (marked.error) {
      result.dispose();
      return { error: marked.error };
    }
    marked.value.dispose();
    const owned = ffi.QTS_DupValuePointer(c, handlePointer(result));
    result.dispose();
    return owned;
  }

  /** A method as quickjs-emscripten calls a host function (handles in, a handle out). */
  function methodThroughWrapper(
    sb: Sandbox,
    id: number,
    args: QuickJSHandle[],
  ): QuickJSHandle | { error: QuickJSHandle } | undefined {
    const made = platformCall(sb, id, args.map(handlePointer));
    if (made === 0) return undefined;
    if (typeof made !== 'number') return made;
    return sb.raw.memory.heapValueHandle(made);
  }

  /**
   * The methods' calls skip quickjs-emscripten's per-call wrapper (a scope, a handle per argument):
   * the context's C → host dispatcher is given a first look at each call, and answers those of the
   * functions marked with an rmpFast (the RMP* getters and methods) on raw pointers, as the C side expects — an owned
   * JSValue pointer, 0 for undefined, or the pointer QTS_Throw gives. Any other host function goes
   * the usual way; without the expected internals, methods use the wrapper (methodThroughWrapper).
   */
  function fastMethods(sb: Sandbox): boolean {
    const ctx = sb.ctx;
    const raw = sb.raw;
    const callbacks = raw.cToHostCallbacks;
    const refs = raw.runtime && raw.runtime.hostRefs;
    if (!callbacks || typeof callbacks.callFunction !== 'function' || !refs || typeof refs.get !== 'function')
      return false;
    const usual = callbacks.callFunction;
    const ffi = raw.ffi;
    callbacks.callFunction = (c, thisPtr, argc, argvPtr, fnId) => {
      const fn = refs.get(fnId);
      if (fn === undefined || fn.rmpFast === undefined || c !== raw.ctx.value)
        return usual(c, thisPtr, argc, argvPtr, fnId);
      try {
        const pointers = new Array<Pointer>(argc);
        for (let i = 0; i < argc; i++) pointers[i] = ffi.QTS_ArgvGetJSValueConstPointer(argvPtr, i);
        const made = fn.rmpFast(pointers);
        if (typeof made === 'number') return made;
        const thrown = ffi.QTS_Throw(c, handlePointer(made.error));
        made.error.dispose();
        return thrown;
      } catch (e) {
        const error = ctx.newError((e ? errorMessage(e) : '') || 'the sandbox failed');
        const thrown = ffi.QTS_Throw(c, handlePointer(error));
        error.dispose();
        return thrown;
      }
    };
    return true;
  }

  /** Frees a sandbox's context (not its runtime); false when the module could not clean up. */
  function release(sb: Sandbox): boolean {
    try {
      for (const handle of sb.held) if (handle.alive) handle.dispose();
      sb.held.length = 0;
      if (sb.getter && sb.getter.alive) sb.getter.dispose();
      if (sb.ctx && sb.ctx.alive) sb.ctx.dispose();
      return true;
    } catch {
      return false;
    }
  }

  function runJob(module: QuickJSWASMModule, job: RunJob): void {
    const limits = job.limits;
    const account = typeof job.account === 'string' ? job.account : '';
    const begin = performance.now();
    const run: QuickJSRun = {
      job,
      begin,
      waited: 0,
      stop: null,
      seq: 0,
      calls: 0,
      inWorker: null,
      inWorkerMethods: undefined,
      inWorkerCalls: 0,
    };
    let result: Omit<RunResult, 'timing'>;
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

      let failure: QuickJSHandle | undefined;
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
        let dumped: unknown;
        try {
          dumped = ctx.dump(failure);
        } catch {
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
      result = {
        failure: {
          kind: overflow ? 'stack' : 'internal',
          name: e instanceof Error ? e.name : undefined,
          message: messageOf(e),
        },
      };
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
    const timed: RunResult = {
      ...result,
      timing: {
        setupMs,
        prepareMs,
        totalMs,
        waitedMs: run.waited,
        calls: run.calls,
        inWorkerCalls: run.inWorkerCalls,
      },
    };
    // The result goes out before the cleanup. A context or runtime that cannot be freed makes the
    // worker broken; the main thread learns it from the next 'done' (or the worker retires itself
    // before taking another job: see 'retire').
    if (broken || !sb) {
      finish(job, timed, true);
      return;
    }
    finish(job, timed, false);
    if (freed) {
      try {
        spare = prepare(module, job.table, account);
      } catch {
        spare = null;
      }
      return;
    }
    if (!release(sb)) {
      unusable = true;
      io.post({ type: 'retire' });
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
    } catch {
      /* kept as pending: the runtime is retired */
    }
    if (!clean || pending || state.scripts >= RUNTIME_SCRIPTS || state.cpuMs >= RUNTIME_CPU_MS) {
      if (!retireRuntime()) {
        unusable = true;
        io.post({ type: 'retire' });
        return;
      }
    }
    // Right away (the result is already on its way): the next script finds its sandbox ready.
    try {
      spare = prepare(module, job.table, account);
    } catch {
      spare = null;
    }
  }
}

/** A handle's JSValue pointer (quickjs-emscripten's branded pointer, as a number). */
function handlePointer(handle: QuickJSHandle): Pointer {
  return handle.value as unknown as Pointer;
}
