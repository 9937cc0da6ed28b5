import { createIndexStatement } from '../documents-postgres.js';
import { defineMigration } from '../migrate.js';
import { quoteIdent, sql } from '../sql.js';

/**
 * PostgreSQL collection indexes rebuilt with their keys in the order the document dialect sorts
 * (`NULLS FIRST` ascending, `NULLS LAST` descending: src/store/documents-postgres.ts), so a sort +
 * limit on an indexed field reads the index instead of sorting every match. Each index keeps its
 * name, keys and uniqueness; SQLite's indexes already sort as its queries do (nothing to do).
 */
export default defineMigration({
  id: '0600_sorted_key_indexes',
  async up(db) {
    if (db.dialect.name !== 'postgres') return;
    const rows = await db.all<{
      collection_id: number;
      keys: string;
      is_unique: boolean;
      ascending: boolean;
      sql_name: string;
      key_columns: string;
    }>(
      sql`SELECT i.collection_id, i.keys, i.is_unique, i.ascending, i.sql_name, c.key_columns
          FROM collection_indexes i JOIN collections c ON c.id = i.collection_id ORDER BY i.sql_name`,
    );
    for (const r of rows) {
      const def = { keys: JSON.parse(r.keys) as string[], unique: r.is_unique, ascending: r.ascending };
      await db.exec(`DROP INDEX IF EXISTS ${quoteIdent(r.sql_name)}`);
      await db.run(
        createIndexStatement(
          r.sql_name,
          Number(r.collection_id),
          def,
          JSON.parse(r.key_columns) as Record<string, string>,
        ),
      );
    }
  },
});
