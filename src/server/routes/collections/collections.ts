/**
 * The collections themselves: list, create, read, rename and delete (`/collections`, `/collections/:name`).
 */
import { Type } from 'typebox';
import type { Api, ServerDeps } from '../../deps.js';
import { ApiError } from '../../errors.js';
import { CollectionInfo } from '../../schemas.js';
import { collectionNotFound, Empty, Params, requireCollection, routeContext } from './shared.js';

export function collectionsRoutes(app: Api, deps: ServerDeps): void {
  const { collections, actorOf } = routeContext(deps);

  app.get(
    '',
    {
      schema: {
        tags: ['collections'],
        summary: "The account's collections with their document counts",
        response: { 200: Type.Object({ items: Type.Array(CollectionInfo) }) },
      },
    },
    async (request) => ({ items: await collections.listCollections(actorOf(request), { withCounts: true }) }),
  );

  app.post(
    '',
    {
      schema: {
        tags: ['collections'],
        summary: 'Create a collection (create_collection)',
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 255 }),
            isPublic: Type.Optional(Type.Boolean()),
            isReadonly: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
        response: { 201: CollectionInfo },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const { name, isPublic = false, isReadonly = false } = request.body;
      if (!(await collections.createCollection(actor, name, { isPublic, isReadonly })))
        throw new ApiError(409, 'exists', `collection '${name}' already exists`);
      reply.code(201);
      return requireCollection(collections, actor, name);
    },
  );

  app.get(
    '/:name',
    {
      schema: {
        tags: ['collections'],
        summary: 'A collection',
        params: Params,
        response: { 200: CollectionInfo },
      },
    },
    async (request) => requireCollection(collections, actorOf(request), request.params.name),
  );

  app.patch(
    '/:name',
    {
      schema: {
        tags: ['collections'],
        summary: 'Rename a collection (rename_collection)',
        params: Params,
        body: Type.Object(
          { name: Type.String({ minLength: 1, maxLength: 255 }) },
          { additionalProperties: false },
        ),
        response: { 200: CollectionInfo },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      if (!(await collections.renameCollection(actor, request.params.name, request.body.name)))
        throw collectionNotFound(request.params.name);
      return requireCollection(collections, actor, request.body.name);
    },
  );

  app.delete(
    '/:name',
    {
      schema: {
        tags: ['collections'],
        summary: 'Delete a collection with its documents and indexes (remove_collection)',
        params: Params,
        response: Empty,
      },
    },
    async (request, reply) => {
      if (!(await collections.removeCollection(actorOf(request), request.params.name)))
        throw collectionNotFound(request.params.name);
      reply.code(204);
    },
  );
}
