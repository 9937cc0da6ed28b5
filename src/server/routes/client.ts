/**
 * Everything the browser side needs from this server, registered at the root by one line of
 * app.ts: the Atom resources of the client library (routes/atom.ts, in a context of their own for
 * their XML body parser) and the console with the library's modules (routes/console.ts).
 */
import type { Api, ServerDeps } from '../deps.js';
import { atomRoutes } from './atom.js';
import { consoleRoutes } from './console.js';

export async function clientRoutes(app: Api, deps: ServerDeps): Promise<void> {
  await app.register(async (atom) => atomRoutes(atom as Api, deps));
  consoleRoutes(app, deps);
}
