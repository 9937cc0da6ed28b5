import { defineMigration } from '../migrate.js';

/**
 * Uploaded files (the file service, src/platform/files; 0110_files adds to them): a descriptor
 * row and, apart, the content, so listing descriptors never reads file bodies.
 */
export default defineMigration({
  id: '0002_uploads',
  async up(db) {
    const t = db.dialect.types;
    await db.exec(`
      CREATE TABLE uploads (
        account_id ${t.text} NOT NULL,
        id ${t.binaryText} NOT NULL,
        name ${t.text} NOT NULL,
        content_type ${t.text} NOT NULL,
        size ${t.bigint} NOT NULL,
        created_at ${t.bigint} NOT NULL,
        created_by ${t.bigint},
        PRIMARY KEY (account_id, id)
      );
      CREATE TABLE upload_contents (
        account_id ${t.text} NOT NULL,
        id ${t.binaryText} NOT NULL,
        content ${t.blob} NOT NULL,
        PRIMARY KEY (account_id, id),
        FOREIGN KEY (account_id, id) REFERENCES uploads (account_id, id) ON DELETE CASCADE
      );
    `);
  },
});
