/**
 * i18n dictionaries: (key, language) → text, per project, with account-wide entries
 * (project 0) as the fallback. Languages are two-letter codes (`fr_FR` is read as `fr`).
 */
import type { Store } from '../store/index.js';
import { sql } from '../store/sql.js';
import { PlatformError } from './errors.js';
import { SYSTEM_AUTHOR, type ArtefactVersions, type Author } from './versions.js';

/** Project id of the account-wide dictionary. */
export const ACCOUNT_WIDE = 0;

export interface I18nLookup {
  key: string;
  language: string;
  /** The project whose dictionary is searched first (then the account-wide one). */
  projectId?: number | null;
}

export class Dictionaries {
  constructor(
    private readonly store: Store,
    private readonly versions: ArtefactVersions,
  ) {}

  /** Keeps a dictionary as it is now ({ language: { key: text } }) as its version (inside the change's transaction). */
  private async versioned(accountId: string, project: number, author: Author): Promise<void> {
    const rows = await this.store.all<{ key: string; language: string; text: string }>(sql`
      SELECT key, language, text FROM i18n_entries
      WHERE account_id = ${accountId} AND project_id = ${project} ORDER BY language, key`);
    const body: Record<string, Record<string, string>> = Object.create(null);
    for (const row of rows) (body[row.language] ??= Object.create(null))[row.key] = row.text;
    await this.versions.record(accountId, 'i18n', project, body, author);
  }

  /**
   * Makes a dictionary exactly `body` ({ language: { key: text } }): what a restore of one of its
   * versions saves. Keys and languages absent from `body` are removed.
   */
  async replaceAll(
    accountId: string,
    projectId: number | null,
    body: Record<string, Record<string, string>>,
    author: Author = SYSTEM_AUTHOR,
  ): Promise<void> {
    const project = projectId ?? ACCOUNT_WIDE;
    await this.store.transaction(async () => {
      await this.store.run(
        sql`DELETE FROM i18n_entries WHERE account_id = ${accountId} AND project_id = ${project}`,
      );
      for (const [language, entries] of Object.entries(body))
        await this.write(accountId, project, normaliseLanguage(language), entries);
      await this.versioned(accountId, project, author);
    });
  }

  /** Sets entries of one dictionary (a project's, or the account-wide one when projectId is null). */
  async set(
    accountId: string,
    projectId: number | null,
    language: string,
    entries: Record<string, string>,
    author: Author = SYSTEM_AUTHOR,
  ): Promise<void> {
    const lang = normaliseLanguage(language);
    const project = projectId ?? ACCOUNT_WIDE;
    await this.store.transaction(async () => {
      await this.write(accountId, project, lang, entries);
      await this.versioned(accountId, project, author);
    });
  }

  private async write(
    accountId: string,
    project: number,
    lang: string,
    entries: Record<string, string>,
  ): Promise<void> {
    for (const [key, text] of Object.entries(entries)) {
      if (key === '' || key.length > 255)
        throw new PlatformError('invalid', `invalid i18n key ${JSON.stringify(key)}`);
      await this.store.run(sql`
        INSERT INTO i18n_entries (account_id, project_id, key, language, text)
        VALUES (${accountId}, ${project}, ${key}, ${lang}, ${String(text)})
        ON CONFLICT (account_id, project_id, key, language) DO UPDATE SET text = excluded.text`);
    }
  }

  /** Every entry of one dictionary (a project's, or the account-wide one when projectId is null), by language then key. */
  async entries(
    accountId: string,
    projectId: number | null,
  ): Promise<Array<{ key: string; language: string; text: string }>> {
    return this.store.all<{ key: string; language: string; text: string }>(sql`
      SELECT key, language, text FROM i18n_entries
      WHERE account_id = ${accountId} AND project_id = ${projectId ?? ACCOUNT_WIDE}
      ORDER BY language, key`);
  }

  /** Removes keys of one dictionary in a language; returns how many were removed. */
  async remove(
    accountId: string,
    projectId: number | null,
    language: string,
    keys: string[],
    author: Author = SYSTEM_AUTHOR,
  ): Promise<number> {
    if (keys.length === 0) return 0;
    const project = projectId ?? ACCOUNT_WIDE;
    return this.store.transaction(async () => {
      const { changes } = await this.store.run(sql`
        DELETE FROM i18n_entries WHERE account_id = ${accountId} AND project_id = ${project}
          AND language = ${normaliseLanguage(language)} AND key IN (${sql.join(keys)})`);
      if (changes > 0) await this.versioned(accountId, project, author);
      return changes;
    });
  }

  /** The text of a key in a language: the project's entry, else the account-wide one, else undefined. */
  async lookup(accountId: string, query: I18nLookup): Promise<string | undefined> {
    const lang = normaliseLanguage(query.language);
    const row = await this.store.get<{ text: string }>(sql`
      SELECT text FROM i18n_entries
      WHERE account_id = ${accountId} AND key = ${query.key} AND language = ${lang}
        AND project_id IN (${query.projectId ?? ACCOUNT_WIDE}, ${ACCOUNT_WIDE})
      ORDER BY project_id DESC LIMIT 1`);
    return row?.text;
  }
}

/** `fr_FR`, `FR`, `fr-CA` → `fr`. */
export function normaliseLanguage(language: string): string {
  const code = language.trim().slice(0, 2).toLowerCase();
  if (!/^[a-z]{2}$/.test(code))
    throw new PlatformError('invalid', `invalid language ${JSON.stringify(language)}`);
  return code;
}
