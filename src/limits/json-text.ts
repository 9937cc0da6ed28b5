/**
 * JSON.stringify for values a script built, under a character limit. The text is built piece by
 * piece and refused as soon as it passes the limit, before a huge string exists; a container met
 * again (shared structure: `[h, h]` nested 30 times is 2^30 leaves but 30 arrays) is written once
 * and its text reused, so the work stays proportional to the distinct containers and the limit.
 * A container inside itself (a cycle) is written `null` where it recurs.
 *
 * Same text as JSON.stringify otherwise: toJSON, undefined/functions skipped in objects and null
 * in arrays, non-finite numbers null; `replace` acts as JSON.stringify's replacer (without the key).
 */
import { type Budget, SLOT_BYTES, STRING_CHAR_BYTES } from './budget.js';

export function boundedJson(
  value: unknown,
  maxChars: number,
  tooLarge: () => Error,
  replace?: (value: unknown) => unknown,
): string | undefined {
  const done = new Map<object, string>();
  const open = new Set<object>();
  const text = (v: unknown, key: string): string | undefined => {
    if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function')
      v = (v as { toJSON(k: string): unknown }).toJSON(key);
    // a replacement (a Map written as an object) is remembered under the original container
    const original = v;
    if (replace) v = replace(v);
    if (v === null || typeof v !== 'object') {
      if (typeof v === 'string' && v.length > maxChars) throw tooLarge();
      return JSON.stringify(v);
    }
    const memoKey = original !== null && typeof original === 'object' ? original : v;
    const known = done.get(memoKey);
    if (known !== undefined) return known;
    if (open.has(memoKey)) return 'null';
    open.add(memoKey);
    let s: string;
    if (Array.isArray(v)) {
      s = '[';
      for (let i = 0; i < v.length; i++) {
        s += (i ? ',' : '') + (text(v[i], String(i)) ?? 'null');
        if (s.length > maxChars) throw tooLarge();
      }
      s += ']';
    } else {
      s = '{';
      let first = true;
      for (const k of Object.keys(v)) {
        const t = text((v as Record<string, unknown>)[k], k);
        if (t === undefined) continue;
        s += (first ? '' : ',') + JSON.stringify(k) + ':' + t;
        first = false;
        if (s.length > maxChars) throw tooLarge();
      }
      s += '}';
    }
    open.delete(memoKey);
    done.set(memoKey, s);
    return s;
  };
  const out = text(value, '');
  if (out !== undefined && out.length > maxChars) throw tooLarge();
  return out;
}

/** What one value weighs in a measure: a string, another leaf, a container's own cost, a key. */
interface Weights {
  string(length: number): number;
  leaf(value: unknown): number;
  container(entries: number): number;
  key(length: number): number;
}

const JSON_CHARS: Weights = {
  string: (length) => length + 2,
  leaf: (v) => (v === null || v === undefined ? 4 : v instanceof Date ? 26 : String(v).length),
  container: (entries) => 2 + entries,
  key: (length) => length + 3,
};

/** Bytes of a copy, in the Budget's units (STRING_CHAR_BYTES, SLOT_BYTES) plus a container's header. */
const COPY_BYTES: Weights = {
  string: (length) => length * STRING_CHAR_BYTES,
  leaf: () => SLOT_BYTES,
  container: (entries) => CONTAINER_BYTES + entries * SLOT_BYTES,
  key: (length) => length * STRING_CHAR_BYTES,
};

/** Bytes charged for a container's header in a copy (besides its slots). */
export const CONTAINER_BYTES = 32;

/**
 * The one walk of every measure: the full (unshared) weight of `value`, refused with `tooLarge`
 * as soon as it passes `max`. Shared containers are measured once and their weight reused, so the
 * work stays proportional to the distinct containers; a container inside itself has no finite
 * copy and is refused. Maps count as hashes (their values), other objects by their own keys.
 */
function measure(value: unknown, max: number, tooLarge: () => Error, w: Weights): number {
  const sizes = new Map<object, number>();
  const open = new Set<object>();
  const size = (v: unknown): number => {
    if (typeof v === 'string') return w.string(v.length);
    if (v === null || typeof v !== 'object' || v instanceof Date) return w.leaf(v);
    const known = sizes.get(v);
    if (known !== undefined) return known;
    if (open.has(v)) throw tooLarge();
    open.add(v);
    let n: number;
    if (Array.isArray(v)) {
      n = w.container(v.length);
      for (let i = 0; i < v.length && n <= max; i++) n += size(v[i]);
    } else if (v instanceof Map) {
      n = w.container(v.size);
      for (const [k, x] of v) {
        n += w.key(String(k).length) + size(x);
        if (n > max) break;
      }
    } else {
      const keys = Object.keys(v);
      n = w.container(keys.length);
      for (let i = 0; i < keys.length && n <= max; i++)
        n += w.key(keys[i]!.length) + size((v as Record<string, unknown>)[keys[i]!]);
    }
    if (n > max) throw tooLarge();
    open.delete(v);
    sizes.set(v, n);
    return n;
  };
  const total = size(value);
  if (total > max) throw tooLarge();
  return total;
}

/**
 * A lower bound of the length of `value`'s JSON text (and so of any text written from it, XML,
 * CSV …), refused with `tooLarge` as soon as it passes `maxChars`: shared containers are measured
 * once, a container inside itself has no finite text and is refused.
 */
export function boundedSize(value: unknown, maxChars: number, tooLarge: () => Error): number {
  return measure(value, maxChars, tooLarge, JSON_CHARS);
}

/**
 * The bytes a full copy of `value` costs (shared structure expanded, as a conversion to JSON or
 * plain values expands it), refused with `tooLarge` as soon as they pass `maxBytes`.
 */
export function boundedCopyBytes(value: unknown, maxBytes: number, tooLarge: () => Error): number {
  return measure(value, maxBytes, tooLarge, COPY_BYTES);
}

/**
 * Charges `budget` for a full copy of `value` before a function stores or converts it (saving a
 * document, writing XML, handing it to a script): a value whose copy would not fit in what is left
 * of the evaluation's memory — `[h, h]` nested 60 times is 2^60 leaves in 60 arrays — is refused
 * at once with `<what> is too large: …`, whatever the conversion that follows. Small values cost
 * a walk of their distinct containers.
 */
export function chargeCopy(budget: Budget, value: unknown, what: string): void {
  if (value === null || typeof value !== 'object') return;
  const room = budget.limits.maxAllocBytes - budget.allocated;
  const bytes = boundedCopyBytes(value, room, () => budget.tooLargeError(what));
  budget.allocate(bytes, what);
}

/**
 * How long a text a function may write from a value (JSON, XML, CSV): one string, so at most the
 * per-string limit (`maxOutputChars`), and at most what is left of the evaluation's memory; the
 * error is the one of the limit that binds.
 */
export function textRoom(budget: Budget, what: string): { maxChars: number; tooLarge: () => Error } {
  const memory = Math.floor((budget.limits.maxAllocBytes - budget.allocated) / STRING_CHAR_BYTES);
  const output = budget.limits.maxOutputChars;
  return output < memory
    ? { maxChars: output, tooLarge: () => budget.outputError(what) }
    : { maxChars: memory, tooLarge: () => budget.memoryError(what) };
}
