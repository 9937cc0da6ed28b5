/**
 * One row from several tables' entries of a statement (`WITH a AS (… RETURNING …), b AS (…)
 * SELECT a.*, b.*`): each entry names its columns `<prefix>_<column>`, and the reader takes them
 * back by prefix.
 */
import { sql, type Sql } from './sql.js';
import type { Row } from './types.js';

/** `columns`, each named `<prefix>_<column>` (of `table`'s row, when given). */
export function prefixedColumns(columns: readonly string[], prefix: string, table?: string): Sql {
  const of = table === undefined ? '' : `${table}.`;
  return sql.raw(columns.map((c) => `${of}${c} AS ${prefix}_${c}`).join(', '));
}

/** The columns of `row` named `<prefix>_<column>`, by column. */
export function unprefixed(row: Row, prefix: string): Row {
  const start = `${prefix}_`;
  const own: Row = {};
  for (const [key, value] of Object.entries(row))
    if (key.startsWith(start)) own[key.slice(start.length)] = value;
  return own;
}
