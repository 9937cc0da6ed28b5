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
import { sessionCookie } from './cookie.js';
import { secretHash } from './secrets.js';
import type { Caller } from '../hosts.js';
import type { ServerDeps } from '../deps.js';
import { asError } from '../../errors/index.js';
import { firstInCells } from '../../store/index.js';

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

/**
 * The hook of one route, whose access is known when it is registered (app.ts adds it to every
 * route that is not public, in its onRoute hook): the caller is found at once when nothing must be
 * read from the store (no credentials, or a credential remembered by the caller cache).
 */
export function accessHook(deps: ServerDeps, required: Exclude<Access, 'public'>, url: string) {
  const optional = required === 'optional';
  const admit = (request: FastifyRequest, caller: Caller | null): void => {
    request.caller = caller;
    if (optional) return;
    if (!caller) throw unauthenticated();
    if (required === 'admin' && !caller.user.isAdmin)
      throw forbidden(`Only an administrator of the account may call ${request.method} ${url}.`);
  };
  const access = function access(
    request: FastifyRequest,
    _reply: FastifyReply,
    done: (error?: Error) => void,
  ): void {
    let found: Caller | null | Promise<Caller | null>;
    try {
      found = findCaller(request, deps, optional);
      if (!(found instanceof Promise)) admit(request, found);
    } catch (e) {
      done(asError(e));
      return;
    }
    if (found instanceof Promise)
      found.then(
        (caller) => {
          try {
            admit(request, caller);
          } catch (e) {
            done(asError(e));
            return;
          }
          done();
        },
        (e: Error) => done(e),
      );
    else done();
  };
  ACCESS_HOOKS.add(access);
  return access;
}

/** The hooks accessHook made (a route copied with its hooks, as Fastify's HEAD routes are, keeps its own). */
const ACCESS_HOOKS = new WeakSet<object>();

/** Whether a route's onRequest hooks have an access hook already. */
export function hasAccessHook(hooks: unknown): boolean {
  return Array.isArray(hooks)
    ? hooks.some((h) => typeof h === 'function' && ACCESS_HOOKS.has(h))
    : typeof hooks === 'function' && ACCESS_HOOKS.has(hooks);
}

/** The access a route requires: its `access` config, else public for the documentation pages, else `user`. */
export function routeAccess(url: string, config: { access?: Access } | undefined): Access {
  return config?.access ?? (url.startsWith('/docs') ? 'public' : 'user');
}

/**
 * The caller of a request, or null (no credentials, or an unknown or expired session). A bad token
 * is an error. At once when the caller cache knows the credential (or there is none), else a promise.
 */
function findCaller(
  request: FastifyRequest,
  deps: ServerDeps,
  optional: boolean,
): Caller | null | Promise<Caller | null> {
  const authorization = request.headers.authorization;
  const bearer = authorization === undefined ? null : /^Bearer +(\S+)$/i.exec(authorization);
  // On optional routes (composite APIs) another scheme (Basic …) is the script's business.
  if (authorization !== undefined && (bearer || !optional)) {
    if (!bearer) throw invalidToken();
    const key = `t:${secretHash(bearer[1]!)}`;
    const known = deps.callerCache.get(key);
    if (known) return known;
    return tokenCaller(deps, bearer[1]!, key);
  }
  const sessionId = sessionCookie(request, deps);
  if (sessionId === undefined) return null;
  const key = `s:${secretHash(sessionId)}`;
  const known = deps.callerCache.get(key);
  if (known) return sameOriginCaller(request, known);
  return sessionCaller(deps, sessionId, key).then((caller) => caller && sameOriginCaller(request, caller));
}

// With cells, a credential is looked up in each cell until one knows it (its account's).
async function tokenCaller(deps: ServerDeps, token: string, key: string): Promise<Caller> {
  const caller = (
    await firstInCells(deps.store, async () => {
      const owner = await deps.tokens.resolve(token);
      return owner && (await activeCaller(deps, owner.accountId, owner.userId, 'token'));
    })
  )?.value;
  if (!caller) throw invalidToken();
  deps.callerCache.set(key, caller);
  return caller;
}

async function sessionCaller(deps: ServerDeps, sessionId: string, key: string): Promise<Caller | null> {
  const caller = (
    await firstInCells(deps.store, async () => {
      const owner = await deps.sessions.resolve(sessionId);
      return owner && (await activeCaller(deps, owner.accountId, owner.userId, 'session'));
    })
  )?.value;
  if (!caller) return null;
  deps.callerCache.set(key, caller);
  return caller;
}

function sameOriginCaller(request: FastifyRequest, caller: Caller): Caller {
  if (UNSAFE_METHODS.has(request.method) && !sameOrigin(request))
    throw forbidden('Cross-origin requests may not use the session cookie.');
  return caller;
}

function invalidToken(): ApiError {
  return new ApiError(401, 'invalid-token', 'The API token is invalid, expired or revoked.');
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
