/**
 * PostgreSQL's document dialect (documents.ts).
 *
 *   raw   = ((doc)::jsonb -> 'a' -> 'b')     SQL NULL when missing
 *   value = NULLIF(raw, 'null'::jsonb)       SQL NULL for JSON null and missing
 *
 * Conditions compare jsonb values, whose order is strings < numbers < booleans < arrays <
 * objects: a range of numbers is bounded by `-1e400` below and `false` above, a range of strings
 * by `-1e400` above (text ranges only where the database orders text by code point).
 *
 * Key columns: a collection gives the first fields its indexes name a column of their own among
 * `k1`…`k4` (`jsonb`, holding exactly `value`, kept by every write). Conditions and sorts on such
 * a field read the column, and its index is on the column, so PostgreSQL can answer a count from
 * the index alone (it never does for an expression index: the planner wants `doc` in the index).
 */
import {
  JSON_BOOLEAN,
  JSON_NULL,
  JSON_NUMBER,
  JSON_STRING,
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
import { isOneOf, propertyOf } from '../safety/narrow.js';

const KEY_COLUMNS = ['k1', 'k2', 'k3', 'k4'] as const;

/** A field path as JSON operators (`a.b` → ` -> 'a' -> 'b'`), to follow an expression. */
const arrows = (path: string): string =>
  path
    .split('.')
    .map((s) => ` -> ${quoteString(s)}`)
    .join('');

const rawField = perPath((path) => sql.raw(`((doc)::jsonb${arrows(path)})`));
const expressionField = perPath((path) => sql`NULLIF(${rawField(path)}, 'null'::jsonb)`);

/** The value of a field: its key column when it has one, else the expression over `doc`. */
function valueOf(path: string, keys: KeyColumns): Sql {
  const column = keys[path];
  return column !== undefined && isOneOf(KEY_COLUMNS, column) ? sql.raw(column) : expressionField(path);
}

const FALSE = sql.raw('1 = 0');
const json = (s: Scalar) => sql`${JSON.stringify(s)}::jsonb`;

function condition(atom: Atom, bits: number, keys: KeyColumns, binaryTextOrder: boolean): Sql | undefined {
  const v = valueOf(atom.path, keys);
  switch (atom.kind) {
    case 'eq':
      return atom.value === null ? sql`${v} IS NULL` : sql`${v} = ${json(atom.value)}`;
    case 'in': {
      if (atom.values.length === 0) return FALSE;
      const values = atom.values.filter((x) => x !== null);
      const hasNull = values.length < atom.values.length;
      const list = values.length ? sql`${v} IN (${sql.join(values.map(json))})` : undefined;
      if (!hasNull) return list;
      return list ? sql`(${list} OR ${v} IS NULL)` : sql`${v} IS NULL`;
    }
    case 'range': {
      // jsonb order: strings < numbers < booleans < arrays < objects (JSON null is removed by NULLIF).
      const { lower, upper } = atom;
      const numeric = typeof (lower ?? upper)!.value === 'number';
      if (!numeric && !binaryTextOrder) return undefined;
      const parts: Sql[] = [];
      if (lower) parts.push(sql`${v} ${sql.raw(lower.inclusive ? '>=' : '>')} ${json(lower.value)}`);
      else if (numeric) parts.push(sql`${v} > '-1e400'::jsonb`);
      if (upper) parts.push(sql`${v} ${sql.raw(upper.inclusive ? '<=' : '<')} ${json(upper.value)}`);
      else parts.push(numeric ? sql`${v} < 'false'::jsonb` : sql`${v} < '-1e400'::jsonb`);
      return sql`(${sql.join(parts, ' AND ')})`;
    }
    case 'exists': {
      // JSON null at the path: only the raw value (before NULLIF) tells it from missing.
      const target = bits & JSON_NULL ? rawField(atom.path) : v;
      return atom.value ? sql`${target} IS NOT NULL` : sql`${target} IS NULL`;
    }
  }
}

/**
 * The CREATE INDEX of a collection index. Each field key is ordered as orderBy orders it
 * (ascending: NULLS FIRST; descending: NULLS LAST, PostgreSQL's defaults being the opposite),
 * so a sort on it — either direction, the index read backwards for the other — is an index scan
 * that stops at the LIMIT instead of a sort of every match.
 */
export function createIndexStatement(
  sqlName: string,
  collectionId: number,
  def: DocumentIndexDefinition,
  keys: KeyColumns,
): Sql {
  const direction = def.ascending ? ' NULLS FIRST' : ' DESC NULLS LAST';
  const render = (s: Sql) => s.render('postgres').text;
  const columns = def.keys.map((key) =>
    key === '_id' ? `id${def.ascending ? '' : ' DESC'}` : `(${render(valueOf(key, keys))})${direction}`,
  );
  return sql.raw(
    `CREATE ${def.unique ? 'UNIQUE ' : ''}INDEX ${quoteIdent(sqlName)} ON documents (${['account_id', ...columns].join(', ')}) WHERE collection_id = ${Math.trunc(collectionId)}`,
  );
}

/**
 * The leading scope column is account_id alone: PostgreSQL drops `collection_id = N` from the
 * index conditions (the partial predicate implies it), and as a column it would leave a gap
 * before the keys, so every search would walk the whole collection. Unique indexes do not check
 * documents where a key is missing or null (SQL NULLs never collide).
 */
function createIndex(
  sqlName: string,
  collectionId: number,
  def: DocumentIndexDefinition,
  keys: KeyColumns,
  fill: readonly string[],
): Sql[] {
  const create = createIndexStatement(sqlName, collectionId, def, keys);
  // Key columns are filled once their index exists (fillKeyColumns): filling first would leave
  // HOT chains the new index breaks, and PostgreSQL would then ignore the index while any older
  // snapshot lives.
  for (const path of fill) {
    const column = keys[path];
    if (column === undefined || !isOneOf(KEY_COLUMNS, column)) throw new Error(`no key column for ${path}`);
  }
  const fields = def.keys.filter((k) => k !== '_id');
  if (!fields.length) return [create];
  // PostgreSQL ignores the statistics of partial indexes when estimating a condition: without
  // statistics on the expressions themselves it guesses 0.5 % of the table and scans it all
  // (key columns have their own, once analyzed).
  const expressions = fields
    .filter((k) => keys[k] === undefined)
    .map((k) => `(${expressionField(k).render('postgres').text})`);
  const statistics = expressions.length
    ? [
        sql.raw(
          `CREATE STATISTICS ${quoteIdent(`${sqlName}_st`)} ON ${expressions.join(', ')} FROM documents`,
        ),
      ]
    : [];
  // With key columns still to fill, ANALYZE waits for them (analyze, after fillKeyColumns).
  return [create, ...statistics, ...(fill.length ? [] : [ANALYZE])];
}

const ANALYZE = sql.raw('ANALYZE documents');

/**
 * fillKeyColumns (documents.ts). Each column gets its field's value where it differs (a column is
 * NULL for every document until it is given, and emptied when given back, so documents without
 * the field need no new row version; a document a write has already given its value is left
 * alone). A slice takes every `of`-th document by seq, a few rows of each page: their new
 * versions fit in the room the fillfactor leaves on the page (migration 0670), and the next
 * slice's read of the page prunes the versions the previous one left dead, so filling slice by
 * slice, each in a transaction of its own, reuses the same pages instead of doubling the table.
 */
function fillKeyColumns(
  collectionId: number,
  columns: KeyColumns,
  slice?: { index: number; of: number },
): Sql {
  const entries = Object.entries(columns).map(([path, column]) => {
    if (!isOneOf(KEY_COLUMNS, column)) throw new Error(`no key column ${column}`);
    return { column: sql.raw(column), value: expressionField(path) };
  });
  if (!entries.length) throw new Error('fillKeyColumns: no column to fill');
  const sets = sql.join(entries.map((e) => sql`${e.column} = ${e.value}`));
  const differs = sql.join(
    entries.map((e) => sql`${e.column} IS DISTINCT FROM ${e.value}`),
    ' OR ',
  );
  const part = slice
    ? sql` AND seq % ${sql.literal(Math.trunc(slice.of))} = ${sql.literal(Math.trunc(slice.index))}`
    : sql``;
  return sql`UPDATE documents SET ${sets} WHERE collection_id = ${sql.literal(Math.trunc(collectionId))}${part} AND (${differs})`;
}

/**
 * GroupQuery (documents.ts). Each document's JSON is parsed once (`OFFSET 0` keeps the subquery
 * from being merged into the expressions that read it); sums are `numeric`, exact; strings
 * compare by code point (`COLLATE "C"`) whatever the database's collation.
 */
function groupQuery(q: GroupQuery): Sql {
  const at = (path: string) => sql.raw(`(j${arrows(path)})`);
  const number = (path: string) =>
    sql`CASE WHEN jsonb_typeof(${at(path)}) = 'number' THEN (${at(path)})::numeric END`;
  const string = (path: string) =>
    sql`CASE WHEN jsonb_typeof(${at(path)}) = 'string' THEN ${at(path)} #>> '{}' END`;
  const values: Sql[] = [sql`seq`];
  const columns: Sql[] = [];
  q.keys.forEach(({ path, nullIsMissing }, i) => {
    const raw = at(path);
    const g = sql.raw(`g${i}`);
    values.push(sql`(${nullIsMissing ? sql`NULLIF(${raw}, 'null'::jsonb)` : raw})::text AS ${g}`);
    columns.push(g);
  });
  columns.push(sql`min(seq) AS first`, sql`count(*) AS n`);
  q.sums.forEach((path, i) => {
    const v = sql.raw(`v${i}`);
    values.push(sql`${number(path)} AS ${v}`);
    columns.push(
      sql`sum(${v}) AS ${sql.raw(`s${i}`)}`,
      sql`count(${v}) AS ${sql.raw(`c${i}`)}`,
      sql`count(*) FILTER (WHERE ${v} <> trunc(${v})) AS ${sql.raw(`x${i}`)}`,
      sql`max(abs(${v})) AS ${sql.raw(`a${i}`)}`,
    );
  });
  q.extremes.forEach(({ path, type }, i) => {
    const e = sql.raw(`e${i}`);
    values.push(sql`${type === 'number' ? number(path) : string(path)} AS ${e}`);
    const v = type === 'number' ? e : sql`${e} COLLATE "C"`;
    columns.push(sql`min(${v}) AS ${sql.raw(`lo${i}`)}`, sql`max(${v}) AS ${sql.raw(`hi${i}`)}`);
  });
  const groupBy = q.keys.length ? sql` GROUP BY ${sql.join(q.keys.map((_, i) => sql.raw(`g${i}`)))}` : sql``;
  return sql`SELECT ${sql.join(columns)}${q.extra}
    FROM (SELECT ${sql.join(values)} FROM (SELECT seq, (doc)::jsonb AS j FROM documents WHERE ${q.where} OFFSET 0) AS parsed) AS d${groupBy}
    ORDER BY first`;
}

/** The changes of a SetUpdate as a tree of object keys (insertion order kept). */
interface ChangeNode {
  change?: FieldChange;
  children: Map<string, ChangeNode>;
}

/**
 * SetUpdate (documents.ts). `doc` is `json`, the text as written: jsonb_set would rewrite every
 * document in jsonb's key order and spacing. Each changed object is rebuilt from `json_each`
 * (its keys in order, each value's text as stored), the changed keys' values replaced, the
 * unset keys left out and the new keys appended; `$inc` is exact `numeric` arithmetic. Key
 * columns under or above a changed path are read again from the new text.
 */
function setUpdate(changes: readonly FieldChange[], keys: KeyColumns): SetUpdate {
  const root: ChangeNode = { children: new Map() };
  for (const change of changes) {
    let node = root;
    for (const segment of change.path.split('.')) {
      let next = node.children.get(segment);
      if (!next) node.children.set(segment, (next = { children: new Map() }));
      node = next;
    }
    node.change = change;
  }
  let aliases = 0;
  const valueText = (c: FieldChange & { kind: 'set' | 'inc' }, current: string): string =>
    c.kind === 'set' ? quoteString(c.json) : `((${current})::text::numeric + ${Math.trunc(c.by)})::text`;
  const rebuild = (object: string, node: ChangeNode): string => {
    const e = `e${aliases++}`;
    const cases: string[] = [];
    const appended: string[] = [];
    const unset: string[] = [];
    for (const [key, child] of node.children) {
      const k = quoteString(key);
      if (child.change?.kind === 'unset') {
        unset.push(k);
        continue;
      }
      cases.push(
        `WHEN ${k} THEN ${child.change ? valueText(child.change, `${e}.v`) : rebuild(`${e}.v`, child)}`,
      );
      if (child.change) {
        const missing = child.change.kind === 'set' ? child.change.json : String(Math.trunc(child.change.by));
        appended.push(
          `CASE WHEN bool_or(${e}.k = ${k}) THEN NULL ELSE ${quoteString(`${JSON.stringify(key)}:${missing}`)} END`,
        );
      }
    }
    const value = cases.length ? `CASE ${e}.k ${cases.join(' ')} ELSE ${e}.v::text END` : `${e}.v::text`;
    const members = [
      `string_agg(to_json(${e}.k)::text || ':' || ${value}, ',' ORDER BY ${e}.o)`,
      ...appended,
    ];
    const where = unset.length ? ` WHERE ${e}.k NOT IN (${unset.join(', ')})` : '';
    return `(SELECT '{' || concat_ws(',', ${members.join(', ')}) || '}' FROM json_each(${object}) WITH ORDINALITY AS ${e}(k, v, o)${where})`;
  };
  const doc = rebuild('doc', root);
  const touched = touchedKeys(changes, keys);
  // The check parses each document once (`j`, the subquery kept apart by OFFSET 0).
  const at = (path: string) => sql.raw(`(j${arrows(path)})`);
  const unsafe: Sql[] = [];
  for (const prefix of parentPaths(changes))
    unsafe.push(sql`jsonb_typeof(${at(prefix)}) IS DISTINCT FROM 'object'`);
  for (const c of changes) {
    if (c.kind !== 'inc') continue;
    const r = at(c.path);
    const bound = Number.MAX_SAFE_INTEGER - Math.abs(c.by);
    // CASE: a cast of a non-number must not be evaluated.
    unsafe.push(
      sql`CASE WHEN ${r} IS NULL THEN false WHEN jsonb_typeof(${r}) <> 'number' THEN true
          ELSE NOT ((${r})::numeric = trunc((${r})::numeric) AND abs((${r})::numeric) <= ${sql.raw(String(bound))}) END`,
    );
  }
  return {
    statement(where) {
      if (!touched.length) return sql`UPDATE documents SET doc = (${sql.raw(doc)})::json WHERE ${where}`;
      const columns = touched.map(([path, column]) => {
        if (!isOneOf(KEY_COLUMNS, column)) throw new Error(`no key column ${column}`);
        return sql.raw(`, ${column} = NULLIF((n.d)::jsonb${arrows(path)}, 'null'::jsonb)`);
      });
      return sql`UPDATE documents SET doc = (n.d)::json${sql.join(columns, '')}
        FROM (SELECT seq AS s, ${sql.raw(doc)} AS d FROM documents WHERE ${where}) AS n WHERE documents.seq = n.s`;
    },
    check(where) {
      if (!unsafe.length)
        return sql`SELECT count(*) AS n, 0 AS bad, max(octet_length(doc::text)) AS big FROM documents WHERE ${where}`;
      return sql`SELECT count(*) AS n, count(CASE WHEN ${sql.join(unsafe, ' OR ')} THEN 1 END) AS bad, max(b) AS big
        FROM (SELECT (doc)::jsonb AS j, octet_length(doc::text) AS b FROM documents WHERE ${where} OFFSET 0) AS d`;
    },
  };
}

/** `doc[path]` as PostgreSQL's `->` reads it: through objects only; undefined when missing. */
function valueAt(doc: Record<string, unknown>, path: string): unknown {
  let current: unknown = doc;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    if (!Object.prototype.hasOwnProperty.call(current, key)) return undefined;
    current = propertyOf(current, key);
  }
  return current;
}

export function postgresDocuments(binaryTextOrder: boolean): DocumentDialect {
  return {
    name: 'postgres',
    keyColumnNames: KEY_COLUMNS,
    condition: (atom, bits, keys) => condition(atom, bits, keys, binaryTextOrder),
    orderBy(path, direction, bits, keys) {
      const v = valueOf(path, keys);
      const dir = sql.raw(direction === 1 ? 'ASC' : 'DESC');
      // mingo groups missing with null (both tie, keeping their order); both are SQL NULL here.
      const nulls = sql.raw(direction === 1 ? 'NULLS FIRST' : 'NULLS LAST');
      const types = bits & (JSON_NUMBER | JSON_STRING | JSON_BOOLEAN);
      if (types !== 0 && types !== JSON_NUMBER && types !== JSON_STRING && types !== JSON_BOOLEAN)
        return sql`CASE WHEN ${v} IS NULL THEN 0 WHEN jsonb_typeof(${v}) = 'number' THEN 1 WHEN jsonb_typeof(${v}) = 'string' THEN 2 ELSE 3 END ${dir}, ${v} ${dir} ${nulls}`;
      return sql`${v} ${dir} ${nulls}`;
    },
    createIndex,
    fillKeyColumns,
    fillsInCreate: false,
    analyze: ANALYZE,
    dropIndex: (sqlName, collectionId, release = []) => [
      ...release.map((column) => {
        if (!isOneOf(KEY_COLUMNS, column)) throw new Error(`no key column ${column}`);
        return sql`UPDATE documents SET ${sql.raw(column)} = NULL WHERE collection_id = ${sql.literal(Math.trunc(collectionId))} AND ${sql.raw(column)} IS NOT NULL`;
      }),
      sql.raw(`DROP INDEX IF EXISTS ${quoteIdent(sqlName)}`),
      sql.raw(`DROP STATISTICS IF EXISTS ${quoteIdent(`${sqlName}_st`)}`),
    ],
    keyColumnParts: (column) => [column],
    keyValues(doc, _json, path) {
      const value = valueAt(doc, path);
      return [sql`${value === undefined || value === null ? null : JSON.stringify(value)}::jsonb`];
    },
    groupQuery,
    setUpdate,
    explain: (query) => sql`EXPLAIN (COSTS OFF) ${query}`,
    planLines: (rows) => rows.map((r) => String(r['QUERY PLAN'])),
    // A full `Sort` node sorts every row; an `Incremental Sort` only orders the ties of an index's order.
    sortsByIndex: (plan) => !plan.some((line) => /^\s*(->\s+)?Sort$/.test(line)),
    documentColumn: (inlineBytes) =>
      sql`CASE WHEN octet_length(doc::text) <= ${inlineBytes} THEN doc::text ELSE octet_length(doc::text) || ':' || seq END AS doc`,
    stateInSelect: true,
    dataVersion: undefined,
    limitOffset(limit, skip) {
      const l = limit === undefined ? sql.raw('') : sql` LIMIT ${limit}`;
      return skip > 0 ? sql`${l} OFFSET ${skip}` : l;
    },
  };
}
