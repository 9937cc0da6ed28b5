import { defineMigration } from '../migrate.js';

/**
 * The file service (src/platform/files) grows the uploads of 0002: a charset, an update time,
 * a visibility, free metadata and, for files created by a script with no connected user, the
 * request that owns them; and the rights (user or lane × READ or WRITE) granted on each file.
 */
export default defineMigration({
  id: '0110_files',
  async up(db) {
    const t = db.dialect.types;
    await db.exec(`
      ALTER TABLE uploads ADD COLUMN charset ${t.text};
      ALTER TABLE uploads ADD COLUMN updated_at ${t.bigint} NOT NULL DEFAULT 0;
      ALTER TABLE uploads ADD COLUMN visibility ${t.text} NOT NULL DEFAULT 'PRIVATE';
      ALTER TABLE uploads ADD COLUMN metadata ${t.json} NOT NULL DEFAULT '{}';
      ALTER TABLE uploads ADD COLUMN owner_request ${t.text};
      UPDATE uploads SET updated_at = created_at;
      CREATE INDEX uploads_created ON uploads (account_id, created_at);
      CREATE TABLE upload_rights (
        account_id ${t.text} NOT NULL,
        file_id ${t.binaryText} NOT NULL,
        kind ${t.text} NOT NULL,
        access ${t.text} NOT NULL,
        principal_id ${t.bigint} NOT NULL,
        PRIMARY KEY (account_id, file_id, kind, access, principal_id),
        FOREIGN KEY (account_id, file_id) REFERENCES uploads (account_id, id) ON DELETE CASCADE
      );
      CREATE INDEX upload_rights_principal ON upload_rights (account_id, kind, principal_id);
    `);
  },
});
