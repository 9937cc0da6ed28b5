/**
 * What the collection route modules share: their parameter and body schemas, the caller as the
 * collection service's actor, a request's budget, and the find every listing goes through.
 */
import { Type, type Static } from 'typebox';
import { Budget } from '../../../limits/index.js';
import type { Actor, CollectionService, SortSpec } from '../../../platform/collections/index.js';
import { errorMessage } from '../../../errors/index.js';
import { readJsonText } from '../../../safety/index.js';
import { isRecord } from '../../../safety/narrow.js';
import { callerOf } from '../../auth/access.js';
import type { ServerDeps } from '../../deps.js';
import { badRequest, notFound } from '../../errors.js';
import { fitsResponse } from '../../response-size.js';
import { MAX_PAGE_SIZE } from '../../listing.js';
import { JsonObject } from '../../schemas.js';

/** Most documents one aggregation answers (the spec's aggregate_collection limit). */
export const MAX_AGGREGATE_RESULTS = 1000;

export const Params = Type.Object({ name: Type.String({ minLength: 1, maxLength: 255 }) });
export const DocParams = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  id: Type.String({ minLength: 1, maxLength: 255 }),
});
const Sort = Type.Union(
  [JsonObject, Type.Array(Type.Tuple([Type.String(), Type.Union([Type.Literal(1), Type.Literal(-1)])]))],
  {
    description: 'a MongoDB sort object {"field": 1, "other": -1} or a list of [field, 1|-1] pairs',
  },
);
type Sort = Static<typeof Sort>;
export const FindBody = Type.Object(
  {
    query: Type.Optional(JsonObject),
    sort: Type.Optional(Sort),
    first: Type.Optional(Type.Integer({ minimum: 0 })),
    nb: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE })),
  },
  { additionalProperties: false },
);
export const Documents = Type.Object({
  items: Type.Array(JsonObject),
  first: Type.Integer(),
  nb: Type.Integer(),
});
export const Empty = { 204: Type.Null() };

/** What every collection route works with: the service, a fresh budget, the caller as actor. */
export function routeContext(deps: ServerDeps) {
  return {
    collections: deps.collections,
    // Each request is one evaluation: what its query builds, reads and answers is charged to a
    // budget of the deployment's limits.
    budget: () => new Budget(deps.settings.evaluationLimits),
    actorOf: (request: Parameters<typeof callerOf>[0]): Actor => {
      const caller = callerOf(request);
      return { accountId: caller.accountId, user: caller.user };
    },
  };
}

export async function requireCollection(collections: CollectionService, actor: Actor, name: string) {
  const info = await collections.getCollection(actor, name);
  if (!info) throw collectionNotFound(name);
  return info;
}

export const collectionNotFound = (name: string) => notFound(`collection '${name}' does not exist`);

export async function find(
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

function toSortSpec(sort: Sort | undefined): SortSpec | undefined {
  if (sort === undefined) return undefined;
  const pairs = Array.isArray(sort) ? sort : Object.entries(sort);
  return pairs.map(([path, direction]) => {
    if (direction !== 1 && direction !== -1)
      throw badRequest(`sort: the direction of '${path}' must be 1 or -1`);
    return [path, direction];
  });
}

/** The JSON filter of `?query=`: an object. */
export function parseQuery(text: string): Record<string, unknown> {
  const value = parseJson(text, 'query');
  if (!isRecord(value)) throw badRequest('query: a JSON object is expected');
  return value;
}

/** The JSON sort of `?sort=`: an object, or a list of [field, 1|-1] pairs. */
export function parseSort(text: string): Sort {
  const value = parseJson(text, 'sort');
  if (isRecord(value)) return value;
  if (!Array.isArray(value)) throw badRequest('sort: a JSON object or array is expected');
  return value.map((pair): [string, 1 | -1] => {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string')
      throw badRequest('sort: a list of [field, 1|-1] pairs is expected');
    const [path, direction] = pair;
    if (direction !== 1 && direction !== -1)
      throw badRequest(`sort: the direction of '${path}' must be 1 or -1`);
    return [path, direction];
  });
}

function parseJson(text: string, what: string): unknown {
  try {
    return readJsonText(text, what);
  } catch (e) {
    throw badRequest(errorMessage(e));
  }
}
