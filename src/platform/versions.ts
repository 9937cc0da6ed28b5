/**
 * The history of designed artefacts (docs/deploy.md, "History and rollback"): every save of a
 * process definition, a composite API, a web interface's template, a custom list or an i18n
 * dictionary keeps a version — its number, who saved it, when, and the body saved — in the
 * save's own transaction. A save whose body equals the latest version's keeps no new one.
 * Versions are never changed or deleted (a request runs the version of its definition it started
 * with, by the version's row id). Definitions a request runs that no stored definition holds
 * (inline ones) are kept the same way under the kind `request-definition`, named by their hash.
 */
import type { Store } from '../store/index.js';
import { sql } from '../store/sql.js';
import { fromJson, toJson } from './model.js';
import { contentHash } from '../store/content-hash.js';

export const ARTEFACT_KINDS = ['process', 'composite-api', 'web-interface', 'custom-list', 'i18n'] as const;
export type ArtefactKind = (typeof ARTEFACT_KINDS)[number];
/** The kind of the inline definitions requests run, deduplicated by content hash. */
export const REQUEST_DEFINITION = 'request-definition';

/** Who saved a version; `id` null when no user did (an import, a migration, the demo). */
export interface Author {
  id: number | null;
  login: string;
}

export const SYSTEM_AUTHOR: Author = { id: null, login: 'flowmark' };

export interface VersionSummary {
  version: number;
  author: Author;
  createdAt: number;
}

export interface ArtefactVersion extends VersionSummary {
  body: unknown;
}

export const VERSION_PAGE_MAX = 200;

type VersionRow = {
  id: number | string;
  version: number | string;
  author_id: number | string | null;
  author_login: string;
  created_at: number | string;
  body?: string;
  hash?: string;
};

export class ArtefactVersions {
  constructor(
    private readonly store: Store,
    private readonly clock: () => number,
  ) {}

  /**
   * Records a save (call it inside the save's transaction, after writing the artefact: the
   * artefact's row lock orders concurrent saves). Returns the row id and number of the version the
   * artefact now has: a new one, or the latest when the body is unchanged.
   */
  async record(
    accountId: string,
    kind: ArtefactKind,
    artefactId: string | number,
    body: unknown,
    author: Author = SYSTEM_AUTHOR,
  ): Promise<{ id: number; version: number }> {
    const target = String(artefactId);
    const hash = contentHash(body);
    const latest = await this.store.get<VersionRow>(sql`
      SELECT id, version, hash FROM artefact_versions
      WHERE account_id = ${accountId} AND kind = ${kind} AND artefact_id = ${target}
      ORDER BY version DESC LIMIT 1`);
    if (latest && latest.hash === hash) return { id: Number(latest.id), version: Number(latest.version) };
    const version = latest ? Number(latest.version) + 1 : 1;
    const row = await this.store.get<{ id: number | string }>(sql`
      INSERT INTO artefact_versions (account_id, kind, artefact_id, version, body, hash, author_id, author_login, created_at)
      VALUES (${accountId}, ${kind}, ${target}, ${version}, ${toJson(body)}, ${hash}, ${author.id}, ${author.login},
              ${this.clock()})
      RETURNING id`);
    return { id: Number(row!.id), version };
  }

  /**
   * The row id of an inline definition a request runs: stored once per account and content.
   * `inserted`: the row is new, written in the caller's transaction (not committed yet).
   */
  async requestDefinition(accountId: string, body: unknown): Promise<{ id: number; inserted: boolean }> {
    const hash = contentHash(body);
    const row = await this.store.get<{ id: number | string }>(sql`
      INSERT INTO artefact_versions (account_id, kind, artefact_id, version, body, hash, author_id, author_login, created_at)
      VALUES (${accountId}, ${REQUEST_DEFINITION}, ${hash}, ${1}, ${toJson(body)}, ${hash}, ${null}, ${SYSTEM_AUTHOR.login},
              ${this.clock()})
      ON CONFLICT DO NOTHING
      RETURNING id`);
    if (row) return { id: Number(row.id), inserted: true };
    const found = await this.store.get<{ id: number | string }>(sql`
      SELECT id FROM artefact_versions
      WHERE account_id = ${accountId} AND kind = ${REQUEST_DEFINITION} AND artefact_id = ${hash} AND version = ${1}`);
    return { id: Number(found!.id), inserted: false };
  }

  /** The body of a version by its row id (what a run references), or undefined. */
  async bodyOf<T>(accountId: string, id: number): Promise<T | undefined> {
    const row = await this.store.get<{ body: string }>(
      sql`SELECT body FROM artefact_versions WHERE account_id = ${accountId} AND id = ${id}`,
    );
    return row && fromJson<T>(row.body);
  }

  /** An artefact's versions, newest first; `before`: versions older than this number (the next page). */
  async list(
    accountId: string,
    kind: ArtefactKind,
    artefactId: string | number,
    page: { before?: number; limit?: number } = {},
  ): Promise<VersionSummary[]> {
    const limit = Math.min(Math.max(1, page.limit ?? 50), VERSION_PAGE_MAX);
    const rows = await this.store.all<VersionRow>(sql`
      SELECT id, version, author_id, author_login, created_at FROM artefact_versions
      WHERE account_id = ${accountId} AND kind = ${kind} AND artefact_id = ${String(artefactId)}
        ${page.before === undefined ? sql`` : sql`AND version < ${page.before}`}
      ORDER BY version DESC LIMIT ${limit}`);
    return rows.map(toSummary);
  }

  async find(
    accountId: string,
    kind: ArtefactKind,
    artefactId: string | number,
    version: number,
  ): Promise<ArtefactVersion | undefined> {
    const row = await this.store.get<VersionRow>(sql`
      SELECT id, version, author_id, author_login, created_at, body FROM artefact_versions
      WHERE account_id = ${accountId} AND kind = ${kind} AND artefact_id = ${String(artefactId)}
        AND version = ${version}`);
    return row && { ...toSummary(row), body: fromJson(row.body) };
  }
}

function toSummary(row: VersionRow): VersionSummary {
  return {
    version: Number(row.version),
    author: { id: row.author_id === null ? null : Number(row.author_id), login: row.author_login },
    createdAt: Number(row.created_at),
  };
}
