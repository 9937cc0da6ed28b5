/**
 * Pools, lanes and lane membership of the caller's account. Everyone of the account reads them;
 * administrators create, change and fill them.
 */
import { Type } from 'typebox';
import type { Lane as LaneRecord, Pool as PoolRecord } from '../../platform/directory/index.js';
import { asSentence, RIGHTS_MESSAGES } from '../../platform/index.js';
import { callerOf } from '../auth/access.js';
import { forbidden } from '../errors.js';
import type { Api, ServerDeps } from '../deps.js';
import type { Caller } from '../hosts.js';
import { ListQuery, listPage } from '../listing.js';
import { IdParams, Lane, LaneMode, Nullable, Page, Pool, User } from '../schemas.js';
import { toUserBody } from './users.js';

const POOL_FIELDS = ['id', 'name', 'isOrganization', 'createdAt'];
const LANE_FIELDS = ['id', 'poolId', 'name', 'parentId', 'managerId', 'createdAt'];

export const toPoolBody = ({ accountId: _a, ...pool }: PoolRecord) => pool;
export const toLaneBody = ({ accountId: _a, ...lane }: LaneRecord) => lane;

const MembershipQuery = Type.Object({ mode: Type.Optional(LaneMode) });

/** The prefixes the plugins are registered under (below /api/v1). */
export const POOLS_PREFIX = '/pools';
export const LANES_PREFIX = '/lanes';

/** Pools and the lanes created in them: a plugin under POOLS_PREFIX, its paths relative to it. */
export async function poolRoutes(app: Api, { deps }: { deps: ServerDeps }): Promise<void> {
  const { lanes } = deps.platform.directory;

  app.get(
    '',
    {
      schema: {
        tags: ['lanes'],
        summary: "The account's pools",
        querystring: ListQuery,
        response: { 200: Page(Pool) },
      },
    },
    async (request) => {
      const pools = await lanes.listPools(callerOf(request).accountId);
      const page = listPage(pools, request.query, POOL_FIELDS);
      return { ...page, items: page.items.map(toPoolBody) };
    },
  );

  app.post(
    '',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['lanes'],
        summary: 'Create a pool',
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 255 }),
            isOrganization: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
        response: { 201: Pool },
      },
    },
    async (request, reply) => {
      const pool = await lanes.createPool(callerOf(request).accountId, request.body);
      reply.code(201);
      return toPoolBody(pool);
    },
  );

  app.get(
    '/:id',
    { schema: { tags: ['lanes'], summary: 'A pool', params: IdParams, response: { 200: Pool } } },
    async (request) => toPoolBody(await lanes.requirePool(callerOf(request).accountId, request.params.id)),
  );

  app.post(
    '/:id/lanes',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['lanes'],
        summary: 'Create a lane in a pool',
        params: IdParams,
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 255 }),
            parentId: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
            managerId: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
            runtime: Type.Optional(
              Type.Boolean({
                description: 'a runtime lane: its users are added by scripts; fixed at creation',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 201: Lane },
      },
    },
    async (request, reply) => {
      const lane = await lanes.createLane(callerOf(request).accountId, request.params.id, request.body);
      reply.code(201);
      return toLaneBody(lane);
    },
  );
}

/** Lanes and their members: a plugin under LANES_PREFIX, its paths relative to it. */
export async function laneRoutes(app: Api, { deps }: { deps: ServerDeps }): Promise<void> {
  const { lanes, users } = deps.platform.directory;

  app.get(
    '',
    {
      schema: {
        tags: ['lanes'],
        summary: "The account's lanes (filter poolId EE n for one pool's)",
        querystring: ListQuery,
        response: { 200: Page(Lane) },
      },
    },
    async (request) => {
      const page = listPage(await lanes.listLanes(callerOf(request).accountId), request.query, LANE_FIELDS);
      return { ...page, items: page.items.map(toLaneBody) };
    },
  );

  app.get(
    '/:id',
    { schema: { tags: ['lanes'], summary: 'A lane', params: IdParams, response: { 200: Lane } } },
    async (request) => toLaneBody(await lanes.require(callerOf(request).accountId, request.params.id)),
  );

  app.patch(
    '/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['lanes'],
        summary: 'Rename a lane, move it in its organisation chart, or change its manager',
        params: IdParams,
        body: Type.Object(
          {
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
            parentId: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
            managerId: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
          },
          { additionalProperties: false },
        ),
        response: { 200: Lane },
      },
    },
    async (request) =>
      toLaneBody(await lanes.updateLane(callerOf(request).accountId, request.params.id, request.body)),
  );

  app.get(
    '/:id/users',
    {
      schema: {
        tags: ['lanes'],
        summary:
          "A lane's users in a lane mode (default LIVE), by id; canChangeUsers: whether the caller may add and remove them",
        params: IdParams,
        querystring: Type.Object({
          ...MembershipQuery.properties,
          first: ListQuery.properties.first,
          nb: ListQuery.properties.nb,
        }),
        response: {
          200: Type.Object({
            items: Type.Array(User),
            first: Type.Integer(),
            nb: Type.Integer(),
            canChangeUsers: Type.Boolean(),
          }),
        },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const first = request.query.first ?? 0;
      const nb = request.query.nb ?? 100;
      const lane = await lanes.require(caller.accountId, request.params.id);
      const members = await lanes.members(caller.accountId, request.params.id, request.query.mode ?? 'LIVE', {
        first,
        limit: nb,
      });
      const canChangeUsers = await deps.platform.rights.canWriteLaneMembership(
        caller.accountId,
        caller.user,
        lane,
      );
      return { items: members.map((u) => toUserBody(u, caller.user.isAdmin)), first, nb, canChangeUsers };
    },
  );

  /** Administrators on any lane; designers of a project using the lane's pool on its runtime lanes. */
  async function requireMembershipRight(caller: Caller, laneId: number): Promise<void> {
    const lane = await lanes.require(caller.accountId, laneId);
    if (!(await deps.platform.rights.canWriteLaneMembership(caller.accountId, caller.user, lane)))
      throw forbidden(asSentence(RIGHTS_MESSAGES.laneMembership(lane.id)));
  }

  const Membership = {
    schema: {
      tags: ['lanes'],
      params: Type.Object({ id: Type.Integer({ minimum: 1 }), userId: Type.Integer({ minimum: 1 }) }),
      querystring: MembershipQuery,
      response: { 200: Type.Object({ userIds: Type.Array(Type.Integer()) }) },
    },
  };

  app.put(
    '/:id/users/:userId',
    { ...Membership, schema: { ...Membership.schema, summary: 'Add a user to a lane (manual membership)' } },
    async (request) => {
      const caller = callerOf(request);
      const { id, userId } = request.params;
      await requireMembershipRight(caller, id);
      await users.require(caller.accountId, userId);
      return { userIds: await lanes.addMember(caller.accountId, id, request.query.mode ?? 'LIVE', userId) };
    },
  );

  app.delete(
    '/:id/users/:userId',
    {
      ...Membership,
      schema: { ...Membership.schema, summary: "Remove a user's manual membership of a lane" },
    },
    async (request) => {
      const caller = callerOf(request);
      const { id, userId } = request.params;
      await requireMembershipRight(caller, id);
      return {
        userIds: await lanes.removeMember(caller.accountId, id, request.query.mode ?? 'LIVE', userId),
      };
    },
  );
}
