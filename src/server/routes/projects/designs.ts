/**
 * What a project's designers make and who they are: its web interfaces and custom lists, and its
 * designers (`/projects/:id/{web-interfaces,custom-lists,designers…}`).
 */
import { Type } from 'typebox';
import { callerOf } from '../../auth/access.js';
import type { Api, ServerDeps } from '../../deps.js';
import { ListQuery, listPage } from '../../listing.js';
import { CustomList, IdParams, NewWebInterface, Page, WebInterface } from '../../schemas.js';
import { LIST_FIELDS, toCustomListBody, toInterfaceBody } from './shared.js';

const INTERFACE_FIELDS = ['id', 'projectId', 'title', 'tags', 'contexts', 'createdAt'];

export function designsRoutes(app: Api, deps: ServerDeps): void {
  const { projects, webInterfaces, customLists } = deps.platform;

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
}
