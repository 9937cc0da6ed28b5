/**
 * R_lock / R_unlock: a named lock per account, held by the current request (or, outside one, by
 * the evaluation), recorded in P_locks with its start and end.
 */
import type { Platform } from '../../platform/index.js';
import { DEFAULT_LOCK_LEASE_MS, MAX_LOCK_WAIT_MS } from '../../platform/locks.js';
import type { ExecutionContext } from '../context.js';
import { argumentError } from '../errors.js';
import { defineFunction, type FunctionSpec } from '../spec.js';
import { platformCall, platformOf } from './calls.js';
import { evaluationState, type EvaluationState } from './evaluation.js';

function checkName(fn: string, name: string): void {
  if (name === '' || name.length > 255) throw argumentError(fn, 1, 'lockname', 'must be 1 to 255 characters');
}

/** Inside a request, P_locks is stored on it (a later step of the same request sees it). */
async function persistLocks(
  fn: string,
  platform: Platform,
  ctx: ExecutionContext,
  state: EvaluationState,
): Promise<void> {
  const requestId = ctx.requestId;
  if (requestId === undefined) return;
  await platformCall(fn, () => platform.requests.update(ctx.accountId, requestId, { locks: state.locks }));
}

export const lockFunctions: FunctionSpec[] = [
  defineFunction({
    name: 'R_lock',
    group: 'Request',
    rights: 'none',
    doc:
      'Takes a lock global to the account, waiting while another request holds a lock of that name. ' +
      '`wait_timeout` in milliseconds (default and maximum 40 s; 0 = no wait), `exec_timeout` in seconds: the ' +
      'lease after which an unreleased lock is free again (default 1 hour). A request already holding the lock ' +
      'gets it again (its lease renewed). Adds {name, start} to P_locks; returns the lock name. ' +
      'Error `Timeout exception` when the lock is not obtained in time.',
    returns: 'string',
    forms: [
      {
        params: [
          { name: 'lockname', type: 'string' },
          { name: 'wait_timeout', type: 'integer', optional: true, default: MAX_LOCK_WAIT_MS },
          { name: 'exec_timeout', type: 'integer', optional: true, default: DEFAULT_LOCK_LEASE_MS / 1000 },
        ],
        async impl(ctx, [lockname, waitTimeout, execTimeout], _call, fn) {
          const platform = platformOf(fn, ctx);
          const name = lockname;
          checkName(fn, name);
          if (waitTimeout < 0) throw argumentError(fn, 2, 'wait_timeout', 'must not be negative');
          if (execTimeout <= 0) throw argumentError(fn, 3, 'exec_timeout', 'must be positive');
          const state = await evaluationState(ctx);
          const lease = await platformCall(fn, () =>
            platform.locks.acquire(ctx.accountId, name, state.lockOwner, {
              waitMs: waitTimeout,
              leaseMs: execTimeout * 1000,
              clock: ctx.clock,
            }),
          );
          if (!state.locks.some((l) => l.name === name && l.end === undefined))
            state.locks.push({ name, start: lease.acquiredAt });
          await persistLocks(fn, platform, ctx, state);
          return name;
        },
      },
    ],
  }),
  defineFunction({
    name: 'R_unlock',
    group: 'Request',
    rights: 'none',
    doc:
      'Releases a lock the current request holds and adds the end timestamp to its P_locks entry; returns the ' +
      'lock name. A lock it does not hold (never taken, or taken over after its lease expired) is left alone.',
    returns: 'string',
    forms: [
      {
        params: [{ name: 'lockname', type: 'string' }],
        async impl(ctx, [lockname], _call, fn) {
          const platform = platformOf(fn, ctx);
          const name = lockname;
          checkName(fn, name);
          const state = await evaluationState(ctx);
          await platform.locks.release(ctx.accountId, name, state.lockOwner);
          const entry = state.locks.findLast((l) => l.name === name && l.end === undefined);
          if (entry) {
            entry.end = ctx.clock();
            await persistLocks(fn, platform, ctx, state);
          }
          return name;
        },
      },
    ],
  }),
];
