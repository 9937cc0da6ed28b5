/**
 * Projects: title, type, author, summary, content, metadata (get_project_metadata), the P_log
 * attribute (log level), versions each published in a mode, the pools (and so lanes) the project
 * uses, and child projects.
 */
import { sql, type Store } from '../../store/index.js';
import { MESSAGES, notFound, PlatformError } from '../errors.js';
import { fromJson, isMode, storedMode, toJson, toJsonObject, type Mode } from '../model.js';
import { toLane, type Lane, type LaneRow } from '../directory/lanes.js';
import { isLogLevel, storedLogLevel, type LogThreshold } from '../logs.js';

export interface Project {
  id: number;
  accountId: string;
  title: string;
  type: string;
  authorId: number | null;
  summary: Record<string, unknown>;
  content: Record<string, unknown>;
  metadata: Record<string, unknown>;
  parentId: number | null;
  /** The project's P_log attribute: the log level its scripts use instead of the mode's rule. */
  logLevel: LogThreshold | null;
  createdAt: number;
  updatedAt: number;
}

export interface NewProject {
  title: string;
  type?: string;
  authorId?: number | null;
  summary?: Record<string, unknown>;
  content?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  parentId?: number | null;
  logLevel?: LogThreshold | null;
}

export interface ProjectVersion {
  id: number;
  projectId: number;
  name: string;
  mode: Mode;
  createdAt: number;
}

type ProjectRow = {
  id: number;
  account_id: string;
  title: string;
  type: string;
  author_id: number | null;
  summary: string;
  content: string;
  metadata: string;
  parent_id: number | null;
  log_level: string | null;
  created_at: number;
  updated_at: number;
};

type VersionRow = { id: number; project_id: number; name: string; mode: string; created_at: number };

export class Projects {
  constructor(
    private readonly store: Store,
    private readonly clock: () => number,
  ) {}

  async create(accountId: string, input: NewProject): Promise<Project> {
    if (input.parentId != null) await this.require(accountId, input.parentId);
    if (input.authorId != null) await this.requireUser(accountId, input.authorId);
    const now = this.clock();
    const row = await this.store.get<ProjectRow>(sql`
      INSERT INTO projects (account_id, title, type, author_id, summary, content, metadata, parent_id, log_level,
                            created_at, updated_at)
      VALUES (${accountId}, ${checkTitle(input.title)}, ${input.type ?? 'PROCESS'}, ${input.authorId ?? null},
              ${toJson(toJsonObject(input.summary ?? {}, 'summary'))}, ${toJson(toJsonObject(input.content ?? {}, 'content'))},
              ${toJson(toJsonObject(input.metadata ?? {}, 'metadata'))}, ${input.parentId ?? null},
              ${checkLogLevel(input.logLevel)}, ${now}, ${now})
      RETURNING *`);
    return toProject(row!);
  }

  async find(accountId: string, id: number): Promise<Project | undefined> {
    const row = await this.store.get<ProjectRow>(
      sql`SELECT * FROM projects WHERE account_id = ${accountId} AND id = ${id}`,
    );
    return row && toProject(row);
  }

  /** A project of the account, or `Project not found.` */
  async require(accountId: string, id: number): Promise<Project> {
    const project = await this.find(accountId, id);
    if (!project) throw notFound(MESSAGES.projectNotFound);
    return project;
  }

  async list(accountId: string): Promise<Project[]> {
    const rows = await this.store.all<ProjectRow>(
      sql`SELECT * FROM projects WHERE account_id = ${accountId} ORDER BY id`,
    );
    return rows.map(toProject);
  }

  async children(accountId: string, id: number): Promise<Project[]> {
    const rows = await this.store.all<ProjectRow>(
      sql`SELECT * FROM projects WHERE account_id = ${accountId} AND parent_id = ${id} ORDER BY id`,
    );
    return rows.map(toProject);
  }

  async update(
    accountId: string,
    id: number,
    changes: Partial<Omit<NewProject, 'parentId'>>,
  ): Promise<Project> {
    const sets = [];
    if (changes.title !== undefined) sets.push(sql`title = ${checkTitle(changes.title)}`);
    if (changes.type !== undefined) sets.push(sql`type = ${changes.type}`);
    if (changes.authorId !== undefined) {
      if (changes.authorId !== null) await this.requireUser(accountId, changes.authorId);
      sets.push(sql`author_id = ${changes.authorId}`);
    }
    for (const field of ['summary', 'content', 'metadata'] as const)
      if (changes[field] !== undefined)
        sets.push(sql`${sql.raw(field)} = ${toJson(toJsonObject(changes[field], field))}`);
    if (changes.logLevel !== undefined) sets.push(sql`log_level = ${checkLogLevel(changes.logLevel)}`);
    sets.push(sql`updated_at = ${this.clock()}`);
    const row = await this.store.get<ProjectRow>(
      sql`UPDATE projects SET ${sql.join(sets)} WHERE account_id = ${accountId} AND id = ${id} RETURNING *`,
    );
    if (!row) throw notFound(MESSAGES.projectNotFound);
    return toProject(row);
  }

  async addVersion(
    accountId: string,
    projectId: number,
    input: { name: string; mode: Mode },
  ): Promise<ProjectVersion> {
    await this.require(accountId, projectId);
    if (!isMode(input.mode)) throw new PlatformError('invalid', `invalid mode ${JSON.stringify(input.mode)}`);
    const row = await this.store.get<VersionRow>(sql`
      INSERT INTO project_versions (account_id, project_id, name, mode, created_at)
      VALUES (${accountId}, ${projectId}, ${checkTitle(input.name)}, ${input.mode}, ${this.clock()})
      RETURNING id, project_id, name, mode, created_at`);
    return toVersion(row!);
  }

  /** Changes the mode a version is published in (TEST → ACCEPTANCE → LIVE …). */
  async setVersionMode(accountId: string, versionId: number, mode: Mode): Promise<ProjectVersion> {
    if (!isMode(mode)) throw new PlatformError('invalid', `invalid mode ${JSON.stringify(mode)}`);
    const row = await this.store.get<VersionRow>(sql`
      UPDATE project_versions SET mode = ${mode} WHERE account_id = ${accountId} AND id = ${versionId}
      RETURNING id, project_id, name, mode, created_at`);
    if (!row) throw notFound('Version not found.');
    return toVersion(row);
  }

  async versions(accountId: string, projectId: number): Promise<ProjectVersion[]> {
    const rows = await this.store.all<VersionRow>(sql`
      SELECT id, project_id, name, mode, created_at FROM project_versions
      WHERE account_id = ${accountId} AND project_id = ${projectId} ORDER BY id`);
    return rows.map(toVersion);
  }

  async findVersion(accountId: string, versionId: number): Promise<ProjectVersion | undefined> {
    const row = await this.store.get<VersionRow>(sql`
      SELECT id, project_id, name, mode, created_at FROM project_versions
      WHERE account_id = ${accountId} AND id = ${versionId}`);
    return row && toVersion(row);
  }

  /** The latest version of a project published in a mode, if any. */
  async currentVersion(
    accountId: string,
    projectId: number,
    mode: Mode,
  ): Promise<ProjectVersion | undefined> {
    const row = await this.store.get<VersionRow>(sql`
      SELECT id, project_id, name, mode, created_at FROM project_versions
      WHERE account_id = ${accountId} AND project_id = ${projectId} AND mode = ${mode}
      ORDER BY id DESC LIMIT 1`);
    return row && toVersion(row);
  }

  /** Associates a pool (and so its lanes) with the project. */
  async attachPool(accountId: string, projectId: number, poolId: number): Promise<void> {
    await this.require(accountId, projectId);
    const pool = await this.store.get(
      sql`SELECT id FROM pools WHERE account_id = ${accountId} AND id = ${poolId}`,
    );
    if (!pool) throw notFound(MESSAGES.poolNotFound);
    await this.store.run(sql`
      INSERT INTO project_pools (account_id, project_id, pool_id) VALUES (${accountId}, ${projectId}, ${poolId})
      ON CONFLICT (project_id, pool_id) DO NOTHING`);
  }

  async poolIds(accountId: string, projectId: number): Promise<number[]> {
    const rows = await this.store.all<{ pool_id: number }>(sql`
      SELECT pool_id FROM project_pools WHERE account_id = ${accountId} AND project_id = ${projectId} ORDER BY pool_id`);
    return rows.map((r) => r.pool_id);
  }

  /** The lanes of the project's pools. */
  async lanes(accountId: string, projectId: number): Promise<Lane[]> {
    const rows = await this.store.all<LaneRow>(sql`
      SELECT l.* FROM lanes l JOIN project_pools pp ON pp.pool_id = l.pool_id
      WHERE pp.account_id = ${accountId} AND pp.project_id = ${projectId} ORDER BY l.id`);
    return rows.map(toLane);
  }

  private async requireUser(accountId: string, userId: number): Promise<void> {
    const row = await this.store.get(
      sql`SELECT id FROM users WHERE account_id = ${accountId} AND id = ${userId}`,
    );
    if (!row) throw notFound(MESSAGES.userNotFound);
  }
}

function checkTitle(title: string): string {
  const text = String(title).trim();
  if (text === '' || text.length > 255)
    throw new PlatformError('invalid', `invalid title ${JSON.stringify(title)}`);
  return text;
}

function checkLogLevel(level: LogThreshold | null | undefined): string | null {
  if (level === undefined || level === null) return null;
  if (!isLogLevel(level, true))
    throw new PlatformError('invalid', `invalid log level ${JSON.stringify(level)}`);
  return level;
}

function toProject(row: ProjectRow): Project {
  return {
    id: row.id,
    accountId: row.account_id,
    title: row.title,
    type: row.type,
    authorId: row.author_id,
    summary: fromJson(row.summary),
    content: fromJson(row.content),
    metadata: fromJson(row.metadata),
    parentId: row.parent_id,
    logLevel: row.log_level === null ? null : storedLogLevel(row.log_level),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toVersion(row: VersionRow): ProjectVersion {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    mode: storedMode(row.mode),
    createdAt: row.created_at,
  };
}
