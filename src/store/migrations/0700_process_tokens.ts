import { defineMigration } from '../migrate.js';

/**
 * Parallel branches as rows (docs/hosts.md, "Tokens, joins and recovery"): each token a fork sends
 * out beside the run's own is a `process_tokens` row with its cursor, compare-and-set version and
 * lease, claimed and resumed on its own; each token arriving at a join leaves a
 * `process_join_arrivals` row, unique per join and incoming flow (or branch), written in the
 * transaction that ends the token.
 */
export default defineMigration({
  id: '0700_process_tokens',
  async up(db) {
    const t = db.dialect.types;
    await db.exec(`
      CREATE TABLE process_tokens (
        account_id ${t.binaryText} NOT NULL,
        request_id ${t.binaryText} NOT NULL,
        id ${t.binaryText} NOT NULL,
        cursor ${t.json} NOT NULL,
        user_id ${t.bigint},
        version ${t.integer} NOT NULL,
        recoveries ${t.integer} NOT NULL DEFAULT 0,
        lease_owner ${t.text},
        lease_expires ${t.bigint},
        PRIMARY KEY (account_id, request_id, id),
        FOREIGN KEY (account_id, request_id) REFERENCES requests (account_id, id) ON DELETE CASCADE
      );
      CREATE INDEX process_tokens_lease ON process_tokens (lease_expires) WHERE lease_expires IS NOT NULL;
      CREATE TABLE process_join_arrivals (
        account_id ${t.binaryText} NOT NULL,
        request_id ${t.binaryText} NOT NULL,
        node ${t.binaryText} NOT NULL,
        arrival ${t.binaryText} NOT NULL,
        branch ${t.text},
        result ${t.json},
        seq ${t.bigint} NOT NULL,
        PRIMARY KEY (account_id, request_id, node, arrival),
        FOREIGN KEY (account_id, request_id) REFERENCES requests (account_id, id) ON DELETE CASCADE
      );
    `);
  },
});
