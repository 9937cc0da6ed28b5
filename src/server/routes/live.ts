/**
 * The routes scripts answer, under an account's live base (`<origin>/live/<account>/`):
 *   ANY /live/:account/composite/*       a composite API (the host runs its script)
 *   GET /live/:account/webinterface/:id  a web interface page (?P_mode=ACCEPTANCE&P_context=mobile)
 *   GET|POST /live/:account/task/:requestId/:stepId/:iteration  open or submit a manual task
 * The server hands the exchange to the host and sends back what it returns. The account comes
 * from the URL, so a composite API may be public; the caller is given to the host only when
 * authenticated in that same account.
 */
import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Api, ServerDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import type { HostResponse, HttpExchange } from '../hosts.js';
import { SERVER_HEADERS } from '../../functions/composite/server-headers.js';

const AccountParam = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$' });

/** The prefix the plugin is registered under: an account's live base. */
export const LIVE_PREFIX = '/live/:account';

/** A plugin registered under LIVE_PREFIX, its paths relative to it, in a context of its own for its body parsers. */
export async function liveRoutes(app: Api, { deps }: { deps: ServerDeps }): Promise<void> {
  // Composite APIs take any body: JSON and text are parsed, anything else arrives as bytes.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => done(null, body),
  );
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.route({
    method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'],
    url: '/composite/*',
    config: { access: 'optional' },
    schema: {
      tags: ['live'],
      summary: 'Call a composite API: method, headers, query and body reach its script',
      params: Type.Object({ account: AccountParam, '*': Type.String() }),
    },
    // Not async: an answer the host gives at once is sent at once, with no promise in between.
    handler: (request, reply) => {
      const composite = deps.hosts.composite;
      if (!composite) throw new ApiError(501, 'not-implemented', 'This server has no composite API host.');
      const params = request.params;
      const answer = composite.call(deps.hosts, exchange(request, params.account, params['*']));
      if (answer instanceof Promise) return answer.then((a) => send(reply, a));
      send(reply, answer);
      return undefined;
    },
  });

  app.get(
    '/webinterface/:id',
    {
      config: { access: 'optional' },
      schema: {
        tags: ['live'],
        summary: 'Open a web interface (P_mode, P_context in the query)',
        params: Type.Object({ account: AccountParam, id: Type.Integer({ minimum: 1 }) }),
      },
    },
    async (request, reply) => {
      const render = deps.hosts.webInterface;
      if (!render) throw new ApiError(501, 'not-implemented', 'This server has no web interface host.');
      const { account, id } = request.params;
      const answer = await render.call(deps.hosts, {
        ...exchange(request, account, `webinterface/${id}`),
        webInterfaceId: id,
      });
      return send(reply, answer);
    },
  );

  app.route({
    method: ['GET', 'POST'],
    url: '/task/:requestId/:stepId/:iteration',
    config: { access: 'optional' },
    schema: {
      tags: ['live'],
      summary: 'Open (GET) or submit (POST) a manual task; the public URL carries ?token=',
      params: Type.Object({
        account: AccountParam,
        requestId: Type.String({ minLength: 1, maxLength: 128 }),
        stepId: Type.Integer({ minimum: 0 }),
        iteration: Type.Integer({ minimum: 0 }),
      }),
    },
    handler: async (request, reply) => {
      const task = deps.hosts.task;
      if (!task) throw new ApiError(501, 'not-implemented', 'This server has no process host.');
      const { account, requestId, stepId, iteration } = request.params;
      const answer = await task.call(deps.hosts, {
        ...exchange(request, account, `task/${encodeURIComponent(requestId)}/${stepId}/${iteration}`),
        task: { requestId, stepId, iteration },
      });
      return send(reply, answer);
    },
  });
}

function exchange(request: FastifyRequest, accountId: string, path: string): HttpExchange {
  const headers: Record<string, string> = {};
  const usedAuthorization = request.caller !== null && request.caller.via === 'token';
  const sent = request.headers;
  for (const name in sent) {
    const value = sent[name];
    // The session cookie and the API token are the server's; another Authorization is the script's.
    if (value === undefined || name === 'cookie' || (name === 'authorization' && usedAuthorization)) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return {
    accountId,
    caller: request.caller?.accountId === accountId ? request.caller : null,
    method: request.method,
    path,
    headers,
    query: { ...(request.query as Record<string, string | string[]>) },
    body: request.body === null ? undefined : request.body,
  };
}

function send(reply: FastifyReply, answer: HostResponse): FastifyReply {
  if (!Number.isInteger(answer.status) || answer.status < 100 || answer.status > 599)
    throw new Error(`host answered with an invalid status ${String(answer.status)}`);
  reply.code(answer.status);
  // A reason phrase from a script: printable ASCII only (no header injection), bounded.
  if (answer.statusMessage !== undefined) {
    const phrase = answer.statusMessage
      .replace(/[^\x20-\x7e]/g, '')
      .slice(0, 100)
      .trim();
    if (phrase !== '') reply.raw.statusMessage = phrase;
  }
  let hasType = false;
  const headers = answer.headers;
  for (const name in headers) {
    if (!Object.prototype.hasOwnProperty.call(headers, name)) continue;
    const lower = name.toLowerCase();
    if (SERVER_HEADERS.has(lower)) continue;
    if (lower === 'content-type') hasType = true;
    reply.header(name, headers[name]!);
  }
  const body = answer.body;
  if (body === null || body === undefined) return reply.send();
  if (typeof body === 'string') {
    if (!hasType) reply.type('text/plain; charset=utf-8');
    return reply.send(body);
  }
  if (Buffer.isBuffer(body)) {
    if (!hasType) reply.type('application/octet-stream');
    return reply.send(body);
  }
  if (!hasType) reply.type('application/json; charset=utf-8');
  return reply.send(JSON.stringify(body));
}
