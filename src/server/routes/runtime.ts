/**
 * The caller's account, process requests and the log P_log writes. A request is visible to the
 * user who started it and to administrators; the account-wide log only to administrators.
 */
import { Type, type Static } from 'typebox';
import type {
  ProcessRequest as RequestRecord,
  RequestSummary as RequestSummaryRecord,
} from '../../platform/requests.js';
import { LOG_LEVELS, type LogEntry as LogRecord, type LogLevel } from '../../platform/logs.js';
import { canReadRequest, REQUEST_STATUSES } from '../../platform/index.js';
import type { FastifyReply } from 'fastify';
import type { StartedRequest } from '../../hosts/index.js';
import type { Platform } from '../../platform/index.js';
import { callerOf } from '../auth/access.js';
import type { Caller } from '../hosts.js';
import type { Api, ServerDeps } from '../deps.js';
import { ApiError, notFound } from '../errors.js';
import { Account, JsonObject, LogEntry, Mode, Nullable, ProcessRequest, RequestSummary } from '../schemas.js';

const RequestParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) });
const toRequestBody = ({ accountId: _a, ...request }: RequestRecord) => request;
/** A request in the list: its summary, and the name (and stored definition) of the process it runs. */
const ListedRequest = Type.Intersect([
  RequestSummary,
  Type.Object({
    process: Nullable(Type.String({ description: "the process definition's name; null: no process" })),
    processId: Nullable(
      Type.Integer({ description: 'the stored definition it was started from (null: given inline)' }),
    ),
  }),
]);

/** The optional Idempotency-Key of the routes that start a request. */
const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' }),
  ),
});

/** A started request's answer (201): as its host read it, or read now; a replay says so. */
async function startedAnswer(
  reply: FastifyReply,
  requests: Platform['requests'],
  accountId: string,
  { requestId, replayed, request }: StartedRequest,
) {
  if (replayed) reply.header('Idempotent-Replayed', 'true');
  reply.code(201);
  return request ?? toRequestBody(await requests.require(accountId, requestId));
}

const toSummaryBody = ({ accountId: _a, ...request }: RequestSummaryRecord) => request;
const toLogBody = ({ accountId: _a, ...entry }: LogRecord) => entry;

/** The prefix requestRoutes is registered under (below /api/v1). */
export const REQUESTS_PREFIX = '/requests';

/**
 * The routes of the runtime outside /requests: the caller's account, the request statuses, the
 * messages that start requests and the account's log. A plugin registered at /api/v1 itself.
 */
export async function runtimeRoutes(app: Api, { deps }: { deps: ServerDeps }): Promise<void> {
  const { accounts, requests, logs } = deps.platform;

  app.get(
    '/account',
    { schema: { tags: ['account'], summary: "The caller's account", response: { 200: Account } } },
    async (request) => accounts.require(callerOf(request).accountId),
  );

  app.get(
    '/request-statuses',
    {
      schema: {
        tags: ['requests'],
        summary:
          "The statuses a process request may have: code, name and meaning (the status filter's values)",
        response: {
          200: Type.Object({
            items: Type.Array(
              Type.Object({ code: Type.Integer(), name: Type.String(), meaning: Type.String() }),
            ),
          }),
        },
      },
    },
    async () => ({
      items: Object.entries(REQUEST_STATUSES).map(([code, s]) => ({ code: Number(code), ...s })),
    }),
  );

  app.post(
    '/messages/:name',
    {
      bodyLimit: deps.settings.dataBodyBytes,
      schema: {
        tags: ['requests'],
        summary:
          'Send a message: start the stored process whose message start event has that name, the body as its data document',
        description:
          'Any user of the account; the caller is the request\'s initiator (docs/hosts.md, "Message start events"). ' +
          'The body is a JSON object (`{}` for none), bounded like any request data document. `mode` defaults to LIVE. ' +
          'Answers as `POST /requests` (the request once it waits or ends, or still running after one wall time), ' +
          'with the same `Idempotency-Key`; 404 when no enabled message start event of the account has that name.',
        params: Type.Object({
          name: Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\u0000-\\u001f\\u007f]+$' }),
        }),
        querystring: Type.Object({ mode: Type.Optional(Mode) }, { additionalProperties: false }),
        headers: IdempotencyHeaders,
        body: JsonObject,
        response: { 201: ProcessRequest },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const send = deps.hosts.sendMessage;
      if (!send) throw new ApiError(501, 'not-implemented', 'This server has no process host.');
      const idempotencyKey = request.headers['idempotency-key'];
      const started = await send.call(deps.hosts, {
        caller,
        message: request.params.name,
        mode: request.query.mode ?? 'LIVE',
        data: request.body,
        ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
      });
      return startedAnswer(reply, requests, caller.accountId, started);
    },
  );

  app.get(
    '/logs',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['requests'],
        summary:
          "The account's log, latest first (one request's with requestId), filtered by minimum level, " +
          'time (epoch milliseconds: since inclusive, until exclusive) and text; keyset paging with before= and next',
        querystring: Type.Object({
          requestId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
          level: Type.Optional(
            // A pattern rather than an enum: its validation message names the accepted levels.
            Type.Unsafe<LogLevel>({
              type: 'string',
              pattern: `^(${LOG_LEVELS.join('|')})$`,
              description: 'the minimum severity: WARNING gives SEVERE and WARNING entries',
            }),
          ),
          since: Type.Optional(
            Type.Integer({ minimum: 0, description: 'epoch milliseconds: entries created at or after' }),
          ),
          until: Type.Optional(
            Type.Integer({ minimum: 0, description: 'epoch milliseconds: entries created before' }),
          ),
          text: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 1000,
              description: 'a case-insensitive substring of the message',
            }),
          ),
          before: Type.Optional(
            Type.Integer({
              minimum: 1,
              description: "the entries older than this id (a previous page's next)",
            }),
          ),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
        }),
        response: {
          200: Type.Object({
            items: Type.Array(LogEntry),
            next: Nullable(
              Type.Integer({ description: 'the before= of the next page; null: no more entries' }),
            ),
          }),
        },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? 100;
      // One more than asked tells whether a next page exists.
      const entries = await logs.list(callerOf(request).accountId, { ...request.query, limit: limit + 1 });
      const page = entries.slice(0, limit);
      return {
        items: page.map(toLogBody),
        next: entries.length > limit ? page[page.length - 1]!.id : null,
      };
    },
  );
}

/** The process requests: a plugin registered under REQUESTS_PREFIX, its paths relative to it. */
export async function requestRoutes(app: Api, { deps }: { deps: ServerDeps }): Promise<void> {
  const { requests, logs } = deps.platform;

  /** A request the caller may see, or 404 (also for another user's request: its existence is not told). */
  async function visibleRequest(caller: Caller, id: string): Promise<RequestRecord> {
    const request = await requests.find(caller.accountId, id);
    if (!request || !canReadRequest(caller.user, request)) throw notFound('Request not found.');
    return request;
  }

  app.get(
    '',
    {
      schema: {
        tags: ['requests'],
        summary:
          "Process requests, newest first: the caller's own (administrators: the account's, or one initiator's); " +
          'each without its data document and P_locks (GET /requests/{id} has them)',
        querystring: Type.Object({
          projectId: Type.Optional(Type.Integer({ minimum: 1 })),
          initiatorId: Type.Optional(Type.Integer({ minimum: 1 })),
          status: Type.Optional(Type.Integer()),
          processId: Type.Optional(
            Type.Integer({ minimum: 1, description: 'the requests of a stored process definition' }),
          ),
          before: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 128,
              description:
                "the id of the previous page's last request (its `next`): the page starts after it",
            }),
          ),
          first: Type.Optional(Type.Integer({ minimum: 0 })),
          nb: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
        }),
        response: {
          200: Type.Object({
            items: Type.Array(ListedRequest),
            total: Type.Integer({ description: 'how many requests match the filters' }),
            first: Type.Integer(),
            nb: Type.Integer(),
            next: Type.Optional(
              Type.String({ description: 'when the page is full: `before` of the next page' }),
            ),
          }),
        },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { first = 0, nb = 100, before, ...filters } = request.query;
      const initiatorId = caller.user.isAdmin ? filters.initiatorId : caller.user.id;
      const where = { ...filters, initiatorId };
      const [list, total] = await Promise.all([
        requests.page(caller.accountId, { ...where, before, first, limit: nb }),
        requests.count(caller.accountId, where),
      ]);
      const processes = await deps.platform.processes.runs.processesOf(
        caller.accountId,
        list.map((r) => r.id),
      );
      const items = list.map((r) => {
        const process = processes.get(r.id);
        return {
          ...toSummaryBody(r),
          process: process?.name ?? null,
          processId: process?.definitionId ?? null,
        };
      });
      return { items, total, first, nb, ...(items.length === nb ? { next: items[nb - 1]!.id } : {}) };
    },
  );

  app.post(
    '',
    {
      bodyLimit: deps.settings.dataBodyBytes,
      schema: {
        tags: ['requests'],
        summary:
          'Start a process request from a stored definition (by id or name); the caller is its initiator',
        description:
          'With an `Idempotency-Key` header (1 to 255 visible ASCII characters), a retry with the same key ' +
          '(same caller) answers the request the first call started, with `Idempotent-Replayed: true`, ' +
          'instead of starting another; the same key with another process, mode or data is refused (409). ' +
          'Retry after a 503 or a lost connection with the same key.',
        headers: IdempotencyHeaders,
        body: Type.Object(
          {
            process: Type.Union([
              Type.Integer({ minimum: 1 }),
              Type.String({ minLength: 1, maxLength: 255 }),
            ]),
            mode: Type.Optional(Mode),
            data: Type.Optional(JsonObject),
          },
          { additionalProperties: false },
        ),
        response: { 201: ProcessRequest },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const start = deps.hosts.startRequest;
      if (!start) throw new ApiError(501, 'not-implemented', 'This server has no process host.');
      const { process, mode = 'LIVE', data = {} } = request.body;
      const idempotencyKey = request.headers['idempotency-key'];
      const started = await start.call(deps.hosts, {
        caller,
        process,
        mode,
        data,
        ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
      });
      return startedAnswer(reply, requests, caller.accountId, started);
    },
  );

  app.get(
    '/:id',
    {
      schema: {
        tags: ['requests'],
        summary: 'A process request: status, data document, P_locks, P_message',
        params: RequestParams,
        response: { 200: ProcessRequest },
      },
    },
    async (request) => toRequestBody(await visibleRequest(callerOf(request), request.params.id)),
  );

  const RequestRun = Type.Object({
    request: ProcessRequest,
    process: Type.String(),
    steps: Type.Array(JsonObject),
    tasks: Type.Array(JsonObject),
  });
  const runRoute = (
    method: 'GET' | 'POST',
    url: string,
    summary: string,
    member: 'describeRequest' | 'resumeRequest' | 'cancelRequest',
  ) =>
    app.route({
      method,
      url,
      schema: { tags: ['requests'], summary, params: RequestParams, response: { 200: RequestRun } },
      handler: async (request) => {
        const host = deps.hosts[member];
        if (!host) throw new ApiError(501, 'not-implemented', 'This server has no process host.');
        const { id } = request.params;
        const run = await host.call(deps.hosts, callerOf(request), id);
        return run as unknown as Static<typeof RequestRun>;
      },
    });
  runRoute('GET', '/:id/run', 'A request with its steps and manual tasks', 'describeRequest');
  runRoute('POST', '/:id/resume', 'Continue a request paused by P_set_request_status(102)', 'resumeRequest');
  runRoute('POST', '/:id/cancel', 'End a running or waiting request (status 400)', 'cancelRequest');

  app.get(
    '/:id/logs',
    {
      schema: {
        tags: ['requests'],
        summary: "What a request's scripts logged, latest first",
        params: RequestParams,
        querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })) }),
        response: { 200: Type.Object({ items: Type.Array(LogEntry) }) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      await visibleRequest(caller, request.params.id);
      const entries = await logs.list(caller.accountId, {
        requestId: request.params.id,
        limit: request.query.limit,
      });
      return { items: entries.map(toLogBody) };
    },
  );
}
