/**
 * Running one script: a sandbox worker from the pool, the RMP* objects of the registry, the
 * platform calls answered by the bridge on this thread, and the outcome turned into the output
 * text or a ScriptError.
 */
import { budgetOf, type ExecutionContext } from '../functions/context.js';
import { defaultRegistry, type CallEnv, type FunctionRegistry } from '../functions/registry.js';
import { scriptApi } from './api.js';
import { callBridge, hasForbiddenKey } from './bridge.js';
import { inWorkerSession } from './in-worker-plan.js';
import { ScriptBusyError, ScriptError } from './errors.js';
import { bytesText, DEFAULT_SCRIPT_LIMITS, resolveLimits, type ScriptLimits } from './limits.js';
import {
  DEFAULT_ACCOUNT_QUEUE,
  SandboxPool,
  SandboxQueueFullError,
  SandboxUnavailableError,
  type RunTiming,
  type WorkerFailure,
} from './pool.js';

export interface ScriptRunOptions {
  ctx: ExecutionContext;
  /** The template's call environment (variables for RMPData.getVariable, safe_get, inject_objects …). */
  env?: CallEnv;
  /** Default: the whole library. */
  registry?: FunctionRegistry;
  /** On top of the process-wide limits (configureScripts). */
  limits?: Partial<ScriptLimits>;
  /** Names of the evaluation's data variables (RMPData.getAllVariables). */
  variableNames?: () => Iterable<string>;
  /**
   * The platform's legacy engine (`<@script env="javascript">`): no RMP* objects; `print` writes
   * the output and `setVariable` sets template variables (through `env.setVariable`).
   */
  legacy?: boolean;
}

export interface ScriptResult {
  /** What RMPData.setOutput received: text as it is, other values as compact JSON, '' when never called. Legacy: what print wrote. */
  output: string;
  /** Legacy: the names setVariable set, in the order first set. */
  variables?: string[];
  timing: RunTiming;
}

export interface ScriptSettings {
  limits: ScriptLimits;
  /** Scripts running at once (one worker thread each). */
  workers: number;
  /** Scripts of one account running at once (default: half the workers, at least 1). */
  accountWorkers?: number;
  /** Scripts of one account waiting for a worker; more are refused with ScriptBusyError. */
  accountQueue: number;
}

const DEFAULT_WORKERS = 4;

let settings: ScriptSettings = {
  limits: { ...DEFAULT_SCRIPT_LIMITS },
  workers: DEFAULT_WORKERS,
  accountQueue: DEFAULT_ACCOUNT_QUEUE,
};
const pool = new SandboxPool(DEFAULT_WORKERS);

export interface ScriptChanges {
  limits?: Partial<ScriptLimits>;
  workers?: number;
  /** null: back to the default (half the workers). */
  accountWorkers?: number | null;
  accountQueue?: number;
}

/** Sets the process-wide limits, the number of sandbox workers and their sharing between accounts; returns the settings now in force. */
export function configureScripts(changes: ScriptChanges = {}): ScriptSettings {
  const limits = resolveLimits(settings.limits, changes.limits);
  const accountWorkers =
    changes.accountWorkers === null ? undefined : (changes.accountWorkers ?? settings.accountWorkers);
  const accountQueue = changes.accountQueue ?? settings.accountQueue;
  pool.setFairness({ accountQueue, ...(accountWorkers !== undefined ? { accountWorkers } : {}) });
  if (changes.workers !== undefined) pool.setMaxWorkers(changes.workers);
  settings = {
    limits,
    workers: changes.workers ?? settings.workers,
    ...(accountWorkers !== undefined ? { accountWorkers } : {}),
    accountQueue,
  };
  return { ...settings, limits: { ...settings.limits } };
}

/** Starts a sandbox worker now, so the first script does not wait for it. */
export function warmScripts(): void {
  pool.warm(settings.limits.memoryBytes);
}

/** Stops every JavaScript sandbox worker (the next script starts new ones); closeScripts (lifecycle.ts) stops Python's too. */
export function closeJavaScriptScripts(): Promise<void> {
  return pool.close();
}

/** The process-wide limits with an evaluation's on top (for the Python backend, python/run.ts). */
export function scriptLimits(overrides?: Partial<ScriptLimits>): ScriptLimits {
  return resolveLimits(settings.limits, overrides);
}

/** Number of sandbox workers alive (for tests and monitoring). */
export function scriptWorkers(): number {
  return pool.size;
}

function detachedEnv(ctx: ExecutionContext): CallEnv {
  return { getVariable: () => undefined, templateName: 'script', locale: ctx.locale, timeZone: ctx.timeZone };
}

export async function runScript(source: string, options: ScriptRunOptions): Promise<ScriptResult> {
  if (options.legacy) return runLegacyScript(source, options);
  const limits = resolveLimits(settings.limits, options.limits);
  const registry = options.registry ?? defaultRegistry();
  const api = scriptApi(registry);
  const env = options.env ?? detachedEnv(options.ctx);
  const onCall = callBridge({
    ctx: options.ctx,
    env,
    registry,
    api,
    memoryBytes: limits.memoryBytes,
    ...(options.variableNames ? { variableNames: options.variableNames } : {}),
  });
  // Pure functions run in the worker itself; their charges reach the budget through the session.
  const inWorker = inWorkerSession(api, registry, options.ctx, env, limits.memoryBytes);
  let outcome;
  try {
    outcome = await pool.run(
      { source, table: api.table, limits, ...(inWorker ? { extra: { inWorker: inWorker.job } } : {}) },
      inWorker ? inWorker.bridge(onCall) : onCall,
      limits.wallTimeMs,
      options.ctx.accountId,
    );
  } catch (e) {
    throw sandboxRefusal(e, limits);
  } finally {
    inWorker?.finish();
  }
  if (outcome.failure) throw scriptError(outcome.failure, limits);
  return { output: outputText(outcome.output ?? 'n'), timing: outcome.timing };
}

/** What `<@script env="javascript">` reports when its sandbox is asked for a platform call (none is reachable). */
const NO_CALLS = 'e' + JSON.stringify({ message: 'a legacy script makes no platform calls' });

/** The legacy engine: the same workers, limits and queues; only the prelude's objects differ. */
async function runLegacyScript(source: string, options: ScriptRunOptions): Promise<ScriptResult> {
  const limits = resolveLimits(settings.limits, options.limits);
  const table = JSON.stringify({ legacy: legacyCap(limits), variables: LEGACY_MAX_VARIABLES });
  let outcome;
  try {
    outcome = await pool.run(
      { source, table, limits },
      () => NO_CALLS,
      limits.wallTimeMs,
      options.ctx.accountId,
    );
  } catch (e) {
    throw sandboxRefusal(e, limits);
  }
  if (outcome.failure) throw scriptError(outcome.failure, limits);
  const { printed, variables } = legacyResult(outcome.output ?? 'l""');
  const budget = budgetOf(options.ctx);
  const set = options.env?.setVariable?.bind(options.env);
  const names: string[] = [];
  for (const [name, json] of variables) {
    budget.allocateSlots(1, `setVariable("${name}")`);
    budget.allocateString(json.length, `setVariable("${name}")`);
    const value: unknown = JSON.parse(json);
    if (hasForbiddenKey(value))
      throw new ScriptError(
        `setVariable: argument 2 (value) of "${name}" contains the key "__proto__", which is not allowed`,
        'exception',
      );
    names.push(name);
    // A template has no null: setVariable(name, null or undefined) sets nothing.
    if (value !== null) set?.(name, value);
  }
  return { output: printed, variables: names, timing: outcome.timing };
}

/** Variables one legacy script may set (each becomes a template global). */
export const LEGACY_MAX_VARIABLES = 1000;

/** Characters print and setVariable may produce together: an eighth of the script's memory (the getter copies them once more). */
export function legacyCap(limits: ScriptLimits): number {
  return Math.floor(limits.memoryBytes / 8);
}

/** `l<json text>` then `\n<json name>\t<json value>` lines (worker/legacy-prelude.js). */
function legacyResult(tagged: string): { printed: string; variables: Array<[string, string]> } {
  const lines = tagged.slice(1).split('\n');
  const printed = JSON.parse(lines[0]!) as string;
  const variables = lines.slice(1).map((line): [string, string] => {
    const tab = line.indexOf('\t');
    return [JSON.parse(line.slice(0, tab)) as string, line.slice(tab + 1)];
  });
  return { printed, variables };
}

/** A pool's refusal to run a script as the error a template sees; other errors unchanged. */
export function sandboxRefusal(e: unknown, limits: ScriptLimits): unknown {
  if (e instanceof SandboxUnavailableError) return new ScriptError(`script: ${e.message}`, 'internal');
  if (e instanceof SandboxQueueFullError)
    return new ScriptBusyError(`<@script>: ${e.message}`, Math.max(1, Math.ceil(limits.cpuTimeMs / 1000)));
  return e;
}

export function outputText(tagged: string): string {
  return tagged.charAt(0) === 'n' ? '' : tagged.slice(1);
}

function where(f: WorkerFailure): string {
  if (f.line === undefined) return '';
  return f.column === undefined ? ` (script line ${f.line})` : ` (script line ${f.line}, column ${f.column})`;
}

export function scriptError(f: WorkerFailure, limits: ScriptLimits): ScriptError {
  const at = where(f);
  switch (f.kind) {
    case 'cpu-time':
      return new ScriptError(
        `script stopped: it ran for more than ${limits.cpuTimeMs} ms of computing (cpuTimeMs)${at}`,
        'cpu-time',
        f.line,
        f.column,
      );
    case 'wall-time':
      return new ScriptError(
        `script stopped: it took more than ${limits.wallTimeMs} ms in all (wallTimeMs)${at}`,
        'wall-time',
        f.line,
        f.column,
      );
    case 'memory':
      return new ScriptError(
        `script stopped: it needed more than ${bytesText(limits.memoryBytes)} of memory (memoryBytes)${at}`,
        'memory',
        f.line,
        f.column,
      );
    case 'stack':
      return new ScriptError(
        `script stopped: it recursed deeper than its ${bytesText(limits.stackBytes)} stack allows (stackBytes)${at}`,
        'stack',
        f.line,
        f.column,
      );
    case 'internal':
      return new ScriptError(`script: the sandbox failed: ${f.message ?? 'unknown error'}`, 'internal');
    case 'syntax':
    case 'exception': {
      const text = !f.name || f.name === 'Error' ? (f.message ?? '') : `${f.name}: ${f.message ?? ''}`;
      return new ScriptError(`${text}${at}`, f.kind, f.line, f.column, f.name, f.message);
    }
  }
}
