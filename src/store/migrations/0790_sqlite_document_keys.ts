import { defineMigration } from '../migrate.js';

/**
 * Key columns on SQLite (src/store/documents-sqlite.ts): `documents` gets k1…k4, each holding
 * exactly `json_extract(doc, <path>)` of an indexed field (no declared type: a column with a type
 * would convert what it is given, `JSONB` text to numbers for one), and t1…t4 holding its
 * `json_type`. They are NULL in every existing row (no row is rewritten) until an index build
 * fills them. Indexes created before stay expression indexes over `doc` and keep answering as
 * they did (the collections' `key_columns` stay `{}`); deleting and creating one again puts it on
 * key columns.
 */
export default defineMigration({
  id: '0790_sqlite_document_keys',
  async up(db) {
    if (db.dialect.name !== 'sqlite') return;
    for (const n of [1, 2, 3, 4]) {
      await db.exec(`ALTER TABLE documents ADD COLUMN k${n}`);
      await db.exec(`ALTER TABLE documents ADD COLUMN t${n} TEXT`);
    }
  },
});
