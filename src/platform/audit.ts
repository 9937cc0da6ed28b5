/**
 * The audit log (docs/server.md "Audit log"): every administrative or design change made through
 * the API, with who made it, when, and the resource before and after (secrets redacted).
 * Entries are read newest first, by pages that start before an entry id.
 */
import type { Store } from '../store/index.js';
import { sql, type Sql } from '../store/sql.js';
import { fromJson, toJson } from './model.js';

export interface AuditEntry {
  id: number;
  at: number;
  actor: { id: number | null; login: string };
  method: string;
  /** The request's path, e.g. /api/v1/composite-apis/3. */
  path: string;
  /** The resource family: the path's first segment under /api/v1 (composite-apis, users …). */
  kind: string;
  /** The resource within its family: the rest of the path, or the id the API answered for a creation. */
  target: string;
  status: number;
  before: unknown;
  after: unknown;
}

export type NewAuditEntry = Omit<AuditEntry, 'id' | 'at'>;

export interface AuditFilters {
  kind?: string;
  target?: string;
  actorId?: number;
  /** Entries older than this id (the next page). */
  before?: number;
  limit?: number;
}

type AuditRow = {
  id: number | string;
  at: number | string;
  actor_id: number | string | null;
  actor_login: string;
  method: string;
  path: string;
  kind: string;
  target: string;
  status: number;
  before_state: string | null;
  after_state: string | null;
};

export const AUDIT_PAGE_MAX = 200;

export class AuditLog {
  constructor(
    private readonly store: Store,
    private readonly clock: () => number,
  ) {}

  async record(accountId: string, entry: NewAuditEntry): Promise<number> {
    const row = await this.store.get<{ id: number | string }>(sql`
      INSERT INTO audit_log (account_id, at, actor_id, actor_login, method, path, kind, target, status,
                             before_state, after_state)
      VALUES (${accountId}, ${this.clock()}, ${entry.actor.id}, ${entry.actor.login}, ${entry.method},
              ${entry.path}, ${entry.kind}, ${entry.target}, ${entry.status},
              ${entry.before === undefined || entry.before === null ? null : toJson(entry.before)},
              ${entry.after === undefined || entry.after === null ? null : toJson(entry.after)})
      RETURNING id`);
    return Number(row!.id);
  }

  async find(accountId: string, id: number): Promise<AuditEntry | undefined> {
    const row = await this.store.get<AuditRow>(
      sql`SELECT * FROM audit_log WHERE account_id = ${accountId} AND id = ${id}`,
    );
    return row && toEntry(row);
  }

  /** The account's entries, newest first. */
  async list(accountId: string, filters: AuditFilters = {}): Promise<AuditEntry[]> {
    const where: Sql[] = [sql`account_id = ${accountId}`];
    if (filters.kind !== undefined) where.push(sql`kind = ${filters.kind}`);
    if (filters.target !== undefined) where.push(sql`target = ${filters.target}`);
    if (filters.actorId !== undefined) where.push(sql`actor_id = ${filters.actorId}`);
    if (filters.before !== undefined) where.push(sql`id < ${filters.before}`);
    const limit = Math.min(Math.max(1, filters.limit ?? 50), AUDIT_PAGE_MAX);
    const rows = await this.store.all<AuditRow>(
      sql`SELECT * FROM audit_log WHERE ${sql.join(where, ' AND ')} ORDER BY id DESC LIMIT ${limit}`,
    );
    return rows.map(toEntry);
  }
}

function toEntry(row: AuditRow): AuditEntry {
  return {
    id: Number(row.id),
    at: Number(row.at),
    actor: { id: row.actor_id === null ? null : Number(row.actor_id), login: row.actor_login },
    method: row.method,
    path: row.path,
    kind: row.kind,
    target: row.target,
    status: row.status,
    before: row.before_state === null ? null : fromJson(row.before_state),
    after: row.after_state === null ? null : fromJson(row.after_state),
  };
}
