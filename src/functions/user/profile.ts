/**
 * User functions about one user's data: get_user_data, get_preferences, save_preferences,
 * get_user_metadata, save_user_metadata, P_change_preferences, P_change_metadata.
 */
import type { Platform, User } from '../../platform/index.js';
import { canSeePrivate, RIGHTS_MESSAGES } from '../../platform/rights.js';
import { editInput } from '../../platform/directory/json-path.js';
import type { ExecutionContext } from '../context.js';

import { defineFunction, type FunctionSpec } from '../spec.js';
import { platformCall, platformOf } from '../request/calls.js';
import { requireRight } from '../rights.js';
import { simplifiedUser } from '../request/descriptors.js';
import { targetUser } from './resolve.js';

async function saveDocument(
  fn: string,
  ctx: ExecutionContext,
  login: string | undefined,
  which: 'preferences' | 'metadata',
  value: Record<string, unknown>,
): Promise<string> {
  const platform = platformOf(fn, ctx);
  const user = await targetUser(fn, ctx, platform, login);
  await platformCall(fn, () => platform.directory.users.update(ctx.accountId, user.id, { [which]: value }));
  return user.login;
}

async function changeDocument(
  fn: string,
  ctx: ExecutionContext,
  platform: Platform,
  id: string,
  which: 'preferences' | 'metadata',
  path: string,
  input: unknown,
): Promise<Record<string, unknown>> {
  const user = await targetUser(fn, ctx, platform, id);
  if (which === 'preferences') await ownPreferences(fn, ctx, user);
  return platformCall(fn, async () => {
    const value = editInput(input);
    return platform.directory.users.editDocument(ctx.accountId, user.id, which, path, value);
  });
}

/** Another user's preferences: administrators only (the user's own: anyone connected). */
function ownPreferences(fn: string, ctx: ExecutionContext, user: User): Promise<void> {
  return requireRight(fn, canSeePrivate(ctx.user, user.id), RIGHTS_MESSAGES.otherPreferences);
}

function changeFunction(
  name: 'P_change_metadata' | 'P_change_preferences',
  which: 'metadata' | 'preferences',
): FunctionSpec {
  return defineFunction({
    name,
    group: 'User',
    rights: which === 'metadata' ? 'admin' : 'self-or-admin',
    doc:
      `Sets one value inside a user's ${which === 'metadata' ? 'public metadata (administrators only)' : "preferences (another user's: administrators only)"} and returns the whole ` +
      'object. `id` is a login or user id; `path` is dot-separated, numeric segments index arrays, missing levels are ' +
      'created (an empty path replaces the whole object). `input` is the new value: a hash, sequence, number, boolean, ' +
      'or text (read as JSON when it is JSON). Errors: `Expected value` (empty input), `Malformed Object` (input text ' +
      'that starts like JSON but does not parse, or an empty path segment), `CastClassException` (a path through a ' +
      'value of the wrong kind), `Unable to retrieve user.`',
    returns: 'object',
    forms: [
      {
        params: [
          { name: 'id', type: 'string' },
          { name: 'path', type: 'string' },
          { name: 'input', type: 'any', optional: true },
        ],
        impl(ctx, [id, path, input]) {
          return changeDocument(name, ctx, platformOf(name, ctx), id, which, path, input);
        },
      },
    ],
  });
}

export const profileFunctions: FunctionSpec[] = [
  defineFunction({
    name: 'get_user_data',
    group: 'User',
    rights: 'user',
    doc:
      'The descriptor {id, login, name, email, profile, status, i18n} of a user (login, email or id); `i18n` is ' +
      "the user's language. Error `Unable to retrieve user.`",
    returns: 'object',
    forms: [
      {
        params: [{ name: 'login', type: 'string' }],
        async impl(ctx, [login], _call, fn) {
          const platform = platformOf(fn, ctx);
          return simplifiedUser(await targetUser(fn, ctx, platform, login));
        },
      },
    ],
  }),
  defineFunction({
    name: 'get_preferences',
    group: 'User',
    rights: 'self-or-admin',
    doc:
      "A user's preferences (login; default the connected user); another user's only for an administrator of the " +
      'account. Error `Unable to retrieve user.`',
    returns: 'object',
    forms: [
      {
        params: [{ name: 'login', type: 'string', optional: true }],
        async impl(ctx, [login], _call, fn) {
          const platform = platformOf(fn, ctx);
          const user = await targetUser(fn, ctx, platform, login);
          await ownPreferences(fn, ctx, user);
          return user.preferences;
        },
      },
    ],
  }),
  defineFunction({
    name: 'save_preferences',
    group: 'User',
    rights: 'user',
    doc: "Replaces the connected user's preferences; returns the user's login (the platform documents a boolean).",
    returns: 'string',
    forms: [
      {
        params: [{ name: 'prefs', type: 'object' }],
        impl(ctx, [prefs], _call, fn) {
          return saveDocument(fn, ctx, undefined, 'preferences', prefs);
        },
      },
    ],
  }),
  defineFunction({
    name: 'get_user_metadata',
    group: 'User',
    rights: 'user',
    doc: "A user's public metadata (login; default the connected user). Error `Unable to retrieve user.`",
    returns: 'object',
    forms: [
      {
        params: [{ name: 'login', type: 'string', optional: true }],
        async impl(ctx, [login], _call, fn) {
          const platform = platformOf(fn, ctx);
          return (await targetUser(fn, ctx, platform, login)).metadata;
        },
      },
    ],
  }),
  defineFunction({
    name: 'save_user_metadata',
    group: 'User',
    rights: 'admin',
    doc:
      "Administrators only (lane rules read metadata): replaces a user's public metadata (login; default the " +
      "connected user); returns the user's login (the platform " +
      'documents a boolean). Error `Unable to retrieve user.`',
    returns: 'string',
    forms: [
      {
        params: [{ name: 'metadata', type: 'object' }],
        impl(ctx, [metadata], _call, fn) {
          return saveDocument(fn, ctx, undefined, 'metadata', metadata);
        },
      },
      {
        params: [
          { name: 'login', type: 'string' },
          { name: 'metadata', type: 'object' },
        ],
        impl(ctx, [login, metadata], _call, fn) {
          return saveDocument(fn, ctx, login, 'metadata', metadata);
        },
      },
    ],
  }),
  changeFunction('P_change_metadata', 'metadata'),
  changeFunction('P_change_preferences', 'preferences'),
];
