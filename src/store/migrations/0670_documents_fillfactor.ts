import { defineMigration } from '../migrate.js';

/**
 * PostgreSQL: `documents` pages keep a fifth free (fillfactor 80), so that rewriting a document
 * (update_objects, save over an `_id`) can put the new row version on the same page. With no
 * index on a changed column (collection fields are indexed through the key columns k1…k4, and
 * `doc` itself is in no index while no collection indexes more than four fields) that is a HOT
 * update: none of the table's indexes gets a new entry. Pages written before keep their fill
 * until rewritten. SQLite has no such setting.
 */
export default defineMigration({
  id: '0670_documents_fillfactor',
  async up(db) {
    if (db.dialect.name === 'postgres') await db.exec('ALTER TABLE documents SET (fillfactor = 80)');
  },
});
