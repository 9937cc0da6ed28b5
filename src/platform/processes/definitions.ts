/**
 * Stored process definitions of an account, by id and by unique name (a sub-process step names
 * one; `POST /api/v1/requests` starts one). The definition is checked by parseDefinition when saved.
 */
import { sql, type Store } from '../../store/index.js';
import { notFound, PlatformError } from '../errors.js';
import { fromJson, toJson } from '../model.js';
import { SYSTEM_AUTHOR, type ArtefactVersions, type Author } from '../versions.js';
import { parseDefinition, type ProcessDefinition } from './definition.js';
import type { ProcessTriggers } from './triggers.js';

export interface StoredDefinition {
  id: number;
  accountId: string;
  name: string;
  definition: ProcessDefinition;
  /** The row id of its current version (what a request started from it runs), null before its first save. */
  versionId: number | null;
  createdAt: number;
  updatedAt: number;
}

type DefinitionRow = {
  id: number;
  account_id: string;
  name: string;
  definition: string;
  version_id: number | string | null;
  created_at: number;
  updated_at: number;
};

export const definitionMissing = (ref: string | number) =>
  notFound(`Process definition ${typeof ref === 'string' ? JSON.stringify(ref) : ref} not found.`);

export class ProcessDefinitions {
  constructor(
    private readonly store: Store,
    private readonly clock: () => number,
    private readonly triggers: ProcessTriggers,
    private readonly versions: ArtefactVersions,
  ) {}

  /** Keeps the saved definition as a version and points the definition at it (inside the save's transaction). */
  private async versioned(
    accountId: string,
    row: DefinitionRow,
    definition: ProcessDefinition,
    author: Author,
  ): Promise<StoredDefinition> {
    const saved = await this.versions.record(accountId, 'process', row.id, definition, author);
    await this.store.run(
      sql`UPDATE process_definitions SET version_id = ${saved.id} WHERE account_id = ${accountId} AND id = ${row.id}`,
    );
    return toDefinition({ ...row, version_id: saved.id });
  }

  /**
   * Stores a definition under its name (`definition.name`); a name already taken is a conflict.
   * Its trigger (a timer or message start event) is stored with it.
   */
  async create(accountId: string, value: unknown, author: Author = SYSTEM_AUTHOR): Promise<StoredDefinition> {
    const definition = parseDefinition(value);
    const now = this.clock();
    return this.store.transaction(async () => {
      const row = await this.store.get<DefinitionRow>(sql`
        INSERT INTO process_definitions (account_id, name, definition, created_at, updated_at)
        VALUES (${accountId}, ${definition.name}, ${toJson(definition)}, ${now}, ${now})
        ON CONFLICT (account_id, name) DO NOTHING
        RETURNING *`);
      if (!row)
        throw new PlatformError(
          'conflict',
          `a process definition named ${JSON.stringify(definition.name)} exists`,
        );
      await this.triggers.sync(accountId, Number(row.id), definition, now);
      return this.versioned(accountId, row, definition, author);
    });
  }

  /**
   * Replaces a definition (its name may change); requests already started keep the one they run.
   * Its trigger follows: an unchanged timer keeps its schedule, a new one starts from now.
   */
  async replace(
    accountId: string,
    id: number,
    value: unknown,
    author: Author = SYSTEM_AUTHOR,
  ): Promise<StoredDefinition> {
    const definition = parseDefinition(value);
    const now = this.clock();
    try {
      return await this.store.transaction(async () => {
        const row = await this.store.get<DefinitionRow>(sql`
          UPDATE process_definitions SET name = ${definition.name}, definition = ${toJson(definition)},
                 updated_at = ${now}
          WHERE account_id = ${accountId} AND id = ${id} RETURNING *`);
        if (!row) throw definitionMissing(id);
        await this.triggers.sync(accountId, id, definition, now);
        return this.versioned(accountId, row, definition, author);
      });
    } catch (e) {
      if (this.store.dialect.uniqueViolation(e))
        throw new PlatformError(
          'conflict',
          `a process definition named ${JSON.stringify(definition.name)} exists`,
        );
      throw e;
    }
  }

  async find(accountId: string, ref: number | string): Promise<StoredDefinition | undefined> {
    const where = typeof ref === 'number' ? sql`id = ${ref}` : sql`name = ${ref}`;
    const row = await this.store.get<DefinitionRow>(
      sql`SELECT * FROM process_definitions WHERE account_id = ${accountId} AND ${where}`,
    );
    return row && toDefinition(row);
  }

  /** A definition by id or name, or `Process definition X not found.` */
  async require(accountId: string, ref: number | string): Promise<StoredDefinition> {
    const found = await this.find(accountId, ref);
    if (!found) throw definitionMissing(ref);
    return found;
  }

  async list(accountId: string): Promise<StoredDefinition[]> {
    const rows = await this.store.all<DefinitionRow>(
      sql`SELECT * FROM process_definitions WHERE account_id = ${accountId} ORDER BY name`,
    );
    return rows.map(toDefinition);
  }

  async delete(accountId: string, id: number): Promise<boolean> {
    const { changes } = await this.store.run(
      sql`DELETE FROM process_definitions WHERE account_id = ${accountId} AND id = ${id}`,
    );
    return changes > 0;
  }
}

function toDefinition(row: DefinitionRow): StoredDefinition {
  return {
    id: Number(row.id),
    accountId: row.account_id,
    name: row.name,
    definition: fromJson(row.definition),
    versionId: row.version_id === null ? null : Number(row.version_id),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}
