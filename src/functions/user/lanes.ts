/** User functions about lanes: get_lanes, get_lane_users, get_lane_job_number, has_right, is_user_in_lane, get_manager. */
import { laneModeFor } from '../../platform/model.js';
import { MAX_PAGE_SIZE } from '../../platform/directory/lanes.js';
import { MESSAGES } from '../../platform/errors.js';
import { StringBoolean } from '../template-types.js';
import type { ExecutionContext } from '../context.js';
import { argumentError, FunctionError } from '../errors.js';
import { defineFunction, type FunctionSpec } from '../spec.js';
import { platformCall, platformOf } from '../request/calls.js';
import { userDescriptor } from '../request/descriptors.js';
import { targetUser } from './resolve.js';

const MODE_RULE =
  'From LIVE or TEST the LIVE lane configuration is used, from ACCEPTANCE the ACCEPTANCE one.';

/** has_right / is_user_in_lane: is a user (by ref, or the connected one) in one of the lanes, in the mode's configuration? */
async function inLanes(
  fn: string,
  ctx: ExecutionContext,
  login: string | undefined,
  laneIds: number[],
): Promise<boolean> {
  const platform = platformOf(fn, ctx);
  // Nobody connected: false, also for a user named by login (anonymous callers learn nothing).
  if (!ctx.user) return false;
  let userId: number;
  if (login === undefined) {
    userId = ctx.user.id;
  } else {
    const user = await platform.directory.users.find(ctx.accountId, login);
    if (!user) return false;
    userId = user.id;
  }
  return platform.directory.lanes.isInAnyLane(ctx.accountId, userId, laneIds, laneModeFor(ctx.mode));
}

/**
 * has_right: a string+boolean (docs/platform.md, "has_right"): scripts test it with `<#if>` and
 * compare it with 'true'. An empty lane id answers false; other text must be an integer.
 */
async function hasRight(
  ctx: ExecutionContext,
  login: string | undefined,
  laneId: number | string,
  index: number,
): Promise<StringBoolean> {
  if (typeof laneId === 'string') {
    if (laneId.trim() === '') return new StringBoolean(false);
    const id = /^\s*[+-]?\d+\s*$/.test(laneId) ? Number(laneId) : NaN;
    if (!Number.isSafeInteger(id))
      throw argumentError(
        'has_right',
        index,
        'laneId',
        `expected an integer, got the string ${JSON.stringify(laneId)}`,
      );
    laneId = id;
  }
  return new StringBoolean(await inLanes('has_right', ctx, login, [laneId]));
}

export const laneFunctions: FunctionSpec[] = [
  defineFunction({
    name: 'get_lanes',
    group: 'User',
    rights: 'user',
    doc:
      'The lanes a user (login or email; default the connected user) belongs to: an array of {id, name, pool} ' +
      `(pool = the pool id), by lane id. ${MODE_RULE} Error \`Unable to retrieve user.\``,
    returns: 'array',
    flags: { webInterface: true },
    forms: [
      {
        params: [{ name: 'login', type: 'string', optional: true }],
        async impl(ctx, [login], _call, fn) {
          const platform = platformOf(fn, ctx);
          const user = await targetUser(fn, ctx, platform, login);
          const lanes = await platform.directory.lanes.lanesOf(ctx.accountId, user.id, laneModeFor(ctx.mode));
          return lanes.map((l) => ({ id: l.id, name: l.name, pool: l.poolId }));
        },
      },
    ],
  }),
  defineFunction({
    name: 'get_lane_users',
    group: 'User',
    rights: 'user',
    doc:
      'One page of the users of a lane of a pool, by user id: {id, login, name, email, profile, status} each. ' +
      `\`pageSize\` 1 to ${MAX_PAGE_SIZE} (default 500), \`first\` the index of the first user (default 0). ${MODE_RULE} ` +
      'Error `Lane not found.` when the lane is not in the pool.',
    returns: 'array',
    forms: [
      {
        params: [
          { name: 'poolId', type: 'integer' },
          { name: 'laneId', type: 'integer' },
          { name: 'pageSize', type: 'integer', optional: true, default: 500 },
          { name: 'first', type: 'integer', optional: true, default: 0 },
        ],
        async impl(ctx, [poolId, laneId, pageSize, first], _call, fn) {
          const platform = platformOf(fn, ctx);
          if (pageSize < 1 || pageSize > MAX_PAGE_SIZE)
            throw argumentError(fn, 3, 'pageSize', `must be from 1 to ${MAX_PAGE_SIZE}, got ${pageSize}`);
          if (first < 0) throw argumentError(fn, 4, 'first', `must not be negative, got ${first}`);
          return platformCall(fn, async () => {
            const lane = await platform.directory.lanes.require(ctx.accountId, laneId);
            if (lane.poolId !== poolId) throw new FunctionError(fn, MESSAGES.laneNotFound);
            const users = await platform.directory.lanes.members(
              ctx.accountId,
              lane.id,
              laneModeFor(ctx.mode),
              {
                first: first,
                limit: pageSize,
              },
            );
            return users.map(userDescriptor);
          });
        },
      },
    ],
  }),
  defineFunction({
    name: 'get_lane_job_number',
    group: 'User',
    rights: 'user',
    doc:
      "The number of pending recomputations of a lane's users (lane rules); 0 when its membership is up to date. " +
      'Error `Lane not found.`',
    returns: 'integer',
    forms: [
      {
        params: [{ name: 'laneId', type: 'integer' }],
        async impl(ctx, [laneId], _call, fn) {
          const platform = platformOf(fn, ctx);
          return platformCall(fn, async () => {
            await platform.directory.lanes.require(ctx.accountId, laneId);
            return platform.directory.jobs.pending(ctx.accountId, laneId);
          });
        },
      },
    ],
  }),
  defineFunction({
    name: 'has_right',
    group: 'User',
    rights: 'none',
    doc:
      'True when a user (login; default the connected user) belongs to the lane. False when nobody is connected, ' +
      `the user is unknown or not in the lane, or the lane id is empty. ${MODE_RULE} The result is a string and a ` +
      "boolean at once (scripts write both `<#if has_right(id)>` and `has_right(id) == 'true'`); it prints true/false.",
    returns: 'boolean',
    forms: [
      {
        params: [{ name: 'laneId', type: ['integer', 'string'] }],
        impl(ctx, [laneId]) {
          return hasRight(ctx, undefined, laneId, 1);
        },
      },
      {
        params: [
          { name: 'login', type: 'string' },
          { name: 'laneId', type: ['integer', 'string'] },
        ],
        impl(ctx, [login, laneId]) {
          return hasRight(ctx, login, laneId, 2);
        },
      },
    ],
  }),
  defineFunction({
    name: 'is_user_in_lane',
    group: 'User',
    rights: 'none',
    doc:
      `True when the connected user belongs to at least one of the lanes (false when nobody is connected). ${MODE_RULE} ` +
      'Like has_right, the result is a string and a boolean at once (`<#if is_user_in_lane([id])>` and ' +
      "`is_user_in_lane([id]) == 'true'`); it prints true/false.",
    returns: 'boolean',
    forms: [
      {
        params: [{ name: 'lanes', type: 'array' }],
        async impl(ctx, [lanes], _call, fn) {
          const ids = lanes.map((v, i) => {
            const n = typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v;
            if (typeof n !== 'number' || !Number.isSafeInteger(n))
              throw argumentError(fn, 1, 'lanes', `element ${i} is not a lane id: ${JSON.stringify(v)}`);
            return n;
          });
          return new StringBoolean(await inLanes(fn, ctx, undefined, ids));
        },
      },
    ],
  }),
  defineFunction({
    name: 'get_manager',
    group: 'User',
    rights: 'user',
    doc:
      "The login of a user's manager at a level (1 = direct manager, 2 = the manager's manager …), searched only in " +
      'organisation charts (pools flagged as organisations), in the LIVE lane configuration. Error `No manager found.`',
    returns: 'string',
    flags: { deprecated: true },
    forms: [
      {
        params: [
          { name: 'login', type: 'string' },
          { name: 'level', type: 'integer', optional: true, default: 1 },
        ],
        async impl(ctx, [login, level], _call, fn) {
          const platform = platformOf(fn, ctx);
          if (level < 1) throw argumentError(fn, 2, 'level', `must be 1 or more, got ${level}`);
          const user = await targetUser(fn, ctx, platform, login);
          return platformCall(fn, async () => {
            const managerId = await platform.directory.organisation.managerOf(ctx.accountId, user.id, level);
            return (await platform.directory.users.require(ctx.accountId, managerId)).login;
          });
        },
      },
    ],
  }),
];
