/**
 * Users of an account: numeric id, login, email, name, profile, status (active / blocked),
 * account-admin flag, language, preferences, public metadata, password hash; and delegations
 * (a user handing their work to another, shown to scripts as P_user.delegators).
 */
import type { Store } from '../../store/index.js';
import { sql } from '../../store/sql.js';
import { PlatformError, userNotFound } from '../errors.js';
import { fromJson, toJson, toJsonObject } from '../model.js';
import { setAtPath, type Json } from './json-path.js';
import { hashPassword, verifyPassword } from './passwords.js';

export type UserStatus = 'active' | 'blocked';

export interface User {
  id: number;
  accountId: string;
  login: string;
  email: string | null;
  name: string;
  /** The user's profile (ADMIN, DESIGNER, USER … free text; see docs/platform.md). */
  profile: string;
  status: UserStatus;
  /** Administrator of the account (may impersonate, modify read-only collections …). */
  isAdmin: boolean;
  /** Two-letter language code (get_i18n's default language). */
  language: string;
  preferences: Record<string, unknown>;
  /** Public metadata (P_user.extended, get_user_metadata). */
  metadata: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
}

export interface NewUser {
  login: string;
  email?: string | null;
  name?: string;
  profile?: string;
  status?: UserStatus;
  isAdmin?: boolean;
  language?: string;
  preferences?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  password?: string;
}

export type UserChanges = Partial<Omit<NewUser, 'login'>>;

/** A user named by numeric id, or by login, email or id text (tried in that order). */
export type UserRef = number | string;

export interface Delegation {
  startsAt?: number | null;
  endsAt?: number | null;
}

export type UserRow = {
  id: number;
  account_id: string;
  login: string;
  email: string | null;
  name: string;
  profile: string;
  status: string;
  is_admin: unknown;
  language: string;
  preferences: string;
  metadata: string;
  created_at: number;
  updated_at: number;
};

/** The columns of a user (never the password hash). */
export const USER_COLUMNS = sql.raw(
  'id, account_id, login, email, name, profile, status, is_admin, language, preferences, metadata, created_at, updated_at',
);

const MAX_TEXT = 255;

/** Called after a user is created or changed (lane rules are recomputed for it). */
export type UserChangeListener = (accountId: string, userId: number) => Promise<void>;

export class Users {
  constructor(
    private readonly store: Store,
    private readonly clock: () => number,
    private readonly changed: UserChangeListener = async () => {},
    /** Called after any write to a user or a delegation (Directory.changes counts them). */
    private readonly touched: () => void = () => {},
  ) {}

  async create(accountId: string, input: NewUser): Promise<User> {
    const login = checkText('login', input.login);
    const now = this.clock();
    const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
    let row: UserRow | undefined;
    try {
      row = await this.store.get<UserRow>(sql`
        INSERT INTO users (account_id, login, email, name, profile, status, is_admin, language, preferences,
                           metadata, password_hash, created_at, updated_at)
        VALUES (${accountId}, ${login}, ${normaliseEmail(input.email)}, ${checkText('name', input.name ?? login)},
                ${checkText('profile', input.profile ?? 'USER')}, ${checkStatus(input.status ?? 'active')},
                ${input.isAdmin ?? false}, ${checkLanguage(input.language ?? 'en')},
                ${toJson(toJsonObject(input.preferences ?? {}, 'preferences'))},
                ${toJson(toJsonObject(input.metadata ?? {}, 'metadata'))}, ${passwordHash}, ${now}, ${now})
        RETURNING ${USER_COLUMNS}`);
    } catch (e) {
      throw this.conflict(e, login, input.email) ?? e;
    }
    const user = toUser(row!);
    this.touched();
    await this.changed(accountId, user.id);
    return user;
  }

  /** A user by id, login, email or id text; undefined when the account has none. */
  async find(accountId: string, ref: UserRef): Promise<User | undefined> {
    let row: UserRow | undefined;
    if (typeof ref === 'number') {
      if (!Number.isSafeInteger(ref)) return undefined;
      row = await this.store.get<UserRow>(
        sql`SELECT ${USER_COLUMNS} FROM users WHERE account_id = ${accountId} AND id = ${ref}`,
      );
    } else {
      const text = String(ref);
      const email = text.includes('@') ? text.trim().toLowerCase() : null;
      const id = /^\d{1,15}$/.test(text) ? Number(text) : -1;
      row = await this.store.get<UserRow>(sql`
        SELECT ${USER_COLUMNS} FROM users
        WHERE account_id = ${accountId} AND (login = ${text} OR email = ${email} OR id = ${id})
        ORDER BY CASE WHEN login = ${text} THEN 0 WHEN email = ${email} THEN 1 ELSE 2 END
        LIMIT 1`);
    }
    return row && toUser(row);
  }

  /** As find, or the spec's `Unable to retrieve user.` */
  async require(accountId: string, ref: UserRef): Promise<User> {
    const user = await this.find(accountId, ref);
    if (!user) throw userNotFound(ref);
    return user;
  }

  async list(accountId: string, page: { first?: number; limit?: number } = {}): Promise<User[]> {
    const rows = await this.store.all<UserRow>(sql`
      SELECT ${USER_COLUMNS} FROM users WHERE account_id = ${accountId}
      ORDER BY id LIMIT ${page.limit ?? 1000} OFFSET ${page.first ?? 0}`);
    return rows.map(toUser);
  }

  async update(accountId: string, id: number, changes: UserChanges): Promise<User> {
    const sets = [];
    if (changes.email !== undefined) sets.push(sql`email = ${normaliseEmail(changes.email)}`);
    if (changes.name !== undefined) sets.push(sql`name = ${checkText('name', changes.name)}`);
    if (changes.profile !== undefined) sets.push(sql`profile = ${checkText('profile', changes.profile)}`);
    if (changes.status !== undefined) sets.push(sql`status = ${checkStatus(changes.status)}`);
    if (changes.isAdmin !== undefined) sets.push(sql`is_admin = ${changes.isAdmin}`);
    if (changes.language !== undefined) sets.push(sql`language = ${checkLanguage(changes.language)}`);
    if (changes.preferences !== undefined)
      sets.push(sql`preferences = ${toJson(toJsonObject(changes.preferences, 'preferences'))}`);
    if (changes.metadata !== undefined)
      sets.push(sql`metadata = ${toJson(toJsonObject(changes.metadata, 'metadata'))}`);
    if (changes.password !== undefined)
      sets.push(sql`password_hash = ${await hashPassword(changes.password)}`);
    sets.push(sql`updated_at = ${this.clock()}`);
    let row: UserRow | undefined;
    try {
      row = await this.store.get<UserRow>(sql`
        UPDATE users SET ${sql.join(sets)} WHERE account_id = ${accountId} AND id = ${id}
        RETURNING ${USER_COLUMNS}`);
    } catch (e) {
      throw this.conflict(e, undefined, changes.email) ?? e;
    }
    if (!row) throw userNotFound(id);
    this.touched();
    await this.changed(accountId, id);
    return toUser(row);
  }

  /** unblock_user: blocked → active (an active user stays active). */
  async unblock(accountId: string, ref: UserRef): Promise<User> {
    const user = await this.require(accountId, ref);
    if (user.status === 'active') return user;
    return this.update(accountId, user.id, { status: 'active' });
  }

  /**
   * Sets one value inside the user's preferences or metadata (P_change_preferences /
   * P_change_metadata) and returns the whole document, read and written in one transaction.
   */
  async editDocument(
    accountId: string,
    id: number,
    which: 'preferences' | 'metadata',
    path: string,
    value: Json,
  ): Promise<Record<string, unknown>> {
    const column = sql.raw(which);
    const result = await this.store.transaction(async (tx) => {
      const row = await tx.get<{ doc: string }>(
        sql`SELECT ${column} AS doc FROM users WHERE account_id = ${accountId} AND id = ${id}${tx.dialect.forUpdate}`,
      );
      if (!row) throw userNotFound(id);
      const doc = setAtPath(fromJson<Record<string, unknown>>(row.doc), path, value);
      await tx.run(sql`UPDATE users SET ${column} = ${toJson(doc)}, updated_at = ${this.clock()}
                       WHERE account_id = ${accountId} AND id = ${id}`);
      return doc;
    });
    this.touched();
    if (which === 'metadata') await this.changed(accountId, id);
    return result;
  }

  async verifyPassword(accountId: string, login: string, password: string): Promise<User | undefined> {
    const row = await this.store.get<UserRow & { password_hash: string | null }>(sql`
      SELECT ${USER_COLUMNS}, password_hash FROM users WHERE account_id = ${accountId} AND login = ${login}`);
    if (!row || !(await verifyPassword(password, row.password_hash))) return undefined;
    return toUser(row);
  }

  /** `delegator` hands their work to `delegate` (replacing an earlier delegation between them). */
  async delegate(
    accountId: string,
    delegatorId: number,
    delegateId: number,
    period: Delegation = {},
  ): Promise<void> {
    await this.require(accountId, delegatorId);
    await this.require(accountId, delegateId);
    await this.store.run(sql`
      INSERT INTO user_delegations (account_id, delegator_id, delegate_id, starts_at, ends_at)
      VALUES (${accountId}, ${delegatorId}, ${delegateId}, ${period.startsAt ?? null}, ${period.endsAt ?? null})
      ON CONFLICT (delegator_id, delegate_id) DO UPDATE SET starts_at = excluded.starts_at, ends_at = excluded.ends_at`);
    this.touched();
  }

  async removeDelegation(accountId: string, delegatorId: number, delegateId: number): Promise<boolean> {
    const { changes } = await this.store.run(sql`
      DELETE FROM user_delegations
      WHERE account_id = ${accountId} AND delegator_id = ${delegatorId} AND delegate_id = ${delegateId}`);
    this.touched();
    return changes > 0;
  }

  /** The users whose delegation to `userId` is in force at `now`, by id. */
  async delegatorsOf(accountId: string, userId: number, now: number): Promise<User[]> {
    const rows = await this.store.all<UserRow>(sql`
      SELECT ${sql.raw(prefixed('u'))} FROM user_delegations d JOIN users u ON u.id = d.delegator_id
      WHERE d.account_id = ${accountId} AND d.delegate_id = ${userId}
        AND (d.starts_at IS NULL OR d.starts_at <= ${now}) AND (d.ends_at IS NULL OR d.ends_at > ${now})
      ORDER BY u.id`);
    return rows.map(toUser);
  }

  private conflict(e: unknown, login?: string, email?: string | null): PlatformError | undefined {
    const violation = this.store.dialect.uniqueViolation(e);
    if (!violation) return undefined;
    if (violation.constraint === 'users_email')
      return new PlatformError(
        'conflict',
        `the email ${normaliseEmail(email)} is already used by another user`,
      );
    return new PlatformError('conflict', `the login ${login} is already used by another user`);
  }
}

/** The user columns qualified by a table alias. */
export function prefixed(alias: string): string {
  return 'id, account_id, login, email, name, profile, status, is_admin, language, preferences, metadata, created_at, updated_at'
    .split(', ')
    .map((c) => `${alias}.${c}`)
    .join(', ');
}

export function toUser(row: UserRow): User {
  return {
    id: row.id,
    accountId: row.account_id,
    login: row.login,
    email: row.email,
    name: row.name,
    profile: row.profile,
    status: row.status === 'blocked' ? 'blocked' : 'active',
    isAdmin: Boolean(row.is_admin),
    language: row.language,
    preferences: fromJson(row.preferences),
    metadata: fromJson(row.metadata),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function checkText(what: string, value: string): string {
  const text = String(value).trim();
  if (text === '' || text.length > MAX_TEXT || hasControlCharacter(text))
    throw new PlatformError('invalid', `invalid user ${what} ${JSON.stringify(value)}`);
  return text;
}

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) < 0x20) return true;
  return false;
}

function normaliseEmail(email: string | null | undefined): string | null {
  if (email === undefined || email === null || email.trim() === '') return null;
  const text = email.trim().toLowerCase();
  if (!/^[^@\s]+@[^@\s]+$/.test(text) || text.length > MAX_TEXT)
    throw new PlatformError('invalid', `invalid email ${JSON.stringify(email)}`);
  return text;
}

function checkStatus(status: string): UserStatus {
  if (status !== 'active' && status !== 'blocked')
    throw new PlatformError('invalid', `invalid user status ${JSON.stringify(status)}: active or blocked`);
  return status;
}

function checkLanguage(language: string): string {
  if (!/^[a-z]{2}$/.test(language))
    throw new PlatformError(
      'invalid',
      `invalid language ${JSON.stringify(language)}: a two-letter code such as en`,
    );
  return language;
}
