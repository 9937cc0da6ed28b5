/**
 * Collections and their documents, queried in MongoDB syntax, and their indexes. The caller acts
 * as themself: the collection service applies its rules (a read-only collection is changed only
 * by administrators; server-side JavaScript operators are refused).
 *
 * A Fastify plugin registered under COLLECTIONS_PREFIX (below /api/v1); each module here
 * registers one resource, its paths relative to the prefix: collections.ts (the collections),
 * documents.ts (their documents), queries.ts (count, update, remove, aggregate), indexes.ts and
 * import.ts; shared.ts holds the schemas, the request's actor and budget, and the find.
 */
import type { Api, ServerDeps } from '../../deps.js';
import { collectionsRoutes } from './collections.js';
import { documentsRoutes } from './documents.js';
import { importRoutes } from './import.js';
import { indexesRoutes } from './indexes.js';
import { queriesRoutes } from './queries.js';

/** The prefix the plugin is registered under (below /api/v1). */
export const COLLECTIONS_PREFIX = '/collections';

export async function collectionRoutes(app: Api, { deps }: { deps: ServerDeps }): Promise<void> {
  for (const routes of [collectionsRoutes, documentsRoutes, queriesRoutes, indexesRoutes, importRoutes])
    routes(app, deps);
}
