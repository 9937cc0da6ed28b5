/**
 * Query pushdown. Contract: the conditions SQL can decide exactly for the collection's shape
 * (scalar equality, `$in`, ranges and `$exists` on array-free paths, at the top level or under
 * `$and`, and sorts on scalar paths) are pushed to SQL as a WHERE clause and ORDER BY that select
 * a superset of mingo's matches — exactly mingo's matches and order only when `exact` /
 * `sortPushed` says so; otherwise every candidate is re-checked by mingo and sorted in memory,
 * so pushdown never changes an answer, only how many documents are read.
 *
 * This module decides *what* is pushed (engine-neutral); `store.dialect.documents` decides *how*
 * each engine says it (src/store/documents*.ts) and may decline an atom, which is then left to
 * mingo.
 *
 * Exactness follows mingo's rules: comparisons only between values of the same type (numbers,
 * strings, booleans apart), `{a: null}` matching null and missing, missing and null sorting together
 * before numbers, strings, booleans; strings compared by UTF-16 code unit (mingo) vs code point
 * (SQL): identical as long as the operand has no character at or above U+D800, so only such
 * string operands are pushed as ranges, and a sort on strings is pushed only when the shape
 * saw no such character at that path.
 */
import {
  isAddressablePath,
  sql,
  type Atom,
  type Bound,
  type Dialect,
  type KeyColumns,
  type Scalar,
  type Sql,
} from '../../store/index.js';
import { ARRAY, HIGH_STRING, OBJECT, pathInfo, STRING, type Shape } from './shape.js';
import type { SortSpec } from './types.js';
import { isOneOf, isRecord } from '../../safety/narrow.js';

export type { Atom, Scalar };
type RangeOp = '$gt' | '$gte' | '$lt' | '$lte';

export interface SplitFilter {
  atoms: Atom[];
  /** True when the atoms say everything the filter says. */
  complete: boolean;
}

const RANGE_OPS: readonly RangeOp[] = ['$gt', '$gte', '$lt', '$lte'];

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
        if (isRecord(sub)) collectAtoms(sub, into);
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
    if (!isRecord(cond)) {
      into.complete = false;
      continue;
    }
    const ops = Object.keys(cond);
    if (ops.length === 0 || !ops.every(isOperatorName)) {
      into.complete = false; // equality with an object, or a malformed mix mingo rejects
      continue;
    }
    for (const op of ops) {
      const operand = cond[op];
      if (op === '$eq' && isScalarOperand(operand)) atoms.push({ kind: 'eq', path: key, value: operand });
      else if (op === '$in' && Array.isArray(operand) && operand.every(isScalarOperand))
        atoms.push({ kind: 'in', path: key, values: operand.filter(isScalarOperand) });
      else if (isOneOf(RANGE_OPS, op) && isRangeOperand(operand)) atoms.push(rangeAtom(key, op, operand));
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

export function compilePredicate(
  split: SplitFilter,
  shape: Shape,
  dialect: Dialect,
  keys: KeyColumns = NO_KEYS,
): Predicate {
  const parts: Sql[] = [];
  let exact = split.complete;
  for (const atom of mergeRanges(split.atoms)) {
    const part = compileAtom(atom, shape, dialect, keys);
    if (part) parts.push(part);
    else exact = false;
  }
  return { where: parts.length ? sql.join(parts, ' AND ') : undefined, exact };
}

const NO_KEYS: KeyColumns = Object.freeze({});

function compileAtom(atom: Atom, shape: Shape, dialect: Dialect, keys: KeyColumns): Sql | undefined {
  const info = pathInfo(shape, atom.path);
  if (!info.scalar) return undefined;
  if (atom.path === '_id') return idAtom(atom);
  return dialect.documents.condition(atom, info.bits, keys);
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

/**
 * ORDER BY terms giving mingo's order (missing = null < numbers < strings < booleans, ties in
 * the order of the previous keys, then insertion order), or undefined when SQL cannot give it
 * exactly.
 */
export function compileSort(
  sort: SortSpec,
  shape: Shape,
  dialect: Dialect,
  keys: KeyColumns = NO_KEYS,
): Sql | undefined {
  const terms: Sql[] = [];
  for (const [path, direction] of sort) {
    if (!isAddressablePath(path)) return undefined;
    const info = pathInfo(shape, path);
    if (!info.scalar) return undefined;
    const bits = info.bits;
    if (bits & (OBJECT | ARRAY)) return undefined;
    if (bits & STRING && (bits & HIGH_STRING || !dialect.binaryTextOrder)) return undefined;
    if (path === '_id') {
      terms.push(sql`id ${sql.raw(direction === 1 ? 'ASC' : 'DESC')}`);
      continue;
    }
    const term = dialect.documents.orderBy(path, direction, bits, keys);
    if (!term) return undefined;
    terms.push(term);
  }
  return sql.join(terms);
}
