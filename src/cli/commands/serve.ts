import { parseArgs } from 'node:util';
import type { Command, CliIo } from '../main.js';
import { ConfigError, loadConfig } from '../../config/index.js';
import { createHosts } from '../../hosts/index.js';
import { createPlatform } from '../../platform/index.js';
import { bootstrapFirstAccount, defaultAccount, type FirstStart } from '../../server/bootstrap.js';
import { corsOriginsFromEnv, parseCorsOrigins } from '../../server/cors.js';
import { evalHost } from '../../server/eval-host.js';
import { createServer } from '../../server/index.js';
import { openStore } from '../../store/index.js';
import { evaluationLimits } from './limits.js';

const USAGE =
  'flowmark serve [--port N] [--host ADDRESS] [--log-level LEVEL] [--secure-cookies] [--trust-proxy]\n' +
  '               [--data-document-limit SIZE] [--cors-origin ORIGIN]…\n\n' +
  'Starts the HTTP service: the JSON API under /api/v1, composite APIs and web interfaces under\n' +
  '/live/<account>/, the OpenAPI page at /docs. Data: SQLite under FLOWMARK_DATA (default ./data),\n' +
  'or PostgreSQL when DATABASE_URL is set. On first start it creates the account "default" with an\n' +
  'administrator and prints the password once (also when `flowmark run` created the account without\n' +
  'users). SIGINT/SIGTERM stop it gracefully.\n\n' +
  '  --port N           TCP port (default 8080; 0 picks a free one)\n' +
  '  --host ADDRESS     address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)\n' +
  '  --log-level LEVEL  fatal, error, warn, info (default), debug, trace or silent\n' +
  '  --secure-cookies   mark the session cookie Secure (serve behind HTTPS)\n' +
  '  --trust-proxy      trust X-Forwarded-* headers from a reverse proxy\n' +
  "  --data-document-limit SIZE  maximum size of a request's data document (inject_objects, process\n" +
  '                     steps): bytes, or with KiB or MiB; default FLOWMARK_DATA_DOCUMENT_LIMIT, else 5MiB\n' +
  '  --cors-origin ORIGIN  let pages of ORIGIN (https://app.example.com; * for any) use the client\n' +
  '                     library, /config/ and /api/v1/ with an API token (repeatable; default\n' +
  '                     FLOWMARK_CORS_ORIGINS, comma-separated; none: same origin only)';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Where the stop signals come from (the process; a test passes its own emitter). */
export interface SignalSource {
  once(signal: 'SIGINT' | 'SIGTERM', listener: () => void): unknown;
  removeListener(signal: 'SIGINT' | 'SIGTERM', listener: () => void): unknown;
}

export async function runServe(args: string[], io: CliIo, signals: SignalSource = process): Promise<number> {
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
        'cors-origin': { type: 'string', multiple: true },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    io.stderr.write(`flowmark serve: ${(e as Error).message}\nusage: ${USAGE}\n`);
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

  let limits;
  let corsOrigins: string[];
  try {
    limits = evaluationLimits(values['data-document-limit']);
    corsOrigins = values['cors-origin']
      ? parseCorsOrigins(values['cors-origin'], '--cors-origin')
      : corsOriginsFromEnv();
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    io.stderr.write(`flowmark serve: ${e.message}\n`);
    return 2;
  }

  const config = loadConfig();
  const store = await openStore(config);
  let app;
  let first: FirstStart | undefined;
  try {
    const platform = createPlatform(store);
    first = await bootstrapFirstAccount(platform);
    app = await createServer({
      store,
      platform,
      hosts: { ...evalHost(platform, { limits }), ...createHosts(platform, { limits }) },
      logger: { level: values['log-level']!, stream: io.stdout },
      defaultAccountId: await defaultAccount(platform),
      secureCookies: values['secure-cookies'],
      trustProxy: values['trust-proxy'],
      corsOrigins,
    });
    const address = await app.listen({ port, host: values.host! });
    const url = address.replace('://0.0.0.0:', '://localhost:').replace('://[::]:', '://localhost:');
    io.stdout.write(
      `flowmark: serving on ${url} (data: ${store.location}); console at ${url}/console/, API docs at ${url}/docs\n`,
    );
    if (first) io.stdout.write(firstStartMessage(url, first));
  } catch (e) {
    await app?.close();
    await store.close();
    if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
    io.stderr.write(
      `flowmark serve: ${values.host!}:${port} is already in use (another flowmark serve?): stop it, ` +
        'or choose another port with --port N (0 picks a free one)\n',
    );
    // the administrator was created all the same: its password is shown now or never
    if (first) io.stdout.write(firstStartMessage(`http://${values.host!}:<port>`, first));
    return 1;
  }

  const server = app;
  await new Promise<void>((resolve) => {
    const stop = () => {
      signals.removeListener('SIGINT', stop);
      signals.removeListener('SIGTERM', stop);
      resolve();
    };
    signals.once('SIGINT', stop);
    signals.once('SIGTERM', stop);
  });
  server.log.info('shutting down: finishing requests in flight');
  await server.close();
  await store.close();
  io.stdout.write('flowmark: stopped\n');
  return 0;
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
  summary: 'start the HTTP service (API, composite APIs, web interfaces)',
  usage: USAGE,
  run: (args, io) => runServe(args, io),
};
