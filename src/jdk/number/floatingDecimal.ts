/**
 * Port of JDK 17 `jdk.internal.math.FloatingDecimal.BinaryToASCIIBuffer.dtoa`: the binary-to-decimal
 * conversion behind `Double.toString` and `DecimalFormat.format(double)` in Java 17.
 *
 * It is not always the shortest representation (2e23 gives 1.9999999999999998E23), and it reports
 * whether the digits are the exact value and whether the last digit was rounded up, which
 * DecimalFormat needs to round ties correctly. The 64-bit arithmetic of the original is kept,
 * overflow included, through BigInt.asIntN.
 */

export interface DoubleDigits {
  negative: boolean;
  /** Significant digits, no leading zero (except for zero itself, "0"). */
  digits: string;
  /** Value = 0.digits × 10^decExponent. */
  decExponent: number;
  exact: boolean;
  roundedUp: boolean;
}

const EXP_SHIFT = 52;
const MAX_SMALL_BIN_EXP = 62;
const MIN_SMALL_BIN_EXP = -21;

const SMALL_5_POW: number[] = [];
for (let i = 0, p = 1; i < 14; i++, p *= 5) SMALL_5_POW.push(p);
const LONG_5_POW: bigint[] = [];
for (let i = 0, p = 1n; i < 28; i++, p *= 5n) LONG_5_POW.push(p);

const N_5_BITS = [
  0, 3, 5, 7, 10, 12, 14, 17, 19, 21, 24, 26, 28, 31, 33, 35, 38, 40, 42, 45, 47, 49, 52, 54, 56, 59, 61,
];

const INSIGNIFICANT_DIGITS_NUMBER = [
  0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9, 9, 9, 10,
  10, 10, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13, 14, 14, 14, 15, 15, 15, 15, 16, 16, 16, 17, 17, 17, 18, 18,
  18, 19,
];

const long = (x: bigint): bigint => BigInt.asIntN(64, x);

const view = new DataView(new ArrayBuffer(8));

function insignificantDigitsForPow2(p2: number): number {
  return p2 > 1 && p2 < INSIGNIFICANT_DIGITS_NUMBER.length ? INSIGNIFICANT_DIGITS_NUMBER[p2]! : 0;
}

/** floor(log10(d)) estimate exactly as Java computes it (same double operations). */
function estimateDecExp(fractBitsLow52: number, binExp: number): number {
  view.setUint32(0, 0x3ff00000 | Math.floor(fractBitsLow52 / 0x100000000));
  view.setUint32(4, fractBitsLow52 >>> 0);
  const d2 = view.getFloat64(0);
  const d = (d2 - 1.5) * 0.289529654 + 0.176091259 + binExp * 0.301029995663981;
  return Math.floor(d) | 0;
}

function trailingZeros(x: number): number {
  let n = 0;
  while (x % 2 === 0) {
    x /= 2;
    n++;
  }
  return n;
}

class Converter {
  digits: number[] = [];
  decExponent = 0;
  exact = false;
  roundedUp = false;

  developLongDigits(decExponent: number, lvalue: bigint, insignificantDigits: number): void {
    if (insignificantDigits !== 0) {
      const pow10 = LONG_5_POW[insignificantDigits]! << BigInt(insignificantDigits);
      const residue = lvalue % pow10;
      lvalue /= pow10;
      decExponent += insignificantDigits;
      if (residue >= pow10 >> 1n) lvalue++;
    }
    const out: number[] = [];
    let c = Number(lvalue % 10n);
    lvalue /= 10n;
    while (c === 0) {
      decExponent++;
      c = Number(lvalue % 10n);
      lvalue /= 10n;
    }
    while (lvalue !== 0n) {
      out.push(c);
      decExponent++;
      c = Number(lvalue % 10n);
      lvalue /= 10n;
    }
    out.push(c);
    this.digits = out.reverse();
    this.decExponent = decExponent + 1;
  }

  /** developLongDigits for a value below 2^53 with no insignificant digits. */
  developIntDigits(value: number): void {
    let decExponent = 0;
    while (value % 10 === 0) {
      value /= 10;
      decExponent++;
    }
    const text = String(value);
    const digits = new Array<number>(text.length);
    for (let i = 0; i < text.length; i++) digits[i] = text.charCodeAt(i) - 48;
    this.digits = digits;
    this.decExponent = decExponent + text.length;
  }

  roundup(): void {
    const digits = this.digits;
    let i = digits.length - 1;
    let q = digits[i]!;
    if (q === 9) {
      while (q === 9 && i > 0) {
        digits[i] = 0;
        q = digits[--i]!;
      }
      if (q === 9) {
        // Carry out: high-order 1, the rest zeros (Java keeps the digit count and leaves the flag unset).
        this.decExponent += 1;
        digits[0] = 1;
        return;
      }
    }
    digits[i] = q + 1;
    this.roundedUp = true;
  }

  dtoa(binExp: number, fractBits: number, nSignificantBits: number): void {
    const tailZeros = trailingZeros(fractBits);
    const nFractBits = EXP_SHIFT + 1 - tailZeros;
    this.roundedUp = false;
    this.exact = false;
    const nTinyBits = Math.max(0, nFractBits - binExp - 1);
    if (binExp <= MAX_SMALL_BIN_EXP && binExp >= MIN_SMALL_BIN_EXP) {
      if (nTinyBits < LONG_5_POW.length && nFractBits + N_5_BITS[nTinyBits]! < 64) {
        if (nTinyBits === 0) {
          const insignificant =
            binExp > nSignificantBits ? insignificantDigitsForPow2(binExp - nSignificantBits - 1) : 0;
          if (binExp < EXP_SHIFT) {
            // The value is an integer below 2^53: exact in a double.
            this.developIntDigits(fractBits / 2 ** (EXP_SHIFT - binExp));
            return;
          }
          this.developLongDigits(0, BigInt(fractBits) << BigInt(binExp - EXP_SHIFT), insignificant);
          return;
        }
      }
    }
    let decExp = estimateDecExp(fractBits % 2 ** 52, binExp);
    const B5 = Math.max(0, -decExp);
    let B2 = B5 + nTinyBits + binExp;
    const S5 = Math.max(0, decExp);
    let S2 = S5 + nTinyBits;
    const M5 = B5;
    let M2 = B2 - nSignificantBits;

    fractBits /= 2 ** tailZeros;
    B2 -= nFractBits - 1;
    const common2factor = Math.min(B2, S2);
    B2 -= common2factor;
    S2 -= common2factor;
    M2 -= common2factor;
    if (nFractBits === 1) M2 -= 1;
    if (M2 < 0) {
      B2 -= M2;
      S2 -= M2;
      M2 = 0;
    }

    const digits: number[] = [];
    let low: boolean;
    let high: boolean;
    let lowDigitDifference: bigint;
    let q: number;

    const Bbits = nFractBits + B2 + (B5 < N_5_BITS.length ? N_5_BITS[B5]! : B5 * 3);
    const tenSbits = S2 + 1 + (S5 + 1 < N_5_BITS.length ? N_5_BITS[S5 + 1]! : (S5 + 1) * 3);
    if (Bbits < 64 && tenSbits < 64) {
      if (Bbits < 32 && tenSbits < 32) {
        // int arithmetic (Java int overflow emulated with |0)
        let b = fractBits * SMALL_5_POW[B5]! * 2 ** B2;
        const s = SMALL_5_POW[S5]! * 2 ** S2;
        let m = SMALL_5_POW[M5]! * 2 ** M2;
        const tens = s * 10;
        q = Math.floor(b / s);
        b = 10 * (b % s);
        m = (m * 10) | 0;
        low = b < m;
        high = ((b + m) | 0) > tens;
        if (q === 0 && !high) decExp--;
        else digits.push(q);
        if (decExp < -3 || decExp >= 8) high = low = false;
        while (!low && !high) {
          q = Math.floor(b / s);
          b = 10 * (b % s);
          m = (m * 10) | 0;
          if (m > 0) {
            low = b < m;
            high = ((b + m) | 0) > tens;
          } else {
            low = true;
            high = true;
          }
          digits.push(q);
        }
        lowDigitDifference = BigInt((((b * 2) | 0) - tens) | 0);
        this.exact = b === 0;
      } else {
        // long arithmetic
        let b = long((BigInt(fractBits) * LONG_5_POW[B5]!) << BigInt(B2));
        const s = LONG_5_POW[S5]! << BigInt(S2);
        let m = long(LONG_5_POW[M5]! << BigInt(M2));
        const tens = long(s * 10n);
        q = Number(b / s);
        b = long(10n * (b % s));
        m = long(m * 10n);
        low = b < m;
        high = long(b + m) > tens;
        if (q === 0 && !high) decExp--;
        else digits.push(q);
        if (decExp < -3 || decExp >= 8) high = low = false;
        while (!low && !high) {
          q = Number(b / s);
          b = long(10n * (b % s));
          m = long(m * 10n);
          if (m > 0n) {
            low = b < m;
            high = long(b + m) > tens;
          } else {
            low = true;
            high = true;
          }
          digits.push(q);
        }
        lowDigitDifference = long(long(b << 1n) - tens);
        this.exact = b === 0n;
      }
    } else {
      // arbitrary precision (FDBigInteger in Java); note the >= in the `high` test here
      const S = (5n ** BigInt(S5)) << BigInt(S2);
      let B = (BigInt(fractBits) * 5n ** BigInt(B5)) << BigInt(B2);
      let M = (5n ** BigInt(M5 + 1)) << BigInt(M2 + 1);
      const tenS = (5n ** BigInt(S5 + 1)) << BigInt(S2 + 1);
      q = Number(B / S);
      B = 10n * (B % S);
      low = B < M;
      high = B + M >= tenS;
      if (q === 0 && !high) decExp--;
      else digits.push(q);
      if (decExp < -3 || decExp >= 8) high = low = false;
      while (!low && !high) {
        q = Number(B / S);
        B = 10n * (B % S);
        M *= 10n;
        low = B < M;
        high = B + M >= tenS;
        digits.push(q);
      }
      if (high && low) {
        B <<= 1n;
        lowDigitDifference = B < tenS ? -1n : B > tenS ? 1n : 0n;
      } else {
        lowDigitDifference = 0n;
      }
      this.exact = B === 0n;
    }
    this.digits = digits;
    this.decExponent = decExp + 1;
    if (high) {
      if (low) {
        if (lowDigitDifference === 0n) {
          if ((digits[digits.length - 1]! & 1) !== 0) this.roundup();
        } else if (lowDigitDifference > 0n) {
          this.roundup();
        }
      } else {
        this.roundup();
      }
    }
  }
}

/** Decimal digits of a finite double as JDK 17 produces them (NaN/Infinity are the caller's business). */
export function doubleDigits(x: number): DoubleDigits {
  if (Number.isInteger(x) && x !== 0 && x < 4503599627370496 && x > -4503599627370496) {
    // An integer below 2^52: dtoa's developIntDigits (exact digits, trailing zeros dropped), flags unset.
    let v = x < 0 ? -x : x;
    let decExponent = 0;
    while (v % 10 === 0) {
      v /= 10;
      decExponent++;
    }
    const digits = String(v);
    return {
      negative: x < 0,
      digits,
      decExponent: decExponent + digits.length,
      exact: false,
      roundedUp: false,
    };
  }
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const negative = hi >>> 31 === 1;
  let binExp = (hi >>> 20) & 0x7ff;
  let fractBits = (hi & 0xfffff) * 0x100000000 + lo;
  if (binExp === 0x7ff) throw new RangeError('doubleDigits: not a finite number');
  let nSignificantBits: number;
  if (binExp === 0) {
    if (fractBits === 0) return { negative, digits: '0', decExponent: 0, exact: true, roundedUp: false };
    let leadingZeros = 64;
    for (let v = fractBits; v >= 1; v = Math.floor(v / 2)) leadingZeros--;
    const shift = leadingZeros - (63 - EXP_SHIFT);
    fractBits *= 2 ** shift;
    binExp = 1 - shift;
    nSignificantBits = 64 - leadingZeros;
  } else {
    fractBits += 2 ** 52;
    nSignificantBits = EXP_SHIFT + 1;
  }
  binExp -= 1023;
  const c = new Converter();
  c.dtoa(binExp, fractBits, nSignificantBits);
  return {
    negative,
    digits: c.digits.join(''),
    decExponent: c.decExponent,
    exact: c.exact,
    roundedUp: c.roundedUp,
  };
}

/** JDK 17 `Double.toString(double)`. */
export function doubleToString(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  // Integers below 10^7 print as their digits and ".0" (exact in Java's developLongDigits).
  if (Number.isInteger(x) && x < 1e7 && x > -1e7 && !Object.is(x, -0)) return x + '.0';
  const { negative, digits, decExponent } = doubleDigits(x);
  const sign = negative ? '-' : '';
  if (digits === '0') return sign + '0.0';
  const n = digits.length;
  if (decExponent > 0 && decExponent < 8) {
    if (n <= decExponent) return sign + digits + '0'.repeat(decExponent - n) + '.0';
    return sign + digits.slice(0, decExponent) + '.' + digits.slice(decExponent);
  }
  if (decExponent <= 0 && decExponent > -3) return sign + '0.' + '0'.repeat(-decExponent) + digits;
  const e = decExponent - 1;
  return sign + digits[0] + '.' + (n > 1 ? digits.slice(1) : '0') + 'E' + e;
}
