/**
 * The web console and the browser library, as static pages of this origin:
 *
 *   GET /                    a redirect to the console
 *   GET /console/            the console's page (log in, playground, collections, projects, files, processes, requests)
 *   GET /favicon.svg         the icon (/favicon.ico redirects to it)
 *   GET /console/*.js, .css  its modules and stylesheet
 *   GET /console/vendor/*    the diagram's library (bpmn-js bundles, stylesheets, icon font)
 *   GET /client/*.js         the client library (ES modules; `.d.ts` beside them when built)
 *   GET /atom/*.js           the Atom format module the client library imports (shared with the server)
 *   GET /safety/*.js         the safety rules the Atom format imports (shared with the server)
 *   GET /bpmn-extension/*.js the flowmark BPMN namespace the diagram's modeler reads (shared with the server)
 *   GET /api/v1/functions    the function library's reference (autocompletion, the playground's reference)
 *
 * Pages and modules are public (the console's login page must load); every API call they make
 * needs a session. The page forbids inline script and any other origin (Content-Security-Policy).
 */
import { Type } from 'typebox';
import type { FastifyReply } from 'fastify';
import { describeLibrary, type FunctionDescription as Described } from '../../functions/docs.js';
import { defaultRegistry } from '../../functions/registry.js';
import { BROWSER_FOLDERS, browserAssets, type Asset } from '../console/assets.js';
import { CONSOLE_PAGE } from '../console/page.js';
import { CONSOLE_STYLES } from '../console/styles.js';
import { vendorAsset } from '../console/vendor.js';
import type { Api } from '../deps.js';
import { notFound } from '../errors.js';

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const FunctionParam = Type.Object({
  name: Type.String(),
  type: Type.String(),
  optional: Type.Boolean(),
  default: Type.Optional(Type.Unknown()),
  variadic: Type.Boolean(),
  doc: Type.Optional(Type.String()),
});
const FunctionDescription = Type.Object({
  name: Type.String(),
  aliases: Type.Array(Type.String()),
  group: Type.String(),
  doc: Type.String(),
  returns: Type.String(),
  flags: Type.Array(Type.String()),
  forms: Type.Array(
    Type.Object({ signature: Type.String(), deprecated: Type.Boolean(), params: Type.Array(FunctionParam) }),
  ),
});

const page = { access: 'public' as const };

/** The icon: a rounded square with a flow of three steps. */
export const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">' +
  '<rect width="32" height="32" rx="7" fill="#2b5fab"/>' +
  '<path d="M7 10h7l4 6-4 6H7" fill="none" stroke="#fff" stroke-width="3" stroke-linejoin="round"/>' +
  '<circle cx="24" cy="16" r="3.5" fill="#fff"/></svg>';
const hidden = { hide: true };

/** A plugin registered at the root: its paths are the pages' own. */
export async function consoleRoutes(app: Api): Promise<void> {
  let reference: Described[] | undefined;

  app.get(
    '/api/v1/functions',
    {
      schema: {
        tags: ['functions'],
        summary:
          'The function library: name, aliases, group, doc, flags and forms (as flowmark functions --json)',
        response: { 200: Type.Object({ items: Type.Array(FunctionDescription) }) },
      },
    },
    async () => ({ items: (reference ??= describeLibrary(defaultRegistry())) }),
  );

  app.get('/', { config: page, schema: hidden }, async (_request, reply) => reply.redirect('/console/'));

  app.get('/console', { config: page, schema: hidden }, async (_request, reply) =>
    reply.redirect('/console/'),
  );

  app.get('/favicon.svg', { config: page, schema: hidden }, async (_request, reply) =>
    secured(reply).type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(FAVICON),
  );
  app.get('/favicon.ico', { config: page, schema: hidden }, async (_request, reply) =>
    reply.redirect('/favicon.svg', 301),
  );

  app.get('/console/', { config: page, schema: hidden }, async (_request, reply) =>
    secured(reply).type('text/html; charset=utf-8').send(CONSOLE_PAGE),
  );

  app.get('/console/console.css', { config: page, schema: hidden }, async (_request, reply) =>
    secured(reply).type('text/css; charset=utf-8').send(CONSOLE_STYLES),
  );

  const assetSchema = { ...hidden, params: Type.Object({ '*': Type.String() }) };
  app.get('/console/vendor/*', { config: page, schema: assetSchema }, async (request, reply) => {
    const name = request.params['*'];
    const asset = vendorAsset(name);
    if (!asset) throw notFound(`No file /console/vendor/${name}.`);
    const { type, body } = await asset;
    return secured(reply).type(type).header('cache-control', 'public, max-age=86400').send(body);
  });

  for (const folder of BROWSER_FOLDERS)
    app.get(`/${folder}/*`, { config: page, schema: assetSchema }, async (request, reply) => {
      const name = request.params['*'];
      const asset: Asset | undefined = (await browserAssets()).get(`${folder}/${name}`);
      if (!asset) throw notFound(`No file /${folder}/${name}.`);
      return secured(reply).type(asset.type).header('cache-control', 'no-cache').send(asset.body);
    });
}

function secured(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin');
}
