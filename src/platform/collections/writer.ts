import { sql, type KeyColumns, type Queryable, type Sql } from '../../store/index.js';
import { scope, type CollectionRow } from './rows.js';
import { addToShape, serializeShape, type Shape } from './shape.js';
import type { Document } from './types.js';

/**
 * Rows per INSERT statement (at most 12 parameters each: 4, and per key column one value on
 * PostgreSQL, the document's text twice more on SQLite; well under both engines' limits).
 */
export const INSERT_BATCH = 500;

/**
 * The writes of one transaction on one collection, keeping its shape up to date and the key
 * columns of its indexed fields (store/documents.ts) in step with the documents.
 */
export class Writer {
  private shapeChanged = false;
  private keysChanged = false;
  readonly accountId: string;
  /** Every key column a write keeps in step: the filled ones and those being filled. */
  private keyList: Array<[path: string, column: string]>;
  /**
   * Whether a process's collection trigger watches this collection (docs/hosts.md, "Collection
   * triggers"): the documents written are then kept, and `recordTriggers` writes them to the
   * triggers' outbox in this transaction.
   */
  triggered = false;
  private written: Document[] = [];

  constructor(
    readonly tx: Queryable,
    readonly row: CollectionRow,
    readonly shape: Shape,
    private keyColumns: KeyColumns,
    private readonly maxShapePaths: number,
    private fillingColumns: KeyColumns = {},
  ) {
    this.accountId = row.accountId;
    this.keyList = [...Object.entries(keyColumns), ...Object.entries(fillingColumns)];
  }

  /** Field path → key column holding every document's value, as this transaction sees it (reads use these). */
  get keys(): KeyColumns {
    return this.keyColumns;
  }

  /**
   * Field path → key column an index build is still filling (indexes.ts): every write keeps it
   * in step, but no read uses it until the build has filled it and moved it to `keys`.
   */
  get filling(): KeyColumns {
    return this.fillingColumns;
  }

  /** Every key column a write keeps in step (`keys` and `filling`). */
  get writtenKeys(): KeyColumns {
    return { ...this.keyColumns, ...this.fillingColumns };
  }

  /** Replaces the key columns (saved with the shape, under a new version). */
  setKeys(keys: KeyColumns, filling: KeyColumns = this.fillingColumns): void {
    this.keyColumns = keys;
    this.fillingColumns = filling;
    this.keyList = [...Object.entries(keys), ...Object.entries(filling)];
    this.keysChanged = true;
  }

  /** Inserts documents (replacing those whose _id exists when `upsert`). */
  async insert(docs: Document[], upsert: boolean): Promise<void> {
    // PostgreSQL cannot upsert the same row twice in one statement: repeated ids go one by one.
    const step = upsert && new Set(docs.map((d) => d._id)).size < docs.length ? 1 : INSERT_BATCH;
    const keyColumns = this.sqlKeyColumns();
    const keyNames = keyColumns.map((column) => sql.raw(`, ${column}`));
    for (let i = 0; i < docs.length; i += step) {
      const slice = docs.slice(i, i + step);
      if (this.triggered) this.written.push(...slice);
      const values = slice.map((doc) => {
        this.track(doc);
        const json = JSON.stringify(doc);
        const keys = this.keyValues(doc, json).map((v) => sql`, ${v}`);
        return sql`(${this.accountId}, ${this.row.id}, ${doc._id}, ${json}${sql.join(keys, '')})`;
      });
      const conflict = upsert
        ? sql` ON CONFLICT (account_id, collection_id, id) DO UPDATE SET doc = excluded.doc${sql.join(
            keyColumns.map((column) => sql.raw(`, ${column} = excluded.${column}`)),
            '',
          )}`
        : sql``;
      await this.tx.run(
        sql`INSERT INTO documents (account_id, collection_id, id, doc${sql.join(keyNames, '')}) VALUES ${sql.join(values)}${conflict}`,
      );
    }
  }

  /**
   * Replaces documents by seq in one statement (at most INSERT_BATCH at a time): a table of the
   * new versions joined to `documents` (`WITH v AS (VALUES …) UPDATE … FROM v`, both engines).
   */
  async replace(items: ReadonlyArray<{ seq: number; doc: Document }>): Promise<void> {
    const types = this.tx.dialect.types;
    const keyColumns = this.sqlKeyColumns();
    const columns = ['s', 'd', ...keyColumns.map((_, i) => `x${i}`)].join(', ');
    const sets = keyColumns.map((column, i) => sql.raw(`, ${column} = v.x${i}`));
    for (let i = 0; i < items.length; i += INSERT_BATCH) {
      const values = items.slice(i, i + INSERT_BATCH).map(({ seq, doc }) => {
        this.track(doc);
        if (this.triggered) this.written.push(doc);
        const json = JSON.stringify(doc);
        const keys = this.keyValues(doc, json).map((v) => sql`, ${v}`);
        // Typed in every row: PostgreSQL would otherwise read the parameters of VALUES as text.
        return sql`(CAST(${seq} AS ${sql.raw(types.bigint)}), CAST(${json} AS ${sql.raw(types.json)})${sql.join(keys, '')})`;
      });
      await this.tx.run(
        sql`WITH v (${sql.raw(columns)}) AS (VALUES ${sql.join(values)})
            UPDATE documents SET doc = v.d${sql.join(sets, '')} FROM v WHERE ${scope(this.row)} AND documents.seq = v.s`,
      );
    }
  }

  /**
   * The documents this transaction wrote, one outbox row per document and watching trigger
   * (`process_trigger_events`): one statement per INSERT_BATCH documents, matched against the
   * triggers' filters when the sweeper drains them, not here.
   */
  async recordTriggers(now: number): Promise<void> {
    const types = this.tx.dialect.types;
    for (let i = 0; i < this.written.length; i += INSERT_BATCH) {
      const values = this.written
        .slice(i, i + INSERT_BATCH)
        .map((doc) => sql`(CAST(${JSON.stringify(doc)} AS ${sql.raw(types.text)}))`);
      await this.tx.run(
        sql`WITH v (d) AS (VALUES ${sql.join(values)})
            INSERT INTO process_trigger_events (account_id, definition_id, doc, created_at)
            SELECT t.account_id, t.definition_id, v.d, ${now} FROM process_triggers t, v
            WHERE t.account_id = ${this.accountId} AND t.collection = ${this.row.name}`,
      );
    }
    this.written = [];
  }

  async saveShape(): Promise<void> {
    if (!this.shapeChanged && !this.keysChanged) return;
    await this.tx.run(
      sql`UPDATE collections SET shape = ${serializeShape(this.shape)}, key_columns = ${serializeKeys(this.keyColumns, this.fillingColumns)},
          shape_version = shape_version + 1 WHERE account_id = ${this.accountId} AND id = ${this.row.id}`,
    );
  }

  /** The SQL columns of every key column a write keeps (the dialect's keyColumnParts), in keyList order. */
  private sqlKeyColumns(): string[] {
    const documents = this.tx.dialect.documents;
    return this.keyList.flatMap(([, column]) => documents.keyColumnParts(column));
  }

  /** Their values for a document (`json`: its text as written), in the same order. */
  private keyValues(doc: Document, json: string): Sql[] {
    const documents = this.tx.dialect.documents;
    return this.keyList.flatMap(([path]) => documents.keyValues(doc, json, path));
  }

  /** Adds what `doc` holds to the shape (saved by saveShape). */
  track(doc: Record<string, unknown>): void {
    if (addToShape(this.shape, doc, this.maxShapePaths)) this.shapeChanged = true;
  }
}

/**
 * The `key_columns` text of a collection: field path → key column, and under `$filling` (never
 * a field path) the columns an index build is still filling, which a reader of this text that
 * does not know the key ignores (core.ts parseKeys).
 */
export function serializeKeys(keys: KeyColumns, filling: KeyColumns): string {
  return JSON.stringify(Object.keys(filling).length ? { ...keys, $filling: filling } : keys);
}
