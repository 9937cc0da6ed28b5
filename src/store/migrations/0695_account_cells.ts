import { defineMigration } from '../migrate.js';

/**
 * Cells (docs/deploy.md, "Cells"): in the directory cell (DATABASE_URL), the cell each account of
 * another cell lives in. An account without a row lives in the directory cell itself. Every cell has
 * the table (one schema for all); only the directory's rows mean anything.
 */
export default defineMigration({
  id: '0695_account_cells',
  async up(db) {
    const t = db.dialect.types;
    await db.exec(`
      CREATE TABLE account_cells (
        account_id ${t.binaryText} PRIMARY KEY REFERENCES accounts (account_id) ON DELETE CASCADE,
        cell ${t.text} NOT NULL,
        placed_at ${t.bigint} NOT NULL
      );
    `);
  },
});
