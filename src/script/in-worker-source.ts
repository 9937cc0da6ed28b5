/**
 * The worker-side dispatch of a script's platform calls (interpolated into worker-source.ts): a
 * method the job lists as in-worker (in-worker-plan.ts) is answered here by the worker's own
 * function table (in-worker-functions.ts), anything else goes to the main thread (callHost).
 *
 * The table is imported the first time a script of this worker calls one of its methods, in the
 * background: until it is loaded those calls take the bridge, with the same results. Arguments
 * that carry request-input marks (`m…`) always take the bridge, which restores the marks, and so
 * do arguments longer than IN_WORKER_MAX_CHARS: a call that large gains nothing from the worker,
 * and the worker's own heap (WORKER_HEAP_MB in pool.ts) is smaller than the main thread's.
 * Expects in scope: `workerData` and `callHost` (host-call-source.ts); a run holds `inWorker`
 * (null), `inWorkerMethods` (undefined until resolved) and `inWorkerCalls` (0).
 */
export const IN_WORKER_SOURCE = String.raw`
const IN_WORKER_MAX_CHARS = 1048576;
let inWorker = null;
let inWorkerLoading = false;
let inWorkerTableText = null;
let inWorkerMethods = null;

// The run's in-worker methods by id, resolved once per run (runs of one API share the map).
function inWorkerMethodsOf(run) {
  const local = run.job.inWorker;
  if (!local) return (run.inWorkerMethods = null);
  if (local.table !== inWorkerTableText) {
    inWorkerMethods = new Map(JSON.parse(local.table).map((row) => [row[0], row]));
    inWorkerTableText = local.table;
  }
  return (run.inWorkerMethods = inWorkerMethods);
}

function loadInWorker() {
  if (inWorkerLoading || !workerData.inWorker) return;
  inWorkerLoading = true;
  const where = workerData.inWorker;
  const loader = where.tsx ? import(where.tsx).then((tsx) => { tsx.register(); }) : Promise.resolve();
  loader.then(() => import(where.module)).then(
    (m) => { inWorker = m; },
    () => { /* calls keep taking the bridge */ },
  );
}

// An in-worker call is the worker's own computing: its time counts toward the script's CPU time.
function routeCall(run, method, args) {
  if (run !== null && run.stop === null && args.charAt(0) !== 'm' && args.length <= IN_WORKER_MAX_CHARS) {
    const methods = run.inWorkerMethods === undefined ? inWorkerMethodsOf(run) : run.inWorkerMethods;
    const entry = methods === null ? undefined : methods.get(method);
    if (entry !== undefined) {
      if (inWorker !== null) {
        run.inWorkerCalls++;
        try {
          if (run.inWorker === null) run.inWorker = inWorker.openRun(run.job.inWorker);
          return run.inWorker.call(entry[1], entry[2], entry[3] === 1, args);
        } catch (e) {
          return 'e' + JSON.stringify({ message: entry[2] + ': ' + String(e && e.message) });
        }
      }
      loadInWorker();
    }
  }
  return callHost(run, method, args);
}
`;
