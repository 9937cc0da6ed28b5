import cluster, { type Address } from 'node:cluster';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Command, CliIo } from '../main.js';
import { cliWords } from '../command-errors.js';
import { ConfigError, DEFAULT_LOCK_WAIT_MS, loadConfig, lockWaitMs } from '../../config/index.js';
import type { ExecutionLimits } from '../../functions/context.js';
import { sweepMsFromEnv } from '../../hosts/processes/sweeper.js';
import type { PoolSettings } from '../../isolation/pool.js';
import { poolSettingsFromEnv } from '../../isolation/settings.js';
import { createPlatform } from '../../platform/index.js';
import { secretBox } from '../../platform/secrets.js';
import { leaseMsFromEnv } from '../../platform/processes/index.js';
import { bootstrapFirstAccount, type FirstStart } from '../../server/bootstrap.js';
import { corsOriginsFromEnv, parseCorsOrigins } from '../../server/cors.js';
import { onSupervisorStop, Supervisor } from '../../server/supervisor.js';
import type { ScriptChanges } from '../../script/run.js';
import { scriptSettingsFromEnv } from '../../script/settings.js';
import { openStore, StoreOpenError } from '../../store/index.js';
import { evaluationLimits } from './limits.js';
import {
  CONTENT_TYPE as METRICS_CONTENT_TYPE,
  exposition,
  primaryMetrics,
  processMetrics,
} from '../../metrics/gather.js';
import { errorMessage } from '../../errors/index.js';
import { traceSettingsFromEnv, type TraceSettings } from '../../traces/settings.js';

/** The program the supervisor's workers run (this CLI, built). */
const BIN = fileURLToPath(new URL('../../../bin/flowmark.js', import.meta.url));

const USAGE =
  'flowmark serve [--port N] [--host ADDRESS] [--log-level LEVEL] [--secure-cookies] [--trust-proxy]\n' +
  '               [--data-document-limit SIZE] [--workers N] [--worker-heap MB] [--cors-origin ORIGIN]…\n\n' +
  'Starts the HTTP service: the JSON API under /api/v1, composite APIs and web interfaces under\n' +
  '/live/<account>/, the OpenAPI page at /docs. Data: SQLite under FLOWMARK_DATA (default ./data),\n' +
  'or PostgreSQL when DATABASE_URL is set. On first start it creates the account "default" with an\n' +
  'administrator and prints the password once (also when `flowmark run` created the account without\n' +
  'users). Requests are served by worker processes sharing the port, each restarted when it dies;\n' +
  'SIGINT/SIGTERM stop them gracefully, then the command exits 0.\n\n' +
  '  --port N           TCP port (default 8080; 0 picks a free one)\n' +
  '  --host ADDRESS     address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)\n' +
  '  --log-level LEVEL  fatal, error, warn, info (default), debug, trace or silent\n' +
  '  --secure-cookies   mark the session cookie Secure (serve behind HTTPS)\n' +
  '  --trust-proxy      trust X-Forwarded-* headers from a reverse proxy\n' +
  "  --data-document-limit SIZE  maximum size of a request's data document (inject_objects, process\n" +
  '                     steps): bytes, or with KiB or MiB; default FLOWMARK_DATA_DOCUMENT_LIMIT, else 5MiB\n' +
  '  --workers N        server worker processes (default FLOWMARK_WORKERS, else 2); 0 serves in this\n' +
  '                     process, without crash isolation\n' +
  "  --worker-heap MB   each worker's JavaScript heap in MiB (default FLOWMARK_WORKER_HEAP_MB, else 1024)\n" +
  '  --cors-origin ORIGIN  let pages of ORIGIN (https://app.example.com; * for any) use the client\n' +
  '                     library, /config/ and /api/v1/ with an API token (repeatable; default\n' +
  '                     FLOWMARK_CORS_ORIGINS, comma-separated; none: same origin only)';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Where the stop signals come from (the process; a test passes its own emitter). */
export interface SignalSource {
  once(signal: 'SIGINT' | 'SIGTERM', listener: () => void): unknown;
  removeListener(signal: 'SIGINT' | 'SIGTERM', listener: () => void): unknown;
}

export interface ServeOptions {
  port: number;
  host: string;
  logLevel: string;
  secureCookies: boolean;
  trustProxy: boolean;
  limits: Partial<ExecutionLimits>;
  scripts: ScriptChanges;
  /** Server worker processes under the supervisor; 0: serve in this process. */
  workers: number;
  workerHeapMb: number;
  /** Origins whose pages may call the API with a token (CORS). */
  corsOrigins: string[];
  /** The evaluation threads of each server process (src/isolation). */
  pool: PoolSettings;
  /** FLOWMARK_LOCK_WAIT_MS: the bound of waiting on the store (default 10 s). */
  lockWaitMs: number;
  /** FLOWMARK_SWEEP_MS and FLOWMARK_LEASE_MS, checked at start. */
  sweepMs: number;
  leaseMs: number;
  /** The fingerprint of the secret key (platform/secrets.ts), loaded at start. */
  secretKey: string;
  /** FLOWMARK_METRICS_PORT: GET /metrics on a port of its own, without credentials (else on the main port). */
  metricsPort: number | undefined;
  /** The trace exporters (OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_ENDPOINT …); undefined: tracing off. */
  traces: TraceSettings | undefined;
}

const DEFAULT_WORKERS = 2;
const DEFAULT_WORKER_HEAP_MB = 1024;

/** The options, or the exit code after printing why they are refused. */
function parseServe(args: string[], io: CliIo, env: NodeJS.ProcessEnv = process.env): ServeOptions | number {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        port: { type: 'string', default: '8080' },
        host: { type: 'string', default: '127.0.0.1' },
        'log-level': { type: 'string', default: 'info' },
        'secure-cookies': { type: 'boolean', default: false },
        'trust-proxy': { type: 'boolean', default: false },
        'data-document-limit': { type: 'string' },
        workers: { type: 'string' },
        'worker-heap': { type: 'string' },
        'cors-origin': { type: 'string', multiple: true },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    io.stderr.write(`flowmark serve: ${cliWords(errorMessage(e))}\nusage: ${USAGE}\n`);
    return 2;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    io.stderr.write(`flowmark serve: --port: expected 0 to 65535, got ${JSON.stringify(values.port)}\n`);
    return 2;
  }
  if (!LOG_LEVELS.includes(values['log-level']!)) {
    io.stderr.write(`flowmark serve: --log-level: one of ${LOG_LEVELS.join(', ')}\n`);
    return 2;
  }
  try {
    const workers =
      integerSetting(values.workers, '--workers', env.FLOWMARK_WORKERS, 'FLOWMARK_WORKERS', 0, 64) ??
      DEFAULT_WORKERS;
    return {
      port,
      host: values.host!,
      logLevel: values['log-level']!,
      secureCookies: values['secure-cookies']!,
      trustProxy: values['trust-proxy']!,
      limits: evaluationLimits(values['data-document-limit']),
      scripts: scriptSettingsFromEnv(env),
      workers,
      workerHeapMb:
        integerSetting(
          values['worker-heap'],
          '--worker-heap',
          env.FLOWMARK_WORKER_HEAP_MB,
          'FLOWMARK_WORKER_HEAP_MB',
          64,
          65_536,
        ) ?? DEFAULT_WORKER_HEAP_MB,
      corsOrigins: values['cors-origin']
        ? parseCorsOrigins(values['cors-origin'], '--cors-origin')
        : corsOriginsFromEnv(env),
      // an account's share of each process's threads: the cores divided by the processes
      pool: poolSettingsFromEnv(env, workers),
      lockWaitMs: lockWaitMs(env) ?? DEFAULT_LOCK_WAIT_MS,
      // Read again by each evaluation thread's runner: a bad value stops the supervisor here, before any worker.
      sweepMs: sweepMsFromEnv(env),
      leaseMs: leaseMsFromEnv(env),
      // the secret key of vaults and OAuth2 tokens, made on first start when none is set (a bad one stops here)
      secretKey: secretBox().fingerprint,
      metricsPort: integerSetting(
        undefined,
        '',
        env.FLOWMARK_METRICS_PORT,
        'FLOWMARK_METRICS_PORT',
        1,
        65_535,
      ),
      traces: traceSettingsFromEnv(env),
    };
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    io.stderr.write(`flowmark serve: ${e.message}\n`);
    return 2;
  }
}

/** The option, else the environment variable, as an integer from min to max; undefined when neither is set. */
function integerSetting(
  option: string | undefined,
  optionName: string,
  envValue: string | undefined,
  envName: string,
  min: number,
  max: number,
): number | undefined {
  const [text, name] = option !== undefined ? [option, optionName] : [envValue, envName];
  if (text === undefined || text.trim() === '') return undefined;
  const n = /^\s*\d{1,6}\s*$/.test(text) ? Number(text) : NaN;
  if (!(n >= min && n <= max))
    throw new ConfigError(`${name}: expected an integer from ${min} to ${max}, got ${JSON.stringify(text)}`);
  return n;
}

/** `flowmark serve`: the supervisor and its workers (docs/server.md), or one process with --workers 0. */
export async function startServe(
  args: string[],
  io: CliIo,
  signals: SignalSource = process,
): Promise<number> {
  if (cluster.isWorker) return serveWorker(args, io);
  const options = parseServe(args, io);
  if (typeof options === 'number') return options;
  try {
    if (options.workers === 0) return await serveInProcess(options, io, signals);
    return await supervise(args, options, io, signals);
  } catch (e) {
    if (!(e instanceof StoreOpenError || e instanceof ConfigError)) throw e;
    io.stderr.write(`flowmark serve: ${e.message}\n`);
    return 1;
  }
}

/** One server in this process, stopped by SIGINT/SIGTERM (what `--workers 0` runs). */
export async function runServe(args: string[], io: CliIo, signals: SignalSource = process): Promise<number> {
  const options = parseServe(args, io);
  if (typeof options === 'number') return options;
  return serveInProcess(options, io, signals);
}

async function serveInProcess(options: ServeOptions, io: CliIo, signals: SignalSource): Promise<number> {
  const { listen, PortInUse, shutDown } = await import('./serve-process.js');
  let listening;
  try {
    listening = await listen(options, io, { bootstrap: true });
  } catch (e) {
    if (!(e instanceof PortInUse)) throw e;
    return portInUse(options, io, e.first);
  }
  const { app, store, pool, first, traces } = listening;
  const metrics =
    options.metricsPort !== undefined
      ? await metricsServer(options.host, options.metricsPort, async () => exposition(await processMetrics()))
      : undefined;
  const url = publicUrl(app.server.address());
  // Listening before the banner: a reader may stop the server the moment it sees it, and a signal
  // with no listener yet would kill the process instead of stopping it gracefully.
  const stopping = stopSignal(signals);
  // One write: a reader that saw the banner must also see the password (a pipe may split two writes).
  io.stdout.write(banner(url, store.location) + (first ? firstStartMessage(url, first) : ''));
  await stopping;
  await metrics?.close();
  await shutDown(app, store, pool, traces);
  io.stdout.write('flowmark: stopped\n');
  return 0;
}

/** A worker of the supervisor: serves until the primary says stop, then exits. */
async function serveWorker(args: string[], io: CliIo): Promise<number> {
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const release = onSupervisorStop(() => stop());
  try {
    const options = parseServe(args, io);
    if (typeof options === 'number') return options;
    const { listen, shutDown } = await import('./serve-process.js');
    const { app, store, pool, traces } = await listen(options, io, { bootstrap: false });
    await stopped;
    await shutDown(app, store, pool, traces);
    return 0;
  } finally {
    release();
    // The cluster's own disconnect: a bare process.disconnect() makes node:cluster exit the
    // worker at once with code 0, whatever the command's exit code.
    if (process.connected) cluster.worker?.disconnect();
  }
}

/** The primary: first start, then the workers; SIGINT/SIGTERM stop them and it. */
async function supervise(
  args: string[],
  options: ServeOptions,
  io: CliIo,
  signals: SignalSource,
): Promise<number> {
  const store = await openStore({ ...loadConfig(), lockWaitMs: options.lockWaitMs });
  let first: FirstStart | undefined;
  try {
    first = await bootstrapFirstAccount(createPlatform(store));
  } finally {
    await store.close();
  }
  // Told here, before any worker starts, a busy port gets its hint (a worker would only say EADDRINUSE).
  if (options.port !== 0 && !(await portFree(options.host, options.port)))
    return portInUse(options, io, first);
  const supervisor = new Supervisor({
    workers: options.workers,
    exec: BIN,
    args: ['serve', ...args],
    heapMb: options.workerHeapMb,
    log: (line) => io.stdout.write(`${line}\n`),
  });
  const metrics =
    options.metricsPort !== undefined
      ? await metricsServer(options.host, options.metricsPort, primaryMetrics())
      : undefined;
  const stopping = stopSignal(signals);
  let address;
  try {
    address = await Promise.race([supervisor.start(), stopping.then(() => undefined)]);
  } catch (e) {
    io.stderr.write(`flowmark serve: ${errorMessage(e)}\n`);
    return 1;
  }
  if (address) {
    const url = publicUrl(address);
    // after every worker's start-up lines, so the password stands apart from the log that follows
    await Promise.race([supervisor.everyListening(10_000), stopping]);
    io.stdout.write(banner(url, store.location) + (first ? firstStartMessage(url, first) : ''));
    await stopping;
  }
  void stopSignal(signals).then(() => supervisor.kill());
  await metrics?.close();
  await supervisor.stop();
  io.stdout.write('flowmark: stopped\n');
  return 0;
}

/** GET /metrics on a port of its own (FLOWMARK_METRICS_PORT): no credentials, every other path 404. */
async function metricsServer(host: string, port: number, text: () => Promise<string>) {
  const server = createHttpServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Only GET /metrics is served here.\n');
      return;
    }
    text().then(
      (body) => response.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE }).end(body),
      (e: unknown) =>
        response
          .writeHead(503, { 'content-type': 'text/plain' })
          .end(`The metrics could not be gathered: ${errorMessage(e)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => resolve());
  });
  return { close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

function portFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createNetServer();
    probe.once('error', () => resolve(false));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

function portInUse(options: ServeOptions, io: CliIo, first: FirstStart | undefined): number {
  io.stderr.write(
    `flowmark serve: ${options.host}:${options.port} is already in use (another flowmark serve?): stop it, ` +
      'or choose another port with --port N (0 picks a free one)\n',
  );
  // the administrator was created all the same: its password is shown now or never
  if (first) io.stdout.write(firstStartMessage(`http://${options.host}:<port>`, first));
  return 1;
}

function stopSignal(signals: SignalSource): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      signals.removeListener('SIGINT', stop);
      signals.removeListener('SIGTERM', stop);
      resolve();
    };
    signals.once('SIGINT', stop);
    signals.once('SIGTERM', stop);
  });
}

function publicUrl(address: string | AddressInfo | Address | null): string {
  if (address === null || typeof address === 'string') return `http://${address ?? 'localhost'}`;
  const host = address.address ?? '127.0.0.1';
  const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${address.port}`;
}

function banner(url: string, location: string): string {
  return `flowmark: serving on ${url} (data: ${location}); console at ${url}/console/, API docs at ${url}/docs\n`;
}

function firstStartMessage(url: string, first: FirstStart): string {
  const body = JSON.stringify({ account: first.accountId, login: first.login, password: first.password });
  const created = first.createdAccount
    ? `the account "${first.accountId}" and its administrator`
    : `the administrator of the account "${first.accountId}", which had no user`;
  return (
    `\nFirst start: created ${created}. This password is shown only once:\n\n` +
    `  account:  ${first.accountId}\n  login:    ${first.login}\n  password: ${first.password}\n\n` +
    `Log in to the console at ${url}/console/, or with curl, keeping the session cookie:\n` +
    `  curl -c cookies.txt -H 'content-type: application/json' -d '${body}' ${url}/api/v1/auth/login\n` +
    `or create an API token: npx flowmark token create --user ${first.login}\n\n`
  );
}

export const serve: Command = {
  name: 'serve',
  usage: USAGE,
  run: (args, io) => startServe(args, io),
};
