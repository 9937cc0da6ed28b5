import { CollectionError } from './errors.js';
import { PROTOTYPE_KEYS as FORBIDDEN_KEYS } from '../../safety/index.js';
import { boundedCopyBytes, DEFAULT_EVALUATION_LIMITS } from '../../limits/index.js';
import { isRecord, isStringArray } from '../../safety/narrow.js';
import type { Document } from './types.js';

/** Operators that would run JavaScript on the server: refused everywhere. */
const SCRIPT_OPERATORS = new Set(['$where', '$function', '$accumulator']);
/** Keys that reach an object's prototype: refused as field names and path segments. */
const MAX_DEPTH = 100;

/**
 * Checks a query, update or pipeline before anything evaluates it: no server-side JavaScript
 * operator, no key or field path reaching a prototype, bounded nesting.
 */
export function assertSafeSpec(spec: unknown): void {
  walk(spec, 0);
}

function walk(value: unknown, depth: number): void {
  if (depth > MAX_DEPTH)
    throw new CollectionError('invalid', `the query is nested more than ${MAX_DEPTH} levels deep`);
  if (typeof value === 'string') {
    if (value.startsWith('$')) assertSafePath(value.replace(/^\$+/, ''));
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) walk(item, depth + 1);
    return;
  }
  for (const key of Object.keys(value)) {
    if (SCRIPT_OPERATORS.has(key)) throw new CollectionError('not-allowed', `operator ${key} is not allowed`);
    assertSafePath(key);
    walk(Reflect.get(value, key), depth + 1);
  }
}

/** Refuses a dotted path with a `__proto__`, `constructor` or `prototype` segment. */
export function assertSafePath(path: string): void {
  for (const segment of path.split('.')) {
    if (FORBIDDEN_KEYS.has(segment))
      throw new CollectionError('not-allowed', `field name '${segment}' is not allowed`);
  }
}

export function isForbiddenKey(key: string): boolean {
  return FORBIDDEN_KEYS.has(key);
}

/** A plain object (or null-prototype object): what a JSON object becomes. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * A document as it will be stored: a fresh deep copy made only of JSON values (Maps become
 * objects, Dates ISO text), with field names that cannot start with `$` nor reach a prototype.
 * Throws CollectionError('invalid') naming the offending field.
 */
export function toJsonDocument(value: unknown): Record<string, unknown> {
  const max = DEFAULT_EVALUATION_LIMITS.maxAllocBytes;
  boundedCopyBytes(
    value,
    max,
    () => new CollectionError('invalid', `the document is too large: a copy of it would exceed ${max} bytes`),
  );
  const copy = toJsonValue(value, '', 0);
  if (!isPlainObject(copy))
    throw new CollectionError('invalid', `a document must be an object, not ${kindOf(value)}`);
  return copy;
}

function toJsonValue(value: unknown, path: string, depth: number): unknown {
  if (depth > MAX_DEPTH)
    throw new CollectionError('invalid', `the document is nested more than ${MAX_DEPTH} levels deep`);
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      throw new CollectionError('invalid', `field '${path}' holds ${value}, which JSON cannot store`);
    return value;
  }
  if (value === undefined) return null;
  if (Array.isArray(value))
    return value.map((item, i) => toJsonValue(item, path ? `${path}.${i}` : String(i), depth + 1));
  if (value instanceof Date) return value.toISOString();
  const entries =
    value instanceof Map ? [...value.entries()] : isPlainObject(value) ? Object.entries(value) : undefined;
  if (!entries)
    throw new CollectionError('invalid', `field '${path}' holds ${kindOf(value)}, which JSON cannot store`);
  const out: Record<string, unknown> = {};
  for (const [rawKey, item] of entries) {
    const key = String(rawKey);
    const where = path ? `${path}.${key}` : key;
    if (FORBIDDEN_KEYS.has(key))
      throw new CollectionError('not-allowed', `field name '${key}' is not allowed`);
    if (key.startsWith('$'))
      throw new CollectionError('invalid', `field name '${where}' cannot start with '$'`);
    out[key] = toJsonValue(item, where, depth + 1);
  }
  return out;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'object') return `a ${value.constructor?.name ?? 'value'} object`;
  return `a ${typeof value}`;
}

/** A stored document's JSON text as a Document: an object with a string `_id`. */
export function parseStoredDocument(text: string): Document {
  const value: unknown = JSON.parse(text);
  if (!isRecord(value) || typeof value._id !== 'string')
    throw new CollectionError('invalid', 'a stored document is not an object with a string _id');
  return { ...value, _id: value._id };
}

/** The stored JSON of an index's fields: a list of field paths. */
export function parseIndexKeys(text: unknown): string[] {
  const value: unknown = JSON.parse(String(text));
  if (!isStringArray(value))
    throw new CollectionError(
      'invalid',
      `the stored keys of an index are not a list of fields: ${String(text)}`,
    );
  return value;
}
