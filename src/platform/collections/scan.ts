/**
 * Reading documents: the document column of a read (inline JSON, or the size of a large document
 * read apart), and the batched walk over candidates in natural order that reads and writes share.
 */
import type { Budget } from '../../limits/index.js';
import { sql, type Queryable, type Row, type Sql } from '../../store/index.js';
import type { CollectionCore } from './core.js';
import { and, scope, stateOf, type CollectionRow } from './rows.js';
import type { Document } from './types.js';
import { parseStoredDocument } from './safety.js';

const BATCH = 2000;
/**
 * Documents whose JSON is larger are read one at a time (after their size is charged, or while
 * a scan visits them), so a batch of reads holds at most BATCH × this many bytes.
 */
const INLINE_DOCUMENT_BYTES = 32 * 1024;

/** A document as reads select it (docColumn). */
export interface DocRow extends Row {
  seq?: number;
  doc: string | number;
  v?: number;
}

/** The JSON of a document read inline, or the size and seq of a large one. */
export function readDoc(value: string | number): { text?: string; size: number; seq: number } {
  const column = String(value);
  if (column.charCodeAt(0) === 123) return { text: column, size: column.length, seq: -1 };
  const [size, seq] = column.split(':');
  return { size: Number(size), seq: Number(seq) };
}

/**
 * The document column of a read: the JSON of a document up to INLINE_DOCUMENT_BYTES, else
 * `<size in bytes>:<seq>` for largeDocument to read it on its own (one column, as fast as the
 * document alone).
 */
export function docColumn(core: CollectionCore): Sql {
  return core.store.dialect.documents.documentColumn(INLINE_DOCUMENT_BYTES);
}

/**
 * The state column of a statement reading documents, where the engine evaluates the subquery
 * once in the statement's snapshot; elsewhere the state is checked apart, after the statement
 * (CollectionCore.checkState).
 */
export function stateColumn(core: CollectionCore, row: CollectionRow): Sql {
  return core.store.dialect.documents.stateInSelect ? sql`, ${stateOf(row)} AS v` : sql``;
}

export async function largeDocument(
  db: Queryable,
  row: CollectionRow,
  seq: number,
): Promise<string | undefined> {
  const r = await db.get<{ doc: string }>(
    sql`SELECT doc FROM documents WHERE ${scope(row)} AND seq = ${seq}`,
  );
  return r?.doc;
}

/** How budget errors name what a query holds: `documents of collection 'orders'`. */
export function documentsOf(row: CollectionRow): string {
  return `documents of collection '${row.name}'`;
}

/**
 * Calls `visit` with each candidate document (matching `where`) in natural order, fetched in
 * batches inside one read-only transaction (one snapshot), until `visit` returns false.
 */
export async function scan(
  core: CollectionCore,
  row: CollectionRow,
  where: Sql | undefined,
  check: boolean,
  budget: Budget,
  /** `size`: the characters of the document's JSON, for what keeps it to charge. */
  visit: (doc: Document, seq: number, size: number) => boolean | Promise<boolean>,
  writeTx?: Queryable,
): Promise<void> {
  const what = `query on collection '${row.name}'`;
  const walk = async (db: Queryable) => {
    let last = -1;
    for (let first = true; ; first = false) {
      // No `seq >` bound on the first batch: with one, SQLite walks the natural-order index over
      // the whole collection instead of searching the index of the condition.
      const rows = await db.all<DocRow>(
        sql`SELECT seq, ${docColumn(core)}${stateColumn(core, row)} FROM documents
            WHERE ${scope(row)}${and(where)}${first ? sql`` : sql` AND seq > ${last}`} ORDER BY seq LIMIT ${BATCH}`,
      );
      if (check && first) await core.checkState(row, rows);
      for (const r of rows) {
        budget.checkTime(what);
        const d = readDoc(r.doc);
        const text = d.text ?? (await largeDocument(db, row, d.seq));
        if (text === undefined) continue;
        if (!(await visit(parseStoredDocument(text), Number(r.seq), text.length))) return;
      }
      if (rows.length < BATCH) return;
      last = Number(rows[rows.length - 1]!.seq);
    }
  };
  // Inside a write transaction the walk joins it; a read gets a snapshot of its own.
  if (writeTx) return walk(writeTx);
  return core.store.transaction(walk, { readOnly: true, isolation: 'repeatable read' });
}
