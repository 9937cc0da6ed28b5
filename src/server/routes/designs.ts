/**
 * Web interfaces and custom lists addressed by their own id (`/web-interfaces/:id`,
 * `/custom-lists…`), and the applications (web interfaces) the caller may launch
 * (`/applications`). Everyone of the account reads them; a custom list's items are changed by
 * administrators and designers of its project.
 */
import { Type } from 'typebox';
import { webInterfaceUrl } from '../../platform/projects/index.js';
import { accountUrls, asSentence, laneModeFor, RIGHTS_MESSAGES } from '../../platform/index.js';
import { callerOf } from '../auth/access.js';
import type { Api, ServerDeps } from '../deps.js';
import { forbidden, notFound } from '../errors.js';
import { ListQuery, listPage } from '../listing.js';
import { Application, CustomList, IdParams, Mode, NewCustomList, Page, WebInterface } from '../schemas.js';
import { LIST_FIELDS, toCustomListBody, toInterfaceBody } from './projects/shared.js';
import { putJson, versionRoutes } from './versions.js';

/** The prefix customListRoutes is registered under (below /api/v1). */
export const CUSTOM_LISTS_PREFIX = '/custom-lists';

/** Web interfaces by id and the applications: a plugin registered at /api/v1 itself. */
export async function designRoutes(app: Api, { deps }: { deps: ServerDeps }): Promise<void> {
  const { webInterfaces } = deps.platform;

  app.get(
    '/web-interfaces/:id',
    {
      schema: {
        tags: ['projects'],
        summary: 'A web interface',
        params: IdParams,
        response: { 200: WebInterface },
      },
    },
    async (request) => {
      const wi = await webInterfaces.find(callerOf(request).accountId, request.params.id);
      if (!wi) throw notFound('Web interface not found.');
      return toInterfaceBody(wi);
    },
  );

  app.get(
    '/applications',
    {
      schema: {
        tags: ['projects'],
        summary: 'The web interfaces the caller may launch (get_applications)',
        querystring: Type.Object({
          mode: Type.Optional(Mode),
          context: Type.Optional(
            Type.Union([Type.Literal('web'), Type.Literal('mobile'), Type.Literal('tablet')]),
          ),
        }),
        response: { 200: Type.Object({ items: Type.Array(Application) }) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const mode = request.query.mode ?? 'LIVE';
      const context = request.query.context ?? 'web';
      const lanes = await deps.platform.directory.lanes.lanesOf(
        caller.accountId,
        caller.user.id,
        laneModeFor(mode),
      );
      const apps = await webInterfaces.applications(caller.accountId, {
        mode,
        context,
        userLanes: lanes.map((l) => l.id),
      });
      const live = accountUrls(await deps.platform.accounts.require(caller.accountId)).live;
      return {
        items: apps.map((a) => ({
          webInterface: toInterfaceBody(a.webInterface),
          mode: a.mode,
          url: webInterfaceUrl(live, a.webInterface.id, a.mode, context),
        })),
      };
    },
  );
}

/** The account's custom lists: a plugin registered under CUSTOM_LISTS_PREFIX, its paths relative to it. */
export async function customListRoutes(app: Api, { deps }: { deps: ServerDeps }): Promise<void> {
  const { customLists } = deps.platform;

  app.get(
    '',
    {
      schema: {
        tags: ['projects'],
        summary: "The account's custom lists",
        querystring: ListQuery,
        response: { 200: Page(CustomList) },
      },
    },
    async (request) => {
      const page = listPage(await customLists.list(callerOf(request).accountId), request.query, LIST_FIELDS);
      return { ...page, items: page.items.map(toCustomListBody) };
    },
  );

  app.post(
    '',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['projects'],
        summary: 'Create a custom list',
        body: NewCustomList,
        response: { 201: CustomList },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const list = await customLists.create(caller.accountId, request.body, caller.user);
      reply.code(201);
      return toCustomListBody(list);
    },
  );

  const ListParams = Type.Object({ listId: Type.String({ minLength: 1, maxLength: 128 }) });

  app.get(
    '/:listId',
    {
      schema: {
        tags: ['projects'],
        summary: 'A custom list',
        params: ListParams,
        response: { 200: CustomList },
      },
    },
    async (request) =>
      toCustomListBody(await customLists.require(callerOf(request).accountId, request.params.listId)),
  );

  app.put(
    '/:listId/content',
    {
      schema: {
        tags: ['projects'],
        summary:
          "Replace a custom list's content (save_custom_list): administrators, designers of its project",
        params: ListParams,
        body: Type.Array(Type.Unknown(), { maxItems: 100_000 }),
        response: { 200: Type.Object({ content: Type.Array(Type.Unknown()) }) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const list = await customLists.require(caller.accountId, request.params.listId);
      if (!(await deps.platform.rights.canWriteCustomList(caller.accountId, caller.user, list)))
        throw forbidden(asSentence(RIGHTS_MESSAGES.customList(list.id)));
      return { content: await customLists.save(caller.accountId, list.id, request.body, caller.user) };
    },
  );

  versionRoutes(
    app,
    { deps },
    {
      kind: 'custom-list',
      path: '/:listId',
      param: { name: 'listId', schema: ListParams.properties.listId },
      label: (id) => `custom list ${id}`,
      access: 'user',
      tag: 'projects',
      save: (id, body) => putJson(`/api/v1/custom-lists/${encodeURIComponent(id)}/content`, body),
    },
  );
}
