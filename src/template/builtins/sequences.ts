/** Sequence and hash built-ins. */
import type * as A from '../ast.js';
import { compareNumbers } from '../arith.js';
import { javaCollatorCompare } from '../collation.js';
import { formatBoolean, formatDate, formatNumber, lenientEquals } from '../ops.js';
import { type Env, elError, missingError } from '../runtime.js';
import {
  FmCollection,
  FmDate,
  FmRange,
  JDouble,
  LegacyHashLiteral,
  MatchItem,
  MarkupOutput,
  hashGet,
  hashKeys,
  hashSize,
  isHash,
  isNumber,
  isSequence,
  seqGet,
  seqItems,
  seqSize,
} from '../values.js';
import { BigDec } from '../bigdecimal.js';
import {
  argInt,
  argString,
  biError,
  checkArgs,
  ordinal,
  targetTypeError,
  builtInFamily,
} from './registry.js';
import {
  type FmIterator,
  LazySeq,
  countingLimit,
  drain,
  isLazyEnabled,
  iteratorOf,
  lazySize,
} from '../lazy.js';

const { def, records } = builtInFamily();

export function isEnumerable(v: unknown): boolean {
  return isSequence(v) || v instanceof FmCollection || (v instanceof FmRange && v.unbounded);
}

export function items(env: Env, t: unknown, node: A.BuiltInExpr): unknown[] {
  if (isSequence(t) || t instanceof FmCollection) {
    if (t instanceof FmRange) env.allocateSlots(t.size, `?${node.name}`);
    const arr = seqItems(t, env.maxSteps);
    if (!Array.isArray(t)) env.ticks(arr.length >> 4);
    return arr;
  }
  throw targetTypeError(node, 'sequence or collection', t);
}

function seq(t: unknown, node: A.BuiltInExpr): unknown {
  if (isSequence(t)) return t;
  throw targetTypeError(node, 'sequence', t);
}

def('size', {
  value: (_env, t, node) => {
    if (isSequence(t)) return seqSize(t);
    if (t instanceof LazySeq) return lazySize(t, countingLimit(node));
    if (t instanceof FmCollection) return t.items.length;
    if (isHash(t)) return hashSize(t);
    throw targetTypeError(node, 'extended-hash or sequence or extended collection', t);
  },
});

def('first', {
  value: (env, t, node) => {
    if (t instanceof LazySeq) return t.iter.hasNext() ? t.iter.next() : undefined;
    if (t instanceof FmRange && t.unbounded) return t.start;
    const s = isSequence(t) ? t : items(env, t, node);
    return seqSize(s) ? seqGet(s, 0) : undefined;
  },
});

def('last', {
  value: (_env, t, node) => {
    const s = seq(t, node);
    const n = seqSize(s);
    return n ? seqGet(s, n - 1) : undefined;
  },
});

def('reverse', {
  value: (env, t, node) => {
    const list = items(env, seq(t, node), node);
    env.allocateSlots(list.length, '?reverse');
    return list.slice().reverse();
  },
});

def('sequence', {
  value: (env, t, node) => {
    if (Array.isArray(t) || t instanceof FmRange) return t;
    // a lazily generated sequence stays lazy when what consumes ?sequence can take it so
    if (t instanceof LazySeq) return isLazyEnabled(node) ? t : drain(t.iter);
    return items(env, t, node).slice();
  },
});

/** The items of a consumer's target: an array, or the iterator of a lazily generated sequence. */
function listed(env: Env, t: unknown, node: A.BuiltInExpr): readonly unknown[] | FmIterator {
  if (t instanceof LazySeq) return t.iter;
  // a right-unbounded range (1..) is listed as far as needed
  if (t instanceof FmRange && t.unbounded) return iteratorOf(env, t)!;
  return items(env, t, node);
}

/** joinBI, MinOrMaxBI: an infinite range is refused (FreeMarker's checkNotRightUnboundedNumericalRange). */
function checkBounded(t: unknown, node: A.BuiltInExpr): void {
  if (t instanceof FmRange && t.unbounded) {
    throw biError(
      node,
      "The input sequence is a right-unbounded numerical range, thus, it's infinitely long, and can't processed with this built-in.",
    );
  }
}

/** Calls `each(item, index)` for the items of `list` until it returns true; the index it stopped at, or -1. */
function scan(list: readonly unknown[] | FmIterator, each: (v: unknown, i: number) => boolean): number {
  if (Array.isArray(list)) {
    for (let i = 0; i < list.length; i++) if (each(list[i], i)) return i;
    return -1;
  }
  const it = list as FmIterator;
  for (let i = 0; it.hasNext(); i++) if (each(it.next(), i)) return i;
  return -1;
}

/** An item of ?join as text (null: a missing item, skipped). */
function joinItem(env: Env, v: unknown, i: number, node: A.BuiltInExpr): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return v;
  if (isNumber(v)) return formatNumber(env, v, node);
  if (v instanceof FmDate) return formatDate(env, v, node);
  if (typeof v === 'boolean') return formatBoolean(env, v, node);
  if (v instanceof MatchItem) return v.text;
  if (v instanceof MarkupOutput) return v.markup;
  throw elError(
    '_TemplateModelException',
    `?join(...) can't convert the sequence item at index ${i} to string, because it's a ${typeof v === 'object' ? 'hash or sequence' : typeof v}.`,
    node,
  );
}

def('join', {
  call: (env, t, args, node) => {
    checkBounded(t, node);
    const list = listed(env, t, node);
    checkArgs(node, args, 1, 3);
    const sep = argString(node, args, 0);
    const emptyValue = args.length > 1 ? argString(node, args, 1) : '';
    const suffix = args.length > 2 ? argString(node, args, 2) : '';
    let out = '';
    let charged = 0;
    let first = true;
    const arr = Array.isArray(list) ? list : null;
    const it = arr === null ? (list as FmIterator) : null;
    for (let i = 0; arr !== null ? i < arr.length : it!.hasNext(); i++) {
      const s = joinItem(env, arr !== null ? arr[i] : it!.next(), i, node);
      if (s === null) continue;
      out += first ? s : sep + s;
      first = false;
      if (out.length - charged > 65536) {
        env.checkStringSize(out.length);
        env.allocateString(out.length - charged, '?join');
        charged = out.length;
      }
    }
    env.allocateString(out.length + suffix.length - charged, '?join');
    return first ? emptyValue : out + suffix;
  },
});

def('seq_contains', {
  call: (env, t, args, node) => {
    const list = listed(env, t, node);
    checkArgs(node, args, 1);
    const x = args[0];
    if (Array.isArray(list)) {
      for (let i = 0; i < list.length; i++) if (lenientEquals(env, list[i], x)) return true;
      return false;
    }
    return scan(list, (v) => lenientEquals(env, v, x)) >= 0;
  },
});

function indexOf(last: boolean): (env: Env, t: unknown, args: unknown[], node: A.BuiltInExpr) => number {
  return (env, t, args, node) => {
    if (t instanceof LazySeq) return lazyIndexOf(env, t.iter, args, node, last);
    if (t instanceof FmRange && t.unbounded) return lazyIndexOf(env, iteratorOf(env, t)!, args, node, last);
    const list = items(env, t, node);
    checkArgs(node, args, 1, 2);
    const n = list.length;
    let start = args.length > 1 ? argInt(node, args, 1) : last ? n - 1 : 0;
    if (!last) {
      if (start < 0) start = 0;
      for (let i = start; i < n; i++) if (lenientEquals(env, list[i], args[0])) return i;
    } else {
      if (start >= n) start = n - 1;
      for (let i = start; i >= 0; i--) if (lenientEquals(env, list[i], args[0])) return i;
    }
    return -1;
  };
}
/** seq_index_ofBI.findInCol: a lazily generated sequence is searched as it is generated. */
function lazyIndexOf(env: Env, it: FmIterator, args: unknown[], node: A.BuiltInExpr, last: boolean): number {
  checkArgs(node, args, 1, 2);
  let from = 0;
  let to = 2147483647;
  if (args.length > 1) {
    const start = argInt(node, args, 1);
    if (last) to = start;
    else from = start;
  }
  if (to < 0) return -1;
  let found = -1;
  scan(it, (v, i) => {
    if (i > to) return true;
    if (i >= from && lenientEquals(env, v, args[0])) {
      found = i;
      return !last;
    }
    return false;
  });
  return found;
}

def('seq_index_of', { call: indexOf(false) });
def('seq_last_index_of', { call: indexOf(true) });

/** What one chunk costs besides its items, in slots (a small array's header and backing store in V8). */
const CHUNK_SLOTS = 8;

def('chunk', {
  call: (env, t, args, node) => {
    const list = items(env, seq(t, node), node);
    checkArgs(node, args, 1, 2);
    const size = argInt(node, args, 0);
    if (size < 1) throw biError(node, `The 1st argument to ?${node.name}(...) must be at least 1.`);
    const fill = args.length > 1;
    const chunks = Math.ceil(list.length / size);
    // a chunk is an array of its own: its header and backing store besides its items
    env.allocateSlots(chunks * (size + CHUNK_SLOTS), '?chunk');
    const out: unknown[][] = [];
    for (let i = 0; i < list.length; i += size) {
      const c = list.slice(i, i + size);
      if (fill) while (c.length < size) c.push(args[1]);
      out.push(c);
    }
    return out;
  },
});

// ------------------------------------------------------------------ sorting

type SortKind = 'number' | 'string' | 'date' | 'boolean';

function kindOf(v: unknown): SortKind | null {
  if (typeof v === 'string' || v instanceof MatchItem) return 'string';
  if (isNumber(v)) return 'number';
  if (v instanceof FmDate) return 'date';
  if (typeof v === 'boolean') return 'boolean';
  return null;
}

function sortValues(env: Env, keys: unknown[], node: A.BuiltInExpr, keyDesc: string | null): number[] {
  const idx = keys.map((_k, i) => i);
  if (keys.length === 0) return idx;
  let kind: SortKind | null = null;
  keys.forEach((k, i) => {
    const kk = kindOf(k);
    if (kk === null) {
      throw elError(
        '_TemplateModelException',
        keyDesc === null
          ? `?${node.name} can't sort the sequence, because the element at index ${i} is not a string, number, date or boolean.`
          : `?${node.name} can't sort the sequence, because the value of the ${keyDesc} subvariable of the element at index ${i} is not a string, number, date or boolean.`,
        node,
      );
    }
    if (kind === null) kind = kk;
    else if (kind !== kk) {
      throw elError(
        '_TemplateModelException',
        `?${node.name} can't sort the sequence, because it contains values of different types: the element at index ${i} is a ${kk}, while the earlier ones are ${kind}s.`,
        node,
      );
    }
  });
  const str = (v: unknown): string => (v instanceof MatchItem ? v.text : (v as string));
  const cmp: (a: unknown, b: unknown) => number =
    kind === 'number'
      ? (a, b) => compareNumbers(a as number, b as number)
      : kind === 'string'
        ? (a, b) => javaCollatorCompare(str(a), str(b))
        : kind === 'date'
          ? (a, b) => (a as FmDate).epochMs - (b as FmDate).epochMs
          : (a, b) => (a === b ? 0 : a ? 1 : -1);
  idx.sort((i, j) => cmp(keys[i], keys[j]));
  return idx;
}

def('sort', {
  value: (env, t, node) => {
    const list = items(env, seq(t, node), node);
    // the order and the sorted copy
    env.allocateSlots(2 * list.length, '?sort');
    const order = sortValues(env, list, node, null);
    return order.map((i) => list[i]);
  },
});

def('sort_by', {
  call: (env, t, args, node) => {
    const list = items(env, seq(t, node), node);
    // the keys, the order and the sorted copy
    env.allocateSlots(3 * list.length, '?sort_by');
    checkArgs(node, args, 1);
    const a = args[0];
    let path: string[];
    if (typeof a === 'string') path = [a];
    else if (isSequence(a)) {
      path = seqItems(a, 1000).map((p, i) => {
        if (typeof p !== 'string')
          throw biError(
            node,
            `The argument to ?sort_by(key), when it's a sequence, must be a sequence of strings, but the item at position ${i} is not a string.`,
          );
        return p;
      });
    } else
      throw biError(
        node,
        `The argument to ?sort_by(key) must be a string (the name of the subvariable), or a sequence of strings (the "path" to the subvariable).`,
      );
    const keys = list.map((item, i) => {
      let v: unknown = item;
      for (const p of path) {
        if (!isHash(v)) {
          throw elError(
            '_TemplateModelException',
            `?sort_by(...) failed: The ${ordinal(i)} element of the sequence is not a hash, so it's not possible to get its ${JSON.stringify(p)} subvariable.`,
            node,
          );
        }
        v = hashGet(v, p);
        if (v === undefined) {
          throw elError(
            '_TemplateModelException',
            `?sort_by(...) failed: The ${ordinal(i)} element of the sequence has no ${JSON.stringify(p)} subvariable.`,
            node,
          );
        }
      }
      return v;
    });
    const order = sortValues(env, keys, node, JSON.stringify(path.join('.')));
    return order.map((i) => list[i]);
  },
});

function minMax(isMax: boolean): (env: Env, t: unknown, node: A.BuiltInExpr) => unknown {
  return (env, t, node) => {
    checkBounded(t, node);
    const list = listed(env, t, node);
    let best: unknown = undefined;
    scan(list, (v, i) => {
      if (v === undefined || v === null) return false;
      if (!isNumber(v) && !(v instanceof FmDate)) {
        throw elError(
          '_TemplateModelException',
          `?${node.name} only works with numbers and dates, but the element at index ${i} is not.`,
          node,
        );
      }
      if (best === undefined) {
        best = v;
        return false;
      }
      let c: number;
      if (isNumber(v) && isNumber(best)) c = compareNumbers(v, best);
      else if (v instanceof FmDate && best instanceof FmDate) c = v.epochMs - best.epochMs;
      else throw elError('_TemplateModelException', `?${node.name} can't compare numbers with dates.`, node);
      if (isMax ? c > 0 : c < 0) best = v;
      return false;
    });
    return best;
  };
}
def('min', { value: minMax(false) });
def('max', { value: minMax(true) });

// ------------------------------------------------------------------ hashes

def('keys', {
  value: (env, t, node) => {
    if (!isHash(t)) throw targetTypeError(node, 'extended_hash', t);
    env.allocateSlots(hashSize(t), '?keys');
    return hashKeys(t);
  },
});
def('values', {
  value: (env, t, node) => {
    if (!isHash(t)) throw targetTypeError(node, 'extended_hash', t);
    env.allocateSlots(hashSize(t), '?values');
    if (t instanceof LegacyHashLiteral) return t.pairs.map((p) => p[1]);
    return hashKeys(t).map((k) => hashGet(t, k));
  },
});

export { missingError, JDouble, BigDec };

export const SEQUENCE_BUILT_INS = records;
