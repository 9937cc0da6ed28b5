import { firstJsonObject } from './json-object-text.js';
import type { ParamType } from './spec.js';
import { messageOf } from './errors.js';
import { parseJsonSafely } from '../safety/index.js';
import { boundedJson, DEFAULT_EVALUATION_LIMITS } from '../limits/index.js';

/**
 * A hash or sequence passed where text is expected is written as JSON, at most as long as one
 * string may be (the default per-string limit): shared structure (`[h, h]` nested 60 times) is
 * refused as soon as its text passes it instead of being expanded.
 */
export const MAX_ARGUMENT_TEXT = DEFAULT_EVALUATION_LIMITS.maxOutputChars;

/** Thrown by the string coercer for such a value; the caller names the function and argument. */
export class ArgumentTextTooLargeError extends Error {
  override name = 'ArgumentTextTooLargeError';
  constructor() {
    super(`is too large: its JSON text would exceed ${MAX_ARGUMENT_TEXT} characters`);
  }
}

/**
 * Argument coercion the way real scripts pass values: objects and arrays as hashes/sequences or
 * as JSON text, booleans as true/false or "true"/"false", numbers as numbers or numeric text.
 * A coercer returns the converted value, or the NO_MATCH marker; the caller words the error.
 */
export const NO_MATCH: unique symbol = Symbol('no match');
export type Coerced = unknown | typeof NO_MATCH;
export type Coercer = (value: unknown) => Coerced;

const INTEGER_TEXT = /^\s*[+-]?\d+\s*$/;
const NUMBER_TEXT = /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

/** True for a hash: a plain object or a Map (not a sequence, date, method or directive). */
export function isHash(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null || value instanceof Map;
}

function hashToObject(value: Record<string, unknown> | Map<unknown, unknown>): Record<string, unknown> {
  return value instanceof Map ? (Object.fromEntries(value) as Record<string, unknown>) : value;
}

const coercers: Record<ParamType, Coercer> = {
  string(v) {
    switch (typeof v) {
      case 'string':
        return v;
      case 'number':
        return String(v);
      case 'boolean':
        return v ? 'true' : 'false';
      default:
        if (Array.isArray(v) || isHash(v))
          return boundedJson(
            hashToObject(v as Record<string, unknown>),
            MAX_ARGUMENT_TEXT,
            () => new ArgumentTextTooLargeError(),
          );
        return NO_MATCH;
    }
  },
  integer(v) {
    if (typeof v === 'number') return Number.isInteger(v) ? v : NO_MATCH;
    if (typeof v === 'string' && INTEGER_TEXT.test(v)) {
      const n = Number(v);
      return Number.isSafeInteger(n) ? n : NO_MATCH;
    }
    return NO_MATCH;
  },
  number(v) {
    if (typeof v === 'number') return v;
    if (typeof v === 'string' && NUMBER_TEXT.test(v)) return Number(v);
    return NO_MATCH;
  },
  boolean(v) {
    if (typeof v === 'boolean') return v;
    if (typeof v === 'string') {
      const t = v.trim().toLowerCase();
      if (t === 'true') return true;
      if (t === 'false') return false;
    }
    return NO_MATCH;
  },
  object(v) {
    if (typeof v === 'object' && v !== null) {
      const proto = Object.getPrototypeOf(v);
      if (proto === Object.prototype || proto === null) return v;
      return v instanceof Map ? Object.fromEntries(v) : NO_MATCH;
    }
    if (typeof v === 'string') {
      // The first object of the text, as the platform's JSONObject(String) (json-object-text.ts).
      let parsed: unknown;
      try {
        parsed = parseJsonObjectText(v);
      } catch {
        return NO_MATCH;
      }
      return isHash(parsed) ? parsed : NO_MATCH;
    }
    return NO_MATCH;
  },
  array(v) {
    if (Array.isArray(v)) return v;
    if (typeof v === 'string') {
      const parsed = tryParseJsonText(v);
      return Array.isArray(parsed) ? parsed : NO_MATCH;
    }
    return NO_MATCH;
  },
  any: (v) => v,
};

/** Is the value, as it is, already of this type (no conversion needed)? */
function isNatively(type: ParamType, v: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number';
    case 'boolean':
      return typeof v === 'boolean';
    case 'object':
      return isHash(v);
    case 'array':
      return Array.isArray(v);
    case 'any':
      return true;
  }
}

/** The coercer for a declared type or union of types. */
export function coercerFor(type: ParamType | ParamType[]): Coercer {
  if (!Array.isArray(type)) return coercers[type];
  if (type.length === 1) return coercers[type[0]];
  const each = type.map((t) => coercers[t]);
  return (v) => {
    for (const t of type) if (isNatively(t, v)) return coercers[t](v);
    for (const c of each) {
      const r = c(v);
      if (r !== NO_MATCH) return r;
    }
    return NO_MATCH;
  };
}

const EXPECTED: Record<ParamType, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean (true or false)',
  object: 'a hash or the JSON text of an object',
  array: 'a sequence or the JSON text of an array',
  any: 'a value',
};

/** "an integer", "a sequence or the JSON text of an array, or a string" */
export function describeType(type: ParamType | ParamType[]): string {
  const types = Array.isArray(type) ? type : [type];
  return types.map((t) => EXPECTED[t]).join(', or ');
}

/**
 * Why a value does not fit a type: `expected an integer, got the string "abc"`, with the JSON
 * parser's reason when JSON text was expected.
 */
export function explainMismatch(type: ParamType | ParamType[], v: unknown): string {
  let detail = `expected ${describeType(type)}, got ${describeValue(v)}`;
  const types = Array.isArray(type) ? type : [type];
  if (typeof v === 'string' && (types.includes('object') || types.includes('array'))) {
    try {
      const parsed = types.includes('object') ? parseJsonObjectText(v) : parseJsonText(v);
      detail += ` (the JSON text of ${jsonKind(parsed)})`;
    } catch (e) {
      detail += ` (not valid JSON: ${messageOf(e)})`;
    }
  }
  return detail;
}

function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  return `a ${typeof v}`;
}

/** How a value is named in an error: `the string "abc"`, `a hash`, `the number 1.5` … */
export function describeValue(v: unknown): string {
  if (v === undefined || v === null) return 'nothing (a missing value)';
  switch (typeof v) {
    case 'string': {
      const shown = v.length > 60 ? `${v.slice(0, 57)}...` : v;
      return v === '' ? 'an empty string' : `the string ${JSON.stringify(shown)}`;
    }
    case 'number':
      return `the number ${v}`;
    case 'boolean':
      return `the boolean ${v}`;
    case 'function':
      return 'a method';
    case 'bigint':
      return `the number ${v}`;
    default:
      if (Array.isArray(v)) return 'a sequence';
      if (isHash(v)) return 'a hash';
      if (typeof (v as { epochMs?: unknown }).epochMs === 'number') return 'a date';
      return 'a value of an unsupported kind';
  }
}

/**
 * The value of the first JSON object of `text` (what follows it ignored; json-object-text.ts); text
 * that does not start with `{`, or whose first object never closes, is parsed as a whole. Throws
 * JsonTextError as parseJsonText does.
 */
export function parseJsonObjectText(text: string): unknown {
  return parseJsonText(firstJsonObject(text));
}

export class JsonTextError extends Error {
  override name = 'JsonTextError';
}

/**
 * JSON.parse that refuses a `__proto__` key anywhere (even one spelled with \u escapes), so a
 * parsed value can never be used to reach an object's prototype. Throws JsonTextError.
 */
export function parseJsonText(text: string): unknown {
  try {
    return parseJsonSafely(text);
  } catch (e) {
    throw new JsonTextError(messageOf(e));
  }
}

/** Like parseJsonText, but answers NO_MATCH instead of throwing. */
export function tryParseJsonText(text: string): Coerced {
  try {
    return parseJsonText(text);
  } catch {
    return NO_MATCH;
  }
}
