import { defineMigration } from '../migrate.js';

/**
 * The Idempotency-Key of `POST /api/v1/requests` (docs/server.md): kept with the request it
 * created, unique per account and initiator, with a fingerprint of what was asked (a retry with
 * the same key and another body is refused).
 */
export default defineMigration({
  id: '0530_request_keys',
  async up(db) {
    const t = db.dialect.types;
    await db.exec(`
      ALTER TABLE requests ADD COLUMN idempotency_key ${t.binaryText};
      ALTER TABLE requests ADD COLUMN idempotency_fingerprint ${t.text};
      CREATE UNIQUE INDEX requests_idempotency ON requests (account_id, initiator_id, idempotency_key)
        WHERE idempotency_key IS NOT NULL;
    `);
  },
});
