/**
 * Request functions over persistent state: next_value, lane membership, vaults, OAuth2 tokens.
 */
import { laneModeFor } from '../../platform/model.js';
import { MESSAGES } from '../../platform/errors.js';
import { RIGHTS_MESSAGES } from '../../platform/rights.js';
import { budgetOf, type ExecutionContext } from '../context.js';
import { argumentError, FunctionError } from '../errors.js';
import { defineFunction, type FunctionSpec } from '../spec.js';
import { requireRight, requireUser } from '../rights.js';
import { platformCall, platformOf } from './calls.js';

/** The project of the current request (vaults are per project), or `fn: Project not found.` */
function currentProject(fn: string, ctx: ExecutionContext): number {
  if (ctx.projectId === undefined) throw new FunctionError(fn, MESSAGES.projectNotFound);
  return ctx.projectId;
}

function laneMembership(name: 'P_add_user_to_lane' | 'P_remove_user_from_lane', add: boolean): FunctionSpec {
  return defineFunction({
    name,
    group: 'Request',
    rights: 'argument',
    doc:
      `${add ? 'Adds a user to' : 'Removes a user from'} a runtime lane and returns the ids of the lane's users. ` +
      "`userId` is a user id or login. The lane configuration changed is the mode's: LIVE from LIVE, " +
      'ACCEPTANCE from ACCEPTANCE; in TEST nothing changes (the LIVE users are returned). Administrators, and ' +
      "designers of a project using the lane's pool, may. Errors: `Lane not found.`, `Lane <id> is not a runtime " +
      'lane.`, `Unable to retrieve user.`, and ' +
      '`Counter already being modified, cannot increment it.` when a concurrent change cannot be resolved.',
    returns: 'array',
    forms: [
      {
        params: [
          { name: 'laneId', type: 'integer' },
          { name: 'userId', type: ['integer', 'string'] },
        ],
        async impl(ctx, [laneId, userId]) {
          const platform = platformOf(name, ctx);
          const actor = ctx.designedIn === undefined ? requireUser(name, ctx) : ctx.user;
          return platformCall(name, async () => {
            const lanes = platform.directory.lanes;
            const lane = await lanes.require(ctx.accountId, laneId);
            if (!lane.runtime) throw new FunctionError(name, RIGHTS_MESSAGES.laneNotRuntime(lane.id));
            await requireRight(
              name,
              platform.rights.canWriteLaneMembership(ctx.accountId, actor, lane, ctx.designedIn),
              RIGHTS_MESSAGES.laneMembership(lane.id),
            );
            const user = await platform.directory.users.require(ctx.accountId, userId);
            const mode = laneModeFor(ctx.mode);
            if (ctx.mode === 'TEST') return lanes.memberIds(ctx.accountId, lane.id, mode);
            return add
              ? lanes.addMember(ctx.accountId, laneId, mode, user.id)
              : lanes.removeMember(ctx.accountId, laneId, mode, user.id);
          });
        },
      },
    ],
  });
}

export const stateFunctions: FunctionSpec[] = [
  defineFunction({
    name: 'next_value',
    group: 'Request',
    rights: 'none',
    doc:
      'Increments a named counter of the account and returns its new value (a counter is created at 0, so the ' +
      'first value is 1). Atomic across every process sharing the database: concurrent callers get distinct, ' +
      'consecutive values. Error `Counter already being modified, cannot increment it.` only when a conflict ' +
      'persists after retries.',
    returns: 'integer',
    forms: [
      {
        params: [{ name: 'name', type: 'string' }],
        async impl(ctx, [name], _call, fn) {
          const platform = platformOf(fn, ctx);
          if (name === '' || name.length > 255)
            throw argumentError(fn, 1, 'name', 'must be 1 to 255 characters');
          // Its retries never outlast the evaluation (docs/server.md, Limits).
          const withinMs = budgetOf(ctx).remainingMs();
          return platformCall(fn, () => platform.counters.next(ctx.accountId, name, { withinMs }));
        },
      },
    ],
  }),
  laneMembership('P_add_user_to_lane', true),
  laneMembership('P_remove_user_from_lane', false),
  defineFunction({
    name: 'P_load_project_vault',
    group: 'Request',
    rights: 'none',
    doc: "The vault of the current request's project in the current mode; an empty object when none was saved.",
    returns: 'object',
    forms: [
      {
        params: [],
        async impl(ctx, _args, _call, fn) {
          const platform = platformOf(fn, ctx);
          const projectId = currentProject(fn, ctx);
          return (await platform.vaults.load(ctx.accountId, projectId, ctx.mode)) ?? {};
        },
      },
    ],
  }),
  defineFunction({
    name: 'P_save_project_vault',
    group: 'Request',
    rights: 'design',
    doc: "Creates or replaces the vault of the current request's project in the current mode; returns it.",
    returns: 'object',
    forms: [
      {
        params: [{ name: 'vault', type: 'object' }],
        async impl(ctx, [vault], _call, fn) {
          const platform = platformOf(fn, ctx);
          const projectId = currentProject(fn, ctx);
          return platformCall(fn, () => platform.vaults.save(ctx.accountId, projectId, ctx.mode, vault));
        },
      },
    ],
  }),
  defineFunction({
    name: 'P_delete_project_vault',
    group: 'Request',
    rights: 'design',
    doc: "Deletes the vault of the current request's project in the current mode: true if one existed, false otherwise.",
    returns: 'boolean',
    forms: [
      {
        params: [],
        async impl(ctx, _args, _call, fn) {
          const platform = platformOf(fn, ctx);
          const projectId = currentProject(fn, ctx);
          return platform.vaults.delete(ctx.accountId, projectId, ctx.mode);
        },
      },
    ],
  }),
  defineFunction({
    name: 'P_get_oauth2_token',
    group: 'Request',
    rights: 'none',
    doc:
      'The OAuth2 token saved for a service in the current mode (at least access_token), e.g. ' +
      "`${P_get_oauth2_token('drive').access_token}`; an empty object when none was saved.",
    returns: 'object',
    forms: [
      {
        params: [{ name: 'service', type: 'string' }],
        async impl(ctx, [service], _call, fn) {
          const platform = platformOf(fn, ctx);
          return (await platform.oauth2.get(ctx.accountId, service, ctx.mode)) ?? {};
        },
      },
    ],
  }),
  defineFunction({
    name: 'P_save_oauth2_token',
    group: 'Request',
    rights: 'user',
    doc:
      'Creates or replaces the OAuth2 token of a service in the current mode and returns it. The token must ' +
      'contain access_token; refresh_token, expires_in and any other field are kept.',
    returns: 'object',
    forms: [
      {
        params: [
          { name: 'service', type: 'string' },
          { name: 'token', type: 'object' },
        ],
        async impl(ctx, [service, token], _call, fn) {
          const platform = platformOf(fn, ctx);
          if (service.trim() === '' || service.length > 255)
            throw argumentError(fn, 1, 'service', 'must be 1 to 255 characters');
          const accessToken = token.access_token;
          if (typeof accessToken !== 'string' || accessToken === '')
            throw argumentError(fn, 2, 'token', 'must contain access_token (a non-empty string)');
          return platformCall(fn, () => platform.oauth2.save(ctx.accountId, service, ctx.mode, token));
        },
      },
    ],
  }),
];
