/**
 * DecimalFormat.parse as SimpleDateFormat uses it in JDK 17 (NumberFormat.getIntegerInstance with
 * grouping off): an optional minus sign, any Unicode decimal digits, an optional exponent ("1E2"
 * is 100), the NaN and infinity symbols; the result is Number.intValue() of the parsed Long or
 * Double (long values wrap to 32 bits, doubles saturate).
 */

export interface ParsePosition {
  index: number;
  errorIndex: number;
}

export interface IntegerParseSymbols {
  minus: string;
  nan: string;
  infinity: string;
  exponent: string;
  decimal: string;
  zero: string;
}

let digitRunStarts: Map<number, number> | null = null;

/** Character.digit(ch, 10) for one UTF-16 unit. */
export function javaDigit(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code < 128) return -1;
  if (!digitRunStarts) {
    digitRunStarts = new Map();
    const nd = /\p{Nd}/u;
    let runStart = -1;
    for (let cp = 128; cp <= 0xffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) {
        runStart = -1;
        continue;
      }
      if (nd.test(String.fromCharCode(cp))) {
        if (runStart < 0) runStart = cp;
        digitRunStarts.set(cp, (cp - runStart) % 10);
      } else {
        runStart = -1;
      }
    }
  }
  return digitRunStarts.get(code) ?? -1;
}

const LONG_MAX = 9223372036854775807n;

/** (int) of a double, as Java casts: NaN → 0, truncation, saturation. */
function doubleToInt(d: number): number {
  if (Number.isNaN(d)) return 0;
  if (d >= 2147483647) return 2147483647;
  if (d <= -2147483648) return -2147483648;
  return Math.trunc(d) | 0;
}

interface Digits {
  digits: string;
  decimalAt: number;
}

/** Parses digits (and an exponent) from `position`; returns the end position, or -1 when no digit. */
function subparseNumber(
  text: string,
  position: number,
  sym: IntegerParseSymbols,
  isExponent: boolean,
  out: Digits & { infinite: boolean },
): number {
  out.infinite = false;
  if (!isExponent && sym.infinity && text.startsWith(sym.infinity, position)) {
    out.infinite = true;
    return position + sym.infinity.length;
  }
  const zero = sym.zero.charCodeAt(0);
  let digits = '';
  let sawDigit = false;
  let digitCount = 0;
  let exponent = 0;
  for (; position < text.length; ++position) {
    const ch = text.charCodeAt(position);
    let digit = ch - zero;
    if (digit < 0 || digit > 9) digit = javaDigit(ch);
    if (digit === 0) {
      sawDigit = true;
      if (digits.length === 0) continue; // leading zeros (never a decimal part: integers only)
      ++digitCount;
      digits += '0';
    } else if (digit > 0 && digit <= 9) {
      sawDigit = true;
      ++digitCount;
      digits += String(digit);
    } else if (!isExponent && text[position] === sym.decimal) {
      break; // parseIntegerOnly
    } else if (!isExponent && sym.exponent && text.startsWith(sym.exponent, position)) {
      const exp = { digits: '', decimalAt: 0, infinite: false };
      const r = subparse(text, position + sym.exponent.length, '', sym.minus, sym, true, exp);
      if (r && fitsIntoLong(exp, r.positive)) {
        position = r.index;
        let e = Number(BigInt.asIntN(32, longValue(exp)));
        if (!r.positive) e = -e | 0;
        exponent = e;
      }
      break;
    } else {
      break;
    }
  }
  if (!sawDigit && digitCount === 0) return -1;
  out.digits = digits;
  out.decimalAt = digitCount + exponent;
  return position;
}

function subparse(
  text: string,
  start: number,
  positivePrefix: string,
  negativePrefix: string,
  sym: IntegerParseSymbols,
  isExponent: boolean,
  out: Digits & { infinite: boolean },
): { index: number; positive: boolean } | null {
  let gotPositive = text.startsWith(positivePrefix, start);
  let gotNegative = text.startsWith(negativePrefix, start);
  if (gotPositive && gotNegative) {
    if (positivePrefix.length > negativePrefix.length) gotNegative = false;
    else if (positivePrefix.length < negativePrefix.length) gotPositive = false;
  }
  let position = start;
  if (gotPositive) position += positivePrefix.length;
  else if (gotNegative) position += negativePrefix.length;
  else return null;
  const end = subparseNumber(text, position, sym, isExponent, out);
  if (end < 0) return null;
  if (gotPositive === gotNegative) return null;
  if (end === start) return null;
  return { index: end, positive: gotPositive };
}

function trimmed(d: Digits): string {
  return d.digits.replace(/0+$/, '');
}

function fitsIntoLong(d: Digits, positive: boolean): boolean {
  const digits = trimmed(d);
  if (digits.length === 0) return true; // zero, and -0 when parsing integers only
  if (d.decimalAt < digits.length || d.decimalAt > 19) return false;
  if (d.decimalAt < 19) return true;
  const value = BigInt(digits + '0'.repeat(d.decimalAt - digits.length));
  return value <= LONG_MAX || (!positive && value === LONG_MAX + 1n);
}

function longValue(d: Digits): bigint {
  const digits = trimmed(d);
  if (digits.length === 0) return 0n;
  return BigInt(digits + '0'.repeat(d.decimalAt - digits.length));
}

/**
 * Parses an integer at pos.index; on success returns Number.intValue() and advances pos.index,
 * on failure returns null and sets pos.errorIndex (as DecimalFormat.parse(String, ParsePosition)).
 */
export function parseJavaInt(text: string, pos: ParsePosition, sym: IntegerParseSymbols): number | null {
  if (sym.nan && text.startsWith(sym.nan, pos.index)) {
    pos.index += sym.nan.length;
    return 0;
  }
  const out = { digits: '', decimalAt: 0, infinite: false };
  const r = subparse(text, pos.index, '', sym.minus, sym, false, out);
  if (!r) {
    pos.errorIndex = pos.index;
    return null;
  }
  pos.index = r.index;
  if (out.infinite) return r.positive ? 2147483647 : -2147483648;
  if (fitsIntoLong(out, r.positive)) {
    const digits = trimmed(out);
    if (out.decimalAt <= 9) {
      // Fits in an int already: no 64-bit arithmetic needed.
      const v = digits.length === 0 ? 0 : Number(digits) * 10 ** (out.decimalAt - digits.length);
      return r.positive ? v : -v | 0;
    }
    let v = longValue(out);
    if (!r.positive) v = -v;
    return Number(BigInt.asIntN(32, v));
  }
  const digits = trimmed(out);
  let d = Number(`0.${digits}e${out.decimalAt}`);
  if (!r.positive) d = -d;
  return doubleToInt(d);
}
