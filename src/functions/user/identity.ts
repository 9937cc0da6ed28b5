/** impersonate and unblock_user. */
import { MESSAGES } from '../../platform/errors.js';
import { FunctionError } from '../errors.js';
import { defineFunction, type FunctionSpec } from '../spec.js';
import { platformCall, platformOf } from '../request/calls.js';
import { refreshUser } from '../request/evaluation.js';
import { targetUser } from './resolve.js';

export const identityFunctions: FunctionSpec[] = [
  defineFunction({
    name: 'impersonate',
    group: 'User',
    rights: 'admin',
    doc:
      'Makes the rest of the script run as another user of the account (login, email or id): P_user and every ' +
      'function defaulting to the connected user follow. Only an administrator of the account may; a blocked user ' +
      'cannot be impersonated. Returns the impersonated login. Errors: `Impersonification is not allowed for user.`, ' +
      '`Unable to retrieve user.`',
    returns: 'string',
    adminOnlyMessage: MESSAGES.impersonationRefused,
    forms: [
      {
        params: [{ name: 'login', type: 'string' }],
        async impl(ctx, [login], _call, fn) {
          const platform = platformOf(fn, ctx);
          const user = await targetUser(fn, ctx, platform, login);
          if (user.status === 'blocked') throw new FunctionError(fn, MESSAGES.impersonationRefused);
          ctx.user = { id: user.id, login: user.login, isAdmin: user.isAdmin };
          await refreshUser(ctx, platform);
          return user.login;
        },
      },
    ],
  }),
  defineFunction({
    name: 'unblock_user',
    group: 'User',
    rights: 'admin',
    doc:
      'Makes a blocked user of the account active again (an active one stays active); returns the login (the platform ' +
      'documents a boolean). Error `Unable to retrieve user.`',
    returns: 'string',
    forms: [
      {
        params: [{ name: 'login', type: 'string' }],
        async impl(ctx, [login], _call, fn) {
          const platform = platformOf(fn, ctx);
          return platformCall(fn, async () => {
            return (await platform.directory.users.unblock(ctx.accountId, login)).login;
          });
        },
      },
    ],
  }),
];
