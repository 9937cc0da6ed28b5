/**
 * First start, shared by every command that may be the first to touch a store: a store without
 * accounts gets one (`default`); `flowmark serve` also gives the first account an administrator
 * `admin` when it has no user at all — also when another command (`flowmark run`) created the
 * account — and prints the random password, returned once. Safe when several processes start at
 * once on one database: only the one that created the administrator gets a password.
 */
import { randomBytes } from 'node:crypto';
import { PlatformError, type Platform } from '../platform/index.js';

export const FIRST_ACCOUNT = 'default';
export const FIRST_ADMIN = 'admin';

export interface FirstStart {
  accountId: string;
  /** The account was created now (else it existed without users: only its administrator is new). */
  createdAccount: boolean;
  login: string;
  password: string;
}

/**
 * The account of a command without `--account`: `default` if present, else the only account; a
 * store without accounts gets `default` (without users: `flowmark serve` adds the administrator).
 * Undefined when the store has several accounts and none is `default`.
 */
export async function ensureFirstAccount(platform: Platform): Promise<string | undefined> {
  const existing = await defaultAccount(platform);
  if (existing !== undefined || (await platform.accounts.list()).length > 0) return existing;
  await createAccount(platform);
  return defaultAccount(platform);
}

/**
 * Makes sure the first account exists and can be logged in to: creates `default` when the store has
 * no account, and its administrator when the first account has no user (an account without users
 * is unreachable). An account whose users are all blocked or none an administrator is left alone:
 * that is its administrators' doing, not a first start. Undefined when nothing was created.
 */
export async function bootstrapFirstAccount(platform: Platform): Promise<FirstStart | undefined> {
  let createdAccount = false;
  if ((await platform.accounts.list()).length === 0) createdAccount = await createAccount(platform);
  const accountId = await defaultAccount(platform);
  if (accountId === undefined) return undefined;
  if ((await platform.directory.users.list(accountId, { limit: 1 })).length > 0) return undefined;
  const password = randomBytes(18).toString('base64url');
  try {
    await platform.directory.users.create(accountId, {
      login: FIRST_ADMIN,
      name: 'Administrator',
      profile: 'ADMIN',
      isAdmin: true,
      password,
    });
  } catch (e) {
    if (e instanceof PlatformError && e.code === 'conflict') return undefined; // another process won
    throw e;
  }
  return { accountId, createdAccount, login: FIRST_ADMIN, password };
}

/** The account a login or command without one goes to: `default` if present, else the only account. */
export async function defaultAccount(platform: Platform): Promise<string | undefined> {
  const accounts = await platform.accounts.list();
  if (accounts.some((a) => a.id === FIRST_ACCOUNT)) return FIRST_ACCOUNT;
  return accounts.length === 1 ? accounts[0]!.id : undefined;
}

/** Creates `default`; false when another process just did. */
async function createAccount(platform: Platform): Promise<boolean> {
  try {
    await platform.accounts.create({ id: FIRST_ACCOUNT, name: 'Default account' });
    return true;
  } catch (e) {
    if (e instanceof PlatformError && e.code === 'conflict') return false;
    throw e;
  }
}
