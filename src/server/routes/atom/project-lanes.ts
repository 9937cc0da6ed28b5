/**
 * A project's lanes as Atom feeds (`/config/:account/project/:id/lane`, `…/laneandpool`), each lane
 * with a member category telling whether the caller is in it.
 */
import { laneEntry, poolEntry } from '../../atom/entries.js';
import { listPage } from '../../listing.js';
import type { Api, ServerDeps } from '../../deps.js';
import {
  IdParams,
  LANE_FIELDS,
  LaneFeedQuery,
  feedSchema,
  memberLanes,
  projectOf,
  sendFeed,
  siteOf,
} from './shared.js';

const LANE_AND_POOL_FIELDS = ['id', 'kind', 'name', 'poolId', 'createdAt'];

export function projectLanesRoutes(app: Api, deps: ServerDeps): void {
  const { platform, clock } = deps;
  const { projects } = platform;
  const { lanes } = platform.directory;

  app.get(
    '/project/:id/lane',
    {
      schema: feedSchema(
        "The lanes of a project's pools, each with a member category telling whether the caller is in it (P_mode: the lane configuration, default LIVE) (Project.loadLanes)",
        IdParams,
        LaneFeedQuery,
      ),
    },
    async (request, reply) => {
      const { caller, site } = siteOf(request);
      const project = await projectOf(platform, site, request.params.id);
      const page = listPage(await projects.lanes(site.account, project.id), request.query, LANE_FIELDS);
      const mine = await memberLanes(platform, caller, request.query.P_mode);
      const entries = page.items.map((l) => laneEntry(site, l, mine.has(l.id)));
      return sendFeed(request, reply, site, `Lanes of ${project.title}`, page, entries, clock());
    },
  );

  app.get(
    '/project/:id/laneandpool',
    {
      schema: feedSchema(
        "A project's pools and their lanes in one feed, told apart by the kind category (Project.loadLanesAndPools)",
        IdParams,
        LaneFeedQuery,
      ),
    },
    async (request, reply) => {
      const { caller, site } = siteOf(request);
      const project = await projectOf(platform, site, request.params.id);
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
      const mine = await memberLanes(platform, caller, request.query.P_mode);
      const entries = page.items.map((item) =>
        'lane' in item ? laneEntry(site, item.lane, mine.has(item.lane.id)) : poolEntry(site, item.pool),
      );
      return sendFeed(request, reply, site, `Lanes and pools of ${project.title}`, page, entries, clock());
    },
  );
}
