/**
 * First start: a store without accounts gets one (`default`) with an administrator `admin` whose
 * random password is returned once, for `flowmark serve` to print. Safe when several processes
 * start at once on one database: only the one that created the account gets a password.
 */
import { randomBytes } from 'node:crypto';
import { PlatformError, type Platform } from '../platform/index.js';

export const FIRST_ACCOUNT = 'default';
export const FIRST_ADMIN = 'admin';

export interface FirstStart {
  accountId: string;
  login: string;
  password: string;
}

/** Creates the first account and administrator when the store has no account; undefined otherwise. */
export async function bootstrapFirstAccount(platform: Platform): Promise<FirstStart | undefined> {
  if ((await platform.accounts.list()).length > 0) return undefined;
  try {
    await platform.accounts.create({ id: FIRST_ACCOUNT, name: 'Default account' });
  } catch (e) {
    if (e instanceof PlatformError && e.code === 'conflict') return undefined; // another process won
    throw e;
  }
  const password = randomBytes(18).toString('base64url');
  await platform.directory.users.create(FIRST_ACCOUNT, {
    login: FIRST_ADMIN,
    name: 'Administrator',
    profile: 'ADMIN',
    isAdmin: true,
    password,
  });
  return { accountId: FIRST_ACCOUNT, login: FIRST_ADMIN, password };
}

/** The account a login or command without one goes to: `default` if present, else the only account. */
export async function defaultAccount(platform: Platform): Promise<string | undefined> {
  const accounts = await platform.accounts.list();
  if (accounts.some((a) => a.id === FIRST_ACCOUNT)) return FIRST_ACCOUNT;
  return accounts.length === 1 ? accounts[0]!.id : undefined;
}
