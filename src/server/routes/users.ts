/**
 * Users of the caller's account. Everyone of the account may list and read users (without their
 * preferences); administrators create and change them; users may change their own name, email,
 * language, preferences and password (giving the current one). A plugin registered under
 * USERS_PREFIX (below /api/v1), its paths relative to it.
 */
import { Type } from 'typebox';
import type { User } from '../../platform/directory/index.js';
import { canSeePrivate, laneModeFor, userChangeRefusal } from '../../platform/index.js';
import { callerOf } from '../auth/access.js';
import { setSessionCookie } from '../auth/cookie.js';
import type { Api, ServerDeps } from '../deps.js';
import { ApiError, forbidden } from '../errors.js';
import { ListQuery, listPage } from '../listing.js';
import { IdParams, Lane, Mode, NewUser, Page, User as UserSchema, UserChanges } from '../schemas.js';

const USER_FIELDS = [
  'id',
  'login',
  'email',
  'name',
  'profile',
  'status',
  'isAdmin',
  'language',
  'createdAt',
  'updatedAt',
];
const LIST_BATCH = 1000;
/** Most users a list route reads to filter and order (larger accounts page with first/nb only). */
const MAX_LISTED_USERS = 50_000;

const UsersQuery = Type.Object({
  ...ListQuery.properties,
  search: Type.Optional(
    Type.String({
      maxLength: 255,
      description: 'users whose login, name or email contains this text (case-insensitive)',
    }),
  ),
});

/** Login, name or email contains the text, case-insensitively (a plain text, never a pattern). */
function matchesSearch(search: string): (user: User) => boolean {
  const text = search.trim().toLowerCase();
  return (user) =>
    [user.login, user.name, user.email ?? ''].some((value) => value.toLowerCase().includes(text));
}

/** A user as the API shows it: preferences only to the user and administrators. */
export function toUserBody(user: User, withPrivate: boolean) {
  const { accountId: _account, preferences, ...rest } = user;
  return withPrivate ? { ...rest, preferences } : rest;
}

/** The prefix the plugin is registered under (below /api/v1). */
export const USERS_PREFIX = '/users';

export async function userRoutes(app: Api, { deps }: { deps: ServerDeps }): Promise<void> {
  const { users } = deps.platform.directory;

  app.get(
    '',
    {
      schema: {
        tags: ['users'],
        summary:
          "The account's users (search: in login, name or email; filter/order by " +
          USER_FIELDS.join(', ') +
          ')',
        querystring: UsersQuery,
        response: { 200: Page(UserSchema) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const all: User[] = [];
      for (let first = 0; first < MAX_LISTED_USERS; first += LIST_BATCH) {
        const batch = await users.list(caller.accountId, { first, limit: LIST_BATCH });
        all.push(...batch);
        if (batch.length < LIST_BATCH) break;
      }
      const { search, ...listQuery } = request.query;
      const page = listPage(search ? all.filter(matchesSearch(search)) : all, listQuery, USER_FIELDS);
      return {
        ...page,
        items: page.items.map((u) => toUserBody(u, canSeePrivate(caller.user, u.id))),
      };
    },
  );

  app.post(
    '',
    {
      config: { access: 'admin' },
      schema: { tags: ['users'], summary: 'Create a user', body: NewUser, response: { 201: UserSchema } },
    },
    async (request, reply) => {
      const user = await users.create(callerOf(request).accountId, request.body);
      reply.code(201);
      return toUserBody(user, true);
    },
  );

  app.get(
    '/:ref',
    {
      schema: {
        tags: ['users'],
        summary: 'A user by id, login or email',
        params: Type.Object({ ref: Type.String({ minLength: 1, maxLength: 255 }) }),
        response: { 200: UserSchema },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const user = await users.require(caller.accountId, request.params.ref);
      return toUserBody(user, canSeePrivate(caller.user, user.id));
    },
  );

  app.patch(
    '/:id',
    {
      schema: {
        tags: ['users'],
        summary:
          'Change a user (administrators: any field; users: their own name, email, language, preferences, password)',
        params: IdParams,
        body: UserChanges,
        response: { 200: UserSchema },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const self = request.params.id === caller.user.id;
      const { currentPassword, ...changes } = request.body;
      const refusal = userChangeRefusal(caller.user, request.params.id, Object.keys(request.body));
      if (refusal) throw forbidden(refusal);
      if (self && (changes.isAdmin === false || changes.status === 'blocked'))
        throw new ApiError(
          409,
          'conflict',
          'Administrators cannot remove their own administrator right or block themselves.',
        );
      // administrators too: a stolen session must not lock the owner out (a lost password has
      // `flowmark users reset-password`, docs/server.md)
      if (self && changes.password !== undefined) {
        if (currentPassword === undefined)
          throw new ApiError(400, 'invalid', 'currentPassword: required to change your own password.');
        const ok = await users.verifyPassword(caller.accountId, caller.user.login, currentPassword);
        if (!ok) throw new ApiError(403, 'invalid-credentials', 'currentPassword: wrong password.');
      }
      const user = await users.update(caller.accountId, request.params.id, changes);
      if (changes.password !== undefined || changes.status === 'blocked')
        await deps.sessions.closeAllOf({ accountId: caller.accountId, userId: user.id });
      deps.callerCache.clear();
      if (changes.password !== undefined || changes.status === 'blocked') {
        if (self && caller.via === 'session') {
          const id = await deps.sessions.open({ accountId: caller.accountId, userId: user.id });
          setSessionCookie(reply, deps, id);
        }
      }
      return toUserBody(user, true);
    },
  );

  app.post(
    '/:ref/unblock',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['users'],
        summary: 'Unblock a user (unblock_user)',
        params: Type.Object({ ref: Type.String({ minLength: 1, maxLength: 255 }) }),
        response: { 200: UserSchema },
      },
    },
    async (request) => {
      const user = await users.unblock(callerOf(request).accountId, request.params.ref);
      deps.callerCache.clear();
      return toUserBody(user, true);
    },
  );

  app.get(
    '/:id/lanes',
    {
      schema: {
        tags: ['users', 'lanes'],
        summary: "The lanes a user is in, in a mode's lane configuration (default LIVE)",
        params: IdParams,
        querystring: Type.Object({ mode: Type.Optional(Mode) }),
        response: { 200: Type.Object({ items: Type.Array(Lane) }) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const user = await users.require(caller.accountId, request.params.id);
      const lanes = await deps.platform.directory.lanes.lanesOf(
        caller.accountId,
        user.id,
        laneModeFor(request.query.mode ?? 'LIVE'),
      );
      return { items: lanes };
    },
  );
}
