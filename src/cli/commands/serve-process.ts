/**
 * One server process of `flowmark serve` (`--workers 0`, or a worker of the supervisor): its
 * store, evaluation pool, hosts and Fastify app. Imported only by the processes that serve, so
 * the supervisor's primary loads none of it (serve.ts).
 */
import cluster from 'node:cluster';
import type { CliIo } from '../main.js';
import { loadConfig } from '../../config/index.js';
import { EvaluationPool } from '../../isolation/pool.js';
import { createHosts } from '../../hosts/index.js';
import { remoteCollections, remoteHosts, remoteSweeps } from '../../isolation/remote.js';
import { evaluationLimitsFromEnv } from '../../limits/index.js';
import { CollectionService } from '../../platform/collections/index.js';
import { changeCountsBuffer, createPlatform } from '../../platform/index.js';
import { leaseHeartbeat, leaseMsFromEnv, PROCESS_OWNER, type Lease } from '../../platform/processes/index.js';
import { bootstrapFirstAccount, defaultAccount, type FirstStart } from '../../server/bootstrap.js';
import { createServer, type Api } from '../../server/index.js';
import { workerThrottleShare } from '../../server/supervisor.js';
import { configureScripts, type ScriptChanges } from '../../script/run.js';
import { closeScripts } from '../../script/lifecycle.js';
import { eachCell, openStore, type Store } from '../../store/index.js';
import { serveMetrics, workerMetrics } from '../../metrics/gather.js';
import type { ServeOptions } from './serve.js';

export async function listen(options: ServeOptions, io: CliIo, { bootstrap }: { bootstrap: boolean }) {
  // Loaded only when configured: with tracing off, no OpenTelemetry module is (docs/deploy.md "Traces").
  const traces = options.traces
    ? await (await import('../../traces/setup.js')).startTracing({ exporters: options.traces.exporters })
    : undefined;
  const store = await openStore({ ...loadConfig(), lockWaitMs: options.lockWaitMs });
  let app: Api | undefined;
  let pool: EvaluationPool | undefined;
  let first: FirstStart | undefined;
  try {
    // a composite API saved here drops the routes the evaluation threads cached at once, and a
    // user or delegation changed here what they kept of users
    const changeCounts = changeCountsBuffer();
    const platform = createPlatform(store, { changeCounts });
    first = bootstrap ? await bootstrapFirstAccount(platform) : undefined;
    const limits = options.limits;
    // Every evaluation runs in the pool's threads (docs/server.md "Isolation"); this thread serves HTTP.
    const evaluation = limits.evaluation ?? evaluationLimitsFromEnv();
    const settings = options.pool;
    // Renews, here, the leases of the runs the evaluation threads drive and the sweeper claims.
    // With cells, a run's cell is not known here: each cell renews the ids it has (docs/deploy.md).
    const runs = platform.processes.runs;
    const renewEverywhere = {
      renew: async (ids: readonly string[], lease: Lease) => {
        await eachCell(() => runs.renew(ids, lease));
      },
    };
    const leases = leaseHeartbeat(renewEverywhere, { owner: PROCESS_OWNER, ttlMs: leaseMsFromEnv() });
    pool = new EvaluationPool(
      settings,
      {
        limits,
        evaluationLimits: evaluation,
        scripts: scriptsPerThread(options.scripts, settings.threads),
        lockWaitMs: options.lockWaitMs,
        leaseOwner: PROCESS_OWNER,
        changeCounts,
      },
      // one thread loads the library beside this thread's start, the others once it listens
      { leases, staggered: true },
    );
    const running = pool;
    // A supervisor's worker answers the primary's gathering (also for FLOWMARK_METRICS_PORT) and
    // reads the whole server's metrics from it.
    const fromPrimary = cluster.isWorker ? workerMetrics() : undefined;
    serveMetrics({
      pool: () => running.load,
      threads: () => running.threadMetrics(),
      store: async () => {
        const counts = await eachCell(() =>
          Promise.all([
            platform.processes.tasks.countOpenEverywhere(),
            platform.processes.timers.countDue(Date.now()),
          ]),
        );
        return {
          openTasks: counts.reduce((sum, [open]) => sum + open, 0),
          timersDue: counts.reduce((sum, [, due]) => sum + due, 0),
        };
      },
    });
    const remote = remoteHosts(pool);
    configureScripts(options.scripts);
    // This thread's process host only claims: the sweeper finds the runs other servers lost and
    // the timers due, and the pool resumes and fires them.
    const { background } = createHosts(platform, {
      limits,
      sweeper: { intervalMs: options.sweepMs, work: remoteSweeps(pool, leases) },
    });
    app = await createServer({
      store,
      platform,
      hosts: { ...remote, background },
      collections: remoteCollections(pool, new CollectionService(store)),
      logger: { level: options.logLevel, stream: io.stdout },
      defaultAccountId: await defaultAccount(platform),
      secureCookies: options.secureCookies,
      trustProxy: options.trustProxy,
      corsOrigins: options.corsOrigins,
      evaluationLimits: evaluation,
      dataDocumentBytes: limits.dataDocumentBytes,
      ...(cluster.isWorker ? { shareThrottle: workerThrottleShare() } : {}),
      metrics: options.metricsPort !== undefined ? false : fromPrimary,
    });
    await app.listen({ port: options.port, host: options.host });
    pool.startRest();
    return { app, store, pool, first, traces };
  } catch (e) {
    await app?.close();
    await pool?.close();
    await store.close();
    await traces?.shutdown();
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new PortInUse(first);
    throw e;
  }
}

/**
 * Finishes the requests in flight, then stops the evaluation threads, releases the store and
 * exports the spans still buffered.
 */
export async function shutDown(
  app: Api,
  store: Store,
  pool: EvaluationPool,
  traces: { shutdown(): Promise<void> } | undefined,
): Promise<void> {
  app.log.info('shutting down: finishing requests in flight');
  // the connections a client keeps open are closed as their requests finish (createServer's preClose)
  await app.close();
  await pool.close();
  await closeScripts();
  await store.close();
  await traces?.shutdown();
}

/** The script sandboxes of the process shared among its evaluation threads (each thread has its own). */
function scriptsPerThread(scripts: ScriptChanges, threads: number): ScriptChanges {
  const total = scripts.workers ?? DEFAULT_SCRIPT_WORKERS;
  const workers = Math.max(1, Math.ceil(total / threads));
  const accountWorkers =
    scripts.accountWorkers === undefined || scripts.accountWorkers === null
      ? scripts.accountWorkers
      : Math.min(scripts.accountWorkers, workers);
  return { ...scripts, workers, ...(accountWorkers !== undefined ? { accountWorkers } : {}) };
}

/** FLOWMARK_SCRIPT_WORKERS' default (src/script/run.ts), for the whole process. */
const DEFAULT_SCRIPT_WORKERS = 4;

/** The port was taken; the administrator of a first start was created all the same. */
export class PortInUse extends Error {
  constructor(readonly first: FirstStart | undefined) {
    super('port in use');
  }
}
