/** throw: ends the script with an error carrying the script's own message. */
import { defineFunction, type FunctionSpec } from '../spec.js';

/** The error `throw` raises: its message is exactly the script's (no function-name prefix). */
export class ScriptThrownError extends Error {
  override name = 'ScriptThrownError';
}

export const DEFAULT_THROW_MESSAGE = 'Error thrown by the script';

export const throwFunctions: FunctionSpec[] = [
  defineFunction({
    name: 'throw',
    group: 'Request',
    rights: 'none',
    doc: `Raises an error whose message is \`message\` exactly (default: "${DEFAULT_THROW_MESSAGE}"); <#attempt> can recover it.`,
    returns: 'none',
    forms: [
      {
        params: [{ name: 'message', type: 'string', optional: true }],
        impl(_ctx, [message]) {
          throw new ScriptThrownError(message ?? DEFAULT_THROW_MESSAGE);
        },
      },
    ],
  }),
];
