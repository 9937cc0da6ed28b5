/**
 * SQLite's document dialect (documents.ts).
 *
 *   value = json_extract(doc, '$."a"."b"')   NULL for JSON null and missing; true/false read 1/0
 *   type  = json_type(doc, '$."a"."b"')      NULL when missing; 'null', 'integer', 'real', 'text',
 *                                            'true', 'false', 'object', 'array'
 *
 * SQLite orders numbers below text natively, so ranges are bounded by `''`, and type guards keep
 * booleans (1/0) and objects (JSON text) apart where the shape has seen them.
 *
 * Key columns: a collection gives the first fields its indexes name two columns of their own,
 * `kN` (no declared type, so it keeps what it is given: exactly `value`) and `tN` (exactly
 * `type`), N in 1…4, both written by SQLite's own json_extract/json_type on every write.
 * Conditions and sorts on such a field read the columns in place of the expressions, so every
 * answer is the same, and its indexes are on the columns: an UPDATE that sets `doc` but not
 * them leaves those indexes alone (SQLite rewrites the entries of every index that reads a
 * column the UPDATE sets, whether or not the value changed, so an expression index over `doc`
 * is rewritten for every updated row). Other fields, and indexes built before migration
 * 0790_sqlite_document_keys, are partial expression indexes on exactly the expressions above
 * (the planner matches them).
 */
import {
  JSON_BOOLEAN,
  JSON_NULL,
  JSON_OBJECT,
  parentPaths,
  perPath,
  touchedKeys,
  type Atom,
  type DocumentDialect,
  type DocumentIndexDefinition,
  type FieldChange,
  type GroupQuery,
  type KeyColumns,
  type Scalar,
  type SetUpdate,
} from './documents.js';
import { quoteIdent, quoteString, sql, type Sql } from './sql.js';
import { dictionary, isOneOf } from '../safety/narrow.js';

const KEY_COLUMNS = ['k1', 'k2', 'k3', 'k4'] as const;
type KeyColumn = (typeof KEY_COLUMNS)[number];
/** The column holding the `json_type` of each key column's field. */
const TYPE_COLUMNS: Readonly<Record<KeyColumn, string>> = { k1: 't1', k2: 't2', k3: 't3', k4: 't4' };

function keyColumn(column: string): KeyColumn {
  if (!isOneOf(KEY_COLUMNS, column)) throw new Error(`no key column ${column}`);
  return column;
}

interface FieldSql {
  value: Sql;
  type: Sql;
  /** The JSON text of the value as stored (`doc -> path`), NULL when missing. */
  text: Sql;
}

/** `'$."a"."b"'`: the JSON path of a field path, as a string literal. */
const jsonPathOf = perPath((path) =>
  quoteString(
    '$' +
      path
        .split('.')
        .map((s) => `."${s}"`)
        .join(''),
  ),
);

const field = perPath((path): FieldSql => {
  const jsonPath = jsonPathOf(path);
  return {
    value: sql.raw(`json_extract(doc, ${jsonPath})`),
    type: sql.raw(`json_type(doc, ${jsonPath})`),
    text: sql.raw(`(doc -> ${jsonPath})`),
  };
});

const keyField = perPath((column) => {
  const k = keyColumn(column);
  return { value: sql.raw(k), type: sql.raw(TYPE_COLUMNS[k]) };
});

/** The value and type of a field: its key columns when it has them, else the expressions over `doc`. */
function fieldOf(path: string, keys: KeyColumns): { value: Sql; type: Sql } {
  const column = keys[path];
  return column !== undefined && isOneOf(KEY_COLUMNS, column) ? keyField(column) : field(path);
}

/** GroupQuery (documents.ts). Documents are stored as JSON.stringify wrote them: equal values, equal text. */
function groupQuery(q: GroupQuery): Sql {
  const columns: Sql[] = q.keys.map(({ path, nullIsMissing }, i) => {
    const text = field(path).text;
    return sql`${nullIsMissing ? sql`NULLIF(${text}, 'null')` : text} AS ${sql.raw(`g${i}`)}`;
  });
  columns.push(sql`min(seq) AS first`, sql`count(*) AS n`);
  const number = (path: string) => {
    const { value, type } = field(path);
    return sql`CASE WHEN ${type} IN ('integer', 'real') THEN ${value} END`;
  };
  q.sums.forEach((path, i) => {
    const n = number(path);
    columns.push(
      sql`total(${n}) AS ${sql.raw(`s${i}`)}`,
      sql`count(${n}) AS ${sql.raw(`c${i}`)}`,
      sql`count(CASE WHEN ${field(path).type} = 'real' THEN 1 END) AS ${sql.raw(`x${i}`)}`,
      sql`max(abs(${n})) AS ${sql.raw(`a${i}`)}`,
    );
  });
  q.extremes.forEach(({ path, type }, i) => {
    const { value, type: t } = field(path);
    const v = type === 'number' ? number(path) : sql`CASE WHEN ${t} = 'text' THEN ${value} END`;
    columns.push(sql`min(${v}) AS ${sql.raw(`lo${i}`)}`, sql`max(${v}) AS ${sql.raw(`hi${i}`)}`);
  });
  const groupBy = q.keys.length ? sql` GROUP BY ${sql.join(q.keys.map((_, i) => sql.raw(`g${i}`)))}` : sql``;
  return sql`SELECT ${sql.join(columns)}${q.extra} FROM documents WHERE ${q.where}${groupBy} ORDER BY first`;
}

const FALSE = sql.raw('1 = 0');

/**
 * SetUpdate (documents.ts): `json_remove` then `json_set`, which keep the rest of the text as it
 * is (keys in place, numbers and escapes as written) and append new keys in argument order;
 * `$inc` is integer arithmetic (the unsafe condition keeps it within safe integers). Key columns
 * of fields under, at or above a changed path are read again from the new text (made once per
 * document, in a subquery); the others are not set, so their indexes are not written.
 */
function setUpdate(changes: readonly FieldChange[], keys: KeyColumns): SetUpdate {
  let doc = sql.raw('doc');
  const removed = changes.filter((c) => c.kind === 'unset').map((c) => jsonPathOf(c.path));
  if (removed.length) doc = sql`json_remove(${doc}, ${sql.raw(removed.join(', '))})`;
  const written = changes.flatMap((c) => {
    const path = sql.raw(jsonPathOf(c.path));
    if (c.kind === 'set') return [sql`${path}, json(${c.json})`];
    if (c.kind === 'inc')
      return [sql`${path}, COALESCE(${field(c.path).value}, 0) + ${sql.raw(String(Math.trunc(c.by)))}`];
    return [];
  });
  if (written.length) doc = sql`json_set(${doc}, ${sql.join(written)})`;
  const unsafe: Sql[] = [];
  for (const prefix of parentPaths(changes)) unsafe.push(sql`${field(prefix).type} IS NOT 'object'`);
  for (const c of changes) {
    if (c.kind !== 'inc') continue;
    const { value, type } = field(c.path);
    const bound = Number.MAX_SAFE_INTEGER - Math.abs(c.by);
    unsafe.push(
      sql`NOT (${type} IS NULL OR (${type} = 'integer' AND abs(${value}) <= ${sql.raw(String(bound))}))`,
    );
  }
  const touched = touchedKeys(changes, keys);
  return {
    statement(where) {
      if (!touched.length) return sql`UPDATE documents SET doc = ${doc} WHERE ${where}`;
      const columns = touched.map(([path, column]) => {
        const k = keyColumn(column);
        const p = jsonPathOf(path);
        return sql.raw(`, ${k} = json_extract(n.d, ${p}), ${TYPE_COLUMNS[k]} = json_type(n.d, ${p})`);
      });
      return sql`UPDATE documents SET doc = n.d${sql.join(columns, '')}
        FROM (SELECT seq AS s, ${doc} AS d FROM documents WHERE ${where}) AS n WHERE documents.seq = n.s`;
    },
    check: (where) =>
      sql`SELECT count(*) AS n, count(CASE WHEN ${unsafe.length ? sql.join(unsafe, ' OR ') : FALSE} THEN 1 END) AS bad,
          max(octet_length(doc)) AS big FROM documents WHERE ${where}`,
  };
}

function condition(atom: Atom, bits: number, keys: KeyColumns): Sql {
  const { value: x, type: t } = fieldOf(atom.path, keys);
  switch (atom.kind) {
    case 'eq':
      return equals(x, t, bits, atom.value);
    case 'in': {
      if (atom.values.length === 0) return FALSE;
      const plain = atom.values.every(
        (v) =>
          (typeof v === 'string' && !(bits & JSON_OBJECT)) ||
          (typeof v === 'number' && !(bits & JSON_BOOLEAN && (v === 0 || v === 1))),
      );
      if (plain) return sql`${x} IN (${sql.join(atom.values)})`;
      return sql`(${sql.join(
        atom.values.map((v) => equals(x, t, bits, v)),
        ' OR ',
      )})`;
    }
    case 'range': {
      const { lower, upper } = atom;
      const parts: Sql[] = [];
      if (lower) parts.push(sql`${x} ${sql.raw(lower.inclusive ? '>=' : '>')} ${lower.value}`);
      if (upper) parts.push(sql`${x} ${sql.raw(upper.inclusive ? '<=' : '<')} ${upper.value}`);
      if (typeof (lower ?? upper)!.value === 'number') {
        // Numbers sort below text: '' bounds them from above. Booleans are 1/0 here: type guard.
        if (!upper) parts.push(sql`${x} < ''`);
        if (bits & JSON_BOOLEAN) parts.push(sql`${t} IN ('integer', 'real')`);
      } else {
        // Text sorts above numbers: '' bounds it from below. Objects are JSON text here: type guard.
        if (!lower) parts.push(sql`${x} >= ''`);
        if (bits & JSON_OBJECT) parts.push(sql`${t} = 'text'`);
      }
      return sql`(${sql.join(parts, ' AND ')})`;
    }
    case 'exists': {
      // Without JSON null at the path, the indexed value is NULL exactly when the field is missing.
      const target = bits & JSON_NULL ? t : x;
      return atom.value ? sql`${target} IS NOT NULL` : sql`${target} IS NULL`;
    }
  }
}

/** The field equals a scalar (booleans are 1/0 and objects JSON text here: type guards). */
function equals(x: Sql, t: Sql, bits: number, v: Scalar): Sql {
  if (v === null) return sql`${x} IS NULL`;
  if (typeof v === 'boolean')
    return sql`(${x} = ${v ? 1 : 0} AND ${t} = ${sql.raw(v ? "'true'" : "'false'")})`;
  if (typeof v === 'number')
    return bits & JSON_BOOLEAN && (v === 0 || v === 1)
      ? sql`(${x} = ${v} AND ${t} IN ('integer', 'real'))`
      : sql`${x} = ${v}`;
  return bits & JSON_OBJECT ? sql`(${x} = ${v} AND ${t} = 'text')` : sql`${x} = ${v}`;
}

/**
 * Leading scope columns (account_id, collection_id) match every query's scope, and the rowid
 * (seq) ends every index, so an equality hands rows over in natural order. SQLite reads
 * true/false as 1/0, so a unique index is enforced by a second index adding each key's json_type
 * (true stays apart from 1). Documents where a key is missing or null are not checked. A field
 * with key columns is indexed on them, its type column as `+tN`: an expression, so that SQLite
 * names the index in a unique violation (as it does for expression indexes) instead of listing
 * the columns, which the same index of another collection has too.
 */
function createIndex(
  sqlName: string,
  collectionId: number,
  def: DocumentIndexDefinition,
  keys: KeyColumns,
  fill: readonly string[],
): Sql[] {
  const filled = dictionary<string>();
  for (const path of fill) filled[path] = keyColumn(keys[path] ?? '');
  const direction = def.ascending ? '' : ' DESC';
  const render = (s: Sql) => s.render('sqlite').text;
  const values: string[] = [];
  const types: string[] = [];
  for (const key of def.keys) {
    if (key === '_id') {
      values.push(`id${direction}`);
      continue;
    }
    const column = keys[key];
    if (column !== undefined) {
      const k = keyColumn(column);
      values.push(`${k}${direction}`);
      types.push(`+${TYPE_COLUMNS[k]}`);
      continue;
    }
    const f = field(key);
    values.push(`${render(f.value)}${direction}`);
    types.push(render(f.type));
  }
  const where = `WHERE collection_id = ${Math.trunc(collectionId)}`;
  const create = (name: string, unique: boolean, columns: string[]) =>
    sql.raw(
      `CREATE ${unique ? 'UNIQUE ' : ''}INDEX ${quoteIdent(name)} ON documents (${['account_id', 'collection_id', ...columns].join(', ')}) ${where}`,
    );
  // The columns are filled before the index is built (fillsInCreate): one UPDATE, then a
  // sorted build, in the creating transaction (SQLite's one writer waits, as it would for an
  // expression index's build). Filled the other way, in slices after the index exists as on
  // PostgreSQL, a build over 100,000 documents took 1.4 s for a plain index and 2.6 s with a
  // unique one, against 0.35 + 0.4 s.
  const filling = fill.length ? [fillKeyColumns(collectionId, filled)] : [];
  if (def.unique && types.length)
    return [...filling, create(sqlName, false, values), create(`${sqlName}_u`, true, [...values, ...types])];
  return [...filling, create(sqlName, def.unique, values)];
}

/**
 * fillKeyColumns (documents.ts): each column pair gets its field's value and type where either
 * differs (columns are NULL until given, and emptied when given back, so documents without the
 * field are not written; those a write already gave their value are left alone). createIndex
 * fills with it (fillsInCreate), so index builds ask for no slices here; a slice is a range of
 * seq (the `index`-th of `of` equal parts of the collection's seqs when the statement runs, the
 * last one open-ended), each page written by one slice: slices by seq modulo, as on PostgreSQL,
 * write every page in each (11× the time at 50,000 documents).
 */
function fillKeyColumns(
  collectionId: number,
  columns: KeyColumns,
  slice?: { index: number; of: number },
): Sql {
  const entries = Object.entries(columns).map(([path, column]) => {
    const k = keyColumn(column);
    const { value, type } = field(path);
    return { k: sql.raw(k), t: sql.raw(TYPE_COLUMNS[k]), value, type };
  });
  if (!entries.length) throw new Error('fillKeyColumns: no column to fill');
  const sets = sql.join(entries.map((e) => sql`${e.k} = ${e.value}, ${e.t} = ${e.type}`));
  const differs = sql.join(
    entries.map((e) => sql`${e.k} IS NOT ${e.value} OR ${e.t} IS NOT ${e.type}`),
    ' OR ',
  );
  const collection = sql.literal(Math.trunc(collectionId));
  let part = sql``;
  if (slice) {
    const of = Math.trunc(slice.of);
    const index = Math.trunc(slice.index);
    // Apart, min and max are each one index lookup; together, a scan of the collection's index.
    const lo = sql`(SELECT min(seq) FROM documents WHERE collection_id = ${collection})`;
    const hi = sql`(SELECT max(seq) FROM documents WHERE collection_id = ${collection})`;
    const at = (i: number) => sql`${lo} + (${hi} - ${lo} + 1) * ${sql.literal(i)} / ${sql.literal(of)}`;
    part = sql` AND seq >= ${at(index)}`;
    if (index < of - 1) part = sql`${part} AND seq < ${at(index + 1)}`;
  }
  return sql`UPDATE documents SET ${sets} WHERE collection_id = ${collection}${part} AND (${differs})`;
}

export const sqliteDocuments: DocumentDialect = {
  name: 'sqlite',
  keyColumnNames: KEY_COLUMNS,
  keyColumnParts(column) {
    const k = keyColumn(column);
    return [k, TYPE_COLUMNS[k]];
  },
  condition,
  orderBy(path, direction, bits, keys) {
    const { value: x, type: t } = fieldOf(path, keys);
    const dir = sql.raw(direction === 1 ? 'ASC' : 'DESC');
    // Numbers sort below text natively; booleans (1/0 here) must come after both. Missing and
    // null are both SQL NULL, first in ascending order (mingo ties them).
    if (bits & JSON_BOOLEAN)
      return sql`CASE WHEN ${t} IN ('true', 'false') THEN 1 ELSE 0 END ${dir}, ${x} ${dir}`;
    return sql`${x} ${dir}`;
  },
  createIndex,
  dropIndex: (sqlName, collectionId, release = []) => [
    ...release.map((column) => {
      const k = keyColumn(column);
      const t = TYPE_COLUMNS[k];
      return sql`UPDATE documents SET ${sql.raw(`${k} = NULL, ${t} = NULL`)} WHERE collection_id = ${sql.literal(Math.trunc(collectionId))}
        AND ${sql.raw(`(${k} IS NOT NULL OR ${t} IS NOT NULL)`)}`;
    }),
    sql.raw(`DROP INDEX IF EXISTS ${quoteIdent(sqlName)}`),
    sql.raw(`DROP INDEX IF EXISTS ${quoteIdent(`${sqlName}_u`)}`),
  ],
  // SQLite's own json_extract/json_type of the document's text, as fillKeyColumns and setUpdate
  // write them: a column never differs from its expression (booleans 1/0, objects as SQLite
  // renders them, strings with lone surrogates as SQLite decodes them).
  keyValues(_doc, json, path) {
    const p = sql.raw(jsonPathOf(path));
    return [sql`json_extract(${json}, ${p})`, sql`json_type(${json}, ${p})`];
  },
  fillKeyColumns,
  fillsInCreate: true,
  analyze: undefined,
  groupQuery,
  setUpdate,
  explain: (query) => sql`EXPLAIN QUERY PLAN ${query}`,
  planLines: (rows) => rows.map((r) => String(r.detail)),
  // `USE TEMP B-TREE FOR RIGHT PART OF ORDER BY` only orders the ties of an index's order.
  sortsByIndex: (plan) => !plan.some((line) => line.includes('USE TEMP B-TREE FOR ORDER BY')),
  documentColumn: (inlineBytes) =>
    sql`CASE WHEN octet_length(doc) <= ${inlineBytes} THEN doc ELSE octet_length(doc) || ':' || seq END AS doc`,
  stateInSelect: false,
  dataVersion: sql`PRAGMA data_version`,
  limitOffset(limit, skip) {
    const l = limit === undefined ? sql.raw(' LIMIT -1') : sql` LIMIT ${limit}`;
    return skip > 0 ? sql`${l} OFFSET ${skip}` : l;
  },
};
