/**
 * A collection's documents: find (query in the URL or the body), save, read, replace and delete
 * (`/collections/:name/documents…`, `/collections/:name/find`).
 */
import { Type } from 'typebox';
import type { Api, ServerDeps } from '../../deps.js';
import { notFound } from '../../errors.js';
import { MAX_PAGE_SIZE } from '../../listing.js';
import { JsonObject } from '../../schemas.js';
import {
  collectionNotFound,
  DocParams,
  Documents,
  Empty,
  find,
  FindBody,
  Params,
  parseQuery,
  parseSort,
  requireCollection,
  routeContext,
} from './shared.js';

export function documentsRoutes(app: Api, deps: ServerDeps): void {
  const { collections, budget, actorOf } = routeContext(deps);

  app.get(
    '/:name/documents',
    {
      schema: {
        tags: ['collections'],
        summary: 'Find documents: query and sort are JSON in MongoDB syntax',
        params: Params,
        querystring: Type.Object({
          query: Type.Optional(
            Type.String({ maxLength: 8192, description: 'JSON filter, e.g. {"status":"open"}' }),
          ),
          sort: Type.Optional(Type.String({ maxLength: 1024, description: 'JSON sort, e.g. {"date":-1}' })),
          first: Type.Optional(Type.Integer({ minimum: 0 })),
          nb: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE })),
        }),
        response: { 200: Documents },
      },
    },
    async (request) => {
      const query = request.query.query === undefined ? {} : parseQuery(request.query.query);
      const sort = request.query.sort === undefined ? undefined : parseSort(request.query.sort);
      return find(
        collections,
        actorOf(request),
        request.params.name,
        { query, sort, first: request.query.first, nb: request.query.nb },
        budget(),
      );
    },
  );

  app.post(
    '/:name/find',
    {
      schema: {
        tags: ['collections'],
        summary: 'Find documents (the query in the body)',
        params: Params,
        body: FindBody,
        response: { 200: Documents },
      },
    },
    async (request) => find(collections, actorOf(request), request.params.name, request.body, budget()),
  );

  app.post(
    '/:name/documents',
    {
      schema: {
        tags: ['collections'],
        summary:
          'Save one document or an array of documents (save_object); a given _id replaces that document',
        params: Params,
        body: Type.Union([JsonObject, Type.Array(JsonObject, { maxItems: 10_000 })]),
        response: { 201: Type.Object({ items: Type.Array(JsonObject) }) },
      },
    },
    async (request, reply) => {
      const values = Array.isArray(request.body) ? request.body : [request.body];
      const items = await collections.save(actorOf(request), request.params.name, values);
      reply.code(201);
      return { items };
    },
  );

  app.get(
    '/:name/documents/:id',
    {
      schema: {
        tags: ['collections'],
        summary: 'A document by _id',
        params: DocParams,
        response: { 200: JsonObject },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      await requireCollection(collections, actor, request.params.name);
      const doc = await collections.findOne(
        actor,
        request.params.name,
        { _id: request.params.id },
        { budget: budget() },
      );
      if (!doc) throw notFound(`document '${request.params.id}' does not exist`);
      return doc;
    },
  );

  app.put(
    '/:name/documents/:id',
    {
      schema: {
        tags: ['collections'],
        summary: 'Replace (or create) the document with this _id',
        params: DocParams,
        body: JsonObject,
        response: { 200: JsonObject },
      },
    },
    async (request) => {
      const [doc] = await collections.save(actorOf(request), request.params.name, [
        { ...request.body, _id: request.params.id },
      ]);
      return doc!;
    },
  );

  app.delete(
    '/:name/documents/:id',
    {
      schema: {
        tags: ['collections'],
        summary: 'Delete a document by _id',
        params: DocParams,
        response: Empty,
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      await requireCollection(collections, actor, request.params.name);
      const removed = await collections.remove(
        actor,
        request.params.name,
        { _id: request.params.id },
        { budget: budget() },
      );
      if (removed === 0) throw notFound(`document '${request.params.id}' does not exist`);
      reply.code(204);
    },
  );

  app.delete(
    '/:name/documents',
    {
      schema: {
        tags: ['collections'],
        summary: 'Delete every document; the collection and its indexes stay (drop_collection)',
        params: Params,
        response: Empty,
      },
    },
    async (request, reply) => {
      if (!(await collections.dropCollection(actorOf(request), request.params.name)))
        throw collectionNotFound(request.params.name);
      reply.code(204);
    },
  );
}
