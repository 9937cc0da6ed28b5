/**
 * Who is calling, and may they: an `onRequest` hook (before the body is read) finds the caller
 * from `Authorization: Bearer <token>` or the session cookie, then enforces the route's `access`
 * (config): `public` (anyone; credentials ignored), `optional` (anyone, but credentials sent must
 * be valid), `user` (default: a user of an account), `admin` (an administrator of the account).
 * Every route then acts in `request.caller.accountId` only.
 *
 * Cookie-authenticated writes from another origin are refused (`Origin` must match the host);
 * with SameSite=Lax cookies this closes cross-site request forgery.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, forbidden, unauthenticated } from '../errors.js';
import { secretHash } from './secrets.js';
import type { Caller } from '../hosts.js';
import type { ServerDeps } from '../deps.js';

export type Access = 'public' | 'optional' | 'user' | 'admin';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller, or null (set by the access hook). */
    caller: Caller | null;
  }
  interface FastifyContextConfig {
    /** Who may call the route (default `user`). */
    access?: Access;
  }
}

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function accessHook(deps: ServerDeps) {
  return async function access(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const url = request.routeOptions.url;
    // API routes need a user unless they say otherwise; the documentation pages are public.
    const required: Access =
      request.routeOptions.config?.access ?? (url?.startsWith('/docs') ? 'public' : 'user');
    // Unknown routes (404) and public ones need no caller.
    if (url === undefined || required === 'public') return;
    request.caller = await findCaller(request, deps, required === 'optional');
    if (required === 'optional') return;
    if (!request.caller) throw unauthenticated();
    if (required === 'admin' && !request.caller.user.isAdmin)
      throw forbidden(`Only an administrator of the account may call ${request.method} ${url}.`);
  };
}

/** The caller of a request, or null (no credentials, or an unknown or expired session). A bad token is an error. */
async function findCaller(
  request: FastifyRequest,
  deps: ServerDeps,
  optional: boolean,
): Promise<Caller | null> {
  const authorization = request.headers.authorization;
  const bearer = authorization === undefined ? null : /^Bearer +(\S+)$/i.exec(authorization);
  // On optional routes (composite APIs) another scheme (Basic …) is the script's business.
  if (authorization !== undefined && (bearer || !optional)) {
    const key = bearer ? `t:${secretHash(bearer[1]!)}` : '';
    let caller = bearer ? deps.callerCache.get(key) : undefined;
    if (!caller && bearer) {
      const owner = await deps.tokens.resolve(bearer[1]!);
      caller = owner && (await activeCaller(deps, owner.accountId, owner.userId, 'token'));
      if (caller) deps.callerCache.set(key, caller);
    }
    if (!caller) throw new ApiError(401, 'invalid-token', 'The API token is invalid, expired or revoked.');
    return caller;
  }
  const sessionId = request.cookies?.[deps.settings.cookieName];
  if (sessionId === undefined) return null;
  const key = `s:${secretHash(sessionId)}`;
  let caller = deps.callerCache.get(key);
  if (!caller) {
    const owner = await deps.sessions.resolve(sessionId);
    caller = owner && (await activeCaller(deps, owner.accountId, owner.userId, 'session'));
    if (!caller) return null;
    deps.callerCache.set(key, caller);
  }
  if (UNSAFE_METHODS.has(request.method) && !sameOrigin(request))
    throw forbidden('Cross-origin requests may not use the session cookie.');
  return caller;
}

/** The caller for a user id, unless the user is gone or blocked. */
export async function activeCaller(
  deps: ServerDeps,
  accountId: string,
  userId: number,
  via: Caller['via'],
): Promise<Caller | undefined> {
  const user = await deps.platform.directory.users.find(accountId, userId);
  if (!user || user.status !== 'active') return undefined;
  return { accountId, user: { id: user.id, login: user.login, isAdmin: user.isAdmin }, via };
}

function sameOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}

/** The caller of a route that requires one (the hook has already refused anonymous calls). */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw unauthenticated();
  return request.caller;
}
