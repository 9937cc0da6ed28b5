/**
 * Everything the browser side needs from this server, registered at the root by one line of
 * app.ts: the Atom resources of the client library (routes/atom/, a plugin under
 * /config/:account in a context of its own for its XML body parser) and the console with the
 * library's modules (routes/console.ts).
 */
import type { Api, ServerDeps } from '../deps.js';
import { ATOM_PREFIX, atomRoutes } from './atom/index.js';
import { consoleRoutes } from './console.js';

export async function clientRoutes(app: Api, { deps }: { deps: ServerDeps }): Promise<void> {
  await app.register(atomRoutes, { prefix: ATOM_PREFIX, deps });
  await app.register(consoleRoutes);
}
