/**
 * API tokens: `fmk_<id>_<secret>` sent as `Authorization: Bearer …`. The server keeps the id, a
 * name, the owner, an optional expiry and the SHA-256 of the whole token; the token itself is
 * shown once, when created. A token acts as its user, with the user's rights at the time of use.
 */
import { randomBytes } from 'node:crypto';
import { sql, type Store } from '../../store/index.js';
import { ApiError } from '../errors.js';
import { newSecret, secretHash } from './secrets.js';
import type { SessionOwner } from './sessions.js';

export interface ApiToken {
  id: string;
  accountId: string;
  userId: number;
  name: string;
  createdAt: number;
  expiresAt: number | null;
  lastUsedAt: number | null;
}

type TokenRow = {
  id: string;
  account_id: string;
  user_id: number;
  name: string;
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
};

const COLUMNS = sql.raw('id, account_id, user_id, name, created_at, expires_at, last_used_at');
const TOKEN = /^fmk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/;
/** A token's last use is recorded at most this often, so using one is not a write per request. */
const LAST_USED_RESOLUTION_MS = 60_000;
export const MAX_TOKENS_PER_USER = 100;

export class ApiTokens {
  constructor(
    private readonly store: Store,
    private readonly clock: () => number,
  ) {}

  /** Creates a token; `token` is the only time the secret is seen. */
  async create(
    owner: SessionOwner,
    input: { name: string; expiresAt?: number | null },
  ): Promise<{ token: string; info: ApiToken }> {
    const name = input.name.trim();
    if (name === '' || name.length > 100 || [...name].some((c) => c < ' '))
      throw new ApiError(400, 'invalid', 'a token name is 1 to 100 printable characters');
    const now = this.clock();
    if (input.expiresAt != null && input.expiresAt <= now)
      throw new ApiError(400, 'invalid', 'a token cannot expire in the past');
    const count = await this.store.get<{ n: number }>(
      sql`SELECT count(*) AS n FROM api_tokens WHERE account_id = ${owner.accountId} AND user_id = ${owner.userId}`,
    );
    if (Number(count!.n) >= MAX_TOKENS_PER_USER)
      throw new ApiError(
        409,
        'conflict',
        `a user has at most ${MAX_TOKENS_PER_USER} tokens: revoke one first`,
      );
    const id = randomBytes(8).toString('hex');
    const token = `fmk_${id}_${newSecret()}`;
    const row = await this.store.get<TokenRow>(sql`
      INSERT INTO api_tokens (id, account_id, user_id, name, token_hash, created_at, expires_at, last_used_at)
      VALUES (${id}, ${owner.accountId}, ${owner.userId}, ${name}, ${secretHash(token)}, ${now},
              ${input.expiresAt ?? null}, ${null})
      RETURNING ${COLUMNS}`);
    return { token, info: toToken(row!) };
  }

  /** The owner of a valid token, or undefined (malformed, unknown, revoked or expired). */
  async resolve(token: string): Promise<(SessionOwner & { tokenId: string }) | undefined> {
    if (!TOKEN.test(token)) return undefined;
    const row = await this.store.get<TokenRow>(
      sql`SELECT ${COLUMNS} FROM api_tokens WHERE token_hash = ${secretHash(token)}`,
    );
    const now = this.clock();
    if (!row || (row.expires_at !== null && Number(row.expires_at) <= now)) return undefined;
    if (row.last_used_at === null || now - Number(row.last_used_at) >= LAST_USED_RESOLUTION_MS)
      await this.store.run(sql`UPDATE api_tokens SET last_used_at = ${now} WHERE id = ${row.id}`);
    return { accountId: row.account_id, userId: Number(row.user_id), tokenId: row.id };
  }

  /** The tokens of an account, of one user when given, newest first. */
  async list(accountId: string, userId?: number): Promise<ApiToken[]> {
    const rows = await this.store.all<TokenRow>(sql`
      SELECT ${COLUMNS} FROM api_tokens WHERE account_id = ${accountId}
      ${userId === undefined ? sql`` : sql`AND user_id = ${userId}`}
      ORDER BY created_at DESC, id`);
    return rows.map(toToken);
  }

  async find(accountId: string, id: string): Promise<ApiToken | undefined> {
    const row = await this.store.get<TokenRow>(
      sql`SELECT ${COLUMNS} FROM api_tokens WHERE account_id = ${accountId} AND id = ${id}`,
    );
    return row && toToken(row);
  }

  /** Revokes (deletes) a token; false when the account has no token with that id. */
  async revoke(accountId: string, id: string): Promise<boolean> {
    const { changes } = await this.store.run(
      sql`DELETE FROM api_tokens WHERE account_id = ${accountId} AND id = ${id}`,
    );
    return changes > 0;
  }
}

function toToken(row: TokenRow): ApiToken {
  return {
    id: row.id,
    accountId: row.account_id,
    userId: Number(row.user_id),
    name: row.name,
    createdAt: Number(row.created_at),
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
    lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
  };
}
