/**
 * FreeMarker's lazily generated sequences (2.3.29+): `?filter`, `?map`, `?take_while` and
 * `?drop_while` produce their items one at a time, on demand, when what consumes their result can
 * take it that way — `#list`, `?first`, `?join`, `?seq_contains`, `?seq_index_of`,
 * `?seq_last_index_of`, `?min`, `?max`, `?size`, `?sequence`, `[index]`/`[range]`, another of those
 * four built-ins, through parentheses. Everywhere else their result is a plain sequence, computed at
 * once. The consumer decides at compile time (FreeMarker's Expression.enableLazilyGeneratedResult),
 * so the two modes call the lambdas exactly as often, and in the same order, as FreeMarker does, and
 * `(1..)?filter(x -> x % 2 == 0)?first` ends.
 */
import type * as A from './ast.js';
import { type Env } from './runtime.js';
import { FmCollection, FmRange, MatchResult } from './values.js';

/** FreeMarker's TemplateModelIterator: hasNext() may compute the next item (and keep it for next()). */
export interface FmIterator {
  hasNext(): boolean;
  next(): unknown;
}

/**
 * A lazily generated sequence (FreeMarker's LazilyGeneratedCollectionModel). It only ever reaches
 * the consumer that asked for it, which lists it once.
 */
export class LazySeq {
  constructor(
    readonly iter: FmIterator,
    /** The size when it is known without generating the items (?map of a sequence), else null. */
    readonly knownSize: number | null,
  ) {}
}

const LAZY_TARGET = new WeakSet<A.Expr>();

/** Expression.enableLazilyGeneratedResult: `e`'s value is consumed by something that can take it lazily. */
export function enableLazy(e: A.Expr): void {
  while (e.kind === 'paren') e = e.target;
  if (e.kind === 'bi' || e.kind === 'key') LAZY_TARGET.add(e);
}

/** Was enableLazy called for `e` (by the expression or directive consuming its value)? */
export function isLazyEnabled(e: A.Expr): boolean {
  return LAZY_TARGET.has(e);
}

/** The values a lazy sequence can be generated from (sequences and collections). */
export function iteratorOf(env: Env, v: unknown): FmIterator | null {
  if (v instanceof LazySeq) return v.iter;
  if (Array.isArray(v)) return new ArrayIterator(env, v);
  if (v instanceof FmRange) return rangeIterator(env, v);
  if (v instanceof MatchResult || v instanceof FmCollection) return new ArrayIterator(env, v.items);
  return null;
}

class ArrayIterator implements FmIterator {
  private i = 0;
  constructor(
    private readonly env: Env,
    private readonly items: readonly unknown[],
  ) {}
  hasNext(): boolean {
    return this.i < this.items.length;
  }
  next(): unknown {
    this.env.tick();
    const x = this.items[this.i++];
    return x === null ? undefined : x;
  }
}

function rangeIterator(env: Env, r: FmRange): FmIterator {
  let i = 0;
  return {
    hasNext: () => i < r.size,
    next: () => {
      env.tick();
      return r.get(i++);
    },
  };
}

/** The size of a sequence-like value without listing it, or null when only listing can tell. */
export function sizeWithoutListing(v: unknown): number | null {
  if (v instanceof LazySeq) return v.knownSize;
  if (Array.isArray(v)) return v.length;
  if (v instanceof FmRange) return v.size;
  if (v instanceof MatchResult || v instanceof FmCollection) return v.items.length;
  return null;
}

/** Every remaining item of `it` (the step budget ends an endless one). */
export function drain(it: FmIterator): unknown[] {
  const out: unknown[] = [];
  while (it.hasNext()) out.push(it.next());
  return out;
}

// ------------------------------------------------------------------ the four built-ins, lazily

/** `test` checks an item (may throw); `wrap` turns what it throws into "Failed to transform element". */
type Test = (v: unknown) => boolean;
type Wrap = (e: unknown) => unknown;

/** Calls a lambda on one item; a failure of the lambda is thrown as `wrap` makes it. */
function applyWrapped<T>(fn: (v: unknown) => T, v: unknown, wrap: Wrap): T {
  try {
    return fn(v);
  } catch (e) {
    throw wrap(e);
  }
}

/** ?filter: hasNext() looks for the next matching item (FreeMarker's prefetching iterator). */
export function lazyFilter(src: FmIterator, test: Test, wrap: Wrap): FmIterator {
  let fetched = false;
  let ended = false;
  let item: unknown;
  const fetch = (): void => {
    if (fetched) return;
    for (;;) {
      if (!src.hasNext()) {
        ended = true;
        item = undefined;
        break;
      }
      const v = src.next();
      const ok = applyWrapped(test, v, wrap);
      if (ok) {
        item = v;
        break;
      }
    }
    fetched = true;
  };
  return {
    hasNext: () => {
      fetch();
      return !ended;
    },
    next: () => {
      fetch();
      fetched = false;
      return item;
    },
  };
}

/** ?map: hasNext() asks the source; next() maps the source's next item. */
export function lazyMap(src: FmIterator, map: (v: unknown) => unknown, wrap: Wrap): FmIterator {
  return new MapIterator(src, map, wrap);
}

class MapIterator implements FmIterator {
  constructor(
    private readonly src: FmIterator,
    private readonly map: (v: unknown) => unknown,
    private readonly wrap: Wrap,
  ) {}
  hasNext(): boolean {
    return this.src.hasNext();
  }
  next(): unknown {
    return applyWrapped(this.map, this.src.next(), this.wrap);
  }
}

/** ?take_while: items up to (not including) the first one failing the test. */
export function lazyTakeWhile(src: FmIterator, test: Test, wrap: Wrap): FmIterator {
  let fetched = false;
  let ended = false;
  let item: unknown;
  const fetch = (): void => {
    if (fetched) return;
    fetched = true;
    if (ended) return;
    if (!src.hasNext()) {
      ended = true;
      return;
    }
    const v = src.next();
    const ok = applyWrapped(test, v, wrap);
    if (ok) item = v;
    else ended = true;
  };
  return {
    hasNext: () => {
      fetch();
      return !ended;
    },
    next: () => {
      fetch();
      fetched = false;
      return item;
    },
  };
}

/** ?drop_while: the first hasNext() skips the items passing the test; then the source as it is. */
export function lazyDropWhile(src: FmIterator, test: Test, wrap: Wrap): FmIterator {
  let dropped = false;
  let held = false;
  let item: unknown;
  const drop = (): void => {
    dropped = true;
    while (src.hasNext()) {
      const v = src.next();
      const ok = applyWrapped(test, v, wrap);
      if (!ok) {
        item = v;
        held = true;
        return;
      }
    }
  };
  return {
    hasNext: () => {
      if (!dropped) drop();
      return held || src.hasNext();
    },
    next: () => {
      if (!dropped) drop();
      if (held) {
        held = false;
        return item;
      }
      return src.next();
    },
  };
}

// ------------------------------------------------------------------ [index] and [range] of a lazy sequence

/** `lazy[i]` (DynamicKeyName.dealWithNumericalKey): lists up to the item. */
export function lazyItem(v: LazySeq, index: number): unknown {
  if (index < 0) return undefined;
  const it = v.iter;
  for (let i = 0; it.hasNext(); i++) {
    const x = it.next();
    if (i === index) return x;
  }
  return undefined;
}

/**
 * `lazy[a..b]` (DynamicKeyName.dealWithRangeKey of a lazily generated sequence). `lazyResult`: the
 * slice is itself consumed lazily (then it is a lazy sequence too). `err` makes the errors that blame
 * the range.
 */
export function lazySlice(
  v: LazySeq,
  range: FmRange,
  lazyResult: boolean,
  err: (message: string) => Error,
  errSelf: (message: string) => Error,
): unknown {
  const rangeSize = range.size;
  const rightUnbounded = range.unbounded;
  const rightAdaptive = range.rightAdaptive;
  // DynamicKeyName.emptyResult(false): an empty slice of a lazily generated sequence is "" (sic)
  if (!rightUnbounded && rangeSize === 0) return '';
  const first = range.start;
  if (first < 0)
    throw err(`Negative range start index (${first}) isn't allowed for a range used for slicing.`);
  const step = range.step;
  const sizeKnown = v.knownSize !== null;
  const targetSize = v.knownSize ?? 2147483647;
  if (sizeKnown && (rightAdaptive && step === 1 ? first > targetSize : first >= targetSize)) {
    throw err(
      `Range start index ${first} is out of bounds, because the sliced sequence has only ${targetSize} element(s). (Note that indices are 0-based).`,
    );
  }
  let resultSize: number;
  if (!rightUnbounded) {
    const last = first + (rangeSize - 1) * step;
    if (last < 0) {
      if (!rightAdaptive)
        throw err(`Negative range end index (${last}) isn't allowed for a range used for slicing.`);
      resultSize = first + 1;
    } else if (sizeKnown && last >= targetSize) {
      if (!rightAdaptive) {
        throw err(
          `Range end index ${last} is out of bounds, because the sliced sequence has only ${targetSize} element(s). (Note that indices are 0-based).`,
        );
      }
      resultSize = Math.abs(targetSize - first);
    } else resultSize = rangeSize;
  } else resultSize = sizeKnown ? targetSize - first : -1;
  if (resultSize === 0) return '';
  const it = v.iter;
  if (step === 1) {
    const lastIdx = first + rangeSize - 1;
    const slice = sliceIterator(it, first, lastIdx, rightUnbounded, rightAdaptive, err);
    if (lazyResult) return new LazySeq(slice, resultSize !== -1 && sizeKnown ? resultSize : null);
    return drain(slice);
  }
  // a decreasing range: the items up to the top index, reversed
  const top = first;
  const bottom = Math.max(first - (rangeSize - 1), 0);
  const out = new Array<unknown>(top - bottom + 1);
  let k = out.length - 1;
  let i = 0;
  for (; i <= top && it.hasNext(); i++) {
    const x = it.next();
    if (i >= bottom) out[k--] = x;
  }
  if (k !== -1)
    throw errSelf(`Range top index ${top} (0-based) is outside the sliced sequence of length ${i}.`);
  return out;
}

function sliceIterator(
  it: FmIterator,
  first: number,
  lastIdx: number,
  rightUnbounded: boolean,
  rightAdaptive: boolean,
  err: (message: string) => Error,
): FmIterator {
  let skipped = false;
  let nextIdx = first;
  const skip = (): void => {
    if (skipped) return;
    skipped = true;
    for (let i = 0; i < first; i++) {
      if (!it.hasNext()) {
        throw err(
          `Range start index ${first} is out of bounds, as the sliced sequence only has ${i} elements.`,
        );
      }
      it.next();
    }
  };
  return {
    hasNext: () => {
      skip();
      return (rightUnbounded || nextIdx <= lastIdx) && (!rightAdaptive || it.hasNext());
    },
    next: () => {
      skip();
      if (!rightAdaptive && !it.hasNext()) {
        throw err(
          `Range end index ${lastIdx} is out of bounds, as sliced sequence only has ${nextIdx} elements.`,
        );
      }
      nextIdx++;
      return it.next();
    },
  };
}

// ------------------------------------------------------------------ ?size of a lazy sequence

const COUNTING_LIMIT = new WeakMap<A.Expr, number>();

/**
 * ComparisonExpression with `?size` on one side and an integer literal on the other
 * (sizeBI.setCountingLimit): counting a lazy sequence can stop once the comparison is decided.
 */
export function setCountingLimit(
  size: A.Expr,
  op: A.Cmp['relation'],
  literal: number,
  mirrored: boolean,
): void {
  if (!Number.isInteger(literal) || literal > 2147483647 || literal < -2147483648) return;
  let kind = op;
  if (mirrored) kind = op === 'lt' ? 'gt' : op === 'gt' ? 'lt' : op === 'le' ? 'ge' : op === 'ge' ? 'le' : op;
  COUNTING_LIMIT.set(size, kind === 'lt' || kind === 'ge' ? literal : literal + 1);
}

export function countingLimit(size: A.Expr): number | undefined {
  return COUNTING_LIMIT.get(size);
}

/** sizeBI on a lazily generated sequence: counts its items, up to `limit`. */
export function lazySize(v: LazySeq, limit: number | undefined): number {
  if (v.knownSize !== null) return v.knownSize;
  const it = v.iter;
  let n = 0;
  while (it.hasNext()) {
    n++;
    if (n === limit) break;
    it.next();
  }
  return n;
}
