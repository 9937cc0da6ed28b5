/**
 * Accounts (the platform's customers, the tenants): an id (P_customer), a name, the locale and
 * time zone scripts run with, and the public base URL the URL functions and P_urls derive from.
 */
import type { Store } from '../store/index.js';
import { sql } from '../store/sql.js';
import { notFound, PlatformError } from './errors.js';

export interface Account {
  id: string;
  name: string;
  locale: string;
  timeZone: string;
  /** Public base URL of the service for this account, without a trailing slash. */
  baseUrl: string;
  createdAt: number;
}

export interface NewAccount {
  id: string;
  name?: string;
  locale?: string;
  timeZone?: string;
  baseUrl?: string;
}

/** The account's URLs (a script's P_urls is derived from them: src/functions/request/script-urls.ts). */
export interface AccountUrls {
  /** host[:port] */
  domain: string;
  /** origin with a trailing slash */
  host: string;
  /** where the account's live resources are served */
  live: string;
  /** the account's portal (web interfaces) */
  portal: string;
}

export const DEFAULT_BASE_URL = 'http://localhost:8080';
const ACCOUNT_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

type AccountRow = {
  account_id: string;
  name: string;
  locale: string;
  time_zone: string;
  base_url: string;
  created_at: number;
};

export class Accounts {
  constructor(
    private readonly store: Store,
    private readonly clock: () => number,
  ) {}

  async create(input: NewAccount): Promise<Account> {
    if (!ACCOUNT_ID.test(input.id))
      throw new PlatformError(
        'invalid',
        `invalid account id ${JSON.stringify(input.id)}: letters, digits, _ . - (at most 64)`,
      );
    const baseUrl = normaliseBaseUrl(input.baseUrl ?? DEFAULT_BASE_URL);
    const inserted = await this.store.get<AccountRow>(sql`
      INSERT INTO accounts (account_id, name, locale, time_zone, base_url, created_at)
      VALUES (${input.id}, ${input.name ?? input.id}, ${input.locale ?? 'en_US'}, ${input.timeZone ?? 'UTC'},
              ${baseUrl}, ${this.clock()})
      ON CONFLICT (account_id) DO NOTHING
      RETURNING *`);
    if (!inserted) throw new PlatformError('conflict', `account ${input.id} already exists`);
    return toAccount(inserted);
  }

  async get(id: string): Promise<Account | undefined> {
    const row = await this.store.get<AccountRow>(sql`SELECT * FROM accounts WHERE account_id = ${id}`);
    return row && toAccount(row);
  }

  async require(id: string): Promise<Account> {
    const account = await this.get(id);
    if (!account) throw notFound(`Account ${id} not found.`);
    return account;
  }

  async list(): Promise<Account[]> {
    const rows = await this.store.all<AccountRow>(sql`SELECT * FROM accounts ORDER BY account_id`);
    return rows.map(toAccount);
  }
}

/** The URLs of an account. */
export function accountUrls(account: Pick<Account, 'id' | 'baseUrl'>): AccountUrls {
  const url = new URL(account.baseUrl);
  const host = `${url.origin}/`;
  return {
    domain: url.host,
    host,
    live: `${host}live/${encodeURIComponent(account.id)}/`,
    portal: `${host}portal/${encodeURIComponent(account.id)}/`,
  };
}

/** The service URL with or without its protocol, no trailing slash (get_access_url adds one). */
export function accessUrl(account: Pick<Account, 'baseUrl'>, includeProtocol: boolean): string {
  const url = new URL(account.baseUrl);
  return includeProtocol ? url.origin : url.host;
}

function normaliseBaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new PlatformError('invalid', `invalid base URL ${JSON.stringify(text)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new PlatformError('invalid', `invalid base URL ${JSON.stringify(text)}: http or https expected`);
  return url.origin;
}

function toAccount(row: AccountRow): Account {
  return {
    id: row.account_id,
    name: row.name,
    locale: row.locale,
    timeZone: row.time_zone,
    baseUrl: row.base_url,
    createdAt: row.created_at,
  };
}
