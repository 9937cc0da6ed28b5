/**
 * FreeMarker's BigDecimal arithmetic engine on the engine's number forms: a JS integer (exact),
 * a JS non-integer (the decimal of its shortest digits, as JSON data gives), a BigDec, a JDouble.
 * Integer operations stay on JS numbers while the result is a safe integer.
 */
import { ArithmeticError, BigDec, type Rounding } from './bigdecimal.js';
import { JDouble, type FmNumber } from './values.js';
import { doubleToString } from '../jdk/index.js';

const MAX_SCALE = 12;
const MIN_SCALE = 12;

export class NonDecimalError extends Error {}

/** Java's Float.toString digits (shortest decimal that reads back to the same float). */
export function floatToString(v: number): string {
  if (!isFinite(v) || v === 0) return doubleToString(v);
  for (let p = 1; p <= 9; p++) {
    const s = v.toPrecision(p);
    if (Math.fround(Number(s)) === v) return doubleToString(Number(s));
  }
  return doubleToString(v);
}

/** ArithmeticEngine.toBigDecimal. */
export function toBig(n: FmNumber): BigDec {
  if (typeof n === 'number') {
    if (Number.isSafeInteger(n)) return new BigDec(BigInt(n), 0);
    if (!isFinite(n)) throw infiniteError(n, false);
    if (Number.isInteger(n)) return new BigDec(BigInt(n), 0);
    return BigDec.parse(String(n));
  }
  if (n instanceof BigDec) return n;
  if (!isFinite(n.value)) throw infiniteError(n.value, n.isFloat);
  return BigDec.parse(n.isFloat ? floatToString(n.value) : doubleToString(n.value));
}

function infiniteError(v: number, isFloat: boolean): NonDecimalError {
  const cls = isFloat ? 'Float' : 'Double';
  if (Number.isNaN(v)) return new NonDecimalError(`Can't parse this as BigDecimal number: "NaN"`);
  return new NonDecimalError(
    `It's impossible to convert an infinte value (${cls} ${v > 0 ? 'Infinity' : '-Infinity'}) to BigDecimal.`,
  );
}

/** Scale-0 decimals that fit a safe integer become plain JS numbers (they behave the same). */
export function normalize(b: BigDec): FmNumber {
  if (b.scale <= 0) {
    const v = b.scale === 0 ? b.unscaled : b.toBigInt();
    if (v >= -9007199254740991n && v <= 9007199254740991n) {
      const n = Number(v);
      return n === 0 ? 0 : n;
    }
    if (b.scale < 0) return new BigDec(v, 0);
  }
  return b;
}

export function add(a: FmNumber, b: FmNumber): FmNumber {
  if (typeof a === 'number' && typeof b === 'number' && Number.isInteger(a) && Number.isInteger(b)) {
    const r = a + b;
    if (Number.isSafeInteger(r) && Number.isSafeInteger(a) && Number.isSafeInteger(b)) return r === 0 ? 0 : r;
  }
  return normalize(toBig(a).add(toBig(b)));
}

export function subtract(a: FmNumber, b: FmNumber): FmNumber {
  if (typeof a === 'number' && typeof b === 'number' && Number.isInteger(a) && Number.isInteger(b)) {
    const r = a - b;
    if (Number.isSafeInteger(r) && Number.isSafeInteger(a) && Number.isSafeInteger(b)) return r === 0 ? 0 : r;
  }
  return normalize(toBig(a).subtract(toBig(b)));
}

export function multiply(a: FmNumber, b: FmNumber): FmNumber {
  if (typeof a === 'number' && typeof b === 'number' && Number.isInteger(a) && Number.isInteger(b)) {
    const r = a * b;
    if (Number.isSafeInteger(r) && Number.isSafeInteger(a) && Number.isSafeInteger(b)) return r === 0 ? 0 : r;
  }
  let r = toBig(a).multiply(toBig(b));
  if (r.scale > MAX_SCALE) r = r.setScale(MAX_SCALE, 'HALF_UP');
  return normalize(r);
}

export function divide(a: FmNumber, b: FmNumber): FmNumber {
  const l = toBig(a);
  const r = toBig(b);
  if (r.unscaled === 0n) throw new ArithmeticError('/ by zero');
  const scale = Math.max(MIN_SCALE, l.scale, r.scale);
  return normalize(l.divide(r, scale, 'HALF_UP'));
}

/** FreeMarker's % works on the operands' long values. */
export function modulus(a: FmNumber, b: FmNumber): FmNumber {
  const l = longValue(a);
  const r = longValue(b);
  if (r === 0n) throw new ArithmeticError('/ by zero');
  return normalize(new BigDec(BigInt.asIntN(64, l % r), 0));
}

export function negate(a: FmNumber): FmNumber {
  if (typeof a === 'number' && Number.isSafeInteger(a)) return a === 0 ? 0 : -a;
  return normalize(toBig(a).negate());
}

/** compareNumbers: by sign first (so infinities compare with 0), then exactly. */
export function compareNumbers(a: FmNumber, b: FmNumber): number {
  if (typeof a === 'number' && typeof b === 'number' && Number.isInteger(a) && Number.isInteger(b)) {
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const sa = signum(a);
  const sb = signum(b);
  if (sa !== sb) return sa < sb ? -1 : 1;
  if (sa === 0) return 0;
  const da = a instanceof JDouble ? a.value : null;
  const db = b instanceof JDouble ? b.value : null;
  if ((da !== null && !isFinite(da)) || (db !== null && !isFinite(db))) {
    const x = toDouble(a);
    const y = toDouble(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return toBig(a).compareTo(toBig(b));
}

export function signum(n: FmNumber): number {
  if (typeof n === 'number') return n > 0 ? 1 : n < 0 ? -1 : 0;
  if (n instanceof BigDec) return n.signum();
  return n.value > 0 ? 1 : n.value < 0 ? -1 : 0;
}

export function toDouble(n: FmNumber): number {
  if (typeof n === 'number') return n;
  if (n instanceof BigDec) return n.toNumber();
  return n.value;
}

/** Java's Number.longValue(): truncation toward zero, then the low 64 bits (doubles saturate). */
export function longValue(n: FmNumber): bigint {
  if (typeof n === 'number') {
    if (Number.isSafeInteger(n)) return BigInt(n);
    return doubleToLong(n);
  }
  if (n instanceof BigDec) return BigInt.asIntN(64, n.toBigInt());
  return doubleToLong(n.value);
}

function doubleToLong(d: number): bigint {
  if (Number.isNaN(d)) return 0n;
  if (d >= 9.223372036854776e18) return 9223372036854775807n;
  if (d <= -9.223372036854776e18) return -9223372036854775808n;
  return BigInt(Math.trunc(d));
}

/** Java's intValue() (the low 32 bits of the long value). */
export function intValue(n: FmNumber): number {
  if (typeof n === 'number' && Number.isInteger(n) && n >= -2147483648 && n <= 2147483647) return n;
  if (n instanceof JDouble || (typeof n === 'number' && !Number.isInteger(n))) {
    const d = toDouble(n);
    if (Number.isNaN(d)) return 0;
    if (d >= 2147483647) return 2147483647;
    if (d <= -2147483648) return -2147483648;
    return Math.trunc(d);
  }
  return Number(BigInt.asIntN(32, longValue(n)));
}

export function isIntegral(n: FmNumber): boolean {
  if (typeof n === 'number') return Number.isInteger(n);
  if (n instanceof BigDec) return n.isInteger();
  return Number.isInteger(n.value);
}

/** Rounds to an integer with the given mode (used by ?round, ?floor, ?ceiling). */
export function roundTo(n: FmNumber, mode: Rounding): FmNumber {
  if (typeof n === 'number' && Number.isInteger(n)) return n;
  if (n instanceof JDouble && !isFinite(n.value)) return n;
  return normalize(toBig(n).setScale(0, mode));
}

/** Java's Number.toString() of the value FreeMarker would hold (used by a few messages). */
export function javaToString(n: FmNumber): string {
  if (typeof n === 'number') {
    if (Number.isInteger(n)) return Math.abs(n) < 1e21 ? String(n) : BigInt(n).toString();
    return BigDec.parse(String(n)).toString();
  }
  if (n instanceof BigDec) return n.toString();
  return n.isFloat ? floatToString(n.value) : doubleToString(n.value);
}

/** ?c: integers as digits, others through "0.################" (half-even), INF/-INF/NaN for doubles. */
export function computerFormat(n: FmNumber): string {
  if (typeof n === 'number') {
    if (Number.isInteger(n)) return Math.abs(n) < 1e21 ? String(n) : BigInt(n).toString();
    if (!isFinite(n)) return Number.isNaN(n) ? 'NaN' : n > 0 ? 'INF' : '-INF';
    return cFormatDecimal(BigDec.parse(String(n)));
  }
  if (n instanceof BigDec) return cFormatDecimal(n);
  const v = n.value;
  if (!isFinite(v)) return Number.isNaN(v) ? 'NaN' : v > 0 ? 'INF' : '-INF';
  // DecimalFormat formats a float through its double value
  return cFormatDecimal(BigDec.parse(doubleToString(v)));
}

function cFormatDecimal(b: BigDec): string {
  let r = b.scale > 16 ? b.setScale(16, 'HALF_EVEN') : b;
  const negative = b.signum() < 0;
  r = r.stripTrailingZeros();
  let s = r.scale < 0 ? r.setScale(0, 'UNNECESSARY').toPlainString() : r.toPlainString();
  if (r.unscaled === 0n) s = negative ? '-0' : '0';
  return s;
}
