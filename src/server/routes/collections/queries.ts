/**
 * Queries over a collection's matching documents: count, update, remove and aggregate
 * (`/collections/:name/{count,update,remove,aggregate}`), each charged to the request's budget.
 */
import { Type } from 'typebox';
import type { Api, ServerDeps } from '../../deps.js';
import { badRequest } from '../../errors.js';
import { fitsResponse } from '../../response-size.js';
import { JsonObject } from '../../schemas.js';
import { MAX_AGGREGATE_RESULTS, Params, requireCollection, routeContext } from './shared.js';

export function queriesRoutes(app: Api, deps: ServerDeps): void {
  const { collections, budget, actorOf } = routeContext(deps);

  app.post(
    '/:name/count',
    {
      schema: {
        tags: ['collections'],
        summary: 'Count matching documents',
        params: Params,
        body: Type.Object({ query: Type.Optional(JsonObject) }, { additionalProperties: false }),
        response: { 200: Type.Object({ count: Type.Integer() }) },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      await requireCollection(collections, actor, request.params.name);
      return {
        count: await collections.count(actor, request.params.name, request.body.query ?? {}, {
          budget: budget(),
        }),
      };
    },
  );

  app.post(
    '/:name/update',
    {
      schema: {
        tags: ['collections'],
        summary: 'Update matching documents: update operators ($set, $inc …) or a replacement',
        params: Params,
        body: Type.Object(
          { query: JsonObject, update: JsonObject, multi: Type.Optional(Type.Boolean()) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ matched: Type.Integer() }) },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const { query, update, multi = false } = request.body;
      if (Object.keys(query).length === 0) throw badRequest('Cannot update objects with an empty condition.');
      await requireCollection(collections, actor, request.params.name);
      return {
        matched: await collections.update(actor, request.params.name, query, update, {
          multi,
          budget: budget(),
        }),
      };
    },
  );

  app.post(
    '/:name/remove',
    {
      schema: {
        tags: ['collections'],
        summary: 'Delete matching documents (remove_objects)',
        params: Params,
        body: Type.Object({ query: JsonObject }, { additionalProperties: false }),
        response: { 200: Type.Object({ removed: Type.Integer() }) },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      if (Object.keys(request.body.query).length === 0)
        throw badRequest('Cannot remove objects with an empty condition.');
      await requireCollection(collections, actor, request.params.name);
      return {
        removed: await collections.remove(actor, request.params.name, request.body.query, {
          budget: budget(),
        }),
      };
    },
  );

  app.post(
    '/:name/aggregate',
    {
      schema: {
        tags: ['collections'],
        summary: `Run an aggregation pipeline (the first ${MAX_AGGREGATE_RESULTS} results)`,
        params: Params,
        body: Type.Object(
          { pipeline: Type.Array(JsonObject, { minItems: 1, maxItems: 100 }) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ items: Type.Array(JsonObject) }) },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      await requireCollection(collections, actor, request.params.name);
      const b = budget();
      const items = await collections.aggregate(actor, request.params.name, request.body.pipeline, {
        budget: b,
      });
      return { items: fitsResponse(items.slice(0, MAX_AGGREGATE_RESULTS), b, 'aggregate') };
    },
  );
}
