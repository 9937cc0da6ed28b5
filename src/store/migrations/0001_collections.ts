import { defineMigration } from '../migrate.js';

/**
 * Collections of JSON documents (src/platform/collections). `documents.seq` is the insertion
 * order (a document keeps it when replaced); `documents.doc` is the JSON text exactly as stored.
 * `collections.shape` records, per field path, which JSON types occur (see platform/collections/shape.ts);
 * R_create_index adds partial expression indexes on `documents` at run time.
 */
export default defineMigration({
  id: '0001_collections',
  async up(db) {
    const t = db.dialect.types;
    await db.exec(`
      CREATE TABLE collections (
        id ${t.id},
        account_id ${t.text} NOT NULL,
        name ${t.binaryText} NOT NULL,
        is_public ${t.boolean} NOT NULL,
        is_readonly ${t.boolean} NOT NULL,
        shape ${t.text} NOT NULL,
        shape_version ${t.bigint} NOT NULL,
        created_at ${t.bigint} NOT NULL,
        UNIQUE (account_id, name)
      );
      CREATE TABLE documents (
        seq ${t.id},
        account_id ${t.text} NOT NULL,
        collection_id ${t.bigint} NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
        id ${t.binaryText} NOT NULL,
        doc ${t.json} NOT NULL,
        UNIQUE (account_id, collection_id, id)
      );
      CREATE INDEX documents_natural_order ON documents (account_id, collection_id, seq);
      CREATE INDEX documents_collection ON documents (collection_id);
      CREATE TABLE collection_indexes (
        account_id ${t.text} NOT NULL,
        collection_id ${t.bigint} NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
        name ${t.binaryText} NOT NULL,
        keys ${t.text} NOT NULL,
        is_unique ${t.boolean} NOT NULL,
        ascending ${t.boolean} NOT NULL,
        sql_name ${t.text} NOT NULL UNIQUE,
        created_at ${t.bigint} NOT NULL,
        PRIMARY KEY (collection_id, name)
      );
    `);
  },
});
