import { defineMigration } from '../migrate.js';

/**
 * What scripts change while they run (src/platform): process requests (the minimal record:
 * status, data document, P_locks, P_message — the hosts extend it), counters, locks (named
 * leases), OAuth2 service tokens per mode, and the log P_log writes.
 */
export default defineMigration({
  id: '0102_runtime',
  async up(db) {
    const t = db.dialect.types;
    await db.exec(`
      CREATE TABLE requests (
        account_id ${t.binaryText} NOT NULL REFERENCES accounts (account_id) ON DELETE CASCADE,
        id ${t.binaryText} NOT NULL,
        project_id ${t.bigint} REFERENCES projects (id) ON DELETE SET NULL,
        version_id ${t.bigint} REFERENCES project_versions (id) ON DELETE SET NULL,
        mode ${t.text} NOT NULL,
        status ${t.integer} NOT NULL,
        data ${t.json} NOT NULL,
        p_locks ${t.json} NOT NULL,
        p_message ${t.text} NOT NULL,
        initiator_id ${t.bigint} REFERENCES users (id) ON DELETE SET NULL,
        parent_id ${t.binaryText},
        created_at ${t.bigint} NOT NULL,
        updated_at ${t.bigint} NOT NULL,
        PRIMARY KEY (account_id, id)
      );
      CREATE INDEX requests_project ON requests (account_id, project_id, created_at);
      CREATE TABLE counters (
        account_id ${t.binaryText} NOT NULL,
        name ${t.binaryText} NOT NULL,
        value ${t.bigint} NOT NULL,
        PRIMARY KEY (account_id, name)
      );
      CREATE TABLE locks (
        account_id ${t.binaryText} NOT NULL,
        name ${t.binaryText} NOT NULL,
        owner ${t.text} NOT NULL,
        acquired_at ${t.bigint} NOT NULL,
        expires_at ${t.bigint} NOT NULL,
        PRIMARY KEY (account_id, name)
      );
      CREATE TABLE oauth2_tokens (
        account_id ${t.binaryText} NOT NULL,
        service ${t.binaryText} NOT NULL,
        mode ${t.text} NOT NULL,
        token ${t.json} NOT NULL,
        updated_at ${t.bigint} NOT NULL,
        PRIMARY KEY (account_id, service, mode)
      );
      CREATE TABLE logs (
        id ${t.id},
        account_id ${t.binaryText} NOT NULL,
        request_id ${t.binaryText},
        project_id ${t.bigint},
        user_id ${t.bigint},
        mode ${t.text} NOT NULL,
        level ${t.text} NOT NULL,
        message ${t.text} NOT NULL,
        created_at ${t.bigint} NOT NULL
      );
      CREATE INDEX logs_account ON logs (account_id, created_at);
      CREATE INDEX logs_request ON logs (account_id, request_id);
    `);
  },
});
