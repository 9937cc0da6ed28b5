/** How the User functions find the user an argument names (default: the connected user). */
import type { Platform, User } from '../../platform/index.js';
import type { ExecutionContext } from '../context.js';
import { platformCall } from '../request/calls.js';
import { connectedUser } from '../request/calls.js';

/**
 * The user named by `login` (a login, email or id), or the connected user when it is omitted.
 * Errors: `fn: Unable to retrieve user.`, `fn: this function needs a connected user; the script runs anonymously`.
 */
export async function targetUser(
  fn: string,
  ctx: ExecutionContext,
  platform: Platform,
  login: string | number | undefined,
): Promise<User> {
  const ref = login ?? connectedUser(fn, ctx).id;
  return platformCall(fn, () => platform.directory.users.require(ctx.accountId, ref));
}
