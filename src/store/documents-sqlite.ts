/**
 * SQLite's document dialect (documents.ts).
 *
 *   value = json_extract(doc, '$."a"."b"')   NULL for JSON null and missing; true/false read 1/0
 *   type  = json_type(doc, '$."a"."b"')      NULL when missing; 'null', 'integer', 'real', 'text',
 *                                            'true', 'false', 'object', 'array'
 *
 * Indexes are partial expression indexes on exactly these expressions (the planner matches
 * them); SQLite orders numbers below text natively, so ranges are bounded by `''`, and type
 * guards keep booleans (1/0) and objects (JSON text) apart where the shape has seen them.
 */
import {
  JSON_BOOLEAN,
  JSON_NULL,
  JSON_OBJECT,
  parentPaths,
  perPath,
  type Atom,
  type DocumentDialect,
  type DocumentIndexDefinition,
  type FieldChange,
  type GroupQuery,
  type Scalar,
  type SetUpdate,
} from './documents.js';
import { quoteIdent, quoteString, sql, type Sql } from './sql.js';

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
 * `$inc` is integer arithmetic (the unsafe condition keeps it within safe integers).
 */
function setUpdate(changes: readonly FieldChange[]): SetUpdate {
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
  return {
    statement: (where) => sql`UPDATE documents SET doc = ${doc} WHERE ${where}`,
    check: (where) =>
      sql`SELECT count(*) AS n, count(CASE WHEN ${unsafe.length ? sql.join(unsafe, ' OR ') : FALSE} THEN 1 END) AS bad,
          max(octet_length(doc)) AS big FROM documents WHERE ${where}`,
  };
}

function condition(atom: Atom, bits: number): Sql {
  const { value: x, type: t } = field(atom.path);
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
 * (true stays apart from 1). Documents where a key is missing or null are not checked.
 */
function createIndex(sqlName: string, collectionId: number, def: DocumentIndexDefinition): Sql[] {
  const direction = def.ascending ? '' : ' DESC';
  const render = (s: Sql) => s.render('sqlite').text;
  const values: string[] = [];
  const types: string[] = [];
  for (const key of def.keys) {
    if (key === '_id') {
      values.push(`id${direction}`);
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
  if (def.unique && types.length)
    return [create(sqlName, false, values), create(`${sqlName}_u`, true, [...values, ...types])];
  return [create(sqlName, def.unique, values)];
}

export const sqliteDocuments: DocumentDialect = {
  name: 'sqlite',
  keyColumnNames: [],
  condition: (atom, bits) => condition(atom, bits),
  orderBy(path, direction, bits) {
    const { value: x, type: t } = field(path);
    const dir = sql.raw(direction === 1 ? 'ASC' : 'DESC');
    // Numbers sort below text natively; booleans (1/0 here) must come after both. Missing and
    // null are both SQL NULL, first in ascending order (mingo ties them).
    if (bits & JSON_BOOLEAN)
      return sql`CASE WHEN ${t} IN ('true', 'false') THEN 1 ELSE 0 END ${dir}, ${x} ${dir}`;
    return sql`${x} ${dir}`;
  },
  createIndex: (sqlName, collectionId, def) => createIndex(sqlName, collectionId, def),
  dropIndex: (sqlName) => [
    sql.raw(`DROP INDEX IF EXISTS ${quoteIdent(sqlName)}`),
    sql.raw(`DROP INDEX IF EXISTS ${quoteIdent(`${sqlName}_u`)}`),
  ],
  keyValue() {
    throw new Error('SQLite documents have no key columns');
  },
  fillKeyColumns() {
    throw new Error('SQLite documents have no key columns');
  },
  analyze: undefined,
  groupQuery,
  setUpdate: (changes) => setUpdate(changes),
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
