/**
 * A web interface (`/config/:account/webinterface/:id`) and custom lists (`/config/:account/customlist…`:
 * read one, create one (administrators), replace its items (administrators, designers of its project)).
 */
import { asSentence, RIGHTS_MESSAGES } from '../../../platform/index.js';
import { customListEntry, configUrl, readCustomList, webInterfaceEntry } from '../../atom/entries.js';
import { badRequest, forbidden, notFound } from '../../errors.js';
import type { Api, ServerDeps } from '../../deps.js';
import {
  admin,
  bodyEntry,
  entrySchema,
  IdParams,
  ListParams,
  Params,
  send,
  siteOf,
  writeSchema,
} from './shared.js';

export function designsRoutes(app: Api, deps: ServerDeps): void {
  const { platform } = deps;
  const { webInterfaces, customLists, rights } = platform;

  app.get(
    '/webinterface/:id',
    { schema: entrySchema('A web interface (WebInterface.load)', IdParams) },
    async (request, reply) => {
      const { site } = siteOf(request);
      const wi = await webInterfaces.find(site.account, request.params.id);
      if (!wi) throw notFound('Web interface not found.');
      return send(request, reply, { entry: webInterfaceEntry(site, wi) });
    },
  );

  app.get(
    '/customlist/:listId',
    { schema: entrySchema('A custom list (CustomList.load)', ListParams) },
    async (request, reply) => {
      const { site } = siteOf(request);
      return send(request, reply, {
        entry: customListEntry(site, await customLists.require(site.account, request.params.listId)),
      });
    },
  );

  app.post(
    '/customlist',
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
    '/customlist/:listId',
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
      await customLists.save(site.account, request.params.listId, input.content, caller.user);
      return send(request, reply, {
        entry: customListEntry(site, await customLists.require(site.account, request.params.listId)),
      });
    },
  );
}
