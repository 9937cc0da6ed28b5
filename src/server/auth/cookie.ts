import type { FastifyReply } from 'fastify';
import type { ServerDeps } from '../deps.js';

/** Sets the session cookie: httpOnly, SameSite=Lax, Secure behind HTTPS, for the session's lifetime. */
export function setSessionCookie(reply: FastifyReply, deps: ServerDeps, sessionId: string): void {
  reply.setCookie(deps.settings.cookieName, sessionId, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: deps.settings.secureCookies,
    maxAge: Math.floor(deps.sessions.ttlMs / 1000),
  });
}
