/**
 * The function side of the rights module (src/platform/rights.ts): the connected user a function
 * needs, and refusals worded `name: reason`. The registry applies a function's declared rule; the
 * functions whose rule depends on their arguments (FunctionRights `argument`) call these.
 */
import type { Actor } from '../platform/index.js';
import { RIGHTS_MESSAGES } from '../platform/rights.js';
import type { ExecutionContext, ExecutionUser } from './context.js';
import { FunctionError } from './errors.js';

/** The connected user, or `name: this function needs a connected user; the script runs anonymously`. */
export function requireUser(name: string, ctx: ExecutionContext): ExecutionUser {
  if (!ctx.user) throw new FunctionError(name, RIGHTS_MESSAGES.anonymous);
  return ctx.user;
}

/** Refuses with `name: message` unless `allowed`. */
export async function requireRight(
  name: string,
  allowed: boolean | Promise<boolean>,
  message: string,
): Promise<void> {
  if (!(await allowed)) throw new FunctionError(name, message);
}

export type { Actor };
