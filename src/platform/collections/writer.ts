import { sql, type Queryable } from '../../store/index.js';
import { scope, type CollectionRow } from './rows.js';
import { addToShape, serializeShape, type Shape } from './shape.js';
import type { Document } from './types.js';

/** Rows per INSERT statement (4 parameters each, well under both engines' limits). */
export const INSERT_BATCH = 500;

/** The writes of one transaction on one collection, keeping its shape up to date. */
export class Writer {
  private shapeChanged = false;
  readonly accountId: string;

  constructor(
    readonly tx: Queryable,
    readonly row: CollectionRow,
    readonly shape: Shape,
    private readonly maxShapePaths: number,
  ) {
    this.accountId = row.accountId;
  }

  /** Inserts documents (replacing those whose _id exists when `upsert`). */
  async insert(docs: Document[], upsert: boolean): Promise<void> {
    // PostgreSQL cannot upsert the same row twice in one statement: repeated ids go one by one.
    const step = upsert && new Set(docs.map((d) => d._id)).size < docs.length ? 1 : INSERT_BATCH;
    for (let i = 0; i < docs.length; i += step) {
      const slice = docs.slice(i, i + step);
      const values = slice.map((doc) => {
        this.track(doc);
        return sql`(${this.accountId}, ${this.row.id}, ${doc._id}, ${JSON.stringify(doc)})`;
      });
      const conflict = upsert
        ? sql` ON CONFLICT (account_id, collection_id, id) DO UPDATE SET doc = excluded.doc`
        : sql``;
      await this.tx.run(
        sql`INSERT INTO documents (account_id, collection_id, id, doc) VALUES ${sql.join(values)}${conflict}`,
      );
    }
  }

  async replace(seq: number, doc: Document): Promise<void> {
    this.track(doc);
    await this.tx.run(
      sql`UPDATE documents SET doc = ${JSON.stringify(doc)} WHERE ${scope(this.row)} AND seq = ${seq}`,
    );
  }

  async saveShape(): Promise<void> {
    if (!this.shapeChanged) return;
    await this.tx.run(
      sql`UPDATE collections SET shape = ${serializeShape(this.shape)}, shape_version = shape_version + 1
          WHERE account_id = ${this.accountId} AND id = ${this.row.id}`,
    );
  }

  private track(doc: Document): void {
    if (addToShape(this.shape, doc, this.maxShapePaths)) this.shapeChanged = true;
  }
}
