/**
 * The file-rights functions of the Request group (spec 4.5): R_read_file_add_user,
 * R_read_file_remove_user, R_read_file_add_lane, R_read_file_remove_lane and the four
 * R_update_file_* ones (WRITE, which includes delete). Each needs WRITE on every file named,
 * changes all of them or none, and returns the rights of each file by id (spec 2.2).
 * Defaults: the connected user; the lane the current step runs in (ExecutionContext.laneId).
 */
import type { Access, RightKind } from '../../platform/files/index.js';
import { parseJsonText } from '../coercion.js';
import type { ExecutionContext } from '../context.js';
import { argumentError } from '../errors.js';
import { defineFunction, type FunctionSpec } from '../spec.js';
import { fileIds, platformCall, platformOf, principalOf } from './args.js';

/** Users or lanes given as one id (or login), the JSON text of an array, or a sequence. */
function principals(
  fn: string,
  kind: RightKind,
  value: unknown,
  ctx: ExecutionContext,
): Array<number | string> {
  if (value === undefined) {
    if (kind === 'user') {
      if (!ctx.user) throw argumentError(fn, 2, kind, 'is missing and no user is connected');
      return [ctx.user.id];
    }
    if (ctx.laneId === undefined)
      throw argumentError(fn, 2, kind, 'is missing and the current step runs in no lane');
    return [ctx.laneId];
  }
  let list: unknown[];
  if (Array.isArray(value)) list = value;
  else if (typeof value === 'string' && value.trim().startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = parseJsonText(value);
    } catch {
      parsed = undefined;
    }
    if (!Array.isArray(parsed))
      throw argumentError(fn, 2, kind, `is not a JSON array: ${JSON.stringify(value)}`);
    list = parsed;
  } else list = [value];
  if (list.length === 0) throw argumentError(fn, 2, kind, `names no ${kind}`);
  return list.map((item) => {
    if (typeof item === 'number' && Number.isSafeInteger(item)) return item;
    if (typeof item === 'string' && item.trim() !== '') return item.trim();
    throw argumentError(
      fn,
      2,
      kind,
      `holds ${JSON.stringify(item)}, which is not a ${kind} ${kind === 'user' ? 'id or login' : 'id'}`,
    );
  });
}

function rightsFunction(name: string, kind: RightKind, access: Access, op: 'add' | 'remove'): FunctionSpec {
  const what = access === 'READ' ? 'READ' : 'WRITE (and delete)';
  const who =
    kind === 'user'
      ? 'users (ids or logins; default: the connected user)'
      : 'lanes (ids; default: the lane of the current step)';
  return defineFunction({
    name,
    group: 'Request',
    rights: 'service',
    doc:
      `${op === 'add' ? 'Grants' : 'Withdraws'} ${what} on uploaded files ${op === 'add' ? 'to' : 'from'} ${who}. ` +
      'Needs WRITE on each file; returns the file rights result: by file id, user {READ, WRITE} and lane {READ, WRITE}.',
    returns: 'file rights result',
    forms: [
      {
        params: [
          { name: 'file', type: ['array', 'string'], doc: 'one file id, or an array of ids' },
          { name: kind, type: ['array', 'integer', 'string'], optional: true },
        ],
        async impl(ctx, [file, who]) {
          const platform = platformOf(name, ctx);
          const ids = fileIds(name, 1, 'file', file);
          const refs = principals(name, kind, who, ctx);
          return platformCall(name, () =>
            platform.files.changeRights(ctx.accountId, principalOf(ctx), ids, {
              kind,
              access,
              op,
              principals: refs,
            }),
          );
        },
      },
    ],
  });
}

export const rightsFunctions: FunctionSpec[] = [
  rightsFunction('R_read_file_add_lane', 'lane', 'READ', 'add'),
  rightsFunction('R_read_file_add_user', 'user', 'READ', 'add'),
  rightsFunction('R_read_file_remove_lane', 'lane', 'READ', 'remove'),
  rightsFunction('R_read_file_remove_user', 'user', 'READ', 'remove'),
  rightsFunction('R_update_file_add_lane', 'lane', 'WRITE', 'add'),
  rightsFunction('R_update_file_add_user', 'user', 'WRITE', 'add'),
  rightsFunction('R_update_file_remove_lane', 'lane', 'WRITE', 'remove'),
  rightsFunction('R_update_file_remove_user', 'user', 'WRITE', 'remove'),
];
