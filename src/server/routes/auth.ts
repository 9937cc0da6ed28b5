/**
 * Login and logout (session cookie), the caller's identity, and API tokens: two plugins, each
 * registered under its prefix (below /api/v1).
 */
import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hashPassword, verifyPassword } from '../../platform/directory/index.js';
import { callerOf } from '../auth/access.js';
import { clearSessionCookie, sessionCookie, setSessionCookie } from '../auth/cookie.js';
import { clientKey } from '../auth/throttle.js';
import { newSecret } from '../auth/secrets.js';
import { ApiError, notFound } from '../errors.js';
import type { Api, ServerDeps } from '../deps.js';
import { Account, ApiTokenInfo, User } from '../schemas.js';
import { toUserBody } from './users.js';
import { eachCell } from '../../store/index.js';

const LoginBody = Type.Object(
  {
    account: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    login: Type.String({ minLength: 1, maxLength: 255 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: false },
);

const Identity = Type.Object({ account: Account, user: User, via: Type.String() });
const INVALID_LOGIN = 'Invalid account, login or password.';
const DAY_MS = 24 * 60 * 60 * 1000;

/** The prefixes the plugins are registered under (below /api/v1). */
export const AUTH_PREFIX = '/auth';
export const TOKENS_PREFIX = '/tokens';

/** Login, logout and the caller's identity: a plugin under AUTH_PREFIX, its paths relative to it. */
export async function authRoutes(app: Api, { deps }: { deps: ServerDeps }): Promise<void> {
  const { platform, sessions, throttle, settings } = deps;

  app.post(
    '/login',
    {
      config: { access: 'public' },
      schema: {
        tags: ['auth'],
        summary: 'Log in with a password: sets the session cookie',
        body: LoginBody,
        response: { 200: Identity },
      },
    },
    async (request, reply) => {
      const accountId = request.body.account ?? settings.defaultAccountId;
      if (accountId === undefined)
        throw new ApiError(400, 'invalid', 'account: required (this server has no default account)');
      // Keyed by client address too: an anonymous client guessing a login must not lock its real
      // user out (docs/server.md); request.ip honours --trust-proxy.
      const client = clientKey(request.ip);
      const loginKey = `${accountId}\n${request.body.login}\n${client}`;
      const wait = Math.max(throttle.login.retryAfter(loginKey), throttle.address.retryAfter(client));
      if (wait > 0) {
        reply.header('retry-after', String(Math.ceil(wait / 1000)));
        throw new ApiError(429, 'too-many-attempts', 'Too many failed logins: try again later.');
      }
      const user = await checkPassword(deps, accountId, request.body.login, request.body.password);
      if (!user) {
        throttle.login.fail(loginKey);
        throttle.address.fail(client);
        throw new ApiError(401, 'invalid-credentials', INVALID_LOGIN);
      }
      if (user.status !== 'active') throw new ApiError(403, 'blocked', 'This user is blocked.');
      throttle.login.succeed(loginKey);
      // A new session id at every login; the one this browser held before ends.
      const previous = sessionCookie(request, deps);
      if (previous !== undefined) {
        await eachCell(() => sessions.close(previous));
        deps.callerCache.clear();
      }
      const sessionId = await sessions.open({ accountId, userId: user.id });
      setSessionCookie(reply, deps, sessionId);
      const account = await platform.accounts.require(accountId);
      return { account, user: toUserBody(user, true), via: 'session' };
    },
  );

  app.post(
    '/logout',
    {
      config: { access: 'public' },
      schema: {
        tags: ['auth'],
        summary: 'End the session and clear its cookie',
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => logout(request, reply, deps),
  );

  app.get(
    '/me',
    { schema: { tags: ['auth'], summary: 'Who is calling', response: { 200: Identity } } },
    async (request) => {
      const caller = callerOf(request);
      const user = await platform.directory.users.require(caller.accountId, caller.user.id);
      const account = await platform.accounts.require(caller.accountId);
      return { account, user: toUserBody(user, true), via: caller.via };
    },
  );
}

/** API tokens: a plugin under TOKENS_PREFIX, its paths relative to it. */
export async function tokenRoutes(app: Api, { deps }: { deps: ServerDeps }): Promise<void> {
  const { tokens } = deps;

  app.get(
    '',
    {
      schema: {
        tags: ['auth'],
        summary: "The caller's API tokens (an administrator: ?all=true for the account's)",
        querystring: Type.Object({ all: Type.Optional(Type.Boolean()) }),
        response: { 200: Type.Object({ items: Type.Array(ApiTokenInfo) }) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const all = request.query.all === true;
      if (all && !caller.user.isAdmin)
        throw new ApiError(
          403,
          'forbidden',
          "Only an administrator of the account may list every user's tokens.",
        );
      return { items: await tokens.list(caller.accountId, all ? undefined : caller.user.id) };
    },
  );

  app.post(
    '',
    {
      schema: {
        tags: ['auth'],
        summary: 'Create an API token for the caller; the token is shown only in this answer',
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 100 }),
            expiresInDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
          },
          { additionalProperties: false },
        ),
        response: { 201: Type.Object({ token: Type.String(), info: ApiTokenInfo }) },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const days = request.body.expiresInDays;
      const created = await tokens.create(
        { accountId: caller.accountId, userId: caller.user.id },
        { name: request.body.name, expiresAt: days === undefined ? null : deps.clock() + days * DAY_MS },
      );
      reply.code(201);
      return created;
    },
  );

  app.delete(
    '/:id',
    {
      schema: {
        tags: ['auth'],
        summary: 'Revoke an API token (its owner, or an administrator of the account)',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const token = await tokens.find(caller.accountId, request.params.id);
      if (!token || (token.userId !== caller.user.id && !caller.user.isAdmin))
        throw notFound('Token not found.');
      await tokens.revoke(caller.accountId, token.id);
      deps.callerCache.clear();
      reply.code(204);
    },
  );
}

let dummyHash: Promise<string> | undefined;

/**
 * The user whose password this is, or undefined. An unknown account or login costs the same
 * scrypt work as a wrong password, so timing does not tell which logins exist.
 */
async function checkPassword(deps: ServerDeps, accountId: string, login: string, password: string) {
  const { users } = deps.platform.directory;
  const known = await users.find(accountId, login);
  if (!known || known.login !== login) {
    await verifyPassword(password, await (dummyHash ??= hashPassword(newSecret())));
    return undefined;
  }
  return users.verifyPassword(accountId, login, password);
}

async function logout(request: FastifyRequest, reply: FastifyReply, deps: ServerDeps): Promise<void> {
  const id = sessionCookie(request, deps);
  if (id !== undefined) await eachCell(() => deps.sessions.close(id)); // its cell is not known: each
  deps.callerCache.clear();
  clearSessionCookie(reply, deps);
  reply.code(204);
}
