/**
 * mingo's operators, charged to the evaluation's budget. Every query, pipeline and sort runs with
 * a mingo Context built here for its Budget: operators that would build a value from a size they
 * are given ($range, $concatArrays, $concat, $replaceAll, $zip, $densify …) check the size before
 * building it; every operator that returns a new string, array or object is charged for it; each
 * operator call and each document leaving a pipeline stage checks the wall time. `$regex` and
 * the `$regex…` expression operators run on RE2 (regex.ts).
 *
 * mingo's own `Context.from` keeps a built-in over an added operator of the same name, so the
 * context is built whole here (Context.init with the guarded maps) and given to mingo's base
 * Query and Aggregator classes.
 */
import type { Context } from 'mingo/core';
import { mingo } from './mingo-lib.js';
import type { Options } from 'mingo/types';
import { Budget } from '../../limits/index.js';
import { LINEAR_REGEX, regexExpressionOperators, regexQueryOperator } from './regex.js';
import { CollectionError } from './errors.js';
import { isPrototypeKey, keyNotAllowed, PROTOTYPE_KEYS } from '../../safety/index.js';
import { isRecord, propertyOf } from '../../safety/narrow.js';

type AnyObject = Record<string, unknown>;
type ExpressionOperator = (obj: AnyObject, expr: unknown, options: Options) => unknown;
type AccumulatorOperator = (collection: unknown[], expr: unknown, options: Options) => unknown;
interface Stream {
  map(f: (o: unknown) => unknown): Stream;
}
type PipelineOperator = (collection: Stream, expr: unknown, options: Options) => Stream;
type Ops<T> = Record<string, T>;

/** A module's operators (its `$…` exports), typed loosely: mingo's own types are one per operator. */
function operators<T>(module: object): Ops<T> {
  return Object.fromEntries(Object.entries(module).filter(([name]) => name.startsWith('$'))) as Ops<T>;
}

/** Operators whose result may be a value that already exists (an argument, a variable, a field). */
const PASS_THROUGH = new Set([
  '$literal',
  '$let',
  '$cond',
  '$ifNull',
  '$switch',
  '$arrayElemAt',
  '$first',
  '$last',
  '$getField',
  '$max',
  '$min',
]);

/** Pipeline stages that make new documents (the others pass documents through). */
const BUILDING_STAGES = new Set([
  '$addFields',
  '$set',
  '$project',
  '$unset',
  '$unwind',
  '$group',
  '$bucket',
  '$bucketAuto',
  '$facet',
  '$densify',
  '$fill',
  '$replaceRoot',
  '$replaceWith',
  '$setWindowFields',
  '$sortByCount',
  '$count',
  '$redact',
]);

/** What a new document costs besides its fields, in slots (the object and its place in the stream). */
const DOCUMENT_SLOTS = 4;

const contexts = new WeakMap<Budget, Context>();

/** The mingo context of one evaluation: every operator charged to `budget`. */
export function guardedContext(budget: Budget): Context {
  let context = contexts.get(budget);
  if (!context) {
    context = buildContext(budget);
    contexts.set(budget, context);
  }
  return context;
}

function buildContext(budget: Budget): Context {
  const {
    core: { Context },
    operators: {
      accumulator: accumulatorOperators,
      expression: expressionOperators,
      pipeline: pipelineOperators,
      projection: projectionOperators,
      query: queryOperators,
      window: windowOperators,
    },
  } = mingo();
  // Each operator call, each item an operator iterates over and each document leaving a stage is
  // a step of the evaluation's budget (Budget.step looks at the clock every few thousand).
  const tick = (what: string) => budget.step(1, what);

  const expression: Ops<ExpressionOperator> = {};
  const builtins = {
    ...operators<ExpressionOperator>(expressionOperators),
    ...regexExpressionOperators(budget),
  };
  for (const [name, builtin] of Object.entries(builtins)) {
    const counted = ITERATING[name];
    const keyed = KEYED[name];
    const op0 = keyed ? keyed(builtin, name) : builtin;
    const op = counted ? counted(op0, budget, name) : op0;
    const precheck = PRECHECKS[name];
    const sized = precheck ? precheck(op, budget, name) : op;
    // A prechecked operator was charged for its result before building it.
    const builds = !PASS_THROUGH.has(name);
    const charge = !precheck && builds;
    expression[name] = (obj, expr, options) => {
      tick(name);
      const result = sized(obj, expr, options);
      if (charge) chargeValue(budget, result, name);
      if (builds) refusePrototypeKeys(result, name);
      return result;
    };
  }

  const accumulator: Ops<AccumulatorOperator> = {};
  for (const [name, op] of Object.entries(operators<AccumulatorOperator>(accumulatorOperators))) {
    accumulator[name] = (collection, expr, options) => {
      tick(name);
      if (Array.isArray(collection)) budget.step(collection.length, name);
      const result = op(collection, expr, options);
      chargeValue(budget, result, name);
      return result;
    };
  }

  const pipeline: Ops<PipelineOperator> = {};
  for (const [name, op] of Object.entries(operators<PipelineOperator>(pipelineOperators))) {
    const builds = BUILDING_STAGES.has(name);
    pipeline[name] = (collection, expr, options) => {
      if (name === '$densify') chargeDensify(budget, expr);
      const input = name === '$unwind' ? chargeUnwind(budget, collection, expr) : collection;
      return op(input, expr, options).map((doc: unknown) => {
        if (builds) {
          // a new document costs steps as it costs slots: its fields were each computed
          const slots = DOCUMENT_SLOTS + keyCount(doc);
          budget.step(slots, name);
          budget.allocateSlots(slots, name);
        } else tick(name);
        return doc;
      });
    };
  }

  const regex = regexQueryOperator(budget);
  const query = { ...operators<unknown>(queryOperators), $regex: regex, [LINEAR_REGEX]: regex };

  return Context.init({
    accumulator,
    expression,
    pipeline,
    projection: operators<unknown>(projectionOperators),
    query,
    window: operators<unknown>(windowOperators),
  } as unknown as Parameters<typeof Context.init>[0]);
}

/** Charges a value an operator returned: its characters, items or entries (not what they hold). */
function chargeValue(budget: Budget, value: unknown, what: string): void {
  if (typeof value === 'string') {
    if (value.length > 16) budget.allocateString(value.length, what);
  } else if (Array.isArray(value)) budget.allocateSlots(value.length, what);
  else if (value !== null && typeof value === 'object' && !(value instanceof Date))
    budget.allocateSlots(keyCount(value), what);
}

function keyCount(value: unknown): number {
  return value !== null && typeof value === 'object' ? Object.keys(value).length : 0;
}

type Precheck = (op: ExpressionOperator, budget: Budget, name: string) => ExpressionOperator;

/**
 * Operators that build a value whose size comes from their arguments: the arguments are
 * evaluated, the size charged, then the built-in runs on the evaluated values (as literals).
 */
const PRECHECKS: Record<string, Precheck> = {
  $range: (op, budget, name) => (obj, expr, options) => {
    const args = evaluate(obj, expr, options);
    if (Array.isArray(args) && args.length >= 2) {
      const [start, end, step = 1]: unknown[] = args;
      if (isInt(start) && isInt(end) && isInt(step) && step !== 0) {
        const count = Math.ceil((end - start) / step);
        if (count > 0) budget.allocateSlots(count, name);
      }
    }
    return op(obj, literals(args), options);
  },
  $concatArrays: (op, budget, name) => (obj, expr, options) => {
    const args = evaluate(obj, expr, options);
    if (Array.isArray(args))
      budget.allocateSlots(
        sum(args, (a) => (Array.isArray(a) ? a.length : 0)),
        name,
      );
    return op(obj, literals(args), options);
  },
  $concat: (op, budget, name) => (obj, expr, options) => {
    const args = evaluate(obj, expr, options);
    if (Array.isArray(args))
      budget.allocateString(
        sum(args, (a) => (typeof a === 'string' ? a.length : 0)),
        name,
      );
    return op(obj, literals(args), options);
  },
  $replaceAll: (op, budget, name) => replacing(op, budget, name, true),
  $replaceOne: (op, budget, name) => replacing(op, budget, name, false),
  $zip: (op, budget, name) => (obj, expr, options) => {
    if (expr === null || typeof expr !== 'object' || !('inputs' in expr)) return op(obj, expr, options);
    const inputs = evaluate(obj, expr.inputs, options);
    if (Array.isArray(inputs)) {
      let longest = 0;
      for (const a of inputs) if (Array.isArray(a)) longest = Math.max(longest, a.length);
      budget.allocateSlots(longest * (inputs.length + 1), name);
    }
    return op(obj, { ...expr, inputs: { $literal: inputs } }, options);
  },
};

/**
 * Operators that iterate over arrays their arguments give: the arrays are evaluated first and their
 * items charged as steps before the operator runs over them (a `$reduce` over a `$range` of ten
 * million, `$map` inside `$map`), then the built-in runs on the evaluated arrays (as literals).
 */
const ITERATING: Record<string, Precheck> = {
  ...Object.fromEntries(['$map', '$filter', '$reduce', '$sortArray'].map((name) => [name, overInput])),
  ...Object.fromEntries(
    [
      '$in',
      '$indexOfArray',
      '$setUnion',
      '$setIntersection',
      '$setDifference',
      '$setEquals',
      '$setIsSubset',
      '$allElementsTrue',
      '$anyElementTrue',
      '$reverseArray',
      '$arrayToObject',
      '$objectToArray',
      '$sum',
      '$avg',
      '$max',
      '$min',
      '$stdDevPop',
      '$stdDevSamp',
    ].map((name) => [name, overArguments]),
  ),
};

/** `{input: <array expression>, …}`: the input evaluated and its items charged as steps. */
function overInput(op: ExpressionOperator, budget: Budget, name: string): ExpressionOperator {
  return (obj, expr, options) => {
    if (expr === null || typeof expr !== 'object' || Array.isArray(expr) || !('input' in expr))
      return op(obj, expr, options);
    const input = evaluate(obj, expr.input, options);
    if (Array.isArray(input)) budget.step(input.length, name);
    return op(obj, { ...expr, input: { $literal: input } }, options);
  };
}

/** Arguments that are (or hold) arrays: evaluated, the items of each array charged as steps. */
function overArguments(op: ExpressionOperator, budget: Budget, name: string): ExpressionOperator {
  return (obj, expr, options) => {
    const args = evaluate(obj, expr, options);
    if (name === '$in' && Array.isArray(args) && args.length === 2 && !Array.isArray(args[1]))
      throw new CollectionError(
        'invalid',
        `$in requires an array as a second argument, found: ${args[1] === undefined ? 'missing' : args[1] === null ? 'null' : typeof args[1]}`,
      );
    if (Array.isArray(args)) {
      budget.step(args.length, name);
      for (const a of args) if (Array.isArray(a)) budget.step(a.length, name);
    } else if (args !== null && typeof args === 'object' && !(args instanceof Date)) {
      budget.step(Object.keys(args).length, name);
    }
    // an array of arguments keeps its arity; a single expression (`"$field"`) stays one value
    return op(obj, Array.isArray(expr) ? literals(args) : { $literal: args }, options);
  };
}

/**
 * A key made at run time that would reach a prototype (`__proto__`, `constructor`, `prototype`):
 * `$arrayToObject` would set its result's prototype, `$setField` write an own `constructor`.
 * The keys are read before the object is built, and every object an expression returns is looked
 * at as well (a `$mergeObjects` of such an object).
 */
const KEYED: Record<string, (op: ExpressionOperator, name: string) => ExpressionOperator> = {
  $arrayToObject: (op, name) => (obj, expr, options) => {
    const items = evaluate(obj, expr, options);
    // the key of each item as mingo reads it: an array flattened, or an object's k
    if (Array.isArray(items))
      for (const item of items) {
        const key = Array.isArray(item) ? item.flat(Infinity)[0] : propertyOf(item, 'k');
        if (typeof key === 'string' && isPrototypeKey(key)) throw refusedKey(name, key);
      }
    return op(obj, { $literal: items }, options);
  },
  $setField: (op, name) => (obj, expr, options) => {
    const field = propertyOf(expr, 'field');
    const key = field === undefined ? undefined : evaluate(obj, field, options);
    if (typeof key === 'string' && isPrototypeKey(key)) throw refusedKey(name, key);
    return op(obj, expr, options);
  },
};

function refusePrototypeKeys(value: unknown, name: string): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof Date) return;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) throw refusedKey(name, '__proto__');
  for (const key of PROTOTYPE_KEYS)
    if (Object.prototype.hasOwnProperty.call(value, key)) throw refusedKey(name, key);
}

function refusedKey(name: string, key: string): CollectionError {
  return new CollectionError('not-allowed', `${name}: ${keyNotAllowed(key)}`);
}

/** $replaceAll / $replaceOne: the result's length, counted before the string is built. */
function replacing(op: ExpressionOperator, budget: Budget, name: string, all: boolean): ExpressionOperator {
  return (obj, expr, options) => {
    const args = evaluate(obj, expr, options);
    if (isRecord(args)) {
      const { input, find, replacement } = args;
      if (typeof input === 'string' && typeof find === 'string' && typeof replacement === 'string') {
        const n = all ? occurrences(input, find) : input.includes(find) ? 1 : 0;
        budget.allocateString(input.length + n * (replacement.length - find.length), name);
      }
    }
    return op(obj, literals(args), options);
  };
}

function occurrences(input: string, find: string): number {
  if (find === '') return input.length + 1;
  let n = 0;
  for (let i = input.indexOf(find); i !== -1; i = input.indexOf(find, i + find.length)) n++;
  return n;
}

/**
 * `$unwind` makes a shallow copy of the document per item of the unwound array: the items times
 * the document's top-level fields are charged as steps before it is unwound.
 */
function chargeUnwind(budget: Budget, collection: Stream, expr: unknown): Stream {
  const path = typeof expr === 'string' ? expr : propertyOf(expr, 'path');
  if (typeof path !== 'string' || !path.startsWith('$')) return collection;
  const segments = path.slice(1).split('.');
  return collection.map((doc) => {
    let v: unknown = doc;
    for (const k of segments) v = propertyOf(v, k);
    if (Array.isArray(v)) budget.step(v.length * documentWidth(doc), '$unwind');
    return doc;
  });
}

function documentWidth(doc: unknown): number {
  return doc !== null && typeof doc === 'object' ? 1 + Object.keys(doc).length : 1;
}

/** $densify over explicit numeric bounds makes (upper - lower) / step documents: charged first. */
function chargeDensify(budget: Budget, expr: unknown): void {
  const range = propertyOf(expr, 'range');
  const bounds = propertyOf(range, 'bounds');
  const step = propertyOf(range, 'step');
  if (!Array.isArray(bounds) || typeof step !== 'number' || !(step > 0)) return;
  const [lower, upper]: unknown[] = bounds;
  if (typeof lower === 'number' && typeof upper === 'number' && upper > lower)
    budget.allocateSlots(Math.ceil((upper - lower) / step), '$densify');
}

function evaluate(obj: AnyObject, expr: unknown, options: Options): unknown {
  return mingo().core.evalExpr(obj, expr, options);
}

/** Evaluated arguments handed back to a built-in: `$literal` keeps them from being read again. */
function literals(args: unknown): unknown {
  if (Array.isArray(args)) return args.map((a) => ({ $literal: a }));
  if (args !== null && typeof args === 'object' && !(args instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(args)) out[k] = { $literal: v };
    return out;
  }
  return { $literal: args };
}

function isInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v);
}

function sum<T>(items: T[], size: (item: T) => number): number {
  let n = 0;
  for (const item of items) n += size(item);
  return n;
}
