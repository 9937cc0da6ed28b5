import { defineMigration } from '../migrate.js';

/**
 * Rights (src/platform/rights.ts): the design right a user holds on a project (designers write
 * its scripts and may evaluate templates in it), and runtime lanes, the only lanes whose members
 * scripts may change (P_add_user_to_lane). A lane's kind is fixed when it is created.
 */
export default defineMigration({
  id: '0500_rights',
  async up(db) {
    const t = db.dialect.types;
    await db.exec(`
      CREATE TABLE project_designers (
        account_id ${t.binaryText} NOT NULL,
        project_id ${t.bigint} NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
        user_id ${t.bigint} NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        granted_at ${t.bigint} NOT NULL,
        PRIMARY KEY (project_id, user_id)
      );
      CREATE INDEX project_designers_user ON project_designers (account_id, user_id);
      ALTER TABLE lanes ADD COLUMN runtime ${t.boolean} NOT NULL DEFAULT FALSE;
    `);
  },
});
