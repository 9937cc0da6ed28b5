import { defineMigration } from '../migrate.js';

/**
 * Key columns (src/store/documents-postgres.ts): on PostgreSQL, `documents` gets four nullable
 * `jsonb` columns k1…k4 that hold the value of an indexed field, so an index on one answers a
 * count from the index alone; `collections.key_columns` maps a collection's field paths to them
 * (JSON, `{}` when none). SQLite's key columns came later (0790_sqlite_document_keys).
 */
export default defineMigration({
  id: '0510_document_keys',
  async up(db) {
    await db.exec(
      `ALTER TABLE collections ADD COLUMN key_columns ${db.dialect.types.text} NOT NULL DEFAULT '{}'`,
    );
    if (db.dialect.name === 'postgres')
      for (const column of ['k1', 'k2', 'k3', 'k4'])
        await db.exec(`ALTER TABLE documents ADD COLUMN ${column} JSONB`);
  },
});
