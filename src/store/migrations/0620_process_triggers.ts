import { defineMigration } from '../migrate.js';

/**
 * Triggers of stored process definitions (docs/hosts.md, "Triggers"; src/platform/processes/
 * triggers.ts): one row per definition whose start event is a timer or a message, and enabled. A
 * timer's row is its schedule — when it began (`anchor`), its next tick (`next_at`, null when no
 * tick is left) and what its last firing started — claimed by a conditional UPDATE in the same
 * transaction as the request it starts. A message's row finds the definition by its name, which
 * is unique in the account.
 */
export default defineMigration({
  id: '0620_process_triggers',
  async up(db) {
    const t = db.dialect.types;
    await db.exec(`
      CREATE TABLE process_triggers (
        definition_id ${t.bigint} PRIMARY KEY REFERENCES process_definitions (id) ON DELETE CASCADE,
        account_id ${t.binaryText} NOT NULL,
        node_id ${t.text} NOT NULL,
        kind ${t.text} NOT NULL,
        timer ${t.text},
        message ${t.binaryText},
        anchor ${t.bigint} NOT NULL,
        next_at ${t.bigint},
        fired_count ${t.integer} NOT NULL DEFAULT 0,
        last_fired_at ${t.bigint},
        last_request_id ${t.binaryText},
        fired_by ${t.text}
      );
      CREATE INDEX process_triggers_due ON process_triggers (next_at) WHERE next_at IS NOT NULL;
      CREATE UNIQUE INDEX process_triggers_message ON process_triggers (account_id, message)
        WHERE message IS NOT NULL;
    `);
  },
});
