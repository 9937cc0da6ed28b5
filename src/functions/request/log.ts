/**
 * P_log: writes a message to the account's log and to P_message when the level passes the
 * threshold (TEST and ACCEPTANCE: every level; LIVE: SEVERE only; the resource's P_log attribute,
 * when set, replaces the mode's rule). Messages over 3 KB are cut and end with `(...)`.
 */
import type { LogLevel } from '../../platform/index.js';
import { isLogged, LOG_LEVELS, truncateLogMessage } from '../../platform/logs.js';
import type { ExecutionContext } from '../context.js';
import { defineFunction, type FunctionSpec } from '../spec.js';
import { choice } from '../utilities/args.js';
import { platformCall, platformOf } from './calls.js';
import { evaluationState } from './evaluation.js';

async function log(ctx: ExecutionContext, level: LogLevel, message: string): Promise<string> {
  const platform = platformOf('P_log', ctx);
  const state = await evaluationState(ctx);
  const kept = truncateLogMessage(message);
  if (!isLogged(level, state.logThreshold)) return kept;
  await platformCall('P_log', async () => {
    await platform.logs.write(ctx.accountId, {
      requestId: ctx.requestId ?? null,
      projectId: ctx.projectId ?? null,
      userId: ctx.user?.id ?? null,
      mode: ctx.mode,
      level,
      message: kept,
    });
    state.message = kept;
    const requestId = ctx.requestId;
    if (requestId !== undefined) await platform.requests.update(ctx.accountId, requestId, { message: kept });
  });
  return kept;
}

export const logFunctions: FunctionSpec[] = [
  defineFunction({
    name: 'P_log',
    group: 'Request',
    rights: 'none',
    doc:
      'Logs a message at a level (SEVERE, WARNING, INFO, CONFIG, FINE, FINER, FINEST; default FINEST) in the ' +
      "account's log and in P_message. TEST and ACCEPTANCE log every level, LIVE only SEVERE, unless the " +
      "resource's P_log attribute sets the level. Messages over 3 KB are truncated and end with (...). " +
      'Returns the message as kept (also when the level filters it out).',
    returns: 'string',
    forms: [
      {
        params: [{ name: 'message', type: 'string' }],
        impl(ctx, [message]) {
          return log(ctx, 'FINEST', message);
        },
      },
      {
        params: [
          { name: 'level', type: 'string' },
          { name: 'message', type: 'string' },
        ],
        impl(ctx, [level, message], _call, fn) {
          return log(ctx, choice(fn, 1, 'level', level, LOG_LEVELS), message);
        },
      },
    ],
  }),
];
