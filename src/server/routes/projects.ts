/**
 * Projects and what hangs off them: versions (and the mode each is published in), child
 * projects, pools and lanes, web interfaces, custom lists and designers. A plugin registered
 * under PROJECTS_PREFIX (below /api/v1), its paths relative to it; web interfaces, custom lists and
 * applications addressed by their own id are in routes/designs.ts. Everyone of the account reads
 * them; administrators change them.
 */
import { Type } from '@fastify/type-provider-typebox';
import type {
  CustomList as CustomListRecord,
  Project as ProjectRecord,
} from '../../platform/projects/index.js';
import type { WebInterface as WebInterfaceRecord } from '../../platform/projects/index.js';
import { exportProject, importBundle, packBundle, unpackBundle } from '../../platform/bundles/index.js';
import { RIGHTS_MESSAGES } from '../../platform/index.js';
import { callerOf } from '../auth/access.js';
import type { Api, ServerDeps } from '../deps.js';
import { forbidden, notFound } from '../errors.js';
import { ListQuery, listPage } from '../listing.js';
import {
  CustomList,
  IdParams,
  Lane,
  Mode,
  NewProject,
  NewWebInterface,
  Page,
  Pool,
  Project,
  ProjectChanges,
  ProjectVersion,
  WebInterface,
} from '../schemas.js';
import { toLaneBody, toPoolBody } from './directory.js';

const PROJECT_FIELDS = ['id', 'title', 'type', 'authorId', 'parentId', 'createdAt', 'updatedAt'];
const VERSION_FIELDS = ['id', 'name', 'mode', 'createdAt'];
const INTERFACE_FIELDS = ['id', 'projectId', 'title', 'tags', 'contexts', 'createdAt'];
export const LIST_FIELDS = ['id', 'projectId', 'name', 'updatedAt'];
const LANE_FIELDS = ['id', 'poolId', 'name', 'parentId', 'managerId', 'createdAt'];

export const toProjectBody = ({ accountId: _a, ...project }: ProjectRecord) => project;
export const toInterfaceBody = ({ accountId: _a, ...wi }: WebInterfaceRecord) => wi;
export const toCustomListBody = ({ accountId: _a, ...list }: CustomListRecord) => list;

const BundleQuery = Type.Object(
  {
    withDocuments: Type.Optional(Type.Boolean({ description: "the collections' documents too" })),
    withSecrets: Type.Optional(
      Type.Boolean({ description: "the vaults' values, in clear (default: their keys only)" }),
    ),
    collections: Type.Optional(
      Type.String({ description: 'the collections to carry, comma-separated (default: every one)' }),
    ),
  },
  { additionalProperties: false },
);
const ImportQuery = Type.Object(
  {
    dryRun: Type.Optional(Type.Boolean({ description: 'only list the changes' })),
    projectId: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: "default: the only project titled as the bundle's, or a new one",
      }),
    ),
  },
  { additionalProperties: false },
);
const ImportAnswer = Type.Object({
  projectId: Type.Union([Type.Integer(), Type.Null()], {
    description: 'null: a dry run that would create it',
  }),
  title: Type.String(),
  applied: Type.Boolean(),
  changes: Type.Array(
    Type.Object({
      action: Type.Union([Type.Literal('create'), Type.Literal('update'), Type.Literal('delete')]),
      path: Type.String({ description: 'the bundle file that differs' }),
    }),
  ),
});
/** Largest bundle POST /projects/bundle takes. */
const BUNDLE_BYTES = 256 * 1024 * 1024;

const VersionParams = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  versionId: Type.Integer({ minimum: 1 }),
});

/** The prefix the plugin is registered under (below /api/v1). */
export const PROJECTS_PREFIX = '/projects';

export async function projectRoutes(app: Api, { deps }: { deps: ServerDeps }): Promise<void> {
  const { projects, webInterfaces, customLists } = deps.platform;

  app.get(
    '',
    {
      schema: {
        tags: ['projects'],
        summary: "The account's projects",
        querystring: ListQuery,
        response: { 200: Page(Project) },
      },
    },
    async (request) => {
      const page = listPage(await projects.list(callerOf(request).accountId), request.query, PROJECT_FIELDS);
      return { ...page, items: page.items.map(toProjectBody) };
    },
  );

  app.post(
    '',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['projects'],
        summary: 'Create a project',
        body: NewProject,
        response: { 201: Project },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const project = await projects.create(caller.accountId, { authorId: caller.user.id, ...request.body });
      reply.code(201);
      return toProjectBody(project);
    },
  );

  app.get(
    '/:id',
    { schema: { tags: ['projects'], summary: 'A project', params: IdParams, response: { 200: Project } } },
    async (request) => toProjectBody(await projects.require(callerOf(request).accountId, request.params.id)),
  );

  app.patch(
    '/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['projects'],
        summary: 'Change a project',
        params: IdParams,
        body: ProjectChanges,
        response: { 200: Project },
      },
    },
    async (request) =>
      toProjectBody(await projects.update(callerOf(request).accountId, request.params.id, request.body)),
  );

  app.get(
    '/:id/children',
    {
      schema: {
        tags: ['projects'],
        summary: 'Child projects',
        params: IdParams,
        querystring: ListQuery,
        response: { 200: Page(Project) },
      },
    },
    async (request) => {
      const { accountId } = callerOf(request);
      await projects.require(accountId, request.params.id);
      const page = listPage(
        await projects.children(accountId, request.params.id),
        request.query,
        PROJECT_FIELDS,
      );
      return { ...page, items: page.items.map(toProjectBody) };
    },
  );

  app.get(
    '/:id/versions',
    {
      schema: {
        tags: ['projects'],
        summary: "A project's versions",
        params: IdParams,
        querystring: ListQuery,
        response: { 200: Page(ProjectVersion) },
      },
    },
    async (request) => {
      const { accountId } = callerOf(request);
      await projects.require(accountId, request.params.id);
      return listPage(await projects.versions(accountId, request.params.id), request.query, VERSION_FIELDS);
    },
  );

  app.post(
    '/:id/versions',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['projects'],
        summary: 'Add a version published in a mode',
        params: IdParams,
        body: Type.Object(
          { name: Type.String({ minLength: 1, maxLength: 255 }), mode: Mode },
          { additionalProperties: false },
        ),
        response: { 201: ProjectVersion },
      },
    },
    async (request, reply) => {
      const version = await projects.addVersion(callerOf(request).accountId, request.params.id, request.body);
      reply.code(201);
      return version;
    },
  );

  app.patch(
    '/:id/versions/:versionId',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['projects'],
        summary: 'Change the mode a version is published in',
        params: VersionParams,
        body: Type.Object({ mode: Mode }, { additionalProperties: false }),
        response: { 200: ProjectVersion },
      },
    },
    async (request) => {
      const { accountId } = callerOf(request);
      const version = await projects.findVersion(accountId, request.params.versionId);
      if (!version || version.projectId !== request.params.id) throw notFound('Version not found.');
      return projects.setVersionMode(accountId, version.id, request.body.mode);
    },
  );

  app.get(
    '/:id/pools',
    {
      schema: {
        tags: ['projects'],
        summary: 'The pools a project uses',
        params: IdParams,
        response: { 200: Type.Object({ items: Type.Array(Pool) }) },
      },
    },
    async (request) => {
      const { accountId } = callerOf(request);
      await projects.require(accountId, request.params.id);
      const ids = await projects.poolIds(accountId, request.params.id);
      const pools = await Promise.all(
        ids.map((id) => deps.platform.directory.lanes.requirePool(accountId, id)),
      );
      return { items: pools.map(toPoolBody) };
    },
  );

  app.put(
    '/:id/pools/:poolId',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['projects'],
        summary: 'Associate a pool (and so its lanes) with a project',
        params: Type.Object({ id: Type.Integer({ minimum: 1 }), poolId: Type.Integer({ minimum: 1 }) }),
        response: { 200: Type.Object({ poolIds: Type.Array(Type.Integer()) }) },
      },
    },
    async (request) => {
      const { accountId } = callerOf(request);
      await projects.attachPool(accountId, request.params.id, request.params.poolId);
      return { poolIds: await projects.poolIds(accountId, request.params.id) };
    },
  );

  app.get(
    '/:id/lanes',
    {
      schema: {
        tags: ['projects'],
        summary: "The lanes of a project's pools",
        params: IdParams,
        querystring: ListQuery,
        response: { 200: Page(Lane) },
      },
    },
    async (request) => {
      const { accountId } = callerOf(request);
      await projects.require(accountId, request.params.id);
      const page = listPage(await projects.lanes(accountId, request.params.id), request.query, LANE_FIELDS);
      return { ...page, items: page.items.map(toLaneBody) };
    },
  );

  app.get(
    '/:id/web-interfaces',
    {
      schema: {
        tags: ['projects'],
        summary: "A project's web interfaces",
        params: IdParams,
        querystring: ListQuery,
        response: { 200: Page(WebInterface) },
      },
    },
    async (request) => {
      const { accountId } = callerOf(request);
      await projects.require(accountId, request.params.id);
      const page = listPage(
        await webInterfaces.list(accountId, request.params.id),
        request.query,
        INTERFACE_FIELDS,
      );
      return { ...page, items: page.items.map(toInterfaceBody) };
    },
  );

  app.post(
    '/:id/web-interfaces',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['projects'],
        summary: 'Add a web interface to a project',
        params: IdParams,
        body: NewWebInterface,
        response: { 201: WebInterface },
      },
    },
    async (request, reply) => {
      const wi = await webInterfaces.create(callerOf(request).accountId, request.params.id, request.body);
      reply.code(201);
      return toInterfaceBody(wi);
    },
  );

  app.get(
    '/:id/custom-lists',
    {
      schema: {
        tags: ['projects'],
        summary: "A project's custom lists",
        params: IdParams,
        querystring: ListQuery,
        response: { 200: Page(CustomList) },
      },
    },
    async (request) => {
      const { accountId } = callerOf(request);
      await projects.require(accountId, request.params.id);
      const page = listPage(await customLists.list(accountId, request.params.id), request.query, LIST_FIELDS);
      return { ...page, items: page.items.map(toCustomListBody) };
    },
  );

  const DesignerParams = Type.Object({
    id: Type.Integer({ minimum: 1 }),
    userId: Type.Integer({ minimum: 1 }),
  });
  const Designers = Type.Object({ userIds: Type.Array(Type.Integer()) });

  app.get(
    '/:id/designers',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['projects'],
        summary: 'The users granted the design right on a project (administrators design every project)',
        params: IdParams,
        response: { 200: Designers },
      },
    },
    async (request) => ({
      userIds: await deps.platform.rights.designers(callerOf(request).accountId, request.params.id),
    }),
  );

  app.put(
    '/:id/designers/:userId',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['projects'],
        summary: 'Grant a user the design right on a project',
        params: DesignerParams,
        response: { 200: Designers },
      },
    },
    async (request) => {
      const { accountId } = callerOf(request);
      await deps.platform.rights.grantDesign(accountId, request.params.id, request.params.userId);
      return { userIds: await deps.platform.rights.designers(accountId, request.params.id) };
    },
  );

  app.delete(
    '/:id/designers/:userId',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['projects'],
        summary: 'Take the design right on a project back from a user',
        params: DesignerParams,
        response: { 200: Designers },
      },
    },
    async (request) => {
      const { accountId } = callerOf(request);
      await deps.platform.rights.revokeDesign(accountId, request.params.id, request.params.userId);
      return { userIds: await deps.platform.rights.designers(accountId, request.params.id) };
    },
  );

  app.get(
    '/:id/bundle',
    {
      schema: {
        tags: ['projects'],
        summary:
          'Export the project as a bundle (zip, format flowmark-bundle/1, docs/deploy.md "Project bundles"; design right)',
        params: IdParams,
        querystring: BundleQuery,
        produces: ['application/zip'],
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const id = request.params.id;
      const project = await projects.require(caller.accountId, id);
      if (!(await deps.platform.rights.canDesign(caller.accountId, caller.user, id)))
        throw forbidden(RIGHTS_MESSAGES.exportBundle(id));
      const files = await exportProject(deps.platform, caller.accountId, id, {
        withDocuments: request.query.withDocuments,
        withSecrets: request.query.withSecrets,
        collections: request.query.collections?.split(',').filter((c) => c !== ''),
      });
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="project-${project.id}.zip"`)
        .send(await packBundle(files));
    },
  );

  // The bundle comes as the raw body (any content type): a context of its own with one parser.
  app.register(async (raw: Api) => {
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BUNDLE_BYTES }, (_r, body, done) =>
      done(null, body),
    );
    raw.post(
      '/bundle',
      {
        config: { access: 'admin' },
        bodyLimit: BUNDLE_BYTES,
        schema: {
          tags: ['projects'],
          summary:
            'Import a bundle (the zip as the request body) into a project: the creates, updates and deletes, all applied or none',
          querystring: ImportQuery,
          response: { 200: ImportAnswer },
        },
      },
      async (request) => {
        const caller = callerOf(request);
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const name = 'the bundle';
        const files = await unpackBundle(body, name);
        return importBundle(deps.platform, deps.store, caller.accountId, files, name, {
          projectId: request.query.projectId,
          dryRun: request.query.dryRun,
        });
      },
    );
  });
}
