import type { Query } from 'mingo/query';
import type { Options } from 'mingo/types';
import { Budget, BudgetExceededError } from '../../limits/index.js';
import { CollectionError } from './errors.js';
import { guardedContext } from './guard.js';
import { mingo } from './mingo-lib.js';
import { splitFilter, type SplitFilter } from './pushdown.js';
import { checkRegexes, withLinearRegexes } from './regex.js';
import { assertSafeSpec } from './safety.js';
import type { Document, SortSpec } from './types.js';
import { errorMessage } from '../../errors/index.js';

/** mingo with server-side JavaScript disabled (assertSafeSpec refuses those operators first). */
export const MINGO_OPTIONS: Partial<Options> = { scriptEnabled: false, useStrictMode: true, idKey: '_id' };

/** mingo's options for one evaluation: its operators charged to `budget` (guard.ts). */
function optionsFor(budget: Budget, extra?: Partial<Options>): Partial<Options> {
  return { ...MINGO_OPTIONS, ...extra, context: guardedContext(budget) };
}

/** Checks a query or pipeline before it runs: safe keys and operators, linear-time patterns. */
export function checkSpec(spec: unknown): void {
  assertSafeSpec(spec);
  checkRegexes(spec);
  checkArrayOperands(spec, 0);
}

/** Operators whose operand is a list, in the query language and as expressions alike. */
const LIST_OPERATORS = new Set(['$in', '$nin', '$all']);

/**
 * `{"$in": <object>}` would reach mingo as an object it iterates (`input[(input.length - 1)] is
 * not iterable`): refused first, naming the operator. What `$literal` holds is not looked at.
 */
function checkArrayOperands(spec: unknown, depth: number): void {
  if (spec === null || typeof spec !== 'object' || depth > 200) return;
  if (Array.isArray(spec)) {
    for (const item of spec) checkArrayOperands(item, depth + 1);
    return;
  }
  for (const [key, value] of Object.entries(spec)) {
    if (key === '$literal') continue;
    if (LIST_OPERATORS.has(key) && !Array.isArray(value))
      throw new CollectionError(
        'invalid',
        `${key} needs an array, not ${value === null ? 'null' : typeof value === 'object' ? 'an object' : `a ${typeof value}`}`,
      );
    checkArrayOperands(value, depth + 1);
  }
}

/**
 * A checked filter and its test. When SQL can take the whole filter (splitFilter says complete),
 * mingo would accept it as it is, so compiling it waits until a document needs testing.
 */
export function prepareFilter(filter: Record<string, unknown>, budget = new Budget()): PreparedFilter {
  checkSpec(filter);
  return new PreparedFilter(filter, splitFilter(filter), budget);
}

export class PreparedFilter {
  private query: Query | undefined;

  constructor(
    private readonly filter: Record<string, unknown>,
    /** What SQL can take of it. */
    readonly split: SplitFilter,
    readonly budget: Budget,
  ) {
    if (!split.complete) this.query = compileFilter(filter, budget);
  }

  /** mingo's verdict on one document. */
  test(doc: Document): boolean {
    const query = (this.query ??= compileFilter(this.filter, this.budget));
    return bounded('invalid query', () => query.test(doc));
  }
}

/** A checked, compiled filter. */
export function compileFilter(filter: Record<string, unknown>, budget = new Budget()): Query {
  checkSpec(filter);
  return bounded(
    'invalid query',
    () => new (mingo().query.Query)(withLinearRegexes(filter), optionsFor(budget)),
  );
}

/**
 * Sorts like mingo's $sort (stable; missing < null < numbers < strings < objects < arrays <
 * booleans), keeping the order of the sort keys as given even for keys an object would reorder.
 */
export function sortDocuments(docs: Document[], sort: SortSpec, budget = new Budget()): Document[] {
  let out = docs;
  for (let i = sort.length - 1; i >= 0; i--) {
    const [path, direction] = sort[i]!;
    out = runPipeline(out, [{ $sort: { [path]: direction } }], budget) as Document[];
  }
  return out;
}

export function runPipeline(
  docs: Record<string, unknown>[],
  stages: Record<string, unknown>[],
  budget = new Budget(),
  options?: Partial<Options>,
): Record<string, unknown>[] {
  return bounded('invalid pipeline', () =>
    new (mingo().aggregator.Aggregator)(
      stages.map((stage) => withLinearRegexes(stage)),
      optionsFor(budget, options),
    ).run(docs),
  );
}

/**
 * Applies update operators to each of `docs` in place with mingo's updater, its conditions
 * (`$pull`) guarded like a query. One call for many documents: mingo prepares an update (copies
 * its operator tables into the context) once per call, which per document cost more than the
 * change itself.
 */
export function applyUpdate(docs: Document[], change: Record<string, unknown>, budget: Budget): void {
  bounded('invalid update', () => {
    mingo().updater.updateMany(
      docs,
      {},
      withLinearRegexes(change),
      { cloneMode: 'deep' },
      optionsFor(budget),
    );
  });
}

/**
 * Runs mingo: our own errors pass as they are, mingo's refusals become `<what>: <reason>`, and
 * an engine limit (an array or string longer than JavaScript allows, a stack overflow) a clear
 * error instead of V8's message.
 */
function bounded<T>(what: string, work: () => T): T {
  try {
    return work();
  } catch (e) {
    if (e instanceof CollectionError || e instanceof BudgetExceededError) throw e;
    if (e instanceof RangeError) throw engineLimit(e);
    throw new CollectionError('invalid', `${what}: ${errorMessage(e)}`);
  }
}

function engineLimit(e: RangeError): CollectionError {
  if (/call stack/i.test(e.message))
    return new CollectionError('too-large', 'the query is nested too deeply to evaluate');
  return new CollectionError(
    'too-large',
    'the query would build a value larger than one evaluation may hold (an array or string over the engine limit)',
  );
}
