import type { Platform } from '../platform/index.js';
import { defaultAccount } from '../server/bootstrap.js';

/**
 * The account a store command acts on: `--account`, else the store's default one; or why there
 * is none, in the words the command prints.
 */
export async function chosenAccount(
  platform: Platform,
  given: string | undefined,
): Promise<{ accountId: string } | { error: string }> {
  const accountId = given ?? (await defaultAccount(platform));
  if (accountId === undefined)
    return {
      error: 'the store has several accounts and none is "default" (or none): choose one with --account',
    };
  if (!(await platform.accounts.get(accountId))) return { error: `no account ${accountId}` };
  return { accountId };
}
