/**
 * Port of java.text.DigitList (JDK 17): the decimal digits of a number being formatted, and its
 * rounding to a number of digits under a RoundingMode, including the double-rounding guards for
 * digits coming from a binary double (FloatingDecimal's exactness and rounded-up flags).
 */
import { JavaArithmeticException } from '../errors.js';
import type { DoubleDigits } from './floatingDecimal.js';

export type RoundingMode =
  'UP' | 'DOWN' | 'CEILING' | 'FLOOR' | 'HALF_UP' | 'HALF_DOWN' | 'HALF_EVEN' | 'UNNECESSARY';

export class DigitList {
  /** Digit values 0-9; only the first `count` are significant. */
  digits: number[] = [];
  count = 0;
  /** Value = 0.d1d2… × 10^decimalAt. */
  decimalAt = 0;
  isNegative = false;

  constructor(public roundingMode: RoundingMode) {}

  isZero(): boolean {
    for (let i = 0; i < this.count; i++) if (this.digits[i] !== 0) return false;
    return true;
  }

  /**
   * From a double (DigitList.set(boolean, double, int, boolean)): Java reads the digits back from
   * Double.toString, so "100.0" gives 1000 and "5.0E-4" gives 50 — trailing zeros that matter
   * when rounding to the first fraction digit (see setDigits).
   */
  setDouble(isNegative: boolean, source: DoubleDigits, maximumDigits: number, fixedPoint: boolean): void {
    if (source.digits === '0') {
      this.setDigits(isNegative, '', 0, source.roundedUp, source.exact, maximumDigits, fixedPoint);
      return;
    }
    const { digits, decExponent } = source;
    const n = digits.length;
    let text = digits;
    if (decExponent > 0 && decExponent < 8) {
      if (n < decExponent) text += '0'.repeat(decExponent - n) + '0';
      else if (n === decExponent) text += '0';
    } else if (!(decExponent <= 0 && decExponent > -3) && n === 1) {
      text += '0';
    }
    this.setDigits(isNegative, text, decExponent, source.roundedUp, source.exact, maximumDigits, fixedPoint);
  }

  /**
   * From exact decimal digits (DigitList.set(boolean, BigDecimal, int, boolean)): the digits of the
   * unscaled value without leading zeros (trailing zeros kept, as BigDecimal.toString prints them),
   * value 0.digits × 10^decimalAt.
   */
  setDecimal(
    isNegative: boolean,
    digits: string,
    decimalAt: number,
    maximumDigits: number,
    fixedPoint: boolean,
  ): void {
    this.setDigits(isNegative, digits, decimalAt, false, true, maximumDigits, fixedPoint);
  }

  private setDigits(
    isNegative: boolean,
    digits: string,
    decimalAt: number,
    roundedUp: boolean,
    exact: boolean,
    maximumDigits: number,
    fixedPoint: boolean,
  ): void {
    this.isNegative = isNegative;
    const list = new Array<number>(digits.length);
    for (let i = 0; i < digits.length; i++) list[i] = digits.charCodeAt(i) - 48;
    this.digits = list;
    this.count = list.length;
    this.decimalAt = this.count === 0 ? 0 : decimalAt;

    // JDK 17 looks at the digits before dropping trailing zeros here: rounding 0.0050 to two
    // fraction digits sees "50", i.e. not a tie, and gives 0.00 even with HALF_UP.
    if (fixedPoint) {
      if (-this.decimalAt > maximumDigits) {
        this.count = 0;
        return;
      } else if (-this.decimalAt === maximumDigits) {
        if (this.shouldRoundUp(0, roundedUp, exact)) {
          this.count = 1;
          ++this.decimalAt;
          this.digits[0] = 1;
        } else {
          this.count = 0;
        }
        return;
      }
    }
    while (this.count > 1 && this.digits[this.count - 1] === 0) --this.count;
    this.round(fixedPoint ? maximumDigits + this.decimalAt : maximumDigits, roundedUp, exact);
  }

  /** From a non-negative integer (DigitList.set(boolean, long, int) and the BigInteger variant). */
  setInteger(isNegative: boolean, source: bigint, maximumDigits: number): void {
    this.isNegative = isNegative;
    if (source <= 0n) {
      this.digits = [];
      this.decimalAt = this.count = 0;
    } else {
      const s = source.toString();
      this.digits = new Array<number>(s.length);
      for (let i = 0; i < s.length; i++) this.digits[i] = s.charCodeAt(i) - 48;
      this.decimalAt = s.length;
      let right = s.length - 1;
      while (this.digits[right] === 0) --right;
      this.count = right + 1;
    }
    if (maximumDigits > 0) this.round(maximumDigits, false, true);
  }

  private round(maximumDigits: number, alreadyRounded: boolean, exact: boolean): void {
    if (maximumDigits >= 0 && maximumDigits < this.count) {
      if (this.shouldRoundUp(maximumDigits, alreadyRounded, exact))
        maximumDigits = this.roundUp(maximumDigits);
      this.count = maximumDigits;
      while (this.count > 1 && this.digits[this.count - 1] === 0) --this.count;
    }
  }

  private nonZeroAfterIndex(index: number): boolean {
    for (let i = index; i < this.count; ++i) if (this.digits[i] !== 0) return true;
    return false;
  }

  private shouldRoundUp(maximumDigits: number, alreadyRounded: boolean, exact: boolean): boolean {
    if (maximumDigits < this.count) {
      const d = this.digits[maximumDigits]!;
      switch (this.roundingMode) {
        case 'UP':
          return this.nonZeroAfterIndex(maximumDigits);
        case 'DOWN':
          break;
        case 'CEILING':
          return this.nonZeroAfterIndex(maximumDigits) && !this.isNegative;
        case 'FLOOR':
          return this.nonZeroAfterIndex(maximumDigits) && this.isNegative;
        case 'HALF_UP':
        case 'HALF_DOWN':
          if (d > 5) return true;
          if (d === 5) {
            // JDK 17: any digit after the 5, even a zero ("0.5000"), counts as above the tie.
            if (maximumDigits !== this.count - 1) return true;
            if (exact) return this.roundingMode === 'HALF_UP';
            return !alreadyRounded;
          }
          break;
        case 'HALF_EVEN':
          if (d > 5) return true;
          if (d === 5) {
            if (maximumDigits === this.count - 1) {
              if (alreadyRounded) return false;
              if (!exact) return true;
              return maximumDigits > 0 && this.digits[maximumDigits - 1]! % 2 !== 0;
            }
            return this.nonZeroAfterIndex(maximumDigits + 1);
          }
          break;
        case 'UNNECESSARY':
          if (this.nonZeroAfterIndex(maximumDigits)) {
            throw new JavaArithmeticException(
              'Rounding needed with the rounding mode being set to RoundingMode.UNNECESSARY',
            );
          }
          break;
      }
    }
    return false;
  }

  private roundUp(maximumDigits: number): number {
    do {
      --maximumDigits;
      if (maximumDigits < 0) {
        // All nines: a single 1 and a larger exponent.
        this.digits[0] = 1;
        ++this.decimalAt;
        return 1;
      }
      ++this.digits[maximumDigits]!;
    } while (this.digits[maximumDigits]! > 9);
    return maximumDigits + 1;
  }
}
