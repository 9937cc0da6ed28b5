import { defineMigration } from '../migrate.js';

/**
 * Authentication of the HTTP server (src/server/auth): login sessions and API tokens. Only a
 * SHA-256 of each session id and token is stored, so the table alone lets nobody in. Both name
 * their account and user; a user's sessions and tokens go with the user.
 */
export default defineMigration({
  id: '0300_server_auth',
  async up(db) {
    const t = db.dialect.types;
    await db.exec(`
      CREATE TABLE server_sessions (
        id_hash ${t.binaryText} PRIMARY KEY,
        account_id ${t.binaryText} NOT NULL,
        user_id ${t.bigint} NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        created_at ${t.bigint} NOT NULL,
        expires_at ${t.bigint} NOT NULL
      );
      CREATE INDEX server_sessions_user ON server_sessions (account_id, user_id);
      CREATE INDEX server_sessions_expiry ON server_sessions (expires_at);
      CREATE TABLE api_tokens (
        id ${t.binaryText} PRIMARY KEY,
        account_id ${t.binaryText} NOT NULL,
        user_id ${t.bigint} NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name ${t.text} NOT NULL,
        token_hash ${t.binaryText} NOT NULL UNIQUE,
        created_at ${t.bigint} NOT NULL,
        expires_at ${t.bigint},
        last_used_at ${t.bigint}
      );
      CREATE INDEX api_tokens_user ON api_tokens (account_id, user_id);
    `);
  },
});
