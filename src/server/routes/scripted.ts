/**
 * The scripts an account runs, managed by its administrators: composite APIs (a method and path
 * pattern under /live/<account>/composite/ answered by a template), the template of each web
 * interface, and stored process definitions (what POST /api/v1/requests starts).
 */
import { Type } from 'typebox';
import { PlatformError } from '../../platform/index.js';
import { readBpmn, writeBpmn } from '../../platform/processes/bpmn/index.js';
import { lintBpmn } from '../../platform/processes/bpmn/lint.js';
import type { ProcessTrigger, StoredDefinition } from '../../platform/processes/index.js';
import type { WebInterface as WebInterfaceRecord } from '../../platform/projects/index.js';
import type { CompositeApi as CompositeApiRecord } from '../../platform/scripted/index.js';
import { TEMPLATE_MAX_CHARS } from '../../platform/scripted/index.js';
import { callerOf } from '../auth/access.js';
import type { Api, ServerDeps } from '../deps.js';
import { notFound } from '../errors.js';
import { ListQuery, listPage } from '../listing.js';
import { IdParams, JsonObject, Mode, Nullable, Page, WebInterface } from '../schemas.js';
import { putJson, versionRoutes } from './versions.js';
import { isRecord, propertyOf } from '../../safety/narrow.js';
import { mapStepLanes } from '../../platform/bundles/export.js';

const Method = Type.Union([
  Type.Literal('GET'),
  Type.Literal('POST'),
  Type.Literal('PUT'),
  Type.Literal('PATCH'),
  Type.Literal('DELETE'),
  Type.Literal('ANY'),
]);

const CompositeApi = Type.Object({
  id: Type.Integer(),
  projectId: Nullable(Type.Integer()),
  method: Method,
  path: Type.String(),
  template: Type.String(),
  process: Nullable(Type.String()),
  mode: Mode,
  isPublic: Type.Boolean(),
  description: Type.String(),
  createdAt: Type.Integer(),
  updatedAt: Type.Integer(),
});

const NewCompositeApi = Type.Object(
  {
    method: Type.Optional(Method),
    path: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'segments literal or :name, e.g. orders/:id',
    }),
    template: Type.String({
      maxLength: TEMPLATE_MAX_CHARS,
      description: 'the script; with a process, its response template (P_computed: the final data document)',
    }),
    process: Type.Optional(
      Nullable(
        Type.String({
          minLength: 1,
          maxLength: 255,
          description: 'the name of a stored process that runs to its end in the call, before the template',
        }),
      ),
    ),
    projectId: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
    mode: Type.Optional(Mode),
    isPublic: Type.Optional(Type.Boolean({ description: 'true: callable without credentials' })),
    description: Type.Optional(Type.String({ maxLength: 4096 })),
  },
  { additionalProperties: false },
);

const Unsupported = Type.Object({
  type: Type.String(),
  id: Type.String(),
  line: Nullable(Type.Integer()),
});

const Trigger = Type.Object({
  kind: Type.Union([Type.Literal('timer'), Type.Literal('message'), Type.Literal('collection')]),
  /** The start event's id. */
  startEvent: Type.String(),
  timer: Nullable(Type.Record(Type.String(), Type.String())),
  message: Nullable(Type.String()),
  /** A collection trigger: the collection it watches (its filter is the start event's). */
  collection: Nullable(Type.String()),
  /** The next tick (epoch ms); null: none left, or a message. */
  nextAt: Nullable(Type.Integer()),
  firedCount: Type.Integer(),
  lastFiredAt: Nullable(Type.Integer()),
  lastRequestId: Nullable(Type.String()),
});

const ProcessDefinition = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  definition: JsonObject,
  /** How it was saved: `json`, or `bpmn` (exported as it came). */
  format: Type.Union([Type.Literal('json'), Type.Literal('bpmn')]),
  /** Elements of its BPMN model outside the executable subset: a request of it is refused. */
  unsupported: Type.Array(Unsupported),
  /** What starts its requests by itself (docs/hosts.md, "Triggers"): a timer's schedule, a message; null: none. */
  trigger: Nullable(Trigger),
  createdAt: Type.Integer(),
  updatedAt: Type.Integer(),
});

const Finding = Type.Object({
  /** The element's id ('' for the whole model). */
  id: Type.String(),
  /** `bpmnlint/<rule>` (its recommended rules) or `flowmark/executable-subset`. */
  rule: Type.String(),
  message: Type.String(),
  severity: Type.Literal('warning'),
});

/** A save's answer: the definition, and what the checks of a BPMN model found (docs/console.md). */
const SavedDefinition = Type.Object({
  ...ProcessDefinition.properties,
  /** A BPMN model's findings (warnings: the model is saved); [] for JSON. */
  findings: Type.Array(Finding),
});

const DefinitionBody = Type.Union([
  JsonObject,
  Type.String({ description: 'a BPMN 2.0 document (Content-Type application/xml or text/xml)' }),
]);

const ExportQuery = Type.Object({
  format: Type.Optional(
    Type.Union([Type.Literal('json'), Type.Literal('bpmn')], {
      description: 'bpmn: the BPMN 2.0 document (also with Accept: application/xml)',
    }),
  ),
});

const toApiBody = ({ accountId: _a, ...api }: CompositeApiRecord) => api;
const toInterfaceBody = ({ accountId: _a, ...wi }: WebInterfaceRecord) => wi;
/** The fields GET composite-apis filters and sorts on (it lists by path then method by default). */
const API_FIELDS = ['id', 'projectId', 'method', 'path', 'mode', 'isPublic', 'updatedAt'];
const INTERFACE_FIELDS = ['id', 'projectId', 'title', 'tags', 'contexts', 'createdAt'];
const toTriggerBody = (t: ProcessTrigger | undefined) =>
  t === undefined
    ? null
    : {
        kind: t.kind,
        startEvent: t.nodeId,
        timer: t.timer as Record<string, string> | null,
        message: t.message,
        collection: t.collection?.name ?? null,
        nextAt: t.nextAt,
        firedCount: t.firedCount,
        lastFiredAt: t.lastFiredAt,
        lastRequestId: t.lastRequestId,
      };
const toDefinitionBody = (
  { accountId: _a, definition, ...d }: StoredDefinition,
  trigger: ProcessTrigger | undefined,
) => {
  const { bpmn, ...rest } = definition;
  return {
    ...d,
    definition: { ...rest },
    format: bpmn === undefined ? ('json' as const) : ('bpmn' as const),
    unsupported: definition.unsupported ?? [],
    trigger: toTriggerBody(trigger),
  };
};

/**
 * A definition from a request body: a BPMN document (text), whose lanes name the account's, or
 * JSON, which may not carry a BPMN source.
 */
async function definitionValue(deps: ServerDeps, accountId: string, body: unknown): Promise<unknown> {
  if (typeof body === 'string')
    return readBpmn(body, await deps.platform.directory.lanes.listLanes(accountId));
  if (typeof body === 'object' && body !== null && 'bpmn' in body)
    throw new PlatformError(
      'invalid',
      'process definition.bpmn: send the BPMN document itself (Content-Type: application/xml)',
    );
  return body;
}

function wantsBpmn(query: { format?: 'json' | 'bpmn' }, accept: string | undefined): boolean {
  if (query.format !== undefined) return query.format === 'bpmn';
  return /\b(application|text)\/xml\b/.test(accept ?? '') && !/\bapplication\/json\b/.test(accept ?? '');
}
const admin = { access: 'admin' as const };

/** The prefixes the plugins are registered under (below /api/v1). */
export const COMPOSITE_APIS_PREFIX = '/composite-apis';
export const WEB_INTERFACES_PREFIX = '/web-interfaces';
export const PROCESSES_PREFIX = '/processes';

/** Composite APIs: a plugin under COMPOSITE_APIS_PREFIX, its paths relative to it. */
export async function compositeApiRoutes(app: Api, { deps }: { deps: ServerDeps }): Promise<void> {
  const { compositeApis } = deps.platform;

  app.get(
    '',
    {
      config: admin,
      schema: {
        tags: ['scripts'],
        summary: `The account's composite APIs, by path then method (fields: ${API_FIELDS.join(', ')})`,
        querystring: ListQuery,
        response: { 200: Page(CompositeApi) },
      },
    },
    async (request) => {
      const page = listPage(await compositeApis.list(callerOf(request).accountId), request.query, API_FIELDS);
      return { ...page, items: page.items.map(toApiBody) };
    },
  );

  app.post(
    '',
    {
      config: admin,
      schema: {
        tags: ['scripts'],
        summary: 'Create a composite API: served at /live/<account>/composite/<path>',
        body: NewCompositeApi,
        response: { 201: CompositeApi },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const api = await compositeApis.create(caller.accountId, request.body, caller.user);
      reply.code(201);
      return toApiBody(api);
    },
  );

  app.get(
    '/:id',
    {
      config: admin,
      schema: {
        tags: ['scripts'],
        summary: 'A composite API',
        params: IdParams,
        response: { 200: CompositeApi },
      },
    },
    async (request) => {
      const api = await compositeApis.find(callerOf(request).accountId, request.params.id);
      if (!api) throw notFound('Composite API not found.');
      return toApiBody(api);
    },
  );

  app.put(
    '/:id',
    {
      config: admin,
      schema: {
        tags: ['scripts'],
        summary: 'Replace a composite API (every field as for create)',
        params: IdParams,
        body: NewCompositeApi,
        response: { 200: CompositeApi },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      return toApiBody(
        await compositeApis.replace(caller.accountId, request.params.id, request.body, caller.user),
      );
    },
  );

  app.delete(
    '/:id',
    {
      config: admin,
      schema: {
        tags: ['scripts'],
        summary: 'Delete a composite API',
        params: IdParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      if (!(await compositeApis.delete(callerOf(request).accountId, request.params.id)))
        throw notFound('Composite API not found.');
      reply.code(204);
    },
  );

  versionRoutes(
    app,
    { deps },
    {
      kind: 'composite-api',
      path: '/:id',
      param: { name: 'id', schema: IdParams.properties.id },
      label: (id) => `composite API ${id}`,
      access: 'admin',
      tag: 'scripts',
      save: (id, body) => putJson(`/api/v1${COMPOSITE_APIS_PREFIX}/${id}`, body),
    },
  );
}

/** Web interfaces and their templates: a plugin under WEB_INTERFACES_PREFIX, its paths relative to it. */
export async function webInterfaceTemplateRoutes(app: Api, { deps }: { deps: ServerDeps }): Promise<void> {
  const { webInterfaceTemplates, webInterfaces } = deps.platform;

  app.get(
    '',
    {
      schema: {
        tags: ['projects'],
        summary: `The account's web interfaces, of every project, by id (fields: ${INTERFACE_FIELDS.join(', ')})`,
        querystring: ListQuery,
        response: { 200: Page(WebInterface) },
      },
    },
    async (request) => {
      const page = listPage(
        await webInterfaces.listAll(callerOf(request).accountId),
        request.query,
        INTERFACE_FIELDS,
      );
      return { ...page, items: page.items.map(toInterfaceBody) };
    },
  );

  app.delete(
    '/:id',
    {
      config: admin,
      schema: {
        tags: ['projects'],
        summary: 'Delete a web interface and its template (its reports stay)',
        params: IdParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      if (!(await webInterfaces.delete(callerOf(request).accountId, request.params.id)))
        throw notFound('Web interface not found.');
      reply.code(204);
    },
  );

  const Template = Type.Object(
    { template: Type.String({ maxLength: TEMPLATE_MAX_CHARS }) },
    { additionalProperties: false },
  );

  app.get(
    '/:id/template',
    {
      config: admin,
      schema: {
        tags: ['scripts'],
        summary: "A web interface's HTML/JS template ('' when it has none)",
        params: IdParams,
        response: { 200: Template },
      },
    },
    async (request) => {
      const { accountId } = callerOf(request);
      if (!(await webInterfaces.find(accountId, request.params.id)))
        throw notFound('Web interface not found.');
      return { template: (await webInterfaceTemplates.get(accountId, request.params.id)) ?? '' };
    },
  );

  app.put(
    '/:id/template',
    {
      config: admin,
      schema: {
        tags: ['scripts'],
        summary:
          "Set a web interface's HTML/JS template (rendered with the web-interface functions, docs/hosts.md)",
        params: IdParams,
        body: Template,
        response: { 200: Template },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      await webInterfaceTemplates.set(
        caller.accountId,
        request.params.id,
        request.body.template,
        caller.user,
      );
      return { template: request.body.template };
    },
  );

  versionRoutes(
    app,
    { deps },
    {
      kind: 'web-interface',
      path: '/:id/template',
      param: { name: 'id', schema: IdParams.properties.id },
      label: (id) => `the template of web interface ${id}`,
      access: 'admin',
      tag: 'scripts',
      save: (id, body) => putJson(`/api/v1${WEB_INTERFACES_PREFIX}/${id}/template`, body),
    },
  );
}

/** Stored process definitions: a plugin under PROCESSES_PREFIX, its paths relative to it. */
export async function processDefinitionRoutes(app: Api, { deps }: { deps: ServerDeps }): Promise<void> {
  const { definitions, triggers } = deps.platform.processes;
  const withTrigger = async (stored: StoredDefinition) =>
    toDefinitionBody(stored, await triggers.find(stored.id));
  /** A saved definition's answer: a BPMN model (the body as text) with its findings. */
  const withFindings = async (stored: StoredDefinition, body: unknown) => ({
    ...(await withTrigger(stored)),
    findings: typeof body === 'string' ? await lintBpmn(body, stored.definition.unsupported ?? []) : [],
  });
  // A BPMN document arrives as text; readBpmn parses it.
  app.addContentTypeParser(['application/xml', 'text/xml'], { parseAs: 'string' }, (_request, body, done) =>
    done(null, body),
  );

  app.get(
    '',
    {
      config: admin,
      schema: {
        tags: ['scripts'],
        summary: "The account's process definitions, by name",
        response: { 200: Type.Object({ items: Type.Array(ProcessDefinition) }) },
      },
    },
    async (request) => {
      const { accountId } = callerOf(request);
      const stored = await definitions.list(accountId);
      const found = await triggers.ofAccount(accountId);
      return { items: stored.map((d) => toDefinitionBody(d, found.get(d.id))) };
    },
  );

  app.post(
    '',
    {
      config: admin,
      schema: {
        tags: ['scripts'],
        summary:
          'Store a process definition: JSON ({name, project, steps, graph}) or a BPMN 2.0 document (see docs/hosts.md)',
        body: DefinitionBody,
        response: { 201: SavedDefinition },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const stored = await definitions.create(
        caller.accountId,
        await definitionValue(deps, caller.accountId, request.body),
        caller.user,
      );
      reply.code(201);
      return withFindings(stored, request.body);
    },
  );

  app.get(
    '/:id',
    {
      config: admin,
      schema: {
        tags: ['scripts'],
        summary: 'A process definition; as BPMN 2.0 with ?format=bpmn or Accept: application/xml',
        params: IdParams,
        querystring: ExportQuery,
        response: { 200: Type.Union([ProcessDefinition, Type.String()]) },
      },
    },
    async (request, reply) => {
      const { accountId } = callerOf(request);
      const stored = await definitions.require(accountId, request.params.id);
      if (!wantsBpmn(request.query, request.headers.accept)) return withTrigger(stored);
      reply.type('application/xml; charset=utf-8');
      return writeBpmn(stored.definition, await deps.platform.directory.lanes.listLanes(accountId));
    },
  );

  app.put(
    '/:id',
    {
      config: admin,
      schema: {
        tags: ['scripts'],
        summary: 'Replace a process definition, JSON or BPMN (requests already started keep theirs)',
        params: IdParams,
        body: DefinitionBody,
        response: { 200: SavedDefinition },
      },
    },
    async (request) =>
      withFindings(
        await definitions.replace(
          callerOf(request).accountId,
          request.params.id,
          await definitionValue(deps, callerOf(request).accountId, request.body),
          callerOf(request).user,
        ),
        request.body,
      ),
  );

  app.delete(
    '/:id',
    {
      config: admin,
      schema: {
        tags: ['scripts'],
        summary: 'Delete a process definition',
        params: IdParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      if (!(await definitions.delete(callerOf(request).accountId, request.params.id)))
        throw notFound(`Process definition ${request.params.id} not found.`);
      reply.code(204);
    },
  );

  versionRoutes(
    app,
    { deps },
    {
      kind: 'process',
      path: '/:id',
      param: { name: 'id', schema: IdParams.properties.id },
      label: (id) => `process definition ${id}`,
      access: 'admin',
      tag: 'scripts',
      save: (id, body) => {
        const url = `/api/v1${PROCESSES_PREFIX}/${id}`;
        // a BPMN definition is saved again from its BPMN document, as it came
        const bpmn = isRecord(body) ? body.bpmn : undefined;
        if (typeof bpmn === 'string') return { url, contentType: 'application/xml', payload: bpmn };
        // the stored form back into the form a save reads (a manual step's onTimeout is on_timeout)
        const steps = propertyOf(body, 'steps');
        return putJson(
          url,
          isRecord(body) && Array.isArray(steps) ? { ...body, steps: mapStepLanes(steps, (l) => l) } : body,
        );
      },
    },
  );
}
