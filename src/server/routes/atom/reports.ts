/**
 * A project's reports as Atom feeds: workflow reports (`/config/:account/project/:id/wfreport`, its
 * process requests) and web interface reports (`…/wireport`, its application instances).
 */
import { instanceEntry, requestEntry } from '../../atom/entries.js';
import { listPage } from '../../listing.js';
import type { Api, ServerDeps } from '../../deps.js';
import { FeedQuery, IdParams, feedSchema, projectOf, readBatches, sendFeed, siteOf } from './shared.js';

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

export function reportsRoutes(app: Api, deps: ServerDeps): void {
  const { platform, clock } = deps;
  const { requests, applications } = platform;

  app.get(
    '/project/:id/wfreport',
    {
      schema: feedSchema(
        "Workflow reports: the project's process requests, newest first (the caller's own; administrators: all) (Project.loadWFReports)",
        IdParams,
        FeedQuery,
      ),
    },
    async (request, reply) => {
      const { caller, site } = siteOf(request);
      const project = await projectOf(platform, site, request.params.id);
      const initiatorId = caller.user.isAdmin ? undefined : caller.user.id;
      const all = await readBatches((first, limit) =>
        requests.list(site.account, { projectId: project.id, initiatorId, first, limit }),
      );
      const page = listPage(all, request.query, REQUEST_FIELDS);
      const entries = page.items.map((r) => requestEntry(site, r));
      return sendFeed(request, reply, site, `Workflow reports of ${project.title}`, page, entries, clock());
    },
  );

  app.get(
    '/project/:id/wireport',
    {
      schema: feedSchema(
        "Web interface reports: the application instances of the project's web interfaces, newest first (Project.loadWIReports)",
        IdParams,
        FeedQuery,
      ),
    },
    async (request, reply) => {
      const { site } = siteOf(request);
      const project = await projectOf(platform, site, request.params.id);
      const all = await readBatches((first, limit) =>
        applications.list(site.account, { projectId: project.id, first, limit }),
      );
      const page = listPage(all, request.query, INSTANCE_FIELDS);
      const entries = page.items.map((i) => instanceEntry(site, i));
      return sendFeed(
        request,
        reply,
        site,
        `Web interface reports of ${project.title}`,
        page,
        entries,
        clock(),
      );
    },
  );
}
