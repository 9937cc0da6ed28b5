/**
 * Projects and what hangs off them: versions (and the mode each is published in), child
 * projects, pools and lanes, web interfaces, custom lists, designers and bundles. Everyone of
 * the account reads them; administrators change them. Web interfaces, custom lists and
 * applications addressed by their own id are in routes/designs.ts.
 *
 * A Fastify plugin registered under PROJECTS_PREFIX (below /api/v1); each module here registers
 * one resource, its paths relative to the prefix: projects.ts, versions.ts, lanes.ts (pools and
 * lanes), designs.ts (web interfaces, custom lists, designers), i18n.ts (dictionaries) and bundle.ts; shared.ts holds the
 * bodies routes/designs.ts shows too.
 */
import type { Api, ServerDeps } from '../../deps.js';
import { bundleRoutes } from './bundle.js';
import { designsRoutes } from './designs.js';
import { i18nRoutes } from './i18n.js';
import { lanesRoutes } from './lanes.js';
import { projectsRoutes } from './projects.js';
import { versionsRoutes } from './versions.js';

/** The prefix the plugin is registered under (below /api/v1). */
export const PROJECTS_PREFIX = '/projects';

export async function projectRoutes(app: Api, { deps }: { deps: ServerDeps }): Promise<void> {
  for (const routes of [projectsRoutes, versionsRoutes, lanesRoutes, designsRoutes, i18nRoutes, bundleRoutes])
    routes(app, deps);
}
