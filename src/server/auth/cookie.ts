/**
 * The session cookie, read and written here only: @fastify/cookie is registered without its
 * hooks (app.ts), so a request that sends no cookie (an API token, a public composite API) pays
 * nothing for cookies, and the header is parsed only by what needs the session.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServerDeps } from '../deps.js';

/** The session id the request's Cookie header carries, if any. */
export function sessionCookie(request: FastifyRequest, deps: ServerDeps): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined || header === '') return undefined;
  return request.server.parseCookie(header)[deps.settings.cookieName];
}

/** Sets the session cookie: httpOnly, SameSite=Lax, Secure behind HTTPS, for the session's lifetime. */
export function setSessionCookie(reply: FastifyReply, deps: ServerDeps, sessionId: string): void {
  reply.header(
    'set-cookie',
    reply.server.serializeCookie(deps.settings.cookieName, sessionId, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: deps.settings.secureCookies,
      maxAge: Math.floor(deps.sessions.ttlMs / 1000),
    }),
  );
}

/** Clears the session cookie in the browser. */
export function clearSessionCookie(reply: FastifyReply, deps: ServerDeps): void {
  reply.header(
    'set-cookie',
    reply.server.serializeCookie(deps.settings.cookieName, '', {
      path: '/',
      sameSite: 'lax',
      expires: new Date(0),
      maxAge: 0,
    }),
  );
}
