/**
 * The Atom resources the browser client library talks to (src/client, docs/client.md), under the
 * platform's configuration paths `/config/:account/…`:
 *
 *   GET  project                     feed of the account's projects (ProjectList)
 *   POST project                     create a project (A)
 *   GET  project/:id                 a project          PUT project/:id       change it (A)
 *   PUT  project/:id/mode            the modes of its versions (A)
 *   GET  project/:id/{child, customlist, lane, laneandpool, version, webinterface, wfreport, wireport}
 *   POST project/:id/webinterface    add a web interface (A)
 *   GET  user/:ref  lane  lane/:id  pool  pool/:id  pool/:id/lane  webinterface/:id  customlist/:id
 *   POST customlist (A)              PUT customlist/:id (A: its items)
 *
 * (A) = administrators. Every resource answers Atom XML, or the same document as JSON when the
 * request asks for it (`Accept: application/json` or `?alt=json`); write bodies are either
 * (`application/atom+xml`, `application/xml`, `text/xml` or `application/json`). Feeds take the
 * list parameters of the JSON API (first, nb, orderby, order, filter/operator/value). The account
 * in the path must be the caller's; any other answers 404.
 *
 * A Fastify plugin registered under the prefix `/config/:account` (`app.register(atomRoutes,
 * { prefix: ATOM_PREFIX, deps })`, in a context of its own for its XML body parser); each module
 * here registers one family, its paths relative to the prefix: projects.ts, project-lanes.ts,
 * reports.ts, directory.ts and designs.ts (web interfaces and custom lists); shared.ts holds the
 * schemas, the account check and the Atom or JSON answer.
 */
import { ATOM_MEDIA_TYPE } from '../../../atom/format.js';
import { readAtomXml } from '../../atom/xml.js';
import type { Api, ServerDeps } from '../../deps.js';
import { designsRoutes } from './designs.js';
import { directoryRoutes } from './directory.js';
import { projectLanesRoutes } from './project-lanes.js';
import { projectsRoutes } from './projects.js';
import { reportsRoutes } from './reports.js';
import { asError } from '../../../errors/index.js';

export interface AtomRoutesOptions {
  deps: ServerDeps;
}

/** The prefix the plugin is registered under: the platform's configuration paths. */
export const ATOM_PREFIX = '/config/:account';

export async function atomRoutes(app: Api, { deps }: AtomRoutesOptions): Promise<void> {
  app.addContentTypeParser(
    [ATOM_MEDIA_TYPE, 'application/xml', 'text/xml'],
    { parseAs: 'string' },
    (_request, body, done) => {
      try {
        done(null, readAtomXml(String(body)));
      } catch (e) {
        done(asError(e));
      }
    },
  );
  for (const routes of [projectsRoutes, projectLanesRoutes, reportsRoutes, directoryRoutes, designsRoutes])
    routes(app, deps);
}
