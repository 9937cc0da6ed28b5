/**
 * Cross-origin use of the browser client library (docs/client.md, "From another origin"): pages
 * of the origins in the allow-list (`serve --cors-origin`, FLOWMARK_CORS_ORIGINS) may load the
 * library's modules (`/client/`) and call the Atom resources (`/config/`) and the JSON API
 * (`/api/v1/`). Credentials cross origins as an API token (`configure({ token })`, the
 * Authorization header), never as the session cookie: no Access-Control-Allow-Credentials, so a
 * listed origin cannot act with a browser's session either.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ConfigError } from '../config/index.js';

/** The paths a listed origin may reach. */
const CORS_PATHS = ['/config/', '/api/v1/', '/client/', '/atom/', '/safety/'];
const METHODS = 'GET, POST, PUT, PATCH, DELETE';
const HEADERS = 'authorization, content-type, accept';
const MAX_AGE_S = '600';

/**
 * An allow-list from text: origins (`https://app.example.com`, `http://localhost:3000`) separated by
 * commas or spaces; `*` allows every origin. A value that is not an origin is a ConfigError.
 */
export function parseCorsOrigins(values: readonly string[], what: string): string[] {
  const origins: string[] = [];
  for (const value of values)
    for (const item of value.split(/[\s,]+/)) {
      if (item === '') continue;
      if (item === '*') {
        origins.push('*');
        continue;
      }
      let url: URL | undefined;
      try {
        url = new URL(item);
      } catch {
        url = undefined;
      }
      if (
        !url ||
        (url.protocol !== 'http:' && url.protocol !== 'https:') ||
        url.origin !== item.replace(/\/$/, '')
      )
        throw new ConfigError(
          `${what}: expected origins like https://app.example.com (scheme, host and port, no path) or *, got ${JSON.stringify(item)}`,
        );
      origins.push(url.origin);
    }
  return origins;
}

/** The allow-list of FLOWMARK_CORS_ORIGINS (empty when unset). */
export function corsOriginsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const text = env.FLOWMARK_CORS_ORIGINS;
  return text === undefined ? [] : parseCorsOrigins([text], 'FLOWMARK_CORS_ORIGINS');
}

/**
 * The onRequest hook: answers the preflight (OPTIONS with Access-Control-Request-Method) of a
 * listed origin with 204, refuses a preflight of another origin with 403, and marks the answers to
 * a listed origin's requests (Access-Control-Allow-Origin, Vary: Origin).
 */
export function corsHook(origins: readonly string[]) {
  const any = origins.includes('*');
  const allowed = new Set(origins);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const origin = request.headers.origin;
    const path = request.url.split('?')[0]!;
    if (origin === undefined || !CORS_PATHS.some((p) => path.startsWith(p))) return;
    const preflight =
      request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
    reply.header('vary', 'Origin');
    if (!any && !allowed.has(origin)) {
      if (!preflight) return; // the browser keeps the answer from the page
      await reply.code(403).send({
        status: 403,
        code: 'forbidden',
        message: `The origin ${origin} is not allowed (serve --cors-origin, FLOWMARK_CORS_ORIGINS).`,
      });
      return;
    }
    reply.header('access-control-allow-origin', origin);
    if (!preflight) return;
    await reply
      .code(204)
      .header('access-control-allow-methods', METHODS)
      .header('access-control-allow-headers', HEADERS)
      .header('access-control-max-age', MAX_AGE_S)
      .send();
  };
}
