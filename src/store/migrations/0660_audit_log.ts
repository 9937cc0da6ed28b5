import { defineMigration } from '../migrate.js';

/**
 * The audit log (docs/server.md "Audit log"): one row per administrative or design change made
 * through the API — who, when, which route on what, the resource before and after.
 */
export default defineMigration({
  id: '0660_audit_log',
  async up(db) {
    const t = db.dialect.types;
    await db.exec(`
      CREATE TABLE audit_log (
        id ${t.id},
        account_id ${t.binaryText} NOT NULL,
        at ${t.bigint} NOT NULL,
        actor_id ${t.bigint},
        actor_login ${t.text} NOT NULL,
        method ${t.text} NOT NULL,
        path ${t.text} NOT NULL,
        kind ${t.text} NOT NULL,
        target ${t.text} NOT NULL,
        status ${t.integer} NOT NULL,
        before_state ${t.json},
        after_state ${t.json}
      );
      CREATE INDEX audit_log_account ON audit_log (account_id, id);
      CREATE INDEX audit_log_target ON audit_log (account_id, kind, target, id);
    `);
  },
});
