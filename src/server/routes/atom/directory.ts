/**
 * The directory as Atom resources: a user (`/config/:account/user/:ref`), the pools, a pool and its
 * lanes, the lanes and a lane, each lane with a member category telling whether the caller is in it.
 */
import { canSeePrivate } from '../../../platform/index.js';
import { laneEntry, poolEntry, userEntry } from '../../atom/entries.js';
import { listPage } from '../../listing.js';
import type { Api, ServerDeps } from '../../deps.js';
import {
  entrySchema,
  FeedQuery,
  feedSchema,
  IdParams,
  LANE_FIELDS,
  LaneFeedQuery,
  memberLanes,
  Params,
  RefParams,
  send,
  sendFeed,
  siteOf,
} from './shared.js';

const POOL_FIELDS = ['id', 'name', 'isOrganization', 'createdAt'];

export function directoryRoutes(app: Api, deps: ServerDeps): void {
  const { platform, clock } = deps;
  const { lanes, users } = platform.directory;

  app.get(
    '/user/:ref',
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
    '/pool',
    { schema: feedSchema("The account's pools", Params, FeedQuery) },
    async (request, reply) => {
      const { site } = siteOf(request);
      const page = listPage(await lanes.listPools(site.account), request.query, POOL_FIELDS);
      return sendFeed(
        request,
        reply,
        site,
        'Pools',
        page,
        page.items.map((p) => poolEntry(site, p)),
        clock(),
      );
    },
  );

  app.get('/pool/:id', { schema: entrySchema('A pool (Pool.load)', IdParams) }, async (request, reply) => {
    const { site } = siteOf(request);
    return send(request, reply, {
      entry: poolEntry(site, await lanes.requirePool(site.account, request.params.id)),
    });
  });

  app.get(
    '/pool/:id/lane',
    { schema: feedSchema("A pool's lanes (Pool.loadLanes)", IdParams, LaneFeedQuery) },
    async (request, reply) => {
      const { caller, site } = siteOf(request);
      const pool = await lanes.requirePool(site.account, request.params.id);
      const page = listPage(await lanes.listLanes(site.account, pool.id), request.query, LANE_FIELDS);
      const mine = await memberLanes(platform, caller, request.query.P_mode);
      const entries = page.items.map((l) => laneEntry(site, l, mine.has(l.id)));
      return sendFeed(request, reply, site, `Lanes of ${pool.name}`, page, entries, clock());
    },
  );

  app.get(
    '/lane',
    { schema: feedSchema("The account's lanes", Params, LaneFeedQuery) },
    async (request, reply) => {
      const { caller, site } = siteOf(request);
      const page = listPage(await lanes.listLanes(site.account), request.query, LANE_FIELDS);
      const mine = await memberLanes(platform, caller, request.query.P_mode);
      const entries = page.items.map((l) => laneEntry(site, l, mine.has(l.id)));
      return sendFeed(request, reply, site, 'Lanes', page, entries, clock());
    },
  );

  app.get('/lane/:id', { schema: entrySchema('A lane (Lane.load)', IdParams) }, async (request, reply) => {
    const { caller, site } = siteOf(request);
    const lane = await lanes.require(site.account, request.params.id);
    const mine = await memberLanes(platform, caller, undefined);
    return send(request, reply, { entry: laneEntry(site, lane, mine.has(lane.id)) });
  });
}
