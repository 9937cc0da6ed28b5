/**
 * The shared safety rules of input that becomes an object (a leaf: it imports nothing, and any
 * layer may import it). One home for the prototype-key deny-list and for the JSON parse that
 * refuses a key reaching an object's prototype, with their wording; CONTRIBUTING.md's "no
 * prototype pollution" points here.
 *
 * Browser code imports it too (src/atom/format.ts, loaded from /atom/format.js, imports
 * /safety/index.js), so it stays plain TypeScript with no Node or DOM import.
 */

/** Keys that reach an object's prototype when a value is written or read under them. */
export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Is `key` one of `__proto__`, `constructor`, `prototype` (refused as an object key or path segment)? */
export function isPrototypeKey(key: string): boolean {
  return PROTOTYPE_KEYS.has(key);
}

/** The wording of a refused key: `the key "__proto__" is not allowed`. */
export function keyNotAllowed(key: string): string {
  return `the key ${JSON.stringify(key)} is not allowed`;
}

/** JSON text holding a refused key; `key` is `__proto__` or `constructor.prototype`. */
export class UnsafeJsonKeyError extends Error {
  override name = 'UnsafeJsonKeyError';
  constructor(readonly key: string) {
    super(keyNotAllowed(key));
  }
}

export interface SafeJsonOptions {
  /** Also refuse a `constructor` key whose object has a `prototype` key (as Fastify's parser does). */
  constructorPrototype?: boolean;
}

/** Only text that could hold a refused key (possibly spelled with \u escapes) pays for the reviver. */
const SUSPECT = /__proto__|constructor|\\u/;

/**
 * JSON.parse that refuses a `__proto__` key anywhere (even one spelled with \u escapes), so a
 * parsed value can never be used to reach an object's prototype. Throws UnsafeJsonKeyError for
 * such a key, JSON.parse's SyntaxError for text that is not JSON.
 */
export function parseJsonSafely(text: string, options: SafeJsonOptions = {}): unknown {
  if (!SUSPECT.test(text)) return JSON.parse(text);
  return JSON.parse(text, function (key, value: unknown) {
    if (key === '__proto__') throw new UnsafeJsonKeyError('__proto__');
    if (
      options.constructorPrototype &&
      key === 'constructor' &&
      value !== null &&
      typeof value === 'object' &&
      Object.prototype.hasOwnProperty.call(value, 'prototype')
    )
      throw new UnsafeJsonKeyError('constructor.prototype');
    return value;
  });
}

/**
 * parseJsonSafely for a named input: an Error whose message is `<where>: invalid JSON (<reason>)`
 * or `<where>: the key "__proto__" is not allowed`.
 */
export function readJsonText(text: string, where: string): unknown {
  try {
    return parseJsonSafely(text);
  } catch (e) {
    if (e instanceof UnsafeJsonKeyError) throw new Error(`${where}: ${e.message}`, { cause: e });
    throw new Error(`${where}: invalid JSON (${(e as Error).message})`, { cause: e });
  }
}
