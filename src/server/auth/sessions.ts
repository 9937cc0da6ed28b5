/**
 * Login sessions: a random id in an httpOnly cookie; the server keeps its SHA-256 with the
 * account, the user and an expiry. A session is extended when used past half its lifetime, so an
 * active user stays logged in while a forgotten session ends `ttlMs` after its last use.
 */
import { sql, type Store } from '../../store/index.js';
import { newSecret, secretHash } from './secrets.js';

export interface SessionOwner {
  accountId: string;
  userId: number;
}

export const DEFAULT_SESSION_TTL_MS = 12 * 60 * 60 * 1000;

export class Sessions {
  constructor(
    private readonly store: Store,
    private readonly clock: () => number,
    readonly ttlMs: number = DEFAULT_SESSION_TTL_MS,
  ) {}

  /** Opens a session; returns the id to put in the cookie (shown once, never stored). */
  async open(owner: SessionOwner): Promise<string> {
    const id = newSecret();
    const now = this.clock();
    await this.store.run(sql`
      INSERT INTO server_sessions (id_hash, account_id, user_id, created_at, expires_at)
      VALUES (${secretHash(id)}, ${owner.accountId}, ${owner.userId}, ${now}, ${now + this.ttlMs})`);
    // Forgotten sessions are removed now and then rather than by a timer.
    if (Math.random() < 0.01) await this.removeExpired();
    return id;
  }

  /** The owner of a live session, or undefined (unknown or expired id). */
  async resolve(id: string): Promise<SessionOwner | undefined> {
    if (id.length === 0 || id.length > 128) return undefined;
    const hash = secretHash(id);
    const row = await this.store.get<{ account_id: string; user_id: number; expires_at: number }>(
      sql`SELECT account_id, user_id, expires_at FROM server_sessions WHERE id_hash = ${hash}`,
    );
    const now = this.clock();
    if (!row || Number(row.expires_at) <= now) return undefined;
    if (Number(row.expires_at) - now < this.ttlMs / 2)
      await this.store.run(
        sql`UPDATE server_sessions SET expires_at = ${now + this.ttlMs} WHERE id_hash = ${hash}`,
      );
    return { accountId: row.account_id, userId: Number(row.user_id) };
  }

  async close(id: string): Promise<void> {
    await this.store.run(sql`DELETE FROM server_sessions WHERE id_hash = ${secretHash(id)}`);
  }

  /** Ends every session of a user (password changed, user blocked). */
  async closeAllOf(owner: SessionOwner): Promise<number> {
    const { changes } = await this.store.run(
      sql`DELETE FROM server_sessions WHERE account_id = ${owner.accountId} AND user_id = ${owner.userId}`,
    );
    return changes;
  }

  async removeExpired(): Promise<number> {
    const { changes } = await this.store.run(
      sql`DELETE FROM server_sessions WHERE expires_at <= ${this.clock()}`,
    );
    return changes;
  }
}
