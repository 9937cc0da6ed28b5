/**
 * The projects themselves: list, create, read and change them, and their child projects
 * (`/projects`, `/projects/:id`, `/projects/:id/children`).
 */
import { callerOf } from '../../auth/access.js';
import type { Api, ServerDeps } from '../../deps.js';
import { ListQuery, listPage } from '../../listing.js';
import { IdParams, NewProject, Page, Project, ProjectChanges } from '../../schemas.js';
import { toProjectBody } from './shared.js';

const PROJECT_FIELDS = ['id', 'title', 'type', 'authorId', 'parentId', 'createdAt', 'updatedAt'];

export function projectsRoutes(app: Api, deps: ServerDeps): void {
  const { projects } = deps.platform;

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
}
