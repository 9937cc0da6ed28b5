/**
 * Where a value came from: the objects of a request's input (a composite API's JSON body, query
 * and headers; a web interface's query; a manual task's submission) that hold `$`-keys — the
 * ones that could act as MongoDB operators — are marked when the host hands the input to the
 * template, so a consumer (a collection query) can tell them from the script's own literals.
 * Only those are marked: an object without `$`-keys means the same from either source, and
 * marking every object of a large body would cost several times its parsing.
 * The mark is identity (a WeakSet): template expressions pass these objects on as they are, and
 * toPlain keeps the mark on the copies it makes. Strings and numbers cannot be marked.
 */
const requestInput = new WeakSet<object>();

/**
 * Deeper than a query can reach (toPlain stops at 100 levels, the query engine refuses more):
 * the walk stops there, which also ends it on a cyclic value (JSON has none).
 */
const MAX_DEPTH = 1000;

/** Marks the objects with `$`-keys anywhere inside `value`; returns `value`. */
export function markRequestInput<T>(value: T): T {
  const pending: unknown[] = [value];
  const depths: number[] = [0];
  while (pending.length > 0) {
    const v = pending.pop();
    const depth = depths.pop()! + 1;
    if (v === null || typeof v !== 'object' || depth > MAX_DEPTH) continue;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        pending.push(v[i]);
        depths.push(depth);
      }
      continue;
    }
    if (!isPlain(v)) continue;
    let operator = false;
    for (const key of Object.keys(v)) {
      if (key.charCodeAt(0) === 0x24) operator = true;
      pending.push((v as Record<string, unknown>)[key]);
      depths.push(depth);
    }
    if (operator) requestInput.add(v);
  }
  return value;
}

/** Marks this one object (not what it holds). */
export function markAsRequestInput(value: object): void {
  requestInput.add(value);
}

/** True for an object with `$`-keys that came from a request's input (or a copy toPlain made). */
export function isRequestInput(value: unknown): boolean {
  return value !== null && typeof value === 'object' && requestInput.has(value);
}

/** Gives `copy` the mark of `original`, if it has one. */
export function carryMark(original: object, copy: object): void {
  if (requestInput.has(original)) requestInput.add(copy);
}

function isPlain(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Request text longer than this is not read as JSON for its `$` texts (the body limit is 1 MiB). */
const MAX_JSON_TEXT = 2 * 1024 * 1024;

/**
 * The texts starting with `$` anywhere in a request's input — values, not keys — including those
 * inside request text that is JSON (what `?eval_json` or `JSON.parse` would make of it). Strings
 * cannot carry a mark, and a copy made in JavaScript or Python keeps none, so a collection query
 * recognises them by their text (functions/collections/request-input.ts).
 */
export function requestStrings(...inputs: unknown[]): Set<string> {
  const found = new Set<string>();
  const seen = new Set<object>();
  const pending: unknown[] = [...inputs];
  const depths: number[] = inputs.map(() => 0);
  while (pending.length > 0) {
    const v = pending.pop();
    const depth = depths.pop()! + 1;
    if (typeof v === 'string') {
      if (v.charCodeAt(0) === 0x24) found.add(v);
      else if (v.length <= MAX_JSON_TEXT && /^\s*[[{"]/.test(v)) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(v);
        } catch {
          continue;
        }
        pending.push(parsed);
        depths.push(depth);
      }
      continue;
    }
    if (v === null || typeof v !== 'object' || depth > MAX_DEPTH || seen.has(v)) continue;
    seen.add(v);
    const items = Array.isArray(v) ? v : v instanceof Map ? [...v.values()] : Object.values(v);
    for (const item of items) {
      pending.push(item);
      depths.push(depth);
    }
  }
  return found;
}
