/**
 * Projects as Atom resources (`/config/:account/project…`): the account's projects, one project
 * (created and changed by administrators), the modes of its versions, and its feeds of child
 * projects, versions, web interfaces and custom lists.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { User } from '../../../platform/index.js';
import type { Project } from '../../../platform/projects/index.js';
import {
  customListEntry,
  pageFeed,
  projectEntry,
  readModeChanges,
  readProject,
  readWebInterface,
  versionEntry,
  webInterfaceEntry,
  configUrl,
  type Site,
} from '../../atom/entries.js';
import { badRequest, notFound } from '../../errors.js';
import { ListQuery, listPage } from '../../listing.js';
import type { Api, ServerDeps } from '../../deps.js';
import {
  admin,
  bodyDocument,
  bodyEntry,
  FeedQuery,
  feedSchema,
  entrySchema,
  IdParams,
  Params,
  projectOf,
  send,
  sendFeed,
  siteOf,
  writeSchema,
} from './shared.js';

const PROJECT_FIELDS = ['id', 'title', 'type', 'authorId', 'parentId', 'createdAt', 'updatedAt'];
const VERSION_FIELDS = ['id', 'name', 'mode', 'createdAt'];
const INTERFACE_FIELDS = ['id', 'projectId', 'title', 'tags', 'contexts', 'createdAt'];
const LIST_FIELDS = ['id', 'projectId', 'name', 'updatedAt'];

export function projectsRoutes(app: Api, deps: ServerDeps): void {
  const { platform, clock } = deps;
  const { projects, webInterfaces, customLists } = platform;
  const { users } = platform.directory;

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
    return sendFeed(request, reply, site, title, page, entries, clock());
  }

  app.get(
    '/project',
    { schema: feedSchema("The account's projects (ProjectList)", Params, FeedQuery) },
    async (request, reply) => {
      const { site } = siteOf(request);
      return projectFeed(request, reply, site, await projects.list(site.account), 'Projects');
    },
  );

  app.post(
    '/project',
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
    '/project/:id',
    { schema: entrySchema('A project (Project.load)', IdParams) },
    async (request, reply) => {
      const { site } = siteOf(request);
      const project = await projectOf(platform, site, request.params.id);
      const author = project.authorId === null ? undefined : await users.find(site.account, project.authorId);
      return send(request, reply, { entry: projectEntry(site, project, author) });
    },
  );

  app.put(
    '/project/:id',
    { config: admin, schema: writeSchema('Change a project from an entry (Project.update)', IdParams) },
    async (request, reply) => {
      const { site } = siteOf(request);
      const { parentId, ...changes } = readProject(bodyEntry(request));
      const before = await projectOf(platform, site, request.params.id);
      if (parentId !== undefined && parentId !== before.parentId)
        throw badRequest('link rel="parent": a project\'s parent cannot change');
      const project = await projects.update(site.account, before.id, changes);
      const author = project.authorId === null ? undefined : await users.find(site.account, project.authorId);
      return send(request, reply, { entry: projectEntry(site, project, author) });
    },
  );

  app.put(
    '/project/:id/mode',
    {
      config: admin,
      schema: writeSchema(
        "Change the modes of a project's versions: a feed (or entry) of versions, each with its mode category (Project.updateMode)",
        IdParams,
      ),
    },
    async (request, reply) => {
      const { site } = siteOf(request);
      const project = await projectOf(platform, site, request.params.id);
      const document = bodyDocument(request);
      const changes = readModeChanges('entry' in document ? [document.entry] : document.feed.entry);
      // Every version is checked before any changes, so a bad entry changes nothing.
      for (const change of changes) {
        const version = await projects.findVersion(site.account, change.versionId);
        if (!version || version.projectId !== project.id) throw notFound('Version not found.');
      }
      for (const change of changes)
        await projects.setVersionMode(site.account, change.versionId, change.mode);
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
    '/project/:id/child',
    { schema: feedSchema('Child projects (Project.loadChildren)', IdParams, FeedQuery) },
    async (request, reply) => {
      const { site } = siteOf(request);
      const project = await projectOf(platform, site, request.params.id);
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
    '/project/:id/version',
    { schema: feedSchema("A project's versions (Project.loadVersions)", IdParams, FeedQuery) },
    async (request, reply) => {
      const { site } = siteOf(request);
      const project = await projectOf(platform, site, request.params.id);
      const page = listPage(await projects.versions(site.account, project.id), request.query, VERSION_FIELDS);
      const entries = page.items.map((v) => versionEntry(site, v));
      return sendFeed(request, reply, site, `Versions of ${project.title}`, page, entries, clock());
    },
  );

  app.get(
    '/project/:id/webinterface',
    { schema: feedSchema("A project's web interfaces (Project.loadWebInterfaces)", IdParams, FeedQuery) },
    async (request, reply) => {
      const { site } = siteOf(request);
      const project = await projectOf(platform, site, request.params.id);
      const page = listPage(
        await webInterfaces.list(site.account, project.id),
        request.query,
        INTERFACE_FIELDS,
      );
      const entries = page.items.map((w) => webInterfaceEntry(site, w));
      return sendFeed(request, reply, site, `Web interfaces of ${project.title}`, page, entries, clock());
    },
  );

  app.post(
    '/project/:id/webinterface',
    {
      config: admin,
      schema: writeSchema('Add a web interface to a project (WebInterface.create)', IdParams),
    },
    async (request, reply) => {
      const { site } = siteOf(request);
      const project = await projectOf(platform, site, request.params.id);
      const wi = await webInterfaces.create(site.account, project.id, readWebInterface(bodyEntry(request)));
      reply.header('location', configUrl(site, 'webinterface', wi.id));
      return send(request, reply, { entry: webInterfaceEntry(site, wi) }, 201);
    },
  );

  app.get(
    '/project/:id/customlist',
    { schema: feedSchema("A project's custom lists (Project.loadCustomLists)", IdParams, FeedQuery) },
    async (request, reply) => {
      const { site } = siteOf(request);
      const project = await projectOf(platform, site, request.params.id);
      const page = listPage(await customLists.list(site.account, project.id), request.query, LIST_FIELDS);
      const entries = page.items.map((l) => customListEntry(site, l));
      return sendFeed(request, reply, site, `Custom lists of ${project.title}`, page, entries, clock());
    },
  );
}
