/**
 * The main thread's side of the in-worker calls (in-worker-functions.ts): which methods of a
 * script's API run inside the script worker for one run, what the job tells the worker, and the
 * evaluation's budget kept in step with the worker's charges.
 *
 * A method runs in the worker when its function is declared pure (FunctionFlags.pure), the run's
 * registry holds the library's own declaration of it (a registry of copies or other specs keeps
 * the bridge; the worker loads every function the library declares pure, which
 * test/script/in-worker.test.ts checks, so the main thread need not import the worker's table),
 * it is called as declared (no
 * platform variant or result adapter), may run on the context's surface (a web interface's rule),
 * and — for `pure: 'clock'` — the context's clock is the system clock (a test context that
 * freezes time keeps those on the bridge). Everything else takes the bridge.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { budgetOf, type ExecutionContext } from '../functions/context.js';
import { isLibraryDeclaration } from '../functions/lazy.js';
import { surfaceRefusal, type CallEnv, type FunctionRegistry } from '../functions/registry.js';
import type { ScriptApi } from './api.js';
import type { InWorkerJob } from './in-worker-functions.js';
import type { CallHandler } from './pool.js';
import type { InWorkerMethod } from './worker/messages.js';

/** Per API, per surface and clock: the table of its in-worker methods. */
const tables = new WeakMap<ScriptApi, Map<string, string>>();

/** JSON InWorkerMethod[] (worker/messages.ts): the methods that run in the worker. */
export function inWorkerTable(api: ScriptApi, registry: FunctionRegistry, ctx: ExecutionContext): string {
  const systemClock = ctx.clock === Date.now;
  const key = `${ctx.surface}${systemClock ? '+clock' : ''}`;
  let byKey = tables.get(api);
  if (!byKey) tables.set(api, (byKey = new Map()));
  let table = byKey.get(key);
  if (table === undefined) {
    const rows: InWorkerMethod[] = [];
    for (const m of api.methods) {
      if (!m.function || m.args || m.result) continue;
      const spec = registry.get(m.function);
      const pure = spec?.flags?.pure;
      if (!pure || !isLibraryDeclaration(spec)) continue;
      if (pure === 'clock' && !systemClock) continue;
      if (surfaceRefusal(spec, m.function, ctx) !== undefined) continue;
      rows.push({ id: m.id, fn: m.function, label: `${m.object}.${m.name}`, clock: pure === 'clock' });
    }
    byKey.set(key, (table = JSON.stringify(rows)));
  }
  return table;
}

/** One run's in-worker calls: the job's data, the bridge's handler kept in step, the final count. */
export interface InWorkerSession {
  job: InWorkerJob;
  /** The bridge's handler, taking the worker's charges before each call and handing back the total after. */
  bridge(onCall: CallHandler): CallHandler;
  /** After the run: the worker's last charges onto the evaluation's budget. */
  finish(): void;
}

export function inWorkerSession(
  api: ScriptApi,
  registry: FunctionRegistry,
  ctx: ExecutionContext,
  env: CallEnv,
  memoryBytes: number,
): InWorkerSession | undefined {
  const table = inWorkerTable(api, registry, ctx);
  if (table === '[]') return undefined;
  const budget = budgetOf(ctx);
  const allocated = new SharedArrayBuffer(Float64Array.BYTES_PER_ELEMENT);
  const cell = new Float64Array(allocated);
  // The cell as last written here: what it holds beyond it, the worker charged.
  let mirror = (cell[0] = budget.allocated);
  const absorb = (): void => {
    const charged = cell[0]! - mirror;
    if (charged > 0) budget.allocated += charged;
    mirror = cell[0]!;
  };
  const publish = (): void => {
    mirror = cell[0] = budget.allocated;
  };
  return {
    job: {
      table,
      allocated,
      limits: { ...budget.limits },
      remainingMs: budget.remainingMs(),
      locale: ctx.locale,
      timeZone: ctx.timeZone,
      envLocale: env.locale,
      envTimeZone: env.timeZone,
      dataDocumentBytes: ctx.limits.dataDocumentBytes,
      memoryBytes,
    },
    bridge: (onCall) => (method, args) => {
      absorb();
      let reply: string | Promise<string>;
      try {
        reply = onCall(method, args);
      } catch (e) {
        publish();
        throw e;
      }
      if (typeof reply === 'string') {
        publish();
        return reply;
      }
      return reply.finally(publish);
    },
    finish: absorb,
  };
}

/** The worker's module to import (and, when flowmark runs from its TypeScript sources, tsx's loader first). */
export function inWorkerModule(): { module: string; tsx?: string } {
  const fromSource = import.meta.url.endsWith('.ts');
  const module = new URL(`./in-worker-functions.${fromSource ? 'ts' : 'js'}`, import.meta.url).href;
  if (!fromSource) return { module };
  const require = createRequire(import.meta.url);
  const pkgPath = require.resolve('tsx/package.json');
  const pkg = require(pkgPath) as { exports: Record<string, { import: { default: string } }> };
  return {
    module,
    tsx: pathToFileURL(join(dirname(pkgPath), pkg.exports['./esm/api']!.import.default)).href,
  };
}
