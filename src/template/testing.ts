/**
 * Helpers for FreeMarker's test-suite harness directives (assertEquals compares template values
 * the way FreeMarker's lenient == does). Test support only; not part of the public API.
 */
import { javaToString } from './arith.js';
import { jQuote } from './errors.js';
import { lenientEquals } from './ops.js';
import { FmDate, MatchItem, isNumber } from './values.js';

/** Environment.applyEqualsOperatorLenient: values of different types are simply not equal. */
export function harnessEquals(a: unknown, b: unknown): boolean {
  return lenientEquals(null as never, a, b);
}

/** How FreeMarker's AssertEqualsDirective prints a value in its failure message. */
export function harnessDescribe(v: unknown): string {
  if (v === undefined) return 'null';
  if (isNumber(v)) return javaToString(v);
  if (v instanceof FmDate) return new Date(v.epochMs).toString();
  if (typeof v === 'string') return jQuote(v);
  if (v instanceof MatchItem) return jQuote(v.text);
  if (typeof v === 'boolean') return String(v);
  return String(v);
}
