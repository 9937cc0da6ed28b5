/**
 * A project's versions and the mode each is published in (`/projects/:id/versions…`).
 */
import { Type } from 'typebox';
import { callerOf } from '../../auth/access.js';
import type { Api, ServerDeps } from '../../deps.js';
import { notFound } from '../../errors.js';
import { ListQuery, listPage } from '../../listing.js';
import { IdParams, Mode, Page, ProjectVersion } from '../../schemas.js';

const VERSION_FIELDS = ['id', 'name', 'mode', 'createdAt'];

const VersionParams = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  versionId: Type.Integer({ minimum: 1 }),
});

export function versionsRoutes(app: Api, deps: ServerDeps): void {
  const { projects } = deps.platform;

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
}
