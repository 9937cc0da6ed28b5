/**
 * Collections and their documents, queried in MongoDB syntax, and their indexes. The caller acts
 * as themself: the collection service applies its rules (a read-only collection is changed only
 * by administrators; server-side JavaScript operators are refused).
 */
import { PassThrough } from 'node:stream';
import { Type, type Static } from '@fastify/type-provider-typebox';
import { Budget } from '../../limits/index.js';
import {
  importOptions,
  type Actor,
  type CollectionService,
  type SortSpec,
} from '../../platform/collections/index.js';
import { callerOf } from '../auth/access.js';
import type { Api, ServerDeps } from '../deps.js';
import { ApiError, badRequest, notFound, toErrorBody } from '../errors.js';
import { fitsResponse } from '../response-size.js';
import { MAX_PAGE_SIZE } from '../listing.js';
import { CollectionInfo, IndexDescriptor, JsonObject } from '../schemas.js';
import { parseJsonSafely, readJsonText, UnsafeJsonKeyError } from '../../safety/index.js';
import { errorMessage } from '../../errors/index.js';
import { isRecord } from '../../safety/narrow.js';

/** Most documents one aggregation answers (the spec's aggregate_collection limit). */
export const MAX_AGGREGATE_RESULTS = 1000;

const Params = Type.Object({ name: Type.String({ minLength: 1, maxLength: 255 }) });
const DocParams = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  id: Type.String({ minLength: 1, maxLength: 255 }),
});
const Sort = Type.Union(
  [JsonObject, Type.Array(Type.Tuple([Type.String(), Type.Union([Type.Literal(1), Type.Literal(-1)])]))],
  {
    description: 'a MongoDB sort object {"field": 1, "other": -1} or a list of [field, 1|-1] pairs',
  },
);
const FindBody = Type.Object(
  {
    query: Type.Optional(JsonObject),
    sort: Type.Optional(Sort),
    first: Type.Optional(Type.Integer({ minimum: 0 })),
    nb: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE })),
  },
  { additionalProperties: false },
);
const Documents = Type.Object({ items: Type.Array(JsonObject), first: Type.Integer(), nb: Type.Integer() });
const Empty = { 204: Type.Null() };

/** The prefix the plugin is registered under (below /api/v1). */
export const COLLECTIONS_PREFIX = '/collections';

/** The collection routes: a plugin registered under COLLECTIONS_PREFIX, its paths relative to it. */
export async function collectionRoutes(app: Api, { deps }: { deps: ServerDeps }): Promise<void> {
  const collections = deps.collections;
  // Each request is one evaluation: what its query builds, reads and answers is charged to a
  // budget of the deployment's limits.
  const budget = () => new Budget(deps.settings.evaluationLimits);
  const actorOf = (request: Parameters<typeof callerOf>[0]): Actor => {
    const caller = callerOf(request);
    return { accountId: caller.accountId, user: caller.user };
  };

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
      const query = request.query.query === undefined ? {} : parseJson(request.query.query, 'query');
      const sort = request.query.sort === undefined ? undefined : parseJson(request.query.sort, 'sort');
      return find(
        collections,
        actorOf(request),
        request.params.name,
        {
          query: query as Record<string, unknown>,
          sort: sort as Static<typeof Sort>,
          first: request.query.first,
          nb: request.query.nb,
        },
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

  app.post(
    '/:name/import',
    {
      schema: {
        tags: ['collections'],
        summary: `Import a CSV or JSON file into a collection like import_objects (multipart/form-data: the part "file", an optional field "options" with import_objects' options as JSON); all or nothing; at most ${deps.settings.uploadBytes} bytes. With Accept: application/x-ndjson, the answer streams {"documents": n} per batch, then {"imported": n} or the error body`,
        consumes: ['multipart/form-data'],
        params: Params,
        response: {
          200: Type.Unknown({ description: 'application/x-ndjson: the streamed progress' }),
          201: Type.Object({ imported: Type.Integer() }),
        },
      },
    },
    async (request, reply) => {
      if (!request.isMultipart())
        throw new ApiError(415, 'unsupported-media-type', 'Send the file as multipart/form-data.');
      let content: Buffer | undefined;
      let raw: Record<string, unknown> = {};
      let parsed: unknown;
      for await (const part of request.parts({ limits: { fileSize: deps.settings.uploadBytes } })) {
        if (part.type === 'file') {
          if (part.fieldname !== 'file' || content) {
            part.file.resume();
            throw badRequest('send exactly one file, in the part named "file"');
          }
          content = await part.toBuffer();
        } else if (part.fieldname === 'options') {
          try {
            parsed = parseJsonSafely(String(part.value));
          } catch (e) {
            if (e instanceof UnsafeJsonKeyError) throw badRequest(`options: ${e.message}`);
            throw badRequest('options: a JSON object is expected');
          }
          if (!isRecord(parsed)) throw badRequest('options: a JSON object is expected');
          raw = parsed;
        } else throw badRequest(`unknown field ${JSON.stringify(part.fieldname)} (file, options)`);
      }
      if (!content) throw badRequest('no file: send it in the part named "file"');
      const format = importOptions(raw);
      if (!(request.headers.accept ?? '').includes('application/x-ndjson')) {
        const imported = await collections.importFile(
          actorOf(request),
          request.params.name,
          [content],
          format,
        );
        reply.code(201);
        return { imported };
      }
      // Streamed: a line {"documents": n} per batch written, then {"imported": n}, or the error
      // body (the status is sent before the import runs). The import does not wait for the client.
      const lines = new PassThrough();
      const line = (value: unknown) => lines.write(`${JSON.stringify(value)}\n`);
      collections
        .importFile(actorOf(request), request.params.name, [content], format, {
          onProgress: (p) => line({ documents: p.documents }),
        })
        .then(
          (imported) => line({ imported }),
          (e: unknown) => {
            const reply = toErrorBody(e);
            if (reply.internal) request.log.error(e);
            line(reply.body);
          },
        )
        .finally(() => lines.end());
      return reply.code(200).type('application/x-ndjson; charset=utf-8').send(lines);
    },
  );
}

async function requireCollection(collections: CollectionService, actor: Actor, name: string) {
  const info = await collections.getCollection(actor, name);
  if (!info) throw collectionNotFound(name);
  return info;
}

const collectionNotFound = (name: string) => notFound(`collection '${name}' does not exist`);

async function find(
  collections: CollectionService,
  actor: Actor,
  name: string,
  body: Static<typeof FindBody>,
  budget: Budget,
) {
  await requireCollection(collections, actor, name);
  const first = body.first ?? 0;
  const nb = body.nb ?? 100;
  const items = await collections.find(actor, name, body.query ?? {}, {
    sort: toSortSpec(body.sort),
    skip: first,
    limit: nb,
    budget,
  });
  return { items: fitsResponse(items, budget, 'documents'), first, nb };
}

function toSortSpec(sort: Static<typeof Sort> | undefined): SortSpec | undefined {
  if (sort === undefined) return undefined;
  const pairs = Array.isArray(sort) ? sort : Object.entries(sort);
  return pairs.map(([path, direction]) => {
    if (direction !== 1 && direction !== -1)
      throw badRequest(`sort: the direction of '${path}' must be 1 or -1`);
    return [path, direction];
  });
}

function parseJson(text: string, what: string): unknown {
  let value: unknown;
  try {
    value = readJsonText(text, what);
  } catch (e) {
    throw badRequest(errorMessage(e));
  }
  if (value === null || typeof value !== 'object' || (what === 'query' && Array.isArray(value)))
    throw badRequest(`${what}: a JSON ${what === 'query' ? 'object' : 'object or array'} is expected`);
  return value;
}
