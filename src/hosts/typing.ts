/**
 * The typing rule of computed variables (docs/hosts.md, "Typing rule"): a template whose whole
 * output is JSON — an object, an array, a number or a boolean — is stored typed; anything else is
 * stored as the string it printed.
 *
 * - The output is trimmed of JSON white space (space, tab, CR, LF) for the test only; a value kept
 *   as a string keeps its white space.
 * - Object and array: the trimmed output starts with `{` or `[` and is valid JSON (numbers inside
 *   become doubles). A key `__proto__`, `constructor` or `prototype` keeps the whole value a string.
 * - Number: JSON's number grammar exactly (`-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?`: no `+`, no
 *   leading zero, no `.5`, no grouping such as `1,234`), and only when the double keeps its value:
 *   `12345678901234567890` or `0.1000000000000000000001` stay strings, so no digit is lost.
 * - Boolean: `true` or `false`, lower case.
 * - `null`, a quoted JSON string (`"a"`), empty or white-space output: the string as printed.
 */
import { Decimal } from 'decimal.js';
import { isForbiddenKey } from '../platform/model.js';

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const JSON_SPACE = /^[ \t\r\n]+|[ \t\r\n]+$/g;

export function typedValue(output: string): unknown {
  const text = output.replace(JSON_SPACE, '');
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (NUMBER.test(text)) {
    const n = Number(text);
    return Number.isFinite(n) && new Decimal(text).equals(new Decimal(n)) ? n : output;
  }
  const first = text.charCodeAt(0);
  if (first === 0x7b /* { */ || first === 0x5b /* [ */) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return output;
    }
    return hasForbiddenKey(value, 0) ? output : value;
  }
  return output;
}

function hasForbiddenKey(value: unknown, depth: number): boolean {
  if (depth > 100) return true;
  if (Array.isArray(value)) return value.some((v) => hasForbiddenKey(v, depth + 1));
  if (value === null || typeof value !== 'object') return false;
  for (const [k, v] of Object.entries(value))
    if (isForbiddenKey(k) || hasForbiddenKey(v, depth + 1)) return true;
  return false;
}
