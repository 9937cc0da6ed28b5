/**
 * The script worker's own function table: library functions declared pure (FunctionFlags.pure)
 * run here, inside the sandbox's worker thread, when a script calls them — no hand-off to the
 * main thread and back. The worker imports this module the first time one of its scripts calls
 * such a function (worker/in-worker-route.ts); until it is loaded, and for every other method, calls
 * take the bridge (bridge.ts).
 *
 * A call here is the bridge's call, run elsewhere: the same declaration compiled by invoke.ts (the
 * registry's argument checking, defaults, overloads and errors), the same decoding and replies
 * (call-codec.ts), and the same budget. The worker's Budget has the evaluation's limits and what is
 * left of its wall time; the bytes allocated so far live in a cell shared with the main thread
 * (in-worker-plan.ts), read before a call and written after it, so a charge made here counts
 * exactly as one made by the same call from a template. Pure functions check no rights
 * (`rights: 'none'` is required with the flag); which methods may run here for a run (the
 * surface's availability, the context's clock) is decided by the main thread, not here.
 */
import type { ExecutionContext } from '../functions/context.js';
import { compileFunction, type BoundFunction } from '../functions/invoke.js';
import type { FunctionSpec } from '../functions/spec.js';
import { utilities } from '../functions/utilities/index.js';
import { Budget, type EvaluationLimits } from '../limits/index.js';
import type { CallEnv } from '../template/index.js';
import {
  checkArguments,
  errorReply,
  functionErrorMessage,
  isThenable,
  boundedValueReply,
  type NamedParam,
} from './call-codec.js';

/** The groups the worker loads: a function declared pure elsewhere stays on the bridge. */
export const WORKER_GROUPS: ReadonlyArray<readonly FunctionSpec[]> = [utilities];

/** The pure declarations the worker has, by name and alias. */
function workerFunctions(): ReadonlyMap<string, FunctionSpec> {
  const out = new Map<string, FunctionSpec>();
  for (const group of WORKER_GROUPS)
    for (const spec of group)
      if (spec.flags?.pure) for (const name of [spec.name, ...(spec.aliases ?? [])]) out.set(name, spec);
  return out;
}

/** What the main thread sends with each job (in-worker-plan.ts); structured-cloneable. */
export interface InWorkerJob {
  /** JSON InWorkerMethod[] (worker/messages.ts): the methods that run here for this run. */
  table: string;
  /** Holds one float: the bytes the evaluation's budget has allocated (shared with the main thread). */
  allocated: SharedArrayBuffer;
  limits: EvaluationLimits;
  /** What was left of the evaluation's wall time when the job was sent. */
  remainingMs: number;
  /** The context's and the template environment's locale and time zone. */
  locale: string;
  timeZone: string;
  envLocale: string;
  envTimeZone: string;
  dataDocumentBytes: number;
  /** The script's memory (limits.memoryBytes): the bound on a result's size. */
  memoryBytes: number;
}

/** One script's in-worker calls: `call(function name, label, clock, JSON arguments)` gives the reply text. */
export interface InWorkerRun {
  call(fn: string, label: string, clock: boolean, args: string): string;
}

const FUNCTIONS = workerFunctions();
const compiled = new Map<string, (ctx: ExecutionContext) => BoundFunction>();

function bindOf(name: string): ((ctx: ExecutionContext) => BoundFunction) | undefined {
  let bind = compiled.get(name);
  if (!bind) {
    const spec = FUNCTIONS.get(name);
    if (!spec) return undefined;
    compiled.set(name, (bind = compileFunction(spec, name).bindTo));
  }
  return bind;
}

/** What a pure function may not read: reading it is a wrong declaration, reported as such. */
const UNAVAILABLE = [
  'accountId',
  'mode',
  'surface',
  'platform',
  'random',
  'randomBytes',
  'user',
  'requestId',
  'projectId',
  'laneId',
  'applicationInstanceId',
  'response',
] as const;

function unavailable(what: string): never {
  throw new Error(
    `the context's ${what} is not available in the script worker (the function is declared pure)`,
  );
}

function workerContext(job: InWorkerJob, budget: Budget, clock: boolean): ExecutionContext {
  const ctx = {
    locale: job.locale,
    timeZone: job.timeZone,
    limits: { dataDocumentBytes: job.dataDocumentBytes },
    budget,
  } as unknown as ExecutionContext;
  for (const key of UNAVAILABLE) Object.defineProperty(ctx, key, { get: () => unavailable(key) });
  // The main thread sends `clock` methods only when the context's clock is the system clock.
  if (clock) ctx.clock = Date.now;
  else Object.defineProperty(ctx, 'clock', { get: () => unavailable('clock') });
  return ctx;
}

interface Bound {
  callable: BoundFunction;
  params: readonly NamedParam[];
}

/** The in-worker calls of one script run. */
export function openRun(job: InWorkerJob): InWorkerRun {
  const cell = new Float64Array(job.allocated);
  // The evaluation's deadline on this thread's clock: `remainingMs` from now.
  const start = performance.now();
  const elapsed = job.limits.wallTimeMs - job.remainingMs;
  const budget = new Budget(job.limits, () => performance.now() - start + elapsed);
  const contexts = [workerContext(job, budget, false), workerContext(job, budget, true)] as const;
  const env: CallEnv = {
    getVariable: () => unavailable('template variables'),
    templateName: 'script',
    locale: job.envLocale,
    timeZone: job.envTimeZone,
  };
  const bound = [new Map<string, Bound>(), new Map<string, Bound>()] as const;
  return {
    call(fn, label, clock, text) {
      const byName = bound[clock ? 1 : 0];
      let entry = byName.get(fn);
      if (!entry) {
        const bind = bindOf(fn);
        if (!bind) return errorReply(`${label}: the function ${fn} is not in the script worker`);
        const params = FUNCTIONS.get(fn)!.forms[0]?.params ?? [];
        byName.set(fn, (entry = { callable: bind(contexts[clock ? 1 : 0]), params }));
      }
      budget.allocated = cell[0]!;
      let result: unknown;
      try {
        const parsed: unknown = JSON.parse(text);
        const args = checkArguments(label, entry.params, parsed);
        result = entry.callable.apply(env, args);
      } catch (e) {
        return errorReply(functionErrorMessage(label, fn, e));
      } finally {
        cell[0] = budget.allocated;
      }
      if (isThenable(result))
        return errorReply(`${label}: the function ${fn} is declared pure but is asynchronous`);
      return boundedValueReply(label, result, job.memoryBytes);
    },
  };
}
