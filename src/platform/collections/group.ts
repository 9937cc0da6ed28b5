/**
 * The `$group` pushdown: a `$group` right after the leading `$match` stages, whose `_id` is null,
 * a field path or a document of field paths, and whose accumulators SQL has (`$sum`, `$avg`,
 * `$min`, `$max`, `$count`), runs as one GROUP BY (store/documents*.ts `groupQuery`), reading no
 * document into memory. Its answer is mingo's, exactly:
 *
 * - keys and accumulated fields are pushed only where the shape shows scalars (no array at or
 *   above the path, no object at it); `$min`/`$max` only over one type (numbers, or strings
 *   without characters at or above U+D800, where code-point and UTF-16 order agree);
 * - groups come in the order of their first document (natural order), as mingo emits them;
 * - a single-path `_id` puts missing and null in one group (`_id: null`); in a document `_id` a
 *   missing field is an undefined property (left out of JSON) and stays apart from null;
 * - mingo adds doubles one by one: a sum (or average) is taken from SQL only when every number
 *   summed is an integer and no partial sum can pass 2^53, where every order of addition gives
 *   the same double; otherwise `undefined` is returned and the caller runs the stage in mingo.
 */
import { isAddressablePath, type Dialect, type GroupQuery, type Sql } from '../../store/index.js';
import { isPlainObject } from './safety.js';
import { ARRAY, HIGH_STRING, NULL, NUMBER, OBJECT, pathInfo, STRING, type Shape } from './shape.js';

type Accumulator =
  | { name: string; kind: 'count' }
  | { name: string; kind: 'constant'; value: number }
  | { name: string; kind: 'sum' | 'avg'; index: number }
  | { name: string; kind: 'min' | 'max'; index: number };

export interface GroupPlan {
  /** The key's fields: one path (`single`), a document of paths, or none (`_id: null`). */
  key:
    | { kind: 'null' }
    | { kind: 'single'; path: string }
    | { kind: 'document'; fields: Array<[string, string]> };
  accumulators: Accumulator[];
  sums: string[];
  extremes: Array<{ path: string; type: 'number' | 'string' }>;
}

const MAX_EXACT = 2 ** 53;

/** `$a.b` → `a.b` when it is a plain field path SQL can address (not `_id`, not a variable). */
function fieldPath(value: unknown): string | undefined {
  if (typeof value !== 'string' || !value.startsWith('$') || value.startsWith('$$')) return undefined;
  const path = value.slice(1);
  if (!isAddressablePath(path) || path === '_id' || path.startsWith('_id.')) return undefined;
  return path;
}

/** An output field name mingo takes as it is (others are left to mingo, and to its errors). */
function plainName(name: string): boolean {
  return name !== '' && !name.startsWith('$') && !name.includes('.') && name !== '__proto__';
}

/** A path holding only scalars (what a key or an accumulated field may be). */
function scalarPath(shape: Shape, path: string): number | undefined {
  const info = pathInfo(shape, path);
  if (!info.scalar || info.bits & (OBJECT | ARRAY)) return undefined;
  return info.bits;
}

/** The plan of a `$group` stage's spec, or undefined when SQL cannot give mingo's answer. */
export function planGroup(spec: unknown, shape: Shape): GroupPlan | undefined {
  if (!isPlainObject(spec) || !Object.prototype.hasOwnProperty.call(spec, '_id')) return undefined;
  const plan: GroupPlan = { key: { kind: 'null' }, accumulators: [], sums: [], extremes: [] };
  const id = spec._id;
  if (typeof id === 'string') {
    const path = fieldPath(id);
    if (path === undefined || scalarPath(shape, path) === undefined) return undefined;
    plan.key = { kind: 'single', path };
  } else if (isPlainObject(id)) {
    const fields: Array<[string, string]> = [];
    for (const [name, value] of Object.entries(id)) {
      const path = fieldPath(value);
      if (!plainName(name) || path === undefined) return undefined;
      if (scalarPath(shape, path) === undefined) return undefined;
      fields.push([name, path]);
    }
    if (fields.length === 0) return undefined;
    plan.key = { kind: 'document', fields };
  } else if (id !== null) return undefined;

  for (const [name, value] of Object.entries(spec)) {
    if (name === '_id') continue;
    if (!plainName(name) || !isPlainObject(value)) return undefined;
    const ops = Object.keys(value);
    if (ops.length !== 1) return undefined;
    const op = ops[0]!;
    const operand = value[op];
    if (op === '$count') {
      if (!isPlainObject(operand) || Object.keys(operand).length) return undefined;
      plan.accumulators.push({ name, kind: 'count' });
      continue;
    }
    if (op === '$sum' && typeof operand === 'number') {
      if (!Number.isSafeInteger(operand)) return undefined;
      plan.accumulators.push({ name, kind: 'constant', value: operand });
      continue;
    }
    const path = fieldPath(operand);
    if (path === undefined) return undefined;
    const bits = scalarPath(shape, path);
    if (bits === undefined) return undefined;
    if (op === '$sum' || op === '$avg') {
      plan.accumulators.push({ name, kind: op === '$sum' ? 'sum' : 'avg', index: plan.sums.length });
      plan.sums.push(path);
    } else if (op === '$min' || op === '$max') {
      const types = bits & ~NULL;
      let type: 'number' | 'string';
      if (types === 0 || types === NUMBER) type = 'number';
      else if (types === STRING && !(bits & HIGH_STRING)) type = 'string';
      else return undefined;
      plan.accumulators.push({ name, kind: op === '$min' ? 'min' : 'max', index: plan.extremes.length });
      plan.extremes.push({ path, type });
    } else return undefined;
  }
  return plan;
}

/** The GROUP BY statement of a plan over the documents `where` selects. */
export function groupStatement(plan: GroupPlan, dialect: Dialect, where: Sql, extra: Sql): Sql {
  const keys: GroupQuery['keys'] =
    plan.key.kind === 'null'
      ? []
      : plan.key.kind === 'single'
        ? [{ path: plan.key.path, nullIsMissing: true }]
        : plan.key.fields.map(([, path]) => ({ path, nullIsMissing: false }));
  return dialect.documents.groupQuery({ where, keys, sums: plan.sums, extremes: plan.extremes, extra });
}

type GroupRow = Record<string, unknown>;

const num = (v: unknown): number => Number(v);

/**
 * mingo's output of the stage from the statement's rows, or undefined when a sum is not exact
 * as a double (the caller then runs the stage in mingo).
 */
export function groupResults(plan: GroupPlan, rows: GroupRow[]): Record<string, unknown>[] | undefined {
  const out: Record<string, unknown>[] = [];
  for (const row of rows) {
    const n = num(row.n);
    // Without GROUP BY, an empty selection still gives one row; mingo gives no group.
    if (n === 0) continue;
    for (let i = 0; i < plan.sums.length; i++) {
      const amplitude = row[`a${i}`] === null ? 0 : num(row[`a${i}`]);
      if (num(row[`x${i}`]) > 0 || amplitude * num(row[`c${i}`]) > MAX_EXACT) return undefined;
    }
    const doc: Record<string, unknown> = { _id: keyOf(plan, row) };
    for (const a of plan.accumulators) {
      switch (a.kind) {
        case 'count':
          doc[a.name] = n;
          break;
        case 'constant':
          if (Math.abs(a.value) * n > MAX_EXACT) return undefined;
          doc[a.name] = a.value * n;
          break;
        case 'sum':
          doc[a.name] = num(row[`c${a.index}`]) === 0 ? 0 : num(row[`s${a.index}`]);
          break;
        case 'avg': {
          const count = num(row[`c${a.index}`]);
          doc[a.name] = count === 0 ? null : num(row[`s${a.index}`]) / count;
          break;
        }
        case 'min':
        case 'max': {
          const v = row[`${a.kind === 'min' ? 'lo' : 'hi'}${a.index}`];
          doc[a.name] =
            v === null || v === undefined ? null : plan.extremes[a.index]!.type === 'number' ? num(v) : v;
          break;
        }
      }
    }
    out.push(doc);
  }
  return out;
}

function keyOf(plan: GroupPlan, row: GroupRow): unknown {
  switch (plan.key.kind) {
    case 'null':
      return null;
    case 'single':
      return row.g0 === null ? null : parseJson(row.g0);
    case 'document': {
      const key: Record<string, unknown> = {};
      // mingo keeps a missing field as an undefined property (a later $sort compares the keys).
      plan.key.fields.forEach(([name], i) => {
        const text = row[`g${i}`];
        key[name] = text === null || text === undefined ? undefined : parseJson(text);
      });
      return key;
    }
  }
}

/** A key column's JSON text as its value. */
function parseJson(text: unknown): unknown {
  return JSON.parse(String(text));
}
