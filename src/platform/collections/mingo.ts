import { Aggregator, Query } from 'mingo';
import type { Options } from 'mingo/types';
import { CollectionError } from './errors.js';
import { splitFilter, type SplitFilter } from './pushdown.js';
import { assertSafeSpec } from './safety.js';
import type { Document, SortSpec } from './types.js';

/** mingo with server-side JavaScript disabled (assertSafeSpec refuses those operators first). */
export const MINGO_OPTIONS: Partial<Options> = { scriptEnabled: false, useStrictMode: true, idKey: '_id' };

/**
 * A checked filter and its test. When SQL can take the whole filter (splitFilter says complete),
 * mingo would accept it as it is, so compiling it waits until a document needs testing.
 */
export function prepareFilter(filter: Record<string, unknown>): PreparedFilter {
  assertSafeSpec(filter);
  return new PreparedFilter(filter, splitFilter(filter));
}

export class PreparedFilter {
  private query: Query | undefined;

  constructor(
    private readonly filter: Record<string, unknown>,
    /** What SQL can take of it. */
    readonly split: SplitFilter,
  ) {
    if (!split.complete) this.query = compileFilter(filter);
  }

  /** mingo's verdict on one document. */
  test(doc: Document): boolean {
    return (this.query ??= compileFilter(this.filter)).test(doc);
  }
}

/** A checked, compiled filter. */
export function compileFilter(filter: Record<string, unknown>): Query {
  assertSafeSpec(filter);
  try {
    return new Query(filter, MINGO_OPTIONS);
  } catch (e) {
    throw new CollectionError('invalid', `invalid query: ${(e as Error).message}`);
  }
}

/**
 * Sorts like mingo's $sort (stable; missing < null < numbers < strings < objects < arrays <
 * booleans), keeping the order of the sort keys as given even for keys an object would reorder.
 */
export function sortDocuments(docs: Document[], sort: SortSpec): Document[] {
  let out = docs;
  for (let i = sort.length - 1; i >= 0; i--) {
    const [path, direction] = sort[i]!;
    out = runPipeline(out, [{ $sort: { [path]: direction } }]) as Document[];
  }
  return out;
}

export function runPipeline(
  docs: Record<string, unknown>[],
  stages: Record<string, unknown>[],
  options?: Partial<Options>,
): Record<string, unknown>[] {
  try {
    return new Aggregator(stages, { ...MINGO_OPTIONS, ...options }).run(docs);
  } catch (e) {
    if (e instanceof CollectionError) throw e;
    throw new CollectionError('invalid', `invalid pipeline: ${(e as Error).message}`);
  }
}
