/**
 * One exposition of a deployment's metrics (docs/deploy.md "Metrics"): this server process's HTTP
 * thread and evaluation threads are summed here; the supervisor's workers are summed by the
 * primary through node:cluster (prom-client's AggregatorRegistry), so a scrape that reaches any
 * worker reads the whole server.
 */
import {
  AggregatorRegistry,
  collectDefaultMetrics,
  Gauge,
  Registry,
  type MetricObjectWithValues,
  type MetricValue,
} from 'prom-client';
import { registry } from './families.js';

type MetricJson = MetricObjectWithValues<MetricValue<string>>;

/** What the HTTP thread reads at each scrape. */
export interface ServiceSources {
  /** The evaluation pool's load now. */
  pool(): { running: number; waiting: number; threads: number };
  /** Every evaluation thread's metrics (EvaluationPool.threadMetrics). */
  threads(): Promise<unknown[][]>;
  /** Counted in the store: manual tasks open, process timers due and not fired. */
  store(): Promise<{ openTasks: number; timersDue: number }>;
}

let sources: ServiceSources | undefined;

/**
 * Adds the families only the HTTP thread has (the process's CPU, memory and event loop; the pool's
 * load; the store's open tasks and due timers) and what the evaluation threads count. Once per process.
 */
export function serveMetrics(from: ServiceSources): void {
  const first = sources === undefined;
  sources = from;
  if (!first) return;
  collectDefaultMetrics({ register: registry, prefix: 'flowmark_' });
  const gauge = (name: string, help: string, read: () => number, aggregator: 'sum' | 'max' = 'sum') =>
    new Gauge({
      name,
      help,
      aggregator,
      registers: [registry],
      collect() {
        if (sources) this.set(read());
      },
    });
  gauge(
    'flowmark_pool_tasks_running',
    'Tasks running in the evaluation threads.',
    () => sources!.pool().running,
  );
  gauge(
    'flowmark_pool_tasks_waiting',
    'Tasks waiting for an evaluation thread (every account).',
    () => sources!.pool().waiting,
  );
  gauge('flowmark_pool_threads', 'Evaluation threads ready.', () => sources!.pool().threads);
  // Counted in the shared store: every server reads the same number, so servers are not summed.
  let counted: Promise<{ openTasks: number; timersDue: number }> | undefined;
  const stored = (read: (c: { openTasks: number; timersDue: number }) => number) =>
    async function (this: Gauge) {
      counted ??= sources!.store().finally(() => setTimeout(() => (counted = undefined), 0));
      try {
        this.set(read(await counted));
      } catch {
        // the store is unreachable: /health says so; the gauge keeps its last value
      }
    };
  new Gauge({
    name: 'flowmark_open_tasks',
    help: 'Manual tasks open (every account).',
    aggregator: 'max',
    registers: [registry],
    collect: stored((c) => c.openTasks),
  });
  new Gauge({
    name: 'flowmark_timers_due',
    help: 'Process timers due and not yet fired (every account): a growing number means the sweeper lags.',
    aggregator: 'max',
    registers: [registry],
    collect: stored((c) => c.timersDue),
  });
}

/** This process's metrics: its HTTP thread's and its evaluation threads', summed. */
export async function processMetrics(): Promise<MetricJson[]> {
  const parts = [await registry.getMetricsAsJSON(), ...(sources ? await sources.threads() : [])];
  return (await AggregatorRegistry.aggregate(parts as never).getMetricsAsJSON()) as MetricJson[];
}

/** The Prometheus text of metrics in prom-client's JSON. */
export function exposition(metrics: MetricJson[]): Promise<string> {
  return AggregatorRegistry.aggregate([metrics] as never).metrics();
}

export const CONTENT_TYPE = registry.contentType;

/** What a worker asks the primary, and the primary answers (supervisor.ts). */
export interface MetricsMessage {
  flowmark: 'metrics';
  id: number;
  text?: string;
  error?: string;
}

export function isMetricsMessage(m: unknown): m is MetricsMessage {
  return typeof m === 'object' && m !== null && (m as { flowmark?: unknown }).flowmark === 'metrics';
}

/**
 * In a supervisor's worker: answers the primary's gathering with this process's metrics (through
 * prom-client's cluster listener), and returns how to read the whole server's from the primary.
 */
export function workerMetrics(): () => Promise<string> {
  const gathered = new (class extends Registry {
    override getMetricsAsJSON() {
      return processMetrics() as never;
    }
  })();
  AggregatorRegistry.setRegistries([gathered]);
  new AggregatorRegistry();
  let next = 0;
  const waiting = new Map<number, { resolve(text: string): void; reject(e: Error): void }>();
  process.on('message', (m: unknown) => {
    if (!isMetricsMessage(m) || !waiting.has(m.id)) return;
    const w = waiting.get(m.id)!;
    waiting.delete(m.id);
    if (m.text !== undefined) w.resolve(m.text);
    else
      w.reject(new Error(`the supervisor could not gather the workers' metrics: ${m.error ?? 'no answer'}`));
  });
  return () =>
    new Promise((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve, reject });
      setTimeout(() => {
        if (waiting.delete(id))
          reject(new Error("the supervisor did not answer with the workers' metrics in 10 s"));
      }, 10_000).unref();
      process.send?.({ flowmark: 'metrics', id } satisfies MetricsMessage);
    });
}

/** In the supervisor: every worker's metrics, summed (prom-client's cluster gathering). */
export function primaryMetrics(): () => Promise<string> {
  const aggregator = new AggregatorRegistry();
  return () => aggregator.clusterMetrics();
}
