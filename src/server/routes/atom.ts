/**
 * The Atom resources the browser client library talks to (src/client, docs/client.md), under the
 * platform's configuration paths `/config/:account/…`:
 *
 *   GET  project                     feed of the account's projects (ProjectList)
 *   POST project                     create a project (A)
 *   GET  project/:id                 a project          PUT project/:id       change it (A)
 *   PUT  project/:id/mode            the modes of its versions (A)
 *   GET  project/:id/{child, customlist, lane, laneandpool, version, webinterface, wfreport, wireport}
 *   POST project/:id/webinterface    add a web interface (A)
 *   GET  user/:ref  lane  lane/:id  pool  pool/:id  pool/:id/lane  webinterface/:id  customlist/:id
 *   POST customlist (A)              PUT customlist/:id (A: its items)
 *
 * (A) = administrators. Every resource answers Atom XML, or the same document as JSON when the
 * request asks for it (`Accept: application/json` or `?alt=json`); write bodies are either
 * (`application/atom+xml`, `application/xml`, `text/xml` or `application/json`). Feeds take the
 * list parameters of the JSON API (first, nb, orderby, order, filter/operator/value). The account
 * in the path must be the caller's; any other answers 404.
 */
import { Type, type TSchema } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  atomFromJson,
  atomToXml,
  AtomFormatError,
  ATOM_MEDIA_TYPE,
  type AtomDocument,
  type AtomEntry,
} from '../../atom/format.js';
import type { User } from '../../platform/index.js';
import { asSentence, canSeePrivate, laneModeFor, RIGHTS_MESSAGES } from '../../platform/index.js';
import type { Project } from '../../platform/projects/index.js';
import {
  customListEntry,
  instanceEntry,
  laneEntry,
  pageFeed,
  poolEntry,
  projectEntry,
  readCustomList,
  readModeChanges,
  readProject,
  readWebInterface,
  requestEntry,
  userEntry,
  versionEntry,
  webInterfaceEntry,
  configUrl,
  type Site,
} from '../atom/entries.js';
import { invalidXml, readAtomXml } from '../atom/xml.js';
import { callerOf } from '../auth/access.js';
import type { Caller } from '../hosts.js';
import type { Api, ServerDeps } from '../deps.js';
import { badRequest, forbidden, notFound } from '../errors.js';
import { ListQuery, listPage } from '../listing.js';
import { ErrorBody, Mode } from '../schemas.js';

const PROJECT_FIELDS = ['id', 'title', 'type', 'authorId', 'parentId', 'createdAt', 'updatedAt'];
const VERSION_FIELDS = ['id', 'name', 'mode', 'createdAt'];
const INTERFACE_FIELDS = ['id', 'projectId', 'title', 'tags', 'contexts', 'createdAt'];
const LIST_FIELDS = ['id', 'projectId', 'name', 'updatedAt'];
const LANE_FIELDS = ['id', 'poolId', 'name', 'parentId', 'managerId', 'createdAt'];
const POOL_FIELDS = ['id', 'name', 'isOrganization', 'createdAt'];
const LANE_AND_POOL_FIELDS = ['id', 'kind', 'name', 'poolId', 'createdAt'];
const REQUEST_FIELDS = ['id', 'status', 'mode', 'initiatorId', 'versionId', 'createdAt', 'updatedAt'];
const INSTANCE_FIELDS = [
  'id',
  'status',
  'mode',
  'title',
  'webInterfaceId',
  'requestId',
  'createdAt',
  'updatedAt',
];
/** Most reports a feed reads to filter and order (a project with more pages with first/nb only). */
const MAX_REPORTS = 10_000;
const REPORT_BATCH = 1000;

const AccountParam = Type.String({ minLength: 1, maxLength: 64 });
const Params = Type.Object({ account: AccountParam });
const IdParams = Type.Object({ account: AccountParam, id: Type.Integer({ minimum: 1 }) });
const RefParams = Type.Object({ account: AccountParam, ref: Type.String({ minLength: 1, maxLength: 255 }) });
const ListParams = Type.Object({
  account: AccountParam,
  listId: Type.String({ minLength: 1, maxLength: 128 }),
});
const Alt = Type.Optional(
  Type.Union([Type.Literal('json'), Type.Literal('atom')], {
    description: 'json: answer the JSON form (as Accept: application/json)',
  }),
);
const EntryQuery = Type.Object({ alt: Alt });
const FeedQuery = Type.Object({ ...ListQuery.properties, alt: Alt });
const LaneFeedQuery = Type.Object({
  ...ListQuery.properties,
  alt: Alt,
  P_mode: Type.Optional(Mode),
});

const errors = { '4xx': ErrorBody, '5xx': ErrorBody };
const MEDIA = [ATOM_MEDIA_TYPE, 'application/json'];
const entrySchema = <P extends TSchema>(summary: string, params: P) => ({
  tags: ['atom'],
  summary,
  params,
  querystring: EntryQuery,
  produces: MEDIA,
  response: errors,
});
const feedSchema = <P extends TSchema, Q extends TSchema>(summary: string, params: P, querystring: Q) => ({
  tags: ['atom'],
  summary,
  params,
  querystring,
  produces: MEDIA,
  response: errors,
});
const writeSchema = <P extends TSchema>(summary: string, params: P) => ({
  tags: ['atom'],
  summary,
  params,
  querystring: EntryQuery,
  consumes: [ATOM_MEDIA_TYPE, 'application/xml', 'text/xml', 'application/json'],
  produces: MEDIA,
  response: errors,
});
const admin = { access: 'admin' as const };

export function atomRoutes(app: Api, deps: ServerDeps): void {
  const { platform, clock } = deps;
  const { projects, webInterfaces, customLists, requests, applications, rights } = platform;
  const { lanes, users } = platform.directory;

  app.addContentTypeParser(
    [ATOM_MEDIA_TYPE, 'application/xml', 'text/xml'],
    { parseAs: 'string' },
    (_request, body, done) => {
      try {
        done(null, readAtomXml(body as string));
      } catch (e) {
        done(e as Error);
      }
    },
  );

  /** The caller and where links point; 404 unless the path names the caller's account. */
  function siteOf(request: FastifyRequest): { caller: Caller; site: Site } {
    const caller = callerOf(request);
    const account = (request.params as { account: string }).account;
    if (account !== caller.accountId) throw notFound('Account not found.');
    return { caller, site: { origin: `${request.protocol}://${request.host}`, account } };
  }

  /** The Atom XML, or the JSON form when the request asks for it. */
  function send(request: FastifyRequest, reply: FastifyReply, document: AtomDocument, status = 200) {
    reply.code(status);
    if (wantsJson(request)) return reply.type('application/json; charset=utf-8').send(document);
    return reply.type(`${ATOM_MEDIA_TYPE}; charset=utf-8`).send(atomToXml(document));
  }

  function bodyEntry(request: FastifyRequest): AtomEntry {
    const document = bodyDocument(request);
    if (!('entry' in document)) throw invalidXml('Invalid Atom document: expected an <entry>, not a <feed>.');
    return document.entry;
  }

  function bodyDocument(request: FastifyRequest): AtomDocument {
    if (request.body === undefined || request.body === null)
      throw badRequest('A body is expected: an Atom entry (application/atom+xml) or its JSON form.');
    try {
      return atomFromJson(request.body);
    } catch (e) {
      if (e instanceof AtomFormatError) throw invalidXml(`Invalid Atom document: ${e.message}`);
      throw e;
    }
  }

  /** The authors of some projects, each looked up once. */
  async function authorsOf(accountId: string, list: Project[]): Promise<Map<number, User>> {
    const ids = [...new Set(list.map((p) => p.authorId).filter((id): id is number => id !== null))];
    const found = await Promise.all(ids.map((id) => users.find(accountId, id)));
    return new Map(found.filter((u): u is User => u !== undefined).map((u) => [u.id, u]));
  }

  async function projectFeed(
    request: FastifyRequest,
    reply: FastifyReply,
    site: Site,
    list: Project[],
    title: string,
  ) {
    const page = listPage(list, request.query as ListQuery, PROJECT_FIELDS);
    const authors = await authorsOf(site.account, page.items);
    const entries = page.items.map((p) => projectEntry(site, p, authors.get(p.authorId ?? 0)));
    return send(request, reply, {
      feed: pageFeed(site, { url: request.url, title }, page, entries, clock()),
    });
  }

  async function projectOf(site: Site, id: number): Promise<Project> {
    return projects.require(site.account, id);
  }

  // ---------------------------------------------------------------- projects

  app.get(
    '/config/:account/project',
    { schema: feedSchema("The account's projects (ProjectList)", Params, FeedQuery) },
    async (request, reply) => {
      const { site } = siteOf(request);
      return projectFeed(request, reply, site, await projects.list(site.account), 'Projects');
    },
  );

  app.post(
    '/config/:account/project',
    { config: admin, schema: writeSchema('Create a project from an entry (Project.create)', Params) },
    async (request, reply) => {
      const { caller, site } = siteOf(request);
      const input = readProject(bodyEntry(request));
      if (input.title === undefined) throw badRequest('title: a project needs a <title>');
      const project = await projects.create(site.account, {
        authorId: caller.user.id,
        ...input,
        title: input.title,
      });
      const author = await users.find(site.account, caller.user.id);
      reply.header('location', configUrl(site, 'project', project.id));
      return send(request, reply, { entry: projectEntry(site, project, author) }, 201);
    },
  );

  app.get(
    '/config/:account/project/:id',
    { schema: entrySchema('A project (Project.load)', IdParams) },
    async (request, reply) => {
      const { site } = siteOf(request);
      const project = await projectOf(site, request.params.id);
      const author = project.authorId === null ? undefined : await users.find(site.account, project.authorId);
      return send(request, reply, { entry: projectEntry(site, project, author) });
    },
  );

  app.put(
    '/config/:account/project/:id',
    { config: admin, schema: writeSchema('Change a project from an entry (Project.update)', IdParams) },
    async (request, reply) => {
      const { site } = siteOf(request);
      const { parentId, ...changes } = readProject(bodyEntry(request));
      const before = await projectOf(site, request.params.id);
      if (parentId !== undefined && parentId !== before.parentId)
        throw badRequest('link rel="parent": a project\'s parent cannot change');
      const project = await projects.update(site.account, before.id, changes);
      const author = project.authorId === null ? undefined : await users.find(site.account, project.authorId);
      return send(request, reply, { entry: projectEntry(site, project, author) });
    },
  );

  app.put(
    '/config/:account/project/:id/mode',
    {
      config: admin,
      schema: writeSchema(
        "Change the modes of a project's versions: a feed (or entry) of versions, each with its mode category (Project.updateMode)",
        IdParams,
      ),
    },
    async (request, reply) => {
      const { site } = siteOf(request);
      const project = await projectOf(site, request.params.id);
      const document = bodyDocument(request);
      const changes = readModeChanges('entry' in document ? [document.entry] : document.feed.entry);
      // Every version is checked before any changes, so a bad entry changes nothing.
      for (const change of changes) {
        const version = await projects.findVersion(site.account, change.versionId);
        if (!version || version.projectId !== project.id) throw notFound('Version not found.');
      }
      for (const change of changes)
        await projects.setVersionMode(site.account, change.versionId, change.mode as 'LIVE');
      const versions = await projects.versions(site.account, project.id);
      const page = { total: versions.length, first: 0, nb: Math.max(versions.length, 1) };
      const feed = pageFeed(
        site,
        { url: request.url, title: `Versions of ${project.title}` },
        page,
        versions.map((v) => versionEntry(site, v)),
        clock(),
      );
      return send(request, reply, { feed });
    },
  );

  app.get(
    '/config/:account/project/:id/child',
    { schema: feedSchema('Child projects (Project.loadChildren)', IdParams, FeedQuery) },
    async (request, reply) => {
      const { site } = siteOf(request);
      const project = await projectOf(site, request.params.id);
      return projectFeed(
        request,
        reply,
        site,
        await projects.children(site.account, project.id),
        `Children of ${project.title}`,
      );
    },
  );

  app.get(
    '/config/:account/project/:id/version',
    { schema: feedSchema("A project's versions (Project.loadVersions)", IdParams, FeedQuery) },
    async (request, reply) => {
      const { site } = siteOf(request);
      const project = await projectOf(site, request.params.id);
      const page = listPage(await projects.versions(site.account, project.id), request.query, VERSION_FIELDS);
      const entries = page.items.map((v) => versionEntry(site, v));
      return send(request, reply, {
        feed: pageFeed(
          site,
          { url: request.url, title: `Versions of ${project.title}` },
          page,
          entries,
          clock(),
        ),
      });
    },
  );

  app.get(
    '/config/:account/project/:id/webinterface',
    { schema: feedSchema("A project's web interfaces (Project.loadWebInterfaces)", IdParams, FeedQuery) },
    async (request, reply) => {
      const { site } = siteOf(request);
      const project = await projectOf(site, request.params.id);
      const page = listPage(
        await webInterfaces.list(site.account, project.id),
        request.query,
        INTERFACE_FIELDS,
      );
      const entries = page.items.map((w) => webInterfaceEntry(site, w));
      return send(request, reply, {
        feed: pageFeed(
          site,
          { url: request.url, title: `Web interfaces of ${project.title}` },
          page,
          entries,
          clock(),
        ),
      });
    },
  );

  app.post(
    '/config/:account/project/:id/webinterface',
    {
      config: admin,
      schema: writeSchema('Add a web interface to a project (WebInterface.create)', IdParams),
    },
    async (request, reply) => {
      const { site } = siteOf(request);
      const project = await projectOf(site, request.params.id);
      const wi = await webInterfaces.create(site.account, project.id, readWebInterface(bodyEntry(request)));
      reply.header('location', configUrl(site, 'webinterface', wi.id));
      return send(request, reply, { entry: webInterfaceEntry(site, wi) }, 201);
    },
  );

  app.get(
    '/config/:account/project/:id/customlist',
    { schema: feedSchema("A project's custom lists (Project.loadCustomLists)", IdParams, FeedQuery) },
    async (request, reply) => {
      const { site } = siteOf(request);
      const project = await projectOf(site, request.params.id);
      const page = listPage(await customLists.list(site.account, project.id), request.query, LIST_FIELDS);
      const entries = page.items.map((l) => customListEntry(site, l));
      return send(request, reply, {
        feed: pageFeed(
          site,
          { url: request.url, title: `Custom lists of ${project.title}` },
          page,
          entries,
          clock(),
        ),
      });
    },
  );

  app.get(
    '/config/:account/project/:id/lane',
    {
      schema: feedSchema(
        "The lanes of a project's pools, each with a member category telling whether the caller is in it (P_mode: the lane configuration, default LIVE) (Project.loadLanes)",
        IdParams,
        LaneFeedQuery,
      ),
    },
    async (request, reply) => {
      const { caller, site } = siteOf(request);
      const project = await projectOf(site, request.params.id);
      const page = listPage(await projects.lanes(site.account, project.id), request.query, LANE_FIELDS);
      const mine = await memberLanes(caller, request.query.P_mode);
      const entries = page.items.map((l) => laneEntry(site, l, mine.has(l.id)));
      return send(request, reply, {
        feed: pageFeed(
          site,
          { url: request.url, title: `Lanes of ${project.title}` },
          page,
          entries,
          clock(),
        ),
      });
    },
  );

  app.get(
    '/config/:account/project/:id/laneandpool',
    {
      schema: feedSchema(
        "A project's pools and their lanes in one feed, told apart by the kind category (Project.loadLanesAndPools)",
        IdParams,
        LaneFeedQuery,
      ),
    },
    async (request, reply) => {
      const { caller, site } = siteOf(request);
      const project = await projectOf(site, request.params.id);
      const poolIds = await projects.poolIds(site.account, project.id);
      const pools = await Promise.all(poolIds.map((id) => lanes.requirePool(site.account, id)));
      const items = [
        ...pools.map((pool) => ({
          kind: 'pool',
          id: pool.id,
          name: pool.name,
          poolId: pool.id,
          createdAt: pool.createdAt,
          pool,
        })),
        ...(await projects.lanes(site.account, project.id)).map((lane) => ({
          kind: 'lane',
          id: lane.id,
          name: lane.name,
          poolId: lane.poolId,
          createdAt: lane.createdAt,
          lane,
        })),
      ];
      const page = listPage(items, request.query, LANE_AND_POOL_FIELDS);
      const mine = await memberLanes(caller, request.query.P_mode);
      const entries = page.items.map((item) =>
        'lane' in item ? laneEntry(site, item.lane, mine.has(item.lane.id)) : poolEntry(site, item.pool),
      );
      return send(request, reply, {
        feed: pageFeed(
          site,
          { url: request.url, title: `Lanes and pools of ${project.title}` },
          page,
          entries,
          clock(),
        ),
      });
    },
  );

  async function memberLanes(
    caller: Caller,
    mode: 'LIVE' | 'ACCEPTANCE' | 'TEST' | undefined,
  ): Promise<Set<number>> {
    const list = await lanes.lanesOf(caller.accountId, caller.user.id, laneModeFor(mode ?? 'LIVE'));
    return new Set(list.map((l) => l.id));
  }

  app.get(
    '/config/:account/project/:id/wfreport',
    {
      schema: feedSchema(
        "Workflow reports: the project's process requests, newest first (the caller's own; administrators: all) (Project.loadWFReports)",
        IdParams,
        FeedQuery,
      ),
    },
    async (request, reply) => {
      const { caller, site } = siteOf(request);
      const project = await projectOf(site, request.params.id);
      const initiatorId = caller.user.isAdmin ? undefined : caller.user.id;
      const all = await readBatches((first, limit) =>
        requests.list(site.account, { projectId: project.id, initiatorId, first, limit }),
      );
      const page = listPage(all, request.query, REQUEST_FIELDS);
      const entries = page.items.map((r) => requestEntry(site, r));
      return send(request, reply, {
        feed: pageFeed(
          site,
          { url: request.url, title: `Workflow reports of ${project.title}` },
          page,
          entries,
          clock(),
        ),
      });
    },
  );

  app.get(
    '/config/:account/project/:id/wireport',
    {
      schema: feedSchema(
        "Web interface reports: the application instances of the project's web interfaces, newest first (Project.loadWIReports)",
        IdParams,
        FeedQuery,
      ),
    },
    async (request, reply) => {
      const { site } = siteOf(request);
      const project = await projectOf(site, request.params.id);
      const all = await readBatches((first, limit) =>
        applications.list(site.account, { projectId: project.id, first, limit }),
      );
      const page = listPage(all, request.query, INSTANCE_FIELDS);
      const entries = page.items.map((i) => instanceEntry(site, i));
      return send(request, reply, {
        feed: pageFeed(
          site,
          { url: request.url, title: `Web interface reports of ${project.title}` },
          page,
          entries,
          clock(),
        ),
      });
    },
  );

  // ---------------------------------------------------------------- the companions

  app.get(
    '/config/:account/user/:ref',
    { schema: entrySchema('A user by id, login or email (User.load)', RefParams) },
    async (request, reply) => {
      const { caller, site } = siteOf(request);
      const ref = /^\d+$/.test(request.params.ref) ? Number(request.params.ref) : request.params.ref;
      const user = await users.require(site.account, ref);
      return send(request, reply, {
        entry: userEntry(site, user, canSeePrivate(caller.user, user.id)),
      });
    },
  );

  app.get(
    '/config/:account/pool',
    { schema: feedSchema("The account's pools", Params, FeedQuery) },
    async (request, reply) => {
      const { site } = siteOf(request);
      const page = listPage(await lanes.listPools(site.account), request.query, POOL_FIELDS);
      return send(request, reply, {
        feed: pageFeed(
          site,
          { url: request.url, title: 'Pools' },
          page,
          page.items.map((p) => poolEntry(site, p)),
          clock(),
        ),
      });
    },
  );

  app.get(
    '/config/:account/pool/:id',
    { schema: entrySchema('A pool (Pool.load)', IdParams) },
    async (request, reply) => {
      const { site } = siteOf(request);
      return send(request, reply, {
        entry: poolEntry(site, await lanes.requirePool(site.account, request.params.id)),
      });
    },
  );

  app.get(
    '/config/:account/pool/:id/lane',
    { schema: feedSchema("A pool's lanes (Pool.loadLanes)", IdParams, LaneFeedQuery) },
    async (request, reply) => {
      const { caller, site } = siteOf(request);
      const pool = await lanes.requirePool(site.account, request.params.id);
      const page = listPage(await lanes.listLanes(site.account, pool.id), request.query, LANE_FIELDS);
      const mine = await memberLanes(caller, request.query.P_mode);
      const entries = page.items.map((l) => laneEntry(site, l, mine.has(l.id)));
      return send(request, reply, {
        feed: pageFeed(site, { url: request.url, title: `Lanes of ${pool.name}` }, page, entries, clock()),
      });
    },
  );

  app.get(
    '/config/:account/lane',
    { schema: feedSchema("The account's lanes", Params, LaneFeedQuery) },
    async (request, reply) => {
      const { caller, site } = siteOf(request);
      const page = listPage(await lanes.listLanes(site.account), request.query, LANE_FIELDS);
      const mine = await memberLanes(caller, request.query.P_mode);
      const entries = page.items.map((l) => laneEntry(site, l, mine.has(l.id)));
      return send(request, reply, {
        feed: pageFeed(site, { url: request.url, title: 'Lanes' }, page, entries, clock()),
      });
    },
  );

  app.get(
    '/config/:account/lane/:id',
    { schema: entrySchema('A lane (Lane.load)', IdParams) },
    async (request, reply) => {
      const { caller, site } = siteOf(request);
      const lane = await lanes.require(site.account, request.params.id);
      const mine = await memberLanes(caller, undefined);
      return send(request, reply, { entry: laneEntry(site, lane, mine.has(lane.id)) });
    },
  );

  app.get(
    '/config/:account/webinterface/:id',
    { schema: entrySchema('A web interface (WebInterface.load)', IdParams) },
    async (request, reply) => {
      const { site } = siteOf(request);
      const wi = await webInterfaces.find(site.account, request.params.id);
      if (!wi) throw notFound('Web interface not found.');
      return send(request, reply, { entry: webInterfaceEntry(site, wi) });
    },
  );

  app.get(
    '/config/:account/customlist/:listId',
    { schema: entrySchema('A custom list (CustomList.load)', ListParams) },
    async (request, reply) => {
      const { site } = siteOf(request);
      return send(request, reply, {
        entry: customListEntry(site, await customLists.require(site.account, request.params.listId)),
      });
    },
  );

  app.post(
    '/config/:account/customlist',
    { config: admin, schema: writeSchema('Create a custom list (CustomList.create)', Params) },
    async (request, reply) => {
      const { site } = siteOf(request);
      const input = readCustomList(bodyEntry(request));
      if (input.name === undefined) throw badRequest('title: a custom list needs a <title> (its name)');
      const list = await customLists.create(site.account, { ...input, name: input.name });
      reply.header('location', configUrl(site, 'customlist', list.id));
      return send(request, reply, { entry: customListEntry(site, list) }, 201);
    },
  );

  app.put(
    '/config/:account/customlist/:listId',
    {
      schema: writeSchema(
        "Replace a custom list's items (CustomList.update): administrators, designers of its project",
        ListParams,
      ),
    },
    async (request, reply) => {
      const { caller, site } = siteOf(request);
      const list = await customLists.require(site.account, request.params.listId);
      if (!(await rights.canWriteCustomList(site.account, caller.user, list)))
        throw forbidden(asSentence(RIGHTS_MESSAGES.customList(list.id)));
      const input = readCustomList(bodyEntry(request));
      if (input.id !== undefined && input.id !== request.params.listId)
        throw badRequest(`<id>: the entry is custom list ${input.id}, not ${request.params.listId}`);
      if (input.content === undefined) throw badRequest('content: the items of the list are expected');
      await customLists.save(site.account, request.params.listId, input.content);
      return send(request, reply, {
        entry: customListEntry(site, await customLists.require(site.account, request.params.listId)),
      });
    },
  );
}

/** Whether the request asks for the JSON form (`?alt=json`, or JSON preferred to XML in Accept). */
function wantsJson(request: FastifyRequest): boolean {
  const alt = (request.query as { alt?: string } | undefined)?.alt;
  if (alt !== undefined) return alt === 'json';
  const accept = request.headers.accept ?? '';
  return /\bjson\b/i.test(accept) && !/\bxml\b/i.test(accept);
}

async function readBatches<T>(read: (first: number, limit: number) => Promise<T[]>): Promise<T[]> {
  const all: T[] = [];
  for (let first = 0; first < MAX_REPORTS; first += REPORT_BATCH) {
    const batch = await read(first, REPORT_BATCH);
    all.push(...batch);
    if (batch.length < REPORT_BATCH) break;
  }
  return all;
}
