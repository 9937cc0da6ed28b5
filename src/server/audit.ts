/**
 * The audit log's recording (docs/server.md "Audit log"): every route that changes an account's
 * design or administration — users, pools and lanes, projects and their versions, composite APIs,
 * process definitions, web interfaces, custom lists, API tokens, collection definitions and
 * indexes, the client library's configuration writes — records who, when, the route, and the
 * resource before (the same URL read with GET, when the API has such a route) and after (what the
 * route answered), once it answered 2xx. Keys naming a password, token or secret are redacted.
 */
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { ServerDeps } from './deps.js';
import { propertyOf } from '../safety/narrow.js';
import { inAccountCell } from '../store/index.js';

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The routes audited, by their pattern (collection documents, files and requests are data, not design). */
const AUDITED = [
  /^\/api\/v1\/(users|pools|lanes|projects|custom-lists|composite-apis|processes|web-interfaces|tokens)(\/|$)/,
  /^\/api\/v1\/collections(\/:name(\/indexes(\/:index)?)?)?$/,
  /^\/config\/:account\/(customlist|project)(\/|$)/,
];

const SECRET_KEY = /password|token|secret/i;
export const REDACTED = '[redacted]';

declare module 'fastify' {
  interface FastifyRequest {
    auditBefore?: unknown;
  }
}

/** A version's restore: what it records is the save it makes (routes/versions.ts). */
const RESTORE = /\/versions\/:version\/restore$/;

/** Whether a route's changes are recorded. */
export function isAudited(method: string, url: string): boolean {
  return MUTATING.has(method) && !RESTORE.test(url) && AUDITED.some((pattern) => pattern.test(url));
}

/** The resource family and the resource of a request path: /api/v1/composite-apis/3 → composite-apis, 3. */
export function auditSubject(path: string): { kind: string; target: string } {
  const api = /^\/api\/v1\/([^/]+)\/?(.*)$/.exec(path);
  if (api) return { kind: api[1]!, target: api[2]! };
  const config = /^\/config\/[^/]+\/([^/]+)\/?(.*)$/.exec(path);
  if (config) return { kind: `config/${config[1]}`, target: config[2]! };
  return { kind: path, target: '' };
}

/** A copy with every value under a key naming a password, token or secret replaced. */
export function redacted(value: unknown, depth = 0): unknown {
  if (depth > 50 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redacted(v, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, SECRET_KEY.test(k) ? REDACTED : redacted(v, depth + 1)]),
  );
}

/** Adds the audit's hooks to `route` when it is audited (app.ts, onRoute). */
export function auditRoute(route: RouteOptions, deps: ServerDeps, server: AuditServer): void {
  const methods = [route.method].flat();
  if (!methods.some((m) => isAudited(m, route.url))) return;
  const url = route.url;
  // known once every route is registered: looked up on the first change, then kept
  let readable: boolean | undefined;
  const preHandler = async (request: FastifyRequest) => {
    if (request.method === 'POST' || !(readable ??= server.hasRoute({ method: 'GET', url }))) return;
    request.auditBefore = await readJson(server.inject.bind(server), request);
  };
  const onSend = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const caller = request.caller;
    if (!caller || reply.statusCode < 200 || reply.statusCode >= 300) return payload;
    const path = request.url.split('?')[0]!;
    const after = request.method === 'DELETE' ? null : parsed(payload);
    const subject = auditSubject(path);
    const createdId = propertyOf(after, 'id');
    const target =
      request.method === 'POST' && (typeof createdId === 'number' || typeof createdId === 'string')
        ? [subject.target, String(createdId)].filter((s) => s !== '').join('/')
        : subject.target;
    try {
      // onSend runs after the handler, outside its cell: the entry goes to the account's cell.
      await inAccountCell(deps.store, caller.accountId, () =>
        deps.platform.audit.record(caller.accountId, {
          actor: { id: caller.user.id, login: caller.user.login },
          method: request.method,
          path,
          kind: subject.kind,
          target,
          status: reply.statusCode,
          before: redacted(request.auditBefore ?? null),
          after: redacted(after),
        }),
      );
    } catch (e) {
      // the change is committed: its answer stands, and the missing entry is an error to see in the log
      request.log.error({ err: e, path }, 'audit: the change could not be recorded');
    }
    return payload;
  };
  route.preHandler = [...[route.preHandler ?? []].flat(), preHandler as never];
  route.onSend = [...[route.onSend ?? []].flat(), onSend as never];
}

/** The root server: whether a GET route exists at a pattern, and a request made to it in-process. */
export interface AuditServer {
  hasRoute(options: { method: 'GET'; url: string }): boolean;
  inject: InjectFn;
}

type InjectFn = (options: {
  method: 'GET';
  url: string;
  headers: Record<string, string>;
}) => Promise<{ statusCode: number; body: string; headers: Record<string, unknown> }>;

/** The resource as GET answers it now, with the caller's own credentials; null when it cannot be read. */
async function readJson(inject: InjectFn, request: FastifyRequest): Promise<unknown> {
  const headers = { accept: 'application/json', ...callerHeaders(request) };
  const r = await inject({ method: 'GET', url: request.url.split('?')[0]!, headers });
  if (r.statusCode !== 200) return null;
  return parsed(r.body);
}

/** The headers that make an in-process request the caller's own: credentials, host and origin. */
export function callerHeaders(request: FastifyRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of ['authorization', 'cookie', 'host', 'origin']) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  return headers;
}

function parsed(payload: unknown): unknown {
  const text = Buffer.isBuffer(payload) ? payload.toString('utf8') : payload;
  if (typeof text !== 'string' || text === '') return null;
  try {
    const value: unknown = JSON.parse(text);
    return value;
  } catch {
    return { text };
  }
}
