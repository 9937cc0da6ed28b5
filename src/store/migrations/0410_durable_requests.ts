import { defineMigration } from '../migrate.js';

/**
 * Durable requests (docs/hosts.md, "Durable requests and timers"): the lease of each run (the
 * server process driving it, until when) with the data document as it was when the current step
 * started (restored when another server re-runs the step); the timers of manual tasks (deadline,
 * reminder); named leases (the timer lease). Runs left `ready`/`running` by an older version are
 * given an expired lease so that a sweeper resumes them.
 */
export default defineMigration({
  id: '0410_durable_requests',
  async up(db) {
    const t = db.dialect.types;
    const cursor = db.dialect.name === 'postgres' ? 'cursor::text' : 'cursor';
    await db.exec(`
      ALTER TABLE process_runs ADD COLUMN lease_owner ${t.text};
      ALTER TABLE process_runs ADD COLUMN lease_expires ${t.bigint};
      ALTER TABLE process_runs ADD COLUMN step_data ${t.json};
      CREATE INDEX process_runs_lease ON process_runs (lease_expires) WHERE lease_expires IS NOT NULL;
      UPDATE process_runs SET lease_expires = 0
        WHERE ${cursor} LIKE '%"phase":"ready"%' OR ${cursor} LIKE '%"phase":"running"%';
      CREATE TABLE process_timers (
        id ${t.id},
        account_id ${t.binaryText} NOT NULL,
        request_id ${t.binaryText} NOT NULL,
        step_id ${t.integer} NOT NULL,
        iteration ${t.integer} NOT NULL,
        kind ${t.text} NOT NULL,
        due_at ${t.bigint} NOT NULL,
        message ${t.text},
        fired_at ${t.bigint},
        fired_by ${t.text},
        FOREIGN KEY (account_id, request_id) REFERENCES requests (account_id, id) ON DELETE CASCADE
      );
      CREATE INDEX process_timers_due ON process_timers (due_at) WHERE fired_at IS NULL;
      CREATE TABLE leases (
        name ${t.binaryText} PRIMARY KEY,
        owner ${t.text} NOT NULL,
        expires_at ${t.bigint} NOT NULL
      );
    `);
  },
});
