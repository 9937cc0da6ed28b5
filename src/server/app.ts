/**
 * The HTTP server: a Fastify app over one store and the platform's services.
 *
 *   const app = await createServer({ store, hosts });   // routes registered, not listening
 *   await app.listen({ port: 8080 });
 *
 * Layout: `/api/v1/…` JSON REST (auth, account, users, pools, lanes, projects, custom lists,
 * collections, files, requests, logs, eval), `/live/:account/…` the routes scripts answer (composite APIs,
 * web interfaces), `/health` and `/ready`, `/docs` (OpenAPI UI) and `/docs/json` (the OpenAPI document).
 * Every error is `{status, code, message}` (errors.ts). Closing the app does not close the store.
 */
import cookie from '@fastify/cookie';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
// Only its type: the package's runtime (typebox/compile, ajv-formats) is not needed to serve.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import Fastify, { type FastifyBaseLogger, type FastifyServerOptions } from 'fastify';
import { CollectionService } from '../platform/collections/index.js';
import { createPlatform, type Platform } from '../platform/index.js';
import {
  cellsOf,
  migrations,
  pendingMigrations,
  sql,
  UNAVAILABLE_RETRY_AFTER_SECONDS,
  type Migration,
  type Store,
} from '../store/index.js';
import { accessHook, hasAccessHook, routeAccess } from './auth/access.js';
import { CallerCache, DEFAULT_CALLER_CACHE_MS } from './auth/cache.js';
import { DEFAULT_SESSION_TTL_MS, Sessions } from './auth/sessions.js';
import {
  DEFAULT_ADDRESS_THROTTLE,
  DEFAULT_THROTTLE,
  LoginThrottle,
  type ThrottleOptions,
  type ThrottleShare,
} from './auth/throttle.js';
import { ApiTokens } from './auth/tokens.js';
import type { Api, ServerDeps } from './deps.js';
import { clientErrorHandler } from './client-errors.js';
import { toErrorBody } from './errors.js';
import { useJsonBodyParser } from './json-body.js';
import type { ServerHosts } from './hosts.js';
import { AUTH_PREFIX, authRoutes, TOKENS_PREFIX, tokenRoutes } from './routes/auth.js';
import { clientRoutes } from './routes/client.js';
import { COLLECTIONS_PREFIX, collectionRoutes } from './routes/collections/index.js';
import { LANES_PREFIX, laneRoutes, POOLS_PREFIX, poolRoutes } from './routes/directory.js';
import { EVAL_PREFIX, evalRoutes } from './routes/eval.js';
import { FILES_PREFIX, fileRoutes } from './routes/files.js';
import { LIVE_PREFIX, liveRoutes } from './routes/live.js';
import { CUSTOM_LISTS_PREFIX, customListRoutes, designRoutes } from './routes/designs.js';
import { PROJECTS_PREFIX, projectRoutes } from './routes/projects/index.js';
import { REQUESTS_PREFIX, requestRoutes, runtimeRoutes } from './routes/runtime.js';
import {
  COMPOSITE_APIS_PREFIX,
  compositeApiRoutes,
  PROCESSES_PREFIX,
  processDefinitionRoutes,
  WEB_INTERFACES_PREFIX,
  webInterfaceTemplateRoutes,
} from './routes/scripted.js';
import { USERS_PREFIX, userRoutes } from './routes/users.js';
import { corsHook } from './cors.js';
import { forbidden } from './errors.js';
import { auditRoute } from './audit.js';
import { cellRouted } from './cells.js';
import { AUDIT_PREFIX, auditRoutes } from './routes/audit.js';
import { httpRequests } from '../metrics/families.js';
import { CONTENT_TYPE, exposition, processMetrics } from '../metrics/gather.js';
import { ErrorBody } from './schemas.js';
import { lazyCompilers } from './lazy-schemas.js';
import { tracing } from '../traces/hooks.js';
import { traceRequests } from './tracing.js';
import { evaluationLimitsFromEnv, type EvaluationLimits } from '../limits/index.js';
import { DEFAULT_LIMITS } from '../functions/context.js';

export interface ServerOptions {
  store: Store;
  /** The platform's services (default: createPlatform(store)). */
  platform?: Platform;
  collections?: CollectionService;
  /** The evaluation hosts (src/hosts); routes of a missing host answer 501. */
  hosts?: ServerHosts;
  /** Fastify's logger: false (default), pino options, or a pino logger. */
  logger?: boolean | FastifyServerOptions['logger'] | FastifyBaseLogger;
  clock?: () => number;
  /** Largest request body, in bytes (default 1 MiB). */
  bodyLimit?: number;
  /**
   * The data document's maximum size (default 5 MiB, as the hosts'): the routes that take a data
   * document admit a body of that size plus `bodyLimit`.
   */
  dataDocumentBytes?: number;
  /** Largest uploaded file, in bytes (default 25 MiB). */
  uploadLimit?: number;
  sessionTtlMs?: number;
  /**
   * How long a credential's caller is remembered (default 2000 ms; 0: look up every request).
   * Another server process on the same database sees a revoked token or blocked user this late.
   */
  authCacheMs?: number;
  /** Mark the session cookie Secure (set when served over HTTPS). */
  secureCookies?: boolean;
  /** The account a login without `account` goes to. */
  defaultAccountId?: string;
  /** The migrations `/ready` expects applied (default: all of src/store/migrations). */
  migrations?: readonly Migration[];
  /** Trust X-Forwarded-* from a reverse proxy (Fastify's trustProxy). */
  trustProxy?: boolean | string;
  /**
   * Origins whose pages may use the client library, the Atom resources and the API from another
   * origin (src/server/cors.ts); `*` for every origin. Default: none (same origin only).
   */
  corsOrigins?: readonly string[];
  /** Failed-login limits per account and login, and per client address. */
  throttle?: { login?: Partial<ThrottleOptions>; address?: Partial<ThrottleOptions> };
  /** Shares the throttles' changes with the service's other server processes (the supervisor's workers). */
  shareThrottle?: ThrottleShare;
  /** The limits of one evaluation, also those of a collection REST request (default: FLOWMARK_EVAL_*). */
  evaluationLimits?: Partial<EvaluationLimits>;
  /**
   * `GET /metrics`' text: the whole server's (the supervisor's workers summed). Default: this
   * process's (src/metrics/gather.ts).
   */
  metrics?: (() => Promise<string>) | false;
}

export const API_PREFIX = '/api/v1';
export const SESSION_COOKIE = 'flowmark_session';

/** The handlers cellRouted made (a route copied with its handler, as Fastify's HEAD routes are, keeps it). */
const ROUTED = new WeakSet<object>();

export async function createServer(options: ServerOptions): Promise<Api> {
  const clock = options.clock ?? Date.now;
  const bodyLimit = options.bodyLimit ?? 1024 * 1024;
  const platform = options.platform ?? createPlatform(options.store, { clock });
  const deps: ServerDeps = {
    store: options.store,
    platform,
    collections: options.collections ?? new CollectionService(options.store, { clock }),
    sessions: new Sessions(options.store, clock, options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS),
    tokens: new ApiTokens(options.store, clock),
    callerCache: new CallerCache(clock, options.authCacheMs ?? DEFAULT_CALLER_CACHE_MS),
    throttle: {
      login: new LoginThrottle(clock, { ...DEFAULT_THROTTLE, ...options.throttle?.login }),
      address: new LoginThrottle(clock, { ...DEFAULT_ADDRESS_THROTTLE, ...options.throttle?.address }),
    },
    hosts: options.hosts ?? {},
    clock,
    settings: {
      cookieName: SESSION_COOKIE,
      secureCookies: options.secureCookies ?? false,
      uploadBytes: options.uploadLimit ?? 25 * 1024 * 1024,
      dataBodyBytes: (options.dataDocumentBytes ?? DEFAULT_LIMITS.dataDocumentBytes) + bodyLimit,
      defaultAccountId: options.defaultAccountId,
      evaluationLimits: options.evaluationLimits ?? evaluationLimitsFromEnv(),
    },
  };
  const share = options.shareThrottle;
  if (share) {
    deps.throttle.login.onChange = (change) => share.publish('login', change);
    deps.throttle.address.onChange = (change) => share.publish('address', change);
    share.subscribe((which, change) => deps.throttle[which].apply(change));
  }

  const logger = options.logger ?? false;
  const compilers = lazyCompilers();
  const app: Api = Fastify({
    ...(isLoggerInstance(logger) ? { loggerInstance: logger } : { logger }),
    bodyLimit,
    trustProxy: options.trustProxy ?? false,
    clientErrorHandler,
    // Unknown fields are an error (additionalProperties: false), not silently dropped.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true } },
    schemaController: compilers.schemaController,
  }).withTypeProvider<TypeBoxTypeProvider>();
  compilers.attach(app);

  app.decorateRequest('caller', null);
  useJsonBodyParser(app);
  app.setErrorHandler((error, request, reply) => {
    const { body, internal, retryAfter } = toErrorBody(error);
    if (internal) request.log.error({ err: error }, 'request failed');
    if (retryAfter !== undefined) reply.header('Retry-After', String(retryAfter));
    reply.code(body.status).type('application/json; charset=utf-8').send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({
      status: 404,
      code: 'not-found',
      message: `No route ${request.method} ${request.url.split('?')[0]}.`,
    });
  });

  // Every route that is not public checks its caller first (auth/access.ts), with the access it
  // declares known now rather than looked up per request; it documents the error body and,
  // unless public, its credentials.
  const cells = cellsOf(deps.store);
  app.addHook('onRoute', (route) => {
    auditRoute(route, deps, app);
    const required = routeAccess(route.url, route.config);
    if (required !== 'public' && !hasAccessHook(route.onRequest)) {
      const own = route.onRequest === undefined ? [] : [route.onRequest].flat();
      route.onRequest = [...own, accessHook(deps, required, route.url)];
    }
    if (cells && !ROUTED.has(route.handler)) {
      route.handler = cellRouted(route.handler, cells, deps.settings);
      ROUTED.add(route.handler);
    }
    const schema = (route.schema ??= {}) as {
      response?: Record<string, unknown>;
      security?: unknown;
      hide?: boolean;
    };
    if (
      !route.url.startsWith(API_PREFIX) &&
      !route.url.startsWith('/live/') &&
      route.url !== '/metrics' &&
      route.url !== '/health' &&
      route.url !== '/ready'
    )
      return;
    schema.response = { ...schema.response, '4xx': ErrorBody, '5xx': ErrorBody };
    const access = route.config?.access ?? 'user';
    if (access !== 'public') schema.security = [{ bearer: [] }, { session: [] }];
  });

  // Without its hooks: the session cookie is read and written by auth/cookie.ts, when needed.
  await app.register(cookie, { hook: false });
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'flowmark API',
        version: '1',
        description:
          'JSON REST API of flowmark. Authenticate with POST /api/v1/auth/login (session cookie) or an API token (Authorization: Bearer fmk_…). Every error is {status, code, message}.',
      },
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description: 'an API token (POST /api/v1/tokens, flowmark token create)',
          },
          session: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  if (options.corsOrigins?.length) app.addHook('onRequest', corsHook(options.corsOrigins));

  const traced = tracing;
  if (traced) traceRequests(app, traced);
  app.addHook('onResponse', (request, reply, done) => {
    httpRequests.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
    done();
  });
  const metricsText = options.metrics ?? (async () => exposition(await processMetrics()));
  if (metricsText)
    app.get(
      '/metrics',
      {
        config: { access: 'admin' },
        schema: {
          tags: ['health'],
          summary:
            "The service's metrics in the Prometheus text format: an administrator of the first account " +
            '(FLOWMARK_METRICS_PORT serves them on a port of their own instead)',
          produces: [CONTENT_TYPE],
        },
      },
      async (request, reply) => {
        const operator = deps.settings.defaultAccountId;
        if (operator !== undefined && request.caller?.accountId !== operator)
          throw forbidden(
            `Only an administrator of the account ${operator} may read GET /metrics (they cover every account).`,
          );
        return reply.type(CONTENT_TYPE).send(await metricsText());
      },
    );

  app.get(
    '/health',
    {
      config: { access: 'public' },
      schema: {
        tags: ['health'],
        summary: 'Is the service up and its store reachable',
        response: {
          200: Type.Object({ status: Type.Literal('ok'), engine: Type.String() }),
          503: ErrorBody,
        },
      },
    },
    async (_request, reply) => {
      try {
        await deps.store.get(sql`SELECT 1 AS ok`);
      } catch (e) {
        reply.log.error({ err: e }, 'health: store unreachable');
        return reply
          .code(503)
          .header('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS))
          .send({ status: 503, code: 'unavailable', message: 'The store is unreachable.' });
      }
      return { status: 'ok' as const, engine: deps.store.dialect.name };
    },
  );

  const expected = options.migrations ?? migrations;
  app.get(
    '/ready',
    {
      config: { access: 'public' },
      schema: {
        tags: ['health'],
        summary: 'Can the service take requests: its store reachable, every migration applied',
        response: {
          200: Type.Object({
            status: Type.Literal('ready'),
            engine: Type.String(),
            migrations: Type.Integer(),
          }),
          503: ErrorBody,
        },
      },
    },
    async (_request, reply) => {
      let pending: string[];
      try {
        pending = await pendingMigrations(deps.store, expected);
      } catch (e) {
        reply.log.error({ err: e }, 'ready: store unreachable');
        return reply
          .code(503)
          .header('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS))
          .send({ status: 503, code: 'unavailable', message: 'The store is unreachable.' });
      }
      if (pending.length > 0)
        return reply.code(503).send({
          status: 503,
          code: 'unavailable',
          message: `The store's schema is not up to date: ${pending.join(', ')} not applied.`,
        });
      return { status: 'ready' as const, engine: deps.store.dialect.name, migrations: expected.length };
    },
  );

  // Closing ends the connections idle at that moment; a keep-alive connection whose request was
  // in flight, or a socket a client opened just then, would hold the close until its client lets
  // go (a browser keeps them for minutes): sweep again until the server has closed.
  app.addHook('preClose', async () => {
    const sweep = setInterval(() => app.server.closeIdleConnections(), 100).unref();
    app.server.once('close', () => clearInterval(sweep));
  });

  const background = deps.hosts.background;
  if (background) {
    app.addHook('onReady', async () => background.start());
    app.addHook('onClose', async () => background.stop());
  }

  await app.register(
    async (api) => {
      // Uploads (files, collection imports) are API routes: multipart's hooks stay off the live routes.
      await api.register(multipart, {
        limits: { fileSize: deps.settings.uploadBytes, files: 1, fields: 20, parts: 25, headerPairs: 200 },
        throwFileSizeLimit: true,
      });
      await api.register(runtimeRoutes, { deps });
      await api.register(requestRoutes, { prefix: REQUESTS_PREFIX, deps });
      await api.register(designRoutes, { deps });
      await api.register(customListRoutes, { prefix: CUSTOM_LISTS_PREFIX, deps });
      await api.register(evalRoutes, { prefix: EVAL_PREFIX, deps });
      await api.register(authRoutes, { prefix: AUTH_PREFIX, deps });
      await api.register(tokenRoutes, { prefix: TOKENS_PREFIX, deps });
      await api.register(userRoutes, { prefix: USERS_PREFIX, deps });
      await api.register(poolRoutes, { prefix: POOLS_PREFIX, deps });
      await api.register(laneRoutes, { prefix: LANES_PREFIX, deps });
      await api.register(collectionRoutes, { prefix: COLLECTIONS_PREFIX, deps });
      await api.register(projectRoutes, { prefix: PROJECTS_PREFIX, deps });
      await api.register(fileRoutes, { prefix: FILES_PREFIX, deps });
      await api.register(compositeApiRoutes, { prefix: COMPOSITE_APIS_PREFIX, deps });
      await api.register(webInterfaceTemplateRoutes, { prefix: WEB_INTERFACES_PREFIX, deps });
      await api.register(processDefinitionRoutes, { prefix: PROCESSES_PREFIX, deps });
      await api.register(auditRoutes, { prefix: AUDIT_PREFIX, deps });
    },
    { prefix: API_PREFIX },
  );
  await app.register(liveRoutes, { prefix: LIVE_PREFIX, deps });
  await app.register(clientRoutes, { deps });
  return app;
}

/** A pino logger given as `logger` (Fastify takes it as `loggerInstance`), not pino's options. */
function isLoggerInstance(logger: ServerOptions['logger']): logger is FastifyBaseLogger {
  return typeof logger === 'object' && logger !== null && 'child' in logger;
}
