/**
 * Query pushdown: the part of a MongoDB filter SQL can answer from the JSON column (and the
 * expression indexes on it), and whether SQL's answer is exactly mingo's.
 *
 * Pushed: field conditions of the top level and of `$and` — equality with a scalar, `$eq`,
 * `$in` of scalars, `$gt`/`$gte`/`$lt`/`$lte` with a number or string, `$exists` — on paths the
 * collection's shape (shape.ts) shows never hold an array. Everything else stays for mingo,
 * which re-checks the SQL candidates unless the whole filter was pushed exactly.
 *
 * Exactness follows mingo's rules: comparisons only between values of the same type (numbers,
 * strings, booleans apart), `{a: null}` matching null and missing, missing and null sorting together
 * before numbers, strings, booleans; strings compared by UTF-16 code unit (mingo) vs code point
 * (SQL): identical as long as the operand has no character at or above U+D800, so only such
 * string operands are pushed as ranges, and a sort on strings is pushed only when the shape
 * saw no such character at that path.
 */
import { sql, type Dialect, type Sql } from '../../store/index.js';
import { fieldSql, isAddressablePath } from './fields.js';
import { BOOLEAN, HIGH_STRING, NULL, NUMBER, OBJECT, pathInfo, STRING, type Shape, ARRAY } from './shape.js';
import type { SortSpec } from './types.js';

export type Scalar = null | number | string | boolean;
type RangeOp = '$gt' | '$gte' | '$lt' | '$lte';
/** One side of a range; both sides of one range hold the same type. */
interface Bound {
  value: number | string;
  inclusive: boolean;
}

export type Atom =
  | { kind: 'eq'; path: string; value: Scalar }
  | { kind: 'in'; path: string; values: Scalar[] }
  | { kind: 'range'; path: string; lower?: Bound; upper?: Bound }
  | { kind: 'exists'; path: string; value: boolean };

export interface SplitFilter {
  atoms: Atom[];
  /** True when the atoms say everything the filter says. */
  complete: boolean;
}

const RANGE_OPS = new Set(['$gt', '$gte', '$lt', '$lte']);

/** Well-formed UTF-16 (no lone surrogate): SQL engines store it unchanged. */
function isWellFormed(s: string): boolean {
  return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
}

function isScalarOperand(v: unknown): v is Scalar {
  if (v === null || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  return typeof v === 'string' && isWellFormed(v);
}

/** A range operand whose order against any string is the same in UTF-16 and code-point order. */
function isRangeOperand(v: unknown): v is number | string {
  if (typeof v === 'number') return Number.isFinite(v);
  return typeof v === 'string' && !/[\uD800-\uFFFF]/.test(v);
}

function rangeAtom(path: string, op: RangeOp, value: number | string): Atom {
  const bound = { value, inclusive: op === '$gte' || op === '$lte' };
  return op === '$gt' || op === '$gte'
    ? { kind: 'range', path, lower: bound }
    : { kind: 'range', path, upper: bound };
}

/**
 * Ranges on the same path and of the same type merged into one interval with the tightest
 * bounds, so that SQL gets both ends of an index range at once.
 */
function mergeRanges(atoms: Atom[]): Atom[] {
  const merged = new Map<string, Extract<Atom, { kind: 'range' }>>();
  const out: Atom[] = [];
  for (const atom of atoms) {
    if (atom.kind !== 'range') {
      out.push(atom);
      continue;
    }
    const type = typeof (atom.lower ?? atom.upper)!.value;
    const key = `${type}\0${atom.path}`;
    const into = merged.get(key);
    if (!into) {
      const copy = { ...atom };
      merged.set(key, copy);
      out.push(copy);
      continue;
    }
    if (atom.lower) into.lower = tighter(into.lower, atom.lower, 1);
    if (atom.upper) into.upper = tighter(into.upper, atom.upper, -1);
  }
  return out;
}

/** The tighter of two lower (sign 1) or upper (sign -1) bounds of the same type. */
function tighter(a: Bound | undefined, b: Bound, sign: 1 | -1): Bound {
  if (!a) return b;
  if (a.value === b.value) return a.inclusive ? b : a;
  // A lower bound tightens upwards (the larger value), an upper bound downwards.
  return (a.value < b.value ? 1 : -1) === sign ? b : a;
}

/** The pushable conditions of a filter (already checked by mingo and assertSafeSpec). */
export function splitFilter(filter: Record<string, unknown>): SplitFilter {
  const split: SplitFilter = { atoms: [], complete: true };
  collectAtoms(filter, split);
  return split;
}

function collectAtoms(f: Record<string, unknown>, into: SplitFilter): void {
  const atoms = into.atoms;
  for (const key of Object.keys(f)) {
    const cond = f[key];
    if (key === '$and' && Array.isArray(cond)) {
      for (const sub of cond) {
        if (sub !== null && typeof sub === 'object' && !Array.isArray(sub))
          collectAtoms(sub as Record<string, unknown>, into);
        else into.complete = false;
      }
      continue;
    }
    if (key.startsWith('$') || !isAddressablePath(key)) {
      into.complete = false;
      continue;
    }
    if (isScalarOperand(cond)) {
      atoms.push({ kind: 'eq', path: key, value: cond });
      continue;
    }
    if (cond === null || typeof cond !== 'object' || Array.isArray(cond)) {
      into.complete = false;
      continue;
    }
    const ops = Object.keys(cond);
    if (ops.length === 0 || !ops.every(isOperatorName)) {
      into.complete = false; // equality with an object, or a malformed mix mingo rejects
      continue;
    }
    for (const op of ops) {
      const operand = (cond as Record<string, unknown>)[op];
      if (op === '$eq' && isScalarOperand(operand)) atoms.push({ kind: 'eq', path: key, value: operand });
      else if (op === '$in' && Array.isArray(operand) && operand.every(isScalarOperand))
        atoms.push({ kind: 'in', path: key, values: operand as Scalar[] });
      else if (RANGE_OPS.has(op) && isRangeOperand(operand))
        atoms.push(rangeAtom(key, op as RangeOp, operand));
      else if (op === '$exists') atoms.push({ kind: 'exists', path: key, value: Boolean(operand) });
      else into.complete = false;
    }
  }
}

function isOperatorName(key: string): boolean {
  return key.startsWith('$');
}

export interface Predicate {
  /** The SQL condition (conjunction of the pushed atoms), or undefined when nothing was pushed. */
  where: Sql | undefined;
  /** True when `where` selects exactly the documents mingo would. */
  exact: boolean;
}

export function compilePredicate(split: SplitFilter, shape: Shape, dialect: Dialect): Predicate {
  const parts: Sql[] = [];
  let exact = split.complete;
  for (const atom of mergeRanges(split.atoms)) {
    const part = compileAtom(atom, shape, dialect);
    if (part) parts.push(part);
    else exact = false;
  }
  return { where: parts.length ? sql.join(parts, ' AND ') : undefined, exact };
}

function compileAtom(atom: Atom, shape: Shape, dialect: Dialect): Sql | undefined {
  const info = pathInfo(shape, atom.path);
  if (!info.scalar) return undefined;
  if (atom.path === '_id') return idAtom(atom);
  return dialect.name === 'sqlite' ? sqliteAtom(atom, info.bits) : postgresAtom(atom, info.bits, dialect);
}

const FALSE = sql.raw('1 = 0');
const TRUE = sql.raw('1 = 1');

/** `_id` is always a string, in the indexed `id` column (binary collation on both engines). */
function idAtom(atom: Atom): Sql | undefined {
  switch (atom.kind) {
    case 'eq':
      return typeof atom.value === 'string' ? sql`id = ${atom.value}` : FALSE;
    case 'in': {
      const strings = atom.values.filter((v): v is string => typeof v === 'string');
      return strings.length ? sql`id IN (${sql.join(strings)})` : FALSE;
    }
    case 'range': {
      if (typeof (atom.lower ?? atom.upper)!.value !== 'string') return FALSE;
      const parts: Sql[] = [];
      if (atom.lower) parts.push(sql`id ${sql.raw(atom.lower.inclusive ? '>=' : '>')} ${atom.lower.value}`);
      if (atom.upper) parts.push(sql`id ${sql.raw(atom.upper.inclusive ? '<=' : '<')} ${atom.upper.value}`);
      return sql`(${sql.join(parts, ' AND ')})`;
    }
    case 'exists':
      return atom.value ? TRUE : FALSE;
  }
}

function sqliteAtom(atom: Atom, bits: number): Sql {
  const { value: x, type: t } = fieldSqlCached('sqlite', atom.path);

  switch (atom.kind) {
    case 'eq':
      return sqliteEq(x, t, bits, atom.value);
    case 'in': {
      if (atom.values.length === 0) return FALSE;
      const plain = atom.values.every(
        (v) =>
          (typeof v === 'string' && !(bits & OBJECT)) ||
          (typeof v === 'number' && !(bits & BOOLEAN && (v === 0 || v === 1))),
      );
      if (plain) return sql`${x} IN (${sql.join(atom.values)})`;
      return sql`(${sql.join(
        atom.values.map((v) => sqliteEq(x, t, bits, v)),
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
        if (bits & BOOLEAN) parts.push(sql`${t} IN ('integer', 'real')`);
      } else {
        // Text sorts above numbers: '' bounds it from below. Objects are JSON text here: type guard.
        if (!lower) parts.push(sql`${x} >= ''`);
        if (bits & OBJECT) parts.push(sql`${t} = 'text'`);
      }
      return sql`(${sql.join(parts, ' AND ')})`;
    }
    case 'exists': {
      // Without JSON null at the path, the indexed value is NULL exactly when the field is missing.
      const target = bits & NULL ? t : x;
      return atom.value ? sql`${target} IS NOT NULL` : sql`${target} IS NULL`;
    }
  }
}

/** SQLite: the field equals a scalar (booleans are 1/0 and objects JSON text there: type guards). */
function sqliteEq(x: Sql, t: Sql, bits: number, v: Scalar): Sql {
  if (v === null) return sql`${x} IS NULL`;
  if (typeof v === 'boolean')
    return sql`(${x} = ${v ? 1 : 0} AND ${t} = ${sql.raw(v ? "'true'" : "'false'")})`;
  if (typeof v === 'number')
    return bits & BOOLEAN && (v === 0 || v === 1)
      ? sql`(${x} = ${v} AND ${t} IN ('integer', 'real'))`
      : sql`${x} = ${v}`;
  return bits & OBJECT ? sql`(${x} = ${v} AND ${t} = 'text')` : sql`${x} = ${v}`;
}

function postgresAtom(atom: Atom, bits: number, dialect: Dialect): Sql | undefined {
  const { value: v, type: raw } = fieldSqlCached('postgres', atom.path);
  const json = (s: Scalar) => sql`${JSON.stringify(s)}::jsonb`;
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
      if (!numeric && !dialect.binaryTextOrder) return undefined;
      const parts: Sql[] = [];
      if (lower) parts.push(sql`${v} ${sql.raw(lower.inclusive ? '>=' : '>')} ${json(lower.value)}`);
      else if (numeric) parts.push(sql`${v} > '-1e400'::jsonb`);
      if (upper) parts.push(sql`${v} ${sql.raw(upper.inclusive ? '<=' : '<')} ${json(upper.value)}`);
      else parts.push(numeric ? sql`${v} < 'false'::jsonb` : sql`${v} < '-1e400'::jsonb`);
      return sql`(${sql.join(parts, ' AND ')})`;
    }
    case 'exists': {
      const target = bits & NULL ? raw : v;
      return atom.value ? sql`${target} IS NOT NULL` : sql`${target} IS NULL`;
    }
  }
}

/**
 * ORDER BY terms giving mingo's order (missing = null < numbers < strings < booleans, ties in
 * the order of the previous keys, then insertion order), or undefined when SQL cannot give it
 * exactly.
 */
export function compileSort(sort: SortSpec, shape: Shape, dialect: Dialect): Sql | undefined {
  const terms: Sql[] = [];
  for (const [path, direction] of sort) {
    if (!isAddressablePath(path)) return undefined;
    const info = pathInfo(shape, path);
    if (!info.scalar) return undefined;
    const bits = info.bits;
    if (bits & (OBJECT | ARRAY)) return undefined;
    if (bits & STRING && (bits & HIGH_STRING || !dialect.binaryTextOrder)) return undefined;
    const dir = sql.raw(direction === 1 ? 'ASC' : 'DESC');
    if (path === '_id') {
      terms.push(sql`id ${dir}`);
      continue;
    }
    const nulls = sql.raw(direction === 1 ? 'NULLS FIRST' : 'NULLS LAST');
    // mingo groups missing with null (both tie, keeping their order); both are SQL NULL here.
    if (dialect.name === 'sqlite') {
      const { value: x, type: t } = fieldSqlCached('sqlite', path);
      // Numbers sort below text natively; booleans (1/0 here) must come after both.
      if (bits & BOOLEAN) terms.push(sql`CASE WHEN ${t} IN ('true', 'false') THEN 1 ELSE 0 END ${dir}`);
      terms.push(sql`${x} ${dir}`);
    } else {
      const { value: v } = fieldSqlCached('postgres', path);
      const types = bits & (NUMBER | STRING | BOOLEAN);
      if (types !== 0 && types !== NUMBER && types !== STRING && types !== BOOLEAN)
        terms.push(
          sql`CASE WHEN ${v} IS NULL THEN 0 WHEN jsonb_typeof(${v}) = 'number' THEN 1 WHEN jsonb_typeof(${v}) = 'string' THEN 2 ELSE 3 END ${dir}`,
        );
      terms.push(sql`${v} ${dir} ${nulls}`);
    }
  }
  return sql.join(terms);
}

const cache = new Map<string, ReturnType<typeof fieldSql>>();
function fieldSqlCached(engine: 'sqlite' | 'postgres', path: string) {
  const key = `${engine}\0${path}`;
  let f = cache.get(key);
  if (!f) {
    if (cache.size > 10_000) cache.clear();
    cache.set(key, (f = fieldSql(engine, path)));
  }
  return f;
}
