/**
 * The program of a sandbox worker thread (CommonJS, evaluated with `eval: true`, like the regex
 * worker of src/platform/files). It holds one QuickJS WebAssembly module (the synchronous
 * release build) and runs one script at a time, each in a fresh QuickJS runtime and context.
 *
 * A platform call blocks the worker, never the server: the worker posts {call} to the main
 * thread, waits on a shared counter (Atomics.wait) and takes the reply from its reply port
 * (receiveMessageOnPort), so the script sees a synchronous function while the main thread runs
 * the asynchronous registry function. Limits: the module's memory capped at the worker's
 * memoryBytes (fixed when the worker starts), QuickJS's stack limit, an interrupt handler for CPU
 * time (time waiting on calls excluded) and wall time, and the wait itself bounded by the wall
 * time; the main thread terminates a worker that outlives its job.
 *
 * Messages in:  {run, source, table, limits}
 * Messages out: {type:'call', run, call, method, args} · {type:'done', run, output?, failure?, timing}
 */
export const WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData, receiveMessageOnPort } = require('node:worker_threads');
const { newQuickJSWASMModule, newVariant, RELEASE_SYNC } = require(workerData.quickjs);
const signal = new Int32Array(workerData.signal);
const replies = workerData.replies;
const PRELUDE = workerData.prelude;
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
const heapFull = () => memory.buffer.byteLength + 2 * PAGE > CAP_BYTES;
// Handing a string to QuickJS mallocs without checking the result, so a reply is only handed
// over when the memory can still grow by twice its size; otherwise the script gets an error made
// while there was room (FULL_REPLY). Workers whose heap grew past half the budget are replaced.
const roomFor = (text) => CAP_BYTES - memory.buffer.byteLength >= 2 * Buffer.byteLength(text) + PAGE;
const FULL_REPLY = 'e' + JSON.stringify({ message: "the script's memory is full: no room for the result" });
const ready = newQuickJSWASMModule(newVariant(RELEASE_SYNC, { wasmMemory: memory })).then((module) => {
  parentPort.postMessage({ type: 'ready', ms: performance.now() - started });
  return module;
});

parentPort.on('message', (job) => {
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
  } else if ((dumped === null || dumped === undefined) && !stop && heapFull()) {
    // No room was left even for the error object.
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

function runJob(module, job) {
  const limits = job.limits;
  const begin = performance.now();
  let waited = 0;
  let stop = null;
  let seq = 0;
  let calls = 0;
  let setupMs = 0;
  let result;
  let broken = false;
  const rt = module.newRuntime();
  let ctx;
  let getter;
  let full;
  try {
    rt.setMaxStackSize(limits.stackBytes);
    rt.setInterruptHandler(() => {
      if (stop === null) {
        const elapsed = performance.now() - begin;
        if (elapsed > limits.wallTimeMs) stop = 'wall-time';
        else if (elapsed - waited > limits.cpuTimeMs) stop = 'cpu-time';
      }
      return stop !== null;
    });
    ctx = rt.newContext();

    const callHost = (method, args) => {
      if (stop !== null) return 'e' + JSON.stringify({ message: 'the script was stopped' });
      const id = ++seq;
      calls++;
      const t = performance.now();
      let seen = Atomics.load(signal, 0);
      parentPort.postMessage({ type: 'call', run: job.run, call: id, method, args });
      try {
        for (;;) {
          let received;
          while ((received = receiveMessageOnPort(replies)) !== undefined) {
            if (received.message.call === id) return received.message.reply;
          }
          const remaining = limits.wallTimeMs - (performance.now() - begin);
          if (remaining <= 0 || Atomics.wait(signal, 0, seen, remaining) === 'timed-out') {
            stop = 'wall-time';
            return 'e' + JSON.stringify({ message: 'the script was stopped' });
          }
          seen = Atomics.load(signal, 0);
        }
      } finally {
        waited += performance.now() - t;
      }
    };
    full = ctx.newString(FULL_REPLY);
    const host = ctx.newFunction('host', (method, args) => {
      const reply = callHost(ctx.getNumber(method), ctx.getString(args));
      return roomFor(reply) ? ctx.newString(reply) : full.dup();
    });
    const prelude = ctx.unwrapResult(ctx.evalCode(PRELUDE, 'rmp.js'));
    const table = ctx.newString(job.table);
    getter = ctx.unwrapResult(ctx.callFunction(prelude, ctx.undefined, host, table));
    prelude.dispose();
    table.dispose();
    host.dispose();
    setupMs = performance.now() - begin;

    let failure;
    const evaluated = ctx.evalCode(job.source, 'script.js');
    if (evaluated.error) {
      failure = evaluated.error;
    } else {
      evaluated.value.dispose();
      // Promise callbacks (async functions, then) run now, under the same limits.
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
      result = { failure: describe(dumped, stop) };
    } else if (stop !== null) {
      result = { failure: { kind: stop } };
    } else {
      const out = ctx.unwrapResult(ctx.callFunction(getter, ctx.undefined));
      result = { output: ctx.getString(out) };
      out.dispose();
    }
  } catch (e) {
    // Host-level failures: the interpreter's native stack (deep recursion past stackBytes' margin) or the module.
    const overflow = e instanceof RangeError;
    result = { failure: { kind: overflow ? 'stack' : 'internal', name: e && e.name, message: String(e && e.message) } };
    broken = true;
  }
  try {
    if (getter && getter.alive) getter.dispose();
    if (full && full.alive) full.dispose();
    if (ctx) ctx.dispose();
    rt.dispose();
  } catch (e) {
    broken = true;
  }
  result.timing = { setupMs, totalMs: performance.now() - begin, waitedMs: waited, calls };
  // The heap never shrinks: a worker left with less than half its budget to grow is replaced.
  if (CAP_BYTES - memory.buffer.byteLength < workerData.memoryBytes / 2) broken = true;
  finish(job, result, broken);
}
`;
