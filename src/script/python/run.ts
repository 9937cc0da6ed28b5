/**
 * Running one Python script: a Pyodide worker from its own pool (the pool of ../pool.ts with the
 * Python program), the same RMP* method table and platform-call bridge as the JavaScript
 * backend, and a watchdog on this thread for the CPU and wall time (a SIGINT written into the
 * job's interrupt buffer, then the worker terminated if the script does not stop).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { defaultRegistry } from '../../functions/registry.js';
import { scriptApi } from '../api.js';
import { callBridge } from '../bridge.js';
import { SandboxPool, type CallHandler, type SandboxProgram } from '../pool.js';
import {
  outputText,
  sandboxRefusal,
  scriptError,
  scriptLimits,
  type ScriptResult,
  type ScriptRunOptions,
} from '../run.js';
import { builtScriptFile } from '../program-file.js';
import { markScriptsLoaded } from '../loaded.js';

markScriptsLoaded();

/** Python interpreters alive at most (each holds ~30 MiB of WebAssembly memory and takes seconds to start). */
const DEFAULT_WORKERS = 2;

/** After the interrupt, how long a script may take to stop before its worker is terminated. */
const STOP_GRACE_MS = 500;

let pyodideDir: string | undefined;
let setupSource: string | undefined;

/** The pyodide package's folder. */
export function pyodideFolder(): string {
  return (pyodideDir ??= dirname(createRequire(import.meta.url).resolve('pyodide/package.json')));
}

/** sandbox.py: the Python each interpreter runs once, before its snapshot (beside this module in src/ and dist/). */
export function pythonSetup(): string {
  return (setupSource ??= readFileSync(new URL('./sandbox.py', import.meta.url), 'utf8'));
}

/**
 * Pyodide's memory snapshot of the interpreter as loaded with a setup source run (before
 * `_flowmark_setup()` and any script), made by the first worker of this process: later workers
 * with the same setup start from it in a fraction of a cold start (a replaced worker, after a
 * limit stopped its script, among them).
 */
let loadedInterpreter: { setup: string; snapshot: Uint8Array } | undefined;

/** The Python worker program (worker.ts) with that setup. */
export function pythonProgram(setup: () => string = pythonSetup): SandboxProgram {
  return {
    file: () => builtScriptFile('python/worker', 'cjs'),
    stackSizeMb: 64,
    data: (memoryBytes) => {
      const source = setup();
      const loaded = loadedInterpreter?.setup === source ? loadedInterpreter.snapshot : undefined;
      return {
        pyodide: pyodideFolder(),
        setup: source,
        memoryBytes,
        ...(loaded ? { snapshot: loaded } : {}),
      };
    },
    ready: (message) => {
      if (message.snapshot instanceof Uint8Array)
        loadedInterpreter ??= { setup: setup(), snapshot: message.snapshot };
    },
  };
}

const pool = new SandboxPool(DEFAULT_WORKERS, pythonProgram());

/** Starts a Python worker now (loading the interpreter takes seconds), so the first script does not wait for it. */
export function warmPythonScripts(): void {
  pool.warm(scriptLimits().memoryBytes);
}

/** Stops every Python worker. */
export function closePythonScripts(): Promise<void> {
  return pool.close();
}

/** Number of Python workers alive. */
export function pythonScriptWorkers(): number {
  return pool.size;
}

/** Python interpreters that may run at once. */
export function configurePythonScripts(changes: { workers?: number }): void {
  if (changes.workers !== undefined) pool.setMaxWorkers(changes.workers);
}

const now = (): number => performance.timeOrigin + performance.now();

export async function runPythonScript(source: string, options: ScriptRunOptions): Promise<ScriptResult> {
  const limits = scriptLimits(options.limits);
  const registry = options.registry ?? defaultRegistry();
  const api = scriptApi(registry);
  const onCall = callBridge({
    ctx: options.ctx,
    env: options.env ?? {
      getVariable: () => undefined,
      templateName: 'script',
      locale: options.ctx.locale,
      timeZone: options.ctx.timeZone,
    },
    registry,
    api,
    memoryBytes: limits.memoryBytes,
    ...(options.variableNames ? { variableNames: options.variableNames } : {}),
  });

  // [0] the signal Pyodide reads, [1] 0 waiting / 1 running / 2 done; bytes 8–15: when it started.
  const interrupt = new SharedArrayBuffer(16);
  const control = new Int32Array(interrupt, 0, 2);
  const startedAt = new Float64Array(interrupt, 8, 1);
  const abort = new AbortController();

  // Time spent in platform calls is not computing time.
  let waited = 0;
  let callStart: number | undefined;
  const counted: CallHandler = (method, args) => {
    callStart = now();
    const done = (): void => {
      waited += now() - callStart!;
      callStart = undefined;
    };
    let reply;
    try {
      reply = onCall(method, args);
    } catch (e) {
      done();
      throw e;
    }
    if (typeof reply === 'string') {
      done();
      return reply;
    }
    return reply.finally(done);
  };

  let reason: 'cpu-time' | 'wall-time' | undefined;
  let signalledAt = 0;
  const tick = Math.max(5, Math.min(50, Math.floor(limits.cpuTimeMs / 4)));
  const watchdog = setInterval(() => {
    const state = Atomics.load(control, 1);
    if (state !== 1) {
      if (state === 2) clearInterval(watchdog);
      return;
    }
    const t = now();
    if (reason === undefined) {
      const elapsed = t - startedAt[0]!;
      const computing = elapsed - waited - (callStart === undefined ? 0 : t - callStart);
      if (elapsed > limits.wallTimeMs) reason = 'wall-time';
      else if (computing > limits.cpuTimeMs) reason = 'cpu-time';
      if (reason !== undefined) {
        signalledAt = t;
        Atomics.store(control, 0, 2); // SIGINT: KeyboardInterrupt at the script's next instruction
      }
    } else if (t - signalledAt > STOP_GRACE_MS && callStart === undefined) {
      clearInterval(watchdog);
      abort.abort(reason);
    } else if (callStart === undefined) {
      Atomics.store(control, 0, 2); // again: the script caught the last one
    }
  }, tick);
  watchdog.unref();

  let outcome;
  try {
    outcome = await pool.run(
      { source, table: api.table, limits, extra: { interrupt }, abort: abort.signal },
      counted,
      limits.wallTimeMs,
      options.ctx.accountId,
    );
  } catch (e) {
    throw sandboxRefusal(e, limits);
  } finally {
    clearInterval(watchdog);
  }
  const failure = outcome.failure;
  if (failure) {
    if (failure.kind === 'cpu-time' && reason === undefined)
      failure.kind = 'exception'; // raised by the script itself
    else if (failure.kind === 'cpu-time' && reason !== undefined) failure.kind = reason;
    throw scriptError(failure, limits);
  }
  return { output: outputText(outcome.output ?? 'n'), timing: outcome.timing };
}
