/**
 * Custom lists: named arrays (typically of {label, value} items) identified by a string id,
 * optionally attached to a project. get_custom_list reads one, save_custom_list replaces its content.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Sql, type Store } from '../../store/index.js';
import { MESSAGES, notFound, PlatformError } from '../errors.js';
import { fromJson, toJson, toJsonValue } from '../model.js';
import { SYSTEM_AUTHOR, type ArtefactVersions, type Author } from '../versions.js';

export interface CustomList {
  id: string;
  accountId: string;
  projectId: number | null;
  name: string;
  content: unknown[];
  updatedAt: number;
}

type CustomListRow = {
  id: string;
  account_id: string;
  project_id: number | null;
  name: string;
  content: string;
  updated_at: number;
};

const LIST_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

export class CustomLists {
  constructor(
    private readonly store: Store,
    private readonly clock: () => number,
    private readonly versions: ArtefactVersions,
  ) {}

  /** Runs a write returning the list's row, and keeps its content as a version, in one transaction. */
  private saved(accountId: string, author: Author, write: Sql): Promise<CustomList | undefined> {
    return this.store.transaction(async () => {
      const row = await this.store.get<CustomListRow>(write);
      if (!row) return undefined;
      const list = toCustomList(row);
      await this.versions.record(accountId, 'custom-list', list.id, list.content, author);
      return list;
    });
  }

  async create(
    accountId: string,
    input: { id?: string; name: string; projectId?: number | null; content?: unknown[] },
    author: Author = SYSTEM_AUTHOR,
  ): Promise<CustomList> {
    const id = input.id ?? randomUUID();
    if (!LIST_ID.test(id)) throw new PlatformError('invalid', `invalid custom list id ${JSON.stringify(id)}`);
    if (input.projectId != null) {
      const project = await this.store.get(
        sql`SELECT id FROM projects WHERE account_id = ${accountId} AND id = ${input.projectId}`,
      );
      if (!project) throw notFound(MESSAGES.projectNotFound);
    }
    const list = await this.saved(
      accountId,
      author,
      sql`
      INSERT INTO custom_lists (account_id, id, project_id, name, content, updated_at)
      VALUES (${accountId}, ${id}, ${input.projectId ?? null}, ${input.name}, ${toJson(checkContent(input.content ?? []))},
              ${this.clock()})
      ON CONFLICT (account_id, id) DO NOTHING
      RETURNING *`,
    );
    if (!list) throw new PlatformError('conflict', `custom list ${id} already exists`);
    return list;
  }

  async find(accountId: string, id: string): Promise<CustomList | undefined> {
    const row = await this.store.get<CustomListRow>(
      sql`SELECT * FROM custom_lists WHERE account_id = ${accountId} AND id = ${id}`,
    );
    return row && toCustomList(row);
  }

  /** A list of the account, or `Custom list not found.` */
  async require(accountId: string, id: string): Promise<CustomList> {
    const list = await this.find(accountId, id);
    if (!list) throw notFound(MESSAGES.customListNotFound);
    return list;
  }

  /** Replaces a list's content and returns the new content, or `Custom list not found.` */
  async save(
    accountId: string,
    id: string,
    content: unknown[],
    author: Author = SYSTEM_AUTHOR,
  ): Promise<unknown[]> {
    const list = await this.saved(
      accountId,
      author,
      sql`
      UPDATE custom_lists SET content = ${toJson(checkContent(content))}, updated_at = ${this.clock()}
      WHERE account_id = ${accountId} AND id = ${id} RETURNING *`,
    );
    if (!list) throw notFound(MESSAGES.customListNotFound);
    return list.content;
  }

  /** Renames a list and replaces its content, or `Custom list not found.` */
  async replace(
    accountId: string,
    id: string,
    input: { name: string; content: unknown[] },
    author: Author = SYSTEM_AUTHOR,
  ): Promise<CustomList> {
    const list = await this.saved(
      accountId,
      author,
      sql`
      UPDATE custom_lists SET name = ${input.name}, content = ${toJson(checkContent(input.content))},
             updated_at = ${this.clock()}
      WHERE account_id = ${accountId} AND id = ${id} RETURNING *`,
    );
    if (!list) throw notFound(MESSAGES.customListNotFound);
    return list;
  }

  /** True when the account had the list and it was deleted. */
  async delete(accountId: string, id: string): Promise<boolean> {
    const { changes } = await this.store.run(
      sql`DELETE FROM custom_lists WHERE account_id = ${accountId} AND id = ${id}`,
    );
    return changes > 0;
  }

  async list(accountId: string, projectId?: number): Promise<CustomList[]> {
    const rows = await this.store.all<CustomListRow>(sql`
      SELECT * FROM custom_lists WHERE account_id = ${accountId}
      ${projectId === undefined ? sql`` : sql`AND project_id = ${projectId}`} ORDER BY id`);
    return rows.map(toCustomList);
  }
}

function checkContent(content: unknown): unknown[] {
  const copy = toJsonValue(content, 'the custom list content');
  if (!Array.isArray(copy)) throw new PlatformError('invalid', 'a custom list content must be an array');
  return copy;
}

function toCustomList(row: CustomListRow): CustomList {
  return {
    id: row.id,
    accountId: row.account_id,
    projectId: row.project_id,
    name: row.name,
    content: fromJson(row.content),
    updatedAt: row.updated_at,
  };
}
