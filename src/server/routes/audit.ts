/**
 * The audit log over REST (docs/server.md "Audit log"): an account's administrators read its
 * entries, newest first, filtered by resource family, resource or actor and paged by `before`,
 * and restore a composite API, a web interface's template or a JSON process definition to what
 * an entry saved. A restore is made as the caller's own PUT (same rights, same checks) and is
 * recorded in its turn.
 */
import { Type } from 'typebox';
import { AUDIT_PAGE_MAX, type AuditEntry } from '../../platform/audit.js';
import { callerOf } from '../auth/access.js';
import { callerHeaders } from '../audit.js';
import type { Api, ServerDeps } from '../deps.js';
import { ApiError, notFound } from '../errors.js';
import { IdParams } from '../schemas.js';
import { isRecord, propertyOf } from '../../safety/narrow.js';

export const AUDIT_PREFIX = '/audit';

const Entry = Type.Object({
  id: Type.Integer(),
  at: Type.Integer(),
  actor: Type.Object({ id: Type.Union([Type.Integer(), Type.Null()]), login: Type.String() }),
  method: Type.String(),
  path: Type.String(),
  kind: Type.String(),
  target: Type.String(),
  status: Type.Integer(),
  before: Type.Unknown(),
  after: Type.Unknown(),
});

const AuditQuery = Type.Object(
  {
    kind: Type.Optional(Type.String({ maxLength: 64, description: 'composite-apis, users, processes …' })),
    target: Type.Optional(Type.String({ maxLength: 255, description: 'the resource: 3, or 3/template' })),
    actor: Type.Optional(Type.Integer({ minimum: 1, description: "the actor's user id" })),
    before: Type.Optional(
      Type.Integer({ minimum: 1, description: 'entries older than this id (the next page)' }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: AUDIT_PAGE_MAX, default: 50 })),
  },
  { additionalProperties: false },
);

const admin = { access: 'admin' as const };

/** What restoring an entry PUTs, by resource family: the body the route takes, from the entry's `after`. */
const RESTORABLE: Record<string, (entry: AuditEntry) => { url: string; body: unknown }> = {
  'composite-apis': (entry) => {
    const after = entry.after;
    if (!isRecord(after)) throw notRestorable(entry);
    const { method, path, template, projectId, mode, isPublic, description } = after;
    return {
      url: `/api/v1/composite-apis/${idOf(entry)}`,
      body: { method, path, template, projectId, mode, isPublic, description },
    };
  },
  'web-interfaces': (entry) => {
    if (!/^\d+\/template$/.test(entry.target)) throw notRestorable(entry);
    return {
      url: `/api/v1/web-interfaces/${entry.target}`,
      body: { template: propertyOf(entry.after, 'template') },
    };
  },
  processes: (entry) => {
    if (propertyOf(entry.after, 'format') === 'bpmn')
      throw new ApiError(
        409,
        'conflict',
        `Audit entry ${entry.id} saved a BPMN process definition, which the log keeps as JSON only: ` +
          'restore it with PUT /api/v1/processes/:id and its BPMN document.',
      );
    return { url: `/api/v1/processes/${idOf(entry)}`, body: propertyOf(entry.after, 'definition') };
  },
};

function idOf(entry: AuditEntry): string {
  const id = /^\d+$/.exec(entry.target)?.[0];
  if (!id) throw notRestorable(entry);
  return id;
}

function notRestorable(entry: AuditEntry): ApiError {
  return new ApiError(
    409,
    'conflict',
    `Audit entry ${entry.id} (${entry.method} ${entry.path}) saved nothing that can be restored: ` +
      'restore an entry that created or replaced a composite API, a web interface template or a process definition.',
  );
}

export async function auditRoutes(app: Api, { deps }: { deps: ServerDeps }): Promise<void> {
  const { audit } = deps.platform;

  app.get(
    '',
    {
      config: admin,
      schema: {
        tags: ['audit'],
        summary:
          "The account's audit log, newest first: every administrative or design change made through the API",
        querystring: AuditQuery,
        response: {
          200: Type.Object({
            items: Type.Array(Entry),
            next: Type.Optional(Type.Integer({ description: 'the `before` of the next page' })),
          }),
        },
      },
    },
    async (request) => {
      const { kind, target, actor, before, limit = 50 } = request.query;
      const items = await audit.list(callerOf(request).accountId, {
        ...(kind !== undefined ? { kind } : {}),
        ...(target !== undefined ? { target } : {}),
        ...(actor !== undefined ? { actorId: actor } : {}),
        ...(before !== undefined ? { before } : {}),
        limit,
      });
      return items.length === limit ? { items, next: items.at(-1)!.id } : { items };
    },
  );

  app.get(
    '/:id',
    {
      config: admin,
      schema: { tags: ['audit'], summary: 'An audit entry', params: IdParams, response: { 200: Entry } },
    },
    async (request) => {
      const entry = await audit.find(callerOf(request).accountId, request.params.id);
      if (!entry) throw notFound('Audit entry not found.');
      return entry;
    },
  );

  app.post(
    '/:id/restore',
    {
      config: admin,
      schema: {
        tags: ['audit'],
        summary:
          'Restore what an entry saved (a composite API, a web interface template, a JSON process definition): ' +
          "the route's answer to that PUT",
        params: IdParams,
      },
    },
    async (request, reply) => {
      const entry = await audit.find(callerOf(request).accountId, request.params.id);
      if (!entry) throw notFound('Audit entry not found.');
      const restore = RESTORABLE[entry.kind];
      if (!restore || entry.after === null || typeof entry.after !== 'object') throw notRestorable(entry);
      const { url, body } = restore(entry);
      const headers = { 'content-type': 'application/json', ...callerHeaders(request) };
      const answer = await app.inject({ method: 'PUT', url, headers, payload: JSON.stringify(body) });
      return reply
        .code(answer.statusCode)
        .type(String(answer.headers['content-type'] ?? 'application/json'))
        .send(answer.body);
    },
  );
}
