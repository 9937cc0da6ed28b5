/**
 * # The document dialect: JSON documents in SQL, per engine
 *
 * Collections (src/platform/collections) keep MongoDB-like documents as JSON in the `documents`
 * table and push the conditions SQL can answer exactly down to it. Everything of that which
 * depends on the engine is here, behind `DocumentDialect` (`store.dialect.documents`):
 *
 * - field expressions: how a field path is read from the JSON column (fieldSql);
 * - atoms: one pushed condition on one field (equality, `$in`, a range, `$exists`) and the ORDER
 *   BY terms of one sort key, written so that SQL selects and orders exactly as mingo does for
 *   the JSON types the collection's shape has seen at that path — or undefined when this engine
 *   cannot (the caller then leaves the condition to mingo);
 * - index DDL: create/drop the expression indexes (or key-column indexes) of a collection index;
 * - key columns: plain columns k1…k4 of `documents` holding the value of an indexed field (on
 *   SQLite with a second column t1…t4 holding its `json_type`), kept by every write, and indexed
 *   instead of an expression over `doc`. PostgreSQL can then answer a count from the index alone
 *   (it never plans an index-only scan over an expression index: the expression's column, `doc`,
 *   is not in the index); on both, a write that changes `doc` but not the field's value leaves
 *   the column, and so its index, alone (an expression index over `doc` is rewritten for every
 *   row whose `doc` is written, HOT updates on PostgreSQL aside);
 * - explain, the document column of reads, and the few other statement parts that differ.
 *
 * The caller decides *what* may be pushed (pushdown.ts, from the shape); the dialect decides
 * *how* an engine says it, and never widens or narrows an answer.
 */
import type { EngineName, Sql } from './sql.js';
import type { Row } from './types.js';

/** The JSON types seen at a path (the bits of a collection's shape). */
export const JSON_NULL = 1;
export const JSON_NUMBER = 2;
export const JSON_STRING = 4;
export const JSON_BOOLEAN = 8;
export const JSON_OBJECT = 16;
export const JSON_ARRAY = 32;
/** A string with a UTF-16 surrogate or a character ≥ U+E000, where code-point and UTF-16 order differ. */
export const JSON_HIGH_STRING = 64;

export type Scalar = null | number | string | boolean;

/** One side of a range; both sides of one range hold the same type. */
export interface Bound {
  value: number | string;
  inclusive: boolean;
}

/** One condition on one field path (never `_id`, never a path holding an array). */
export type Atom =
  | { kind: 'eq'; path: string; value: Scalar }
  | { kind: 'in'; path: string; values: Scalar[] }
  | { kind: 'range'; path: string; lower?: Bound; upper?: Bound }
  | { kind: 'exists'; path: string; value: boolean };

export interface DocumentIndexDefinition {
  keys: string[];
  unique: boolean;
  ascending: boolean;
}

/** Field path → key column of a collection (`{"r": "k1"}`); empty where the engine has none. */
export type KeyColumns = Readonly<Record<string, string>>;

/**
 * One GROUP BY over the documents a condition selects (the `$group` pushdown,
 * platform/collections/group.ts). The statement's columns, one row per group in the order of
 * each group's first document (natural order):
 *
 * - `g0`…: each key's JSON text (equal values give equal text), SQL NULL when missing (and for
 *   JSON null too with `nullIsMissing`);
 * - `first` (the group's least seq), `n` (its documents);
 * - per field of `sums`: `s<i>` the sum of its numbers, `c<i>` how many numbers, `x<i>` how many
 *   of them are not integers, `a<i>` the greatest absolute value (the caller uses the sum only
 *   where it is exact as a double);
 * - per entry of `extremes`: `lo<i>` / `hi<i>`, the least / greatest number (or string, by code
 *   point) of the field, NULL when it has none.
 */
export interface GroupQuery {
  /** The documents' condition (scope and pushed filter), over `documents`. */
  where: Sql;
  keys: ReadonlyArray<{ path: string; nullIsMissing: boolean }>;
  sums: readonly string[];
  extremes: ReadonlyArray<{ path: string; type: 'number' | 'string' }>;
  /** More select-list items, after the others (`, <expr> AS v`). */
  extra: Sql;
}

/**
 * One field change of a set-based update (platform/collections/set-update.ts): a path of plain
 * object keys (no array at or above it, no integer-like key), `set` to a scalar written as JSON
 * text, `inc` by a safe integer, or `unset`. The changes of one update never overlap.
 */
export type FieldChange =
  | { kind: 'set'; path: string; json: string }
  | { kind: 'inc'; path: string; by: number }
  | { kind: 'unset'; path: string };

/**
 * A set-based update of the documents `where` selects (scope and pushed filter, over
 * `documents`): the statement writing each new version, and the check before it, one row of
 * `n` (documents selected), `bad` (how many of them the statement would not give mingo's answer:
 * a path above a change is not an object, or an `$inc` field is neither missing nor an integer
 * whose sum stays a safe integer) and `big` (the largest one's size in bytes).
 */
export interface SetUpdate {
  statement(where: Sql): Sql;
  check(where: Sql): Sql;
}

export interface DocumentDialect {
  readonly name: EngineName;
  /** The key columns `documents` has for indexed fields (`k1`…`k4`: what KeyColumns name). */
  readonly keyColumnNames: readonly string[];
  /**
   * The SQL columns a key column consists of (PostgreSQL: itself; SQLite: itself and the column
   * holding its field's `json_type`), each written by keyValues.
   */
  keyColumnParts(column: string): readonly string[];
  /**
   * The SQL condition selecting exactly the documents whose field `atom.path` satisfies the atom
   * under mingo's rules, given the JSON types `types` (shape bits) seen at that path; undefined
   * when this engine cannot say it exactly (left to mingo).
   */
  condition(atom: Atom, types: number, keys: KeyColumns): Sql | undefined;
  /** ORDER BY terms giving mingo's order of one scalar field, or undefined when SQL cannot. */
  orderBy(path: string, direction: 1 | -1, types: number, keys: KeyColumns): Sql | undefined;
  /**
   * The statements creating a collection index (see the engine's notes); `fill`: the fields of
   * `keys` whose key columns are still to be filled from the documents (fillKeyColumns, after
   * these statements: the engine's statistics wait for it, `analyze`), or, with `fillsInCreate`,
   * that these statements fill.
   */
  createIndex(
    sqlName: string,
    collectionId: number,
    def: DocumentIndexDefinition,
    keys: KeyColumns,
    fill: readonly string[],
  ): Sql[];
  /**
   * The UPDATE giving key columns (`columns`: field path → column) the value of their field in
   * the collection's documents where they do not hold it yet; with `slice`, only part
   * `slice.index` of `slice.of` of them, the parts together covering the collection (PostgreSQL:
   * seq modulo `of`, a few of each page's rows; SQLite: a range of seq; see the engine).
   */
  fillKeyColumns(collectionId: number, columns: KeyColumns, slice?: { index: number; of: number }): Sql;
  /**
   * True when createIndex's statements fill the key columns they are given to fill (SQLite: one
   * UPDATE, then the index built from them); false when they are filled after, beside other
   * writes (PostgreSQL: indexes.ts).
   */
  readonly fillsInCreate: boolean;
  /** The statement refreshing the planner's statistics after key columns were filled, if any. */
  readonly analyze: Sql | undefined;
  /**
   * The statements dropping a collection index; `release`: key columns no index of the collection
   * uses any more, emptied first (while still indexed, so a later owner starts clean).
   */
  dropIndex(sqlName: string, collectionId: number, release?: readonly string[]): Sql[];
  /**
   * The values the parts of a key column (keyColumnParts) hold for a document's field `path`
   * (what fillKeyColumns fills them with); `json` is the document's JSON text as written.
   */
  keyValues(doc: Record<string, unknown>, json: string, path: string): Sql[];
  /** The GROUP BY statement of a `$group` pushdown (GroupQuery). */
  groupQuery(query: GroupQuery): Sql;
  /** The statement asking the engine's plan of a query, and the plan's lines from its rows. */
  explain(query: Sql): Sql;
  planLines(rows: Row[]): string[];
  /** True when a plan (planLines) orders its rows by reading an index, not by sorting them all. */
  sortsByIndex(plan: readonly string[]): boolean;
  /**
   * The document column of a read: the JSON text of a document up to `inlineBytes`, else
   * `<size in bytes>:<seq>` (JSON text always starts with `{`).
   */
  documentColumn(inlineBytes: number): Sql;
  /**
   * True when a scalar subquery in the select list runs once per statement, in its snapshot
   * (PostgreSQL's InitPlan); SQLite would run it per row.
   */
  readonly stateInSelect: boolean;
  /** A statement whose one value changes with every commit of another connection (SQLite), if any. */
  readonly dataVersion: Sql | undefined;
  /**
   * The set-based update writing `changes` (in order: new keys are appended in that order) into
   * each document's JSON text, keeping its other text as it is and the key columns in step.
   */
  setUpdate(changes: readonly FieldChange[], keys: KeyColumns): SetUpdate;
  /** ` LIMIT … OFFSET …` (no limit: SQLite needs `LIMIT -1` before an OFFSET). */
  limitOffset(limit: number | undefined, skip: number): Sql;
}

/** A field path SQL can address: dot-separated plain keys, none empty or starting with `$`. */
export function isAddressablePath(path: string): boolean {
  if (path === '' || path.length > 1000) return false;
  for (const segment of path.split('.')) {
    if (segment === '' || segment.startsWith('$')) return false;
    for (let i = 0; i < segment.length; i++) {
      const c = segment.charCodeAt(i);
      if (c < 0x20 || c === 0x22 || c === 0x5c) return false;
    }
  }
  return true;
}

/** The paths strictly above the changes' paths (`a` and `a.b` for `a.b.c`), each once. */
export function parentPaths(changes: readonly FieldChange[]): string[] {
  const out = new Set<string>();
  for (const { path } of changes) {
    const segments = path.split('.');
    for (let i = 1; i < segments.length; i++) out.add(segments.slice(0, i).join('.'));
  }
  return [...out];
}

/** The key columns of fields under, at or above a changed path (a set-based update rewrites them). */
export function touchedKeys(
  changes: readonly FieldChange[],
  keys: KeyColumns,
): Array<[path: string, column: string]> {
  return Object.entries(keys).filter(([path]) =>
    changes.some((c) => c.path === path || path.startsWith(`${c.path}.`) || c.path.startsWith(`${path}.`)),
  );
}

/** Memoizes a per-path computation (bounded). */
export function perPath<T>(make: (path: string) => T): (path: string) => T {
  const cache = new Map<string, T>();
  return (path) => {
    let v = cache.get(path);
    if (v === undefined) {
      if (cache.size > 10_000) cache.clear();
      cache.set(path, (v = make(path)));
    }
    return v;
  };
}
