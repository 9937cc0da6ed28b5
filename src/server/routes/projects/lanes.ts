/**
 * The pools a project uses and its lanes (`/projects/:id/pools…`, `/projects/:id/lanes`).
 */
import { Type } from 'typebox';
import { callerOf } from '../../auth/access.js';
import type { Api, ServerDeps } from '../../deps.js';
import { ListQuery, listPage } from '../../listing.js';
import { IdParams, Lane, Page, Pool } from '../../schemas.js';
import { toLaneBody, toPoolBody } from '../directory.js';

const LANE_FIELDS = ['id', 'poolId', 'name', 'parentId', 'managerId', 'createdAt'];

export function lanesRoutes(app: Api, deps: ServerDeps): void {
  const { projects } = deps.platform;

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
}
