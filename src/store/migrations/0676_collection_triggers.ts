import { defineMigration } from '../migrate.js';

/**
 * Collection triggers (docs/hosts.md, "Collection triggers"): a definition's start event may start
 * a request when documents matching a filter are written to a collection of the account. Its
 * `process_triggers` row names the collection and keeps the filter; every document written to a
 * collection some trigger watches leaves a row in `process_trigger_events` (an outbox), in the
 * transaction of the write; the sweeper drains it, starting one request per event that matches.
 */
export default defineMigration({
  id: '0676_collection_triggers',
  async up(db) {
    const t = db.dialect.types;
    await db.exec(`
      ALTER TABLE process_triggers ADD COLUMN collection ${t.binaryText};
      ALTER TABLE process_triggers ADD COLUMN filter ${t.text};
      CREATE INDEX process_triggers_collection ON process_triggers (account_id, collection)
        WHERE collection IS NOT NULL;
      CREATE TABLE process_trigger_events (
        id ${t.id},
        account_id ${t.binaryText} NOT NULL,
        definition_id ${t.bigint} NOT NULL REFERENCES process_definitions (id) ON DELETE CASCADE,
        doc ${t.text} NOT NULL,
        created_at ${t.bigint} NOT NULL
      );
    `);
  },
});
