import { contentHash } from '../content-hash.js';
import { defineMigration } from '../migrate.js';
import { sql } from '../sql.js';
import type { Queryable } from '../types.js';

/**
 * The history of designed artefacts (docs/deploy.md, "History and rollback"): one row per saved
 * version of a process definition, composite API, web interface template, custom list or i18n
 * dictionary. What exists becomes each artefact's version 1. A run references the version of the
 * definition it runs (`definition_version_id`) instead of a copy: each run's copy becomes the
 * version of its stored definition when it equals it, else a `request-definition` row named by its
 * content hash (one per account and content); the copies are then dropped.
 */
export default defineMigration({
  id: '0690_artefact_versions',
  async up(db) {
    const t = db.dialect.types;
    await db.exec(`
      CREATE TABLE artefact_versions (
        id ${t.id},
        account_id ${t.binaryText} NOT NULL REFERENCES accounts (account_id) ON DELETE CASCADE,
        kind ${t.text} NOT NULL,
        artefact_id ${t.binaryText} NOT NULL,
        version ${t.integer} NOT NULL,
        body ${t.json} NOT NULL,
        hash ${t.text} NOT NULL,
        author_id ${t.bigint},
        author_login ${t.text} NOT NULL,
        created_at ${t.bigint} NOT NULL
      );
      CREATE UNIQUE INDEX artefact_versions_number ON artefact_versions (account_id, kind, artefact_id, version);
      ALTER TABLE process_definitions ADD COLUMN version_id ${t.bigint};
      ALTER TABLE process_runs ADD COLUMN definition_version_id ${t.bigint};
    `);
    const insert = async (
      account: string,
      kind: string,
      artefact: string,
      body: unknown,
      at: unknown,
    ): Promise<number> => {
      const hash = contentHash(body);
      const row = await db.get<{ id: number | string }>(sql`
        INSERT INTO artefact_versions (account_id, kind, artefact_id, version, body, hash, author_id, author_login, created_at)
        VALUES (${account}, ${kind}, ${kind === 'request-definition' ? hash : artefact}, ${1}, ${JSON.stringify(body)},
                ${hash}, ${null}, ${'flowmark'}, ${Number(at ?? 0)})
        ON CONFLICT DO NOTHING RETURNING id`);
      if (row) return Number(row.id);
      const found = await db.get<{ id: number | string }>(sql`
        SELECT id FROM artefact_versions WHERE account_id = ${account} AND kind = ${kind} AND artefact_id = ${hash}`);
      return Number(found!.id);
    };
    const definitions = new Map<number, { hash: string; versionId: number }>();
    for (const d of await db.all<Row>(
      sql`SELECT id, account_id, definition, updated_at FROM process_definitions`,
    )) {
      const body = parsed(d.definition);
      const versionId = await insert(text(d.account_id), 'process', text(d.id), body, d.updated_at);
      await db.run(sql`UPDATE process_definitions SET version_id = ${versionId} WHERE id = ${d.id}`);
      const { bpmn: _source, ...run } = isObject(body) ? body : {};
      definitions.set(Number(d.id), { hash: contentHash(run), versionId });
    }
    for (const c of await db.all<Row>(sql`SELECT * FROM composite_apis`)) {
      const body = {
        method: text(c.method),
        path: text(c.path),
        template: text(c.template),
        process: c.process === null || c.process === undefined ? null : text(c.process),
        projectId: c.project_id === null ? null : Number(c.project_id),
        mode: text(c.mode),
        isPublic: Boolean(c.is_public),
        description: text(c.description),
      };
      await insert(text(c.account_id), 'composite-api', String(c.id), body, c.updated_at);
    }
    for (const w of await db.all<Row>(sql`SELECT * FROM web_interface_templates`))
      await insert(
        text(w.account_id),
        'web-interface',
        text(w.web_interface_id),
        { template: text(w.template) },
        w.updated_at,
      );
    for (const l of await db.all<Row>(sql`SELECT * FROM custom_lists`))
      await insert(text(l.account_id), 'custom-list', text(l.id), parsed(l.content), l.updated_at);
    await seedDictionaries(db, insert);
    for (;;) {
      const runs = await db.all<Row>(sql`
        SELECT account_id, request_id, definition_id, definition FROM process_runs
        WHERE definition_version_id IS NULL LIMIT ${500}`);
      if (runs.length === 0) break;
      for (const r of runs) {
        const body = parsed(r.definition);
        const stored = r.definition_id === null ? undefined : definitions.get(Number(r.definition_id));
        const id =
          stored && stored.hash === contentHash(body)
            ? stored.versionId
            : await insert(text(r.account_id), 'request-definition', '', body, Date.now());
        await db.run(sql`
          UPDATE process_runs SET definition_version_id = ${id}
          WHERE account_id = ${r.account_id} AND request_id = ${r.request_id}`);
      }
    }
    await db.exec(`ALTER TABLE process_runs DROP COLUMN definition`);
  },
});

/** A row of one of the tables read, by column name. */
type Row = Record<string, unknown>;
const text = (value: unknown): string => String(value);

function parsed(text: unknown): unknown {
  return JSON.parse(String(text));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Each dictionary (an account's project, 0 the account-wide one) as { language: { key: text } }. */
async function seedDictionaries(
  db: Queryable,
  insert: (account: string, kind: string, artefact: string, body: unknown, at: unknown) => Promise<number>,
): Promise<void> {
  const rows = await db.all<{
    account_id: string;
    project_id: number | string;
    key: string;
    language: string;
    text: string;
  }>(
    sql`SELECT account_id, project_id, key, language, text FROM i18n_entries ORDER BY account_id, project_id, language, key`,
  );
  const dictionaries = new Map<
    string,
    { account: string; project: string; body: Record<string, Record<string, string>> }
  >();
  for (const row of rows) {
    const name = `${row.account_id}\u0000${row.project_id}`;
    let dictionary = dictionaries.get(name);
    if (!dictionary) {
      dictionary = { account: row.account_id, project: String(row.project_id), body: Object.create(null) };
      dictionaries.set(name, dictionary);
    }
    (dictionary.body[row.language] ??= Object.create(null))[row.key] = row.text;
  }
  for (const d of dictionaries.values()) await insert(d.account, 'i18n', d.project, d.body, Date.now());
}
