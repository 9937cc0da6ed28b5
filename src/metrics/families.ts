/**
 * flowmark's metric families (docs/deploy.md "Metrics"), on one prom-client registry per thread:
 * the HTTP thread's and each evaluation thread's are gathered into one exposition by `gather.ts`.
 * Labels take only values from closed sets (a route's pattern, an HTTP status, an outcome code,
 * an engine): never a tenant's names, so no account can grow the series without bound.
 */
import { Counter, Histogram, Registry } from 'prom-client';
import { metricSinks } from './hooks.js';

export const registry = new Registry();

/** From 5 ms to a whole evaluation wall time. */
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export const httpRequests = new Histogram({
  name: 'flowmark_http_request_duration_seconds',
  help: 'HTTP requests answered, by method, route pattern and status, with their durations.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: SECONDS,
  registers: [registry],
});

export const evaluations = new Histogram({
  name: 'flowmark_evaluation_duration_seconds',
  help:
    'Tasks of the evaluation pool by surface (eval, composite, webInterface, task, process, collections) ' +
    'and outcome (ok, or the error code answered), from arrival to answer.',
  labelNames: ['surface', 'outcome'] as const,
  buckets: SECONDS,
  registers: [registry],
});

export const scriptRuns = new Counter({
  name: 'flowmark_script_runs_total',
  help: 'Sandboxed scripts run, by engine (javascript, python) and outcome (ok, or the error kind).',
  labelNames: ['engine', 'outcome'] as const,
  registers: [registry],
});

export const requestStatuses = new Counter({
  name: 'flowmark_process_requests_total',
  help:
    'Process request statuses written (101 started or running again, 102 waiting, 201 ended, 301 aborted, ' +
    '400 cancelled…), by status.',
  labelNames: ['status'] as const,
  registers: [registry],
});

export const storeTransactions = new Histogram({
  name: 'flowmark_store_transaction_duration_seconds',
  help: 'Store transactions by engine and outcome (commit, rollback), with their durations.',
  labelNames: ['engine', 'outcome'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
  registers: [registry],
});

// The layers below count through these from now on (hooks.ts).
Object.assign(metricSinks, {
  transaction(engine: string, startedAt: number, committed: boolean) {
    storeTransactions.observe(
      { engine, outcome: committed ? 'commit' : 'rollback' },
      (performance.now() - startedAt) / 1000,
    );
  },
  requestStatus(status: string) {
    requestStatuses.inc({ status });
  },
  scriptRun(engine: string, outcome: string) {
    scriptRuns.inc({ engine, outcome });
  },
});
