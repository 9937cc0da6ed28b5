/**
 * The QuickJS worker's dispatch of a script's platform calls: a method the job lists as in-worker
 * (in-worker-plan.ts) is answered here by the worker's own function table
 * (../in-worker-functions.ts), anything else goes to the main thread (host-call.ts).
 *
 * The table is imported the first time a script of this worker calls one of its methods, in the
 * background: until it is loaded those calls take the bridge, with the same results. Arguments
 * that carry request-input marks (`m…`) always take the bridge, which restores the marks, and so
 * do arguments longer than IN_WORKER_MAX_CHARS: a call that large gains nothing from the worker,
 * and the worker's own heap (WORKER_HEAP_MB in pool.ts) is smaller than the main thread's.
 */
import type { InWorkerRun } from '../in-worker-functions.js';
import type { BridgeRun } from './host-call.cjs';
import type { InWorkerMethod, InWorkerModule } from './messages.js';

const IN_WORKER_MAX_CHARS = 1048576;

/** A run as the router sees it: the bridge's fields and its in-worker state. */
export interface RoutedRun extends BridgeRun {
  inWorker: InWorkerRun | null;
  /** The run's in-worker methods by id, resolved on its first call (undefined until then). */
  inWorkerMethods: Map<number, InWorkerMethod> | null | undefined;
  inWorkerCalls: number;
}

interface InWorkerFunctions {
  openRun: typeof import('../in-worker-functions.js').openRun;
}

export function callRouter(
  where: InWorkerModule | undefined,
  callHost: (run: BridgeRun | null, method: number, args: string) => string,
): (run: RoutedRun | null, method: number, args: string) => string {
  let loaded: InWorkerFunctions | null = null;
  let loading = false;
  let lastTable: string | null = null;
  let lastMethods: Map<number, InWorkerMethod> | null = null;

  // Runs of one API share the map.
  const methodsOf = (run: RoutedRun): Map<number, InWorkerMethod> | null => {
    const local = run.job.inWorker;
    if (!local) return (run.inWorkerMethods = null);
    if (local.table !== lastTable) {
      lastMethods = new Map((JSON.parse(local.table) as InWorkerMethod[]).map((row) => [row.id, row]));
      lastTable = local.table;
    }
    return (run.inWorkerMethods = lastMethods);
  };

  const load = (): void => {
    if (loading || !where) return;
    loading = true;
    const loader = where.tsx
      ? import(where.tsx).then((tsx: { register(): void }) => {
          tsx.register();
        })
      : Promise.resolve();
    loader
      .then(() => import(where.module) as Promise<InWorkerFunctions>)
      .then(
        (m) => {
          loaded = m;
        },
        () => {
          /* calls keep taking the bridge */
        },
      );
  };

  // An in-worker call is the worker's own computing: its time counts toward the script's CPU time.
  return (run, method, args) => {
    if (run !== null && run.stop === null && args.charAt(0) !== 'm' && args.length <= IN_WORKER_MAX_CHARS) {
      const methods = run.inWorkerMethods === undefined ? methodsOf(run) : run.inWorkerMethods;
      const entry = methods === null ? undefined : methods.get(method);
      if (entry !== undefined) {
        if (loaded !== null) {
          run.inWorkerCalls++;
          try {
            if (run.inWorker === null) run.inWorker = loaded.openRun(run.job.inWorker!);
            return run.inWorker.call(entry.fn, entry.label, entry.clock, args);
          } catch (e) {
            return (
              'e' +
              JSON.stringify({
                message: entry.label + ': ' + String(e ? (e as { message?: unknown }).message : e),
              })
            );
          }
        }
        load();
      }
    }
    return callHost(run, method, args);
  };
}
