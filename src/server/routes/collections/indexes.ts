/**
 * A collection's indexes: list, create and delete (`/collections/:name/indexes…`).
 */
import { Type } from 'typebox';
import type { Api, ServerDeps } from '../../deps.js';
import { notFound } from '../../errors.js';
import { IndexDescriptor } from '../../schemas.js';
import { Empty, Params, routeContext } from './shared.js';

export function indexesRoutes(app: Api, deps: ServerDeps): void {
  const { collections, actorOf } = routeContext(deps);

  app.get(
    '/:name/indexes',
    {
      schema: {
        tags: ['collections'],
        summary: "A collection's indexes (R_list_indexes)",
        params: Params,
        response: { 200: Type.Object({ items: Type.Array(IndexDescriptor) }) },
      },
    },
    async (request) => ({ items: await collections.listIndexes(actorOf(request), request.params.name) }),
  );

  app.post(
    '/:name/indexes',
    {
      schema: {
        tags: ['collections'],
        summary: 'Create an index (R_create_index); a unique one refuses repeated key values',
        params: Params,
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 120 }),
            keys: Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { minItems: 1, maxItems: 8 }),
            unique: Type.Optional(Type.Boolean()),
            ascending: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
        response: { 201: Type.Object({ items: Type.Array(IndexDescriptor) }) },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const { name, keys, unique = false, ascending = true } = request.body;
      await collections.createIndex(actor, request.params.name, name, { keys, unique, ascending });
      reply.code(201);
      return { items: await collections.listIndexes(actor, request.params.name) };
    },
  );

  app.delete(
    '/:name/indexes/:index',
    {
      schema: {
        tags: ['collections'],
        summary: 'Delete an index (R_delete_index)',
        params: Type.Object({
          name: Type.String({ minLength: 1, maxLength: 255 }),
          index: Type.String({ minLength: 1, maxLength: 120 }),
        }),
        response: Empty,
      },
    },
    async (request, reply) => {
      if (!(await collections.deleteIndex(actorOf(request), request.params.name, request.params.index)))
        throw notFound(
          `index '${request.params.index}' does not exist on collection '${request.params.name}'`,
        );
      reply.code(204);
    },
  );
}
