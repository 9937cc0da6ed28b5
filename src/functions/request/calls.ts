/**
 * What the Request and User functions share: reaching the platform from a context, turning the
 * platform's errors into the function's (`save_custom_list: Custom list not found.`), the
 * connected user.
 */
import type { Platform } from '../../platform/index.js';
import { PlatformError } from '../../platform/errors.js';
import { RIGHTS_MESSAGES } from '../../platform/rights.js';
import type { ExecutionContext, ExecutionUser } from '../context.js';
import { FunctionError } from '../errors.js';

/** The context's platform services, or an error naming the function when it has none. */
export function platformOf(fn: string, ctx: ExecutionContext): Platform {
  const platform = ctx.platform as Partial<Platform> | undefined;
  if (!platform?.directory) throw new FunctionError(fn, 'the platform is not available in this context');
  return platform as Platform;
}

/** Runs platform work; a PlatformError becomes `fn: <reason>` (with the argument when given). */
export async function platformCall<T>(
  fn: string,
  work: () => Promise<T>,
  argument?: { index: number; name: string },
): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof PlatformError) throw new FunctionError(fn, e.message, argument, e.subject);
    throw e;
  }
}

/** The connected user (after impersonation), or `fn: this function needs a connected user; …`. */
export function connectedUser(fn: string, ctx: ExecutionContext): ExecutionUser {
  if (!ctx.user) throw new FunctionError(fn, RIGHTS_MESSAGES.anonymous);
  return ctx.user;
}
