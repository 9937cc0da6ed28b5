/**
 * Port of java.text.DecimalFormat (JDK 17) formatting: the full pattern syntax (applyPattern),
 * locale symbols, RoundingMode, exponent patterns, and the three input kinds Java distinguishes:
 * double (JS number, rounded from its FloatingDecimal digits), long/BigInteger (JS bigint) and
 * BigDecimal (a decimal string, rounded exactly).
 */
import { JavaIllegalArgumentException, JavaNumberFormatException } from '../errors.js';
import { localeData, type DecimalSymbols } from '../locale.js';
import { DigitList, type RoundingMode } from './digitList.js';
import { doubleDigits } from './floatingDecimal.js';

export type { RoundingMode } from './digitList.js';

const MAXIMUM_INTEGER_DIGITS = 2147483647;
const MAXIMUM_FRACTION_DIGITS = 2147483647;
const DOUBLE_INTEGER_DIGITS = 309;
const DOUBLE_FRACTION_DIGITS = 340;

const PATTERN_ZERO_DIGIT = '0';
const PATTERN_GROUPING_SEPARATOR = ',';
const PATTERN_DECIMAL_SEPARATOR = '.';
const PATTERN_PER_MILLE = '\u2030';
const PATTERN_PERCENT = '%';
const PATTERN_DIGIT = '#';
const PATTERN_SEPARATOR = ';';
const PATTERN_EXPONENT = 'E';
const PATTERN_MINUS = '-';
const CURRENCY_SIGN = '\u00a4';
const QUOTE = "'";

const ROUNDING_MODES: readonly RoundingMode[] = [
  'UP',
  'DOWN',
  'CEILING',
  'FLOOR',
  'HALF_UP',
  'HALF_DOWN',
  'HALF_EVEN',
  'UNNECESSARY',
];

const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;
const DECIMAL_TEXT = /^([+-]?)(?:(\d+)(?:\.(\d*))?|\.(\d+))(?:[eE]([+-]?\d+))?$/;

export interface DecimalFormatOptions {
  /** Java locale tag for the symbols (grouping, decimal separator …), "en_US" by default. */
  locale?: string;
  roundingMode?: RoundingMode;
}

/** What fastFormat needs beyond the format's own fields. */
interface FastPlan {
  /** Decimal places the multiplier moves the point (1, 100, 1000). */
  shift: number;
  /** 0: no grouping. */
  groupingSize: number;
  grouping: string;
  decimal: string;
}

/** A decimal digit string plus one ("0999" → "1000", "99" → "100"). */
function increment(digits: string): string {
  let i = digits.length - 1;
  while (i >= 0 && digits.charCodeAt(i) === 57) i--;
  if (i < 0) return '1' + '0'.repeat(digits.length);
  return (
    digits.slice(0, i) + String.fromCharCode(digits.charCodeAt(i) + 1) + '0'.repeat(digits.length - 1 - i)
  );
}

/** Byte arithmetic of Java's `byte groupingCount`. */
const toByte = (n: number) => (n << 24) >> 24;

export class DecimalFormat {
  private symbols: DecimalSymbols;
  private roundingModeValue: RoundingMode = 'HALF_EVEN';

  private positivePrefix = '';
  private positiveSuffix = '';
  private negativePrefix = '-';
  private negativeSuffix = '';
  private posPrefixPattern = '';
  private posSuffixPattern = '';
  private negPrefixPattern = "'-";
  private negSuffixPattern = '';
  private multiplier = 1;
  private groupingSize = 3;
  private groupingUsed = true;
  private decimalSeparatorAlwaysShown = false;
  private useExponentialNotation = false;
  private minExponentDigits = 0;
  private isCurrencyFormat = false;

  // DecimalFormat's own limits (BigDecimal/BigInteger) and NumberFormat's clamped ones (double/long).
  private maximumIntegerDigits = 40;
  private minimumIntegerDigits = 1;
  private maximumFractionDigits = 3;
  private minimumFractionDigits = 0;
  private superMaxInt = 40;
  private superMinInt = 1;
  private superMaxFrac = 3;
  private superMinFrac = 0;
  /** The fixed-point fast path's settings (see fastFormat): undefined until first needed, null when it does not apply. */
  private plan: FastPlan | null | undefined = undefined;

  constructor(pattern: string, options: DecimalFormatOptions = {}) {
    this.symbols = localeData(options.locale ?? 'en_US').symbols;
    if (options.roundingMode !== undefined) this.setRoundingMode(options.roundingMode);
    this.applyPattern(pattern);
  }

  // ------------------------------------------------------------------ settings

  get roundingMode(): RoundingMode {
    return this.roundingModeValue;
  }

  setRoundingMode(mode: RoundingMode): void {
    this.plan = undefined;
    if (!ROUNDING_MODES.includes(mode))
      throw new RangeError(`DecimalFormat: unknown rounding mode "${mode}"`);
    this.roundingModeValue = mode;
  }

  setMaximumIntegerDigits(newValue: number): void {
    this.plan = undefined;
    this.maximumIntegerDigits = Math.min(Math.max(0, newValue), MAXIMUM_INTEGER_DIGITS);
    this.superMaxInt = Math.min(this.maximumIntegerDigits, DOUBLE_INTEGER_DIGITS);
    if (this.minimumIntegerDigits > this.maximumIntegerDigits) {
      this.minimumIntegerDigits = this.maximumIntegerDigits;
      this.superMinInt = Math.min(this.minimumIntegerDigits, DOUBLE_INTEGER_DIGITS);
    }
  }

  setMinimumIntegerDigits(newValue: number): void {
    this.plan = undefined;
    this.minimumIntegerDigits = Math.min(Math.max(0, newValue), MAXIMUM_INTEGER_DIGITS);
    this.superMinInt = Math.min(this.minimumIntegerDigits, DOUBLE_INTEGER_DIGITS);
    if (this.minimumIntegerDigits > this.maximumIntegerDigits) {
      this.maximumIntegerDigits = this.minimumIntegerDigits;
      this.superMaxInt = Math.min(this.maximumIntegerDigits, DOUBLE_INTEGER_DIGITS);
    }
  }

  setMaximumFractionDigits(newValue: number): void {
    this.plan = undefined;
    this.maximumFractionDigits = Math.min(Math.max(0, newValue), MAXIMUM_FRACTION_DIGITS);
    this.superMaxFrac = Math.min(this.maximumFractionDigits, DOUBLE_FRACTION_DIGITS);
    if (this.minimumFractionDigits > this.maximumFractionDigits) {
      this.minimumFractionDigits = this.maximumFractionDigits;
      this.superMinFrac = Math.min(this.minimumFractionDigits, DOUBLE_FRACTION_DIGITS);
    }
  }

  setMinimumFractionDigits(newValue: number): void {
    this.plan = undefined;
    this.minimumFractionDigits = Math.min(Math.max(0, newValue), MAXIMUM_FRACTION_DIGITS);
    this.superMinFrac = Math.min(this.minimumFractionDigits, DOUBLE_FRACTION_DIGITS);
    if (this.minimumFractionDigits > this.maximumFractionDigits) {
      this.maximumFractionDigits = this.minimumFractionDigits;
      this.superMaxFrac = Math.min(this.maximumFractionDigits, DOUBLE_FRACTION_DIGITS);
    }
  }

  getMinimumIntegerDigits(): number {
    return this.minimumIntegerDigits;
  }
  getMaximumIntegerDigits(): number {
    return this.maximumIntegerDigits;
  }
  getMinimumFractionDigits(): number {
    return this.minimumFractionDigits;
  }
  getMaximumFractionDigits(): number {
    return this.maximumFractionDigits;
  }

  setGroupingUsed(value: boolean): void {
    this.plan = undefined;
    this.groupingUsed = value;
  }

  setDecimalSeparatorAlwaysShown(value: boolean): void {
    this.plan = undefined;
    this.decimalSeparatorAlwaysShown = value;
  }

  // ------------------------------------------------------------------ pattern

  /** DecimalFormat.applyPattern: throws Java's IllegalArgumentException for a malformed pattern. */
  applyPattern(pattern: string): void {
    this.plan = undefined;
    const zeroDigit = PATTERN_ZERO_DIGIT;
    const groupingSeparator = PATTERN_GROUPING_SEPARATOR;
    const decimalSeparator = PATTERN_DECIMAL_SEPARATOR;
    const percent = PATTERN_PERCENT;
    const perMill = PATTERN_PER_MILLE;
    const digit = PATTERN_DIGIT;
    const separator = PATTERN_SEPARATOR;
    const exponent = PATTERN_EXPONENT;
    const minus = PATTERN_MINUS;
    let gotNegative = false;
    this.decimalSeparatorAlwaysShown = false;
    this.isCurrencyFormat = false;
    this.useExponentialNotation = false;

    let start = 0;
    for (let j = 1; j >= 0 && start < pattern.length; --j) {
      let inQuote = false;
      let prefix = '';
      let suffix = '';
      let decimalPos = -1;
      let multiplier = 1;
      let digitLeftCount = 0;
      let zeroDigitCount = 0;
      let digitRightCount = 0;
      let groupingCount = -1;
      let phase = 0;
      let inSuffix = false;
      const append = (s: string) => {
        if (inSuffix) suffix += s;
        else prefix += s;
      };

      for (let pos = start; pos < pattern.length; ++pos) {
        const ch = pattern[pos]!;
        switch (phase) {
          case 0:
          case 2:
            if (inQuote) {
              if (ch === QUOTE) {
                if (pos + 1 < pattern.length && pattern[pos + 1] === QUOTE) {
                  ++pos;
                  append("''");
                } else {
                  inQuote = false;
                }
                continue;
              }
            } else {
              if (ch === digit || ch === zeroDigit || ch === groupingSeparator || ch === decimalSeparator) {
                phase = 1;
                --pos;
                continue;
              } else if (ch === CURRENCY_SIGN) {
                const doubled = pos + 1 < pattern.length && pattern[pos + 1] === CURRENCY_SIGN;
                if (doubled) ++pos;
                this.isCurrencyFormat = true;
                append(doubled ? "'\u00a4\u00a4" : "'\u00a4");
                continue;
              } else if (ch === QUOTE) {
                if (pos + 1 < pattern.length && pattern[pos + 1] === QUOTE) {
                  ++pos;
                  append("''");
                } else {
                  inQuote = true;
                }
                continue;
              } else if (ch === separator) {
                if (phase === 0 || j === 0) {
                  throw new JavaIllegalArgumentException(
                    `Unquoted special character '${ch}' in pattern "${pattern}"`,
                  );
                }
                start = pos + 1;
                pos = pattern.length;
                continue;
              } else if (ch === percent) {
                if (multiplier !== 1) {
                  throw new JavaIllegalArgumentException(
                    `Too many percent/per mille characters in pattern "${pattern}"`,
                  );
                }
                multiplier = 100;
                append("'%");
                continue;
              } else if (ch === perMill) {
                if (multiplier !== 1) {
                  throw new JavaIllegalArgumentException(
                    `Too many percent/per mille characters in pattern "${pattern}"`,
                  );
                }
                multiplier = 1000;
                append("'\u2030");
                continue;
              } else if (ch === minus) {
                append("'-");
                continue;
              }
            }
            append(ch);
            break;

          case 1:
            if (j === 0) {
              while (pos < pattern.length) {
                const c = pattern[pos]!;
                if (c === digit || c === zeroDigit || c === groupingSeparator || c === decimalSeparator) {
                  ++pos;
                } else if (pattern.startsWith(exponent, pos)) {
                  pos += exponent.length;
                } else {
                  --pos;
                  phase = 2;
                  inSuffix = true;
                  break;
                }
              }
              continue;
            }
            if (ch === digit) {
              if (zeroDigitCount > 0) ++digitRightCount;
              else ++digitLeftCount;
              if (groupingCount >= 0 && decimalPos < 0) groupingCount = toByte(groupingCount + 1);
            } else if (ch === zeroDigit) {
              if (digitRightCount > 0)
                throw new JavaIllegalArgumentException(`Unexpected '0' in pattern "${pattern}"`);
              ++zeroDigitCount;
              if (groupingCount >= 0 && decimalPos < 0) groupingCount = toByte(groupingCount + 1);
            } else if (ch === groupingSeparator) {
              groupingCount = 0;
            } else if (ch === decimalSeparator) {
              if (decimalPos >= 0) {
                throw new JavaIllegalArgumentException(`Multiple decimal separators in pattern "${pattern}"`);
              }
              decimalPos = digitLeftCount + zeroDigitCount + digitRightCount;
            } else if (pattern.startsWith(exponent, pos)) {
              if (this.useExponentialNotation) {
                throw new JavaIllegalArgumentException(
                  `Multiple exponential symbols in pattern "${pattern}"`,
                );
              }
              this.useExponentialNotation = true;
              this.minExponentDigits = 0;
              pos = pos + exponent.length;
              while (pos < pattern.length && pattern[pos] === zeroDigit) {
                ++this.minExponentDigits;
                ++pos;
              }
              if (digitLeftCount + zeroDigitCount < 1 || this.minExponentDigits < 1) {
                throw new JavaIllegalArgumentException(`Malformed exponential pattern "${pattern}"`);
              }
              phase = 2;
              inSuffix = true;
              --pos;
              continue;
            } else {
              phase = 2;
              inSuffix = true;
              --pos;
              continue;
            }
            break;
        }
      }

      if (zeroDigitCount === 0 && digitLeftCount > 0 && decimalPos >= 0) {
        let n = decimalPos;
        if (n === 0) ++n;
        digitRightCount = digitLeftCount - n;
        digitLeftCount = n - 1;
        zeroDigitCount = 1;
      }

      if (
        (decimalPos < 0 && digitRightCount > 0) ||
        (decimalPos >= 0 && (decimalPos < digitLeftCount || decimalPos > digitLeftCount + zeroDigitCount)) ||
        groupingCount === 0 ||
        inQuote
      ) {
        throw new JavaIllegalArgumentException(`Malformed pattern "${pattern}"`);
      }

      if (j === 1) {
        this.posPrefixPattern = prefix;
        this.posSuffixPattern = suffix;
        this.negPrefixPattern = prefix;
        this.negSuffixPattern = suffix;
        const digitTotalCount = digitLeftCount + zeroDigitCount + digitRightCount;
        const effectiveDecimalPos = decimalPos >= 0 ? decimalPos : digitTotalCount;
        this.setMinimumIntegerDigits(effectiveDecimalPos - digitLeftCount);
        this.setMaximumIntegerDigits(
          this.useExponentialNotation ? digitLeftCount + this.minimumIntegerDigits : MAXIMUM_INTEGER_DIGITS,
        );
        this.setMaximumFractionDigits(decimalPos >= 0 ? digitTotalCount - decimalPos : 0);
        this.setMinimumFractionDigits(decimalPos >= 0 ? digitLeftCount + zeroDigitCount - decimalPos : 0);
        this.groupingUsed = groupingCount > 0;
        this.groupingSize = groupingCount > 0 ? groupingCount : 0;
        this.multiplier = multiplier;
        this.decimalSeparatorAlwaysShown = decimalPos === 0 || decimalPos === digitTotalCount;
      } else {
        this.negPrefixPattern = prefix;
        this.negSuffixPattern = suffix;
        gotNegative = true;
      }
    }

    if (pattern.length === 0) {
      this.posPrefixPattern = this.posSuffixPattern = '';
      this.setMinimumIntegerDigits(0);
      this.setMaximumIntegerDigits(MAXIMUM_INTEGER_DIGITS);
      this.setMinimumFractionDigits(0);
      this.setMaximumFractionDigits(MAXIMUM_FRACTION_DIGITS);
    }

    if (
      !gotNegative ||
      (this.negPrefixPattern === this.posPrefixPattern && this.negSuffixPattern === this.posSuffixPattern)
    ) {
      this.negSuffixPattern = this.posSuffixPattern;
      this.negPrefixPattern = "'-" + this.posPrefixPattern;
    }
    this.positivePrefix = this.expandAffix(this.posPrefixPattern);
    this.positiveSuffix = this.expandAffix(this.posSuffixPattern);
    this.negativePrefix = this.expandAffix(this.negPrefixPattern);
    this.negativeSuffix = this.expandAffix(this.negSuffixPattern);
  }

  private expandAffix(pattern: string): string {
    let out = '';
    for (let i = 0; i < pattern.length;) {
      let c = pattern[i++]!;
      if (c === QUOTE) {
        c = pattern[i++]!;
        switch (c) {
          case CURRENCY_SIGN:
            if (i < pattern.length && pattern[i] === CURRENCY_SIGN) {
              ++i;
              out += this.symbols.intlCurrency;
            } else {
              out += this.symbols.currency;
            }
            continue;
          case PATTERN_PERCENT:
            out += this.symbols.percent;
            continue;
          case PATTERN_PER_MILLE:
            out += this.symbols.perMill;
            continue;
          case PATTERN_MINUS:
            out += this.symbols.minus;
            continue;
        }
      }
      out += c;
    }
    return out;
  }

  // ------------------------------------------------------------------ format

  /**
   * Formats like Java: a number is a Java double, a bigint a long (or BigInteger beyond 64 bits),
   * a string an exact BigDecimal ("1234.5050", "-1E+3"; "NaN" and "Infinity" are doubles).
   */
  format(value: number | bigint | string): string {
    if (typeof value === 'number') return this.formatDouble(value);
    if (typeof value === 'bigint') return this.formatInteger(value, value >= LONG_MIN && value <= LONG_MAX);
    const text = value.trim();
    const m = DECIMAL_TEXT.exec(text);
    if (!m) {
      if (/^[+-]?(NaN|Infinity)$/.test(text)) return this.formatDouble(Number(text));
      throw new JavaNumberFormatException(`DecimalFormat.format: "${value}" is not a decimal number`);
    }
    return this.formatDecimal(
      m[1] === '-',
      (m[2] ?? '') + (m[3] ?? m[4] ?? ''),
      (m[2] ?? '').length,
      Number(m[5] ?? 0),
    );
  }

  private formatDouble(number: number): string {
    // a safe integer's double is exact: its digits need no FloatingDecimal rounding
    if (Number.isSafeInteger(number) && number !== 0) {
      const r = this.fastFormat(number < 0, String(number < 0 ? -number : number), 0, true);
      if (r !== undefined) return r;
    }
    if (Number.isNaN(number) || (!Number.isFinite(number) && this.multiplier === 0)) return this.symbols.nan;
    const isNegative = (number < 0 || Object.is(number, -0)) !== this.multiplier < 0;
    if (this.multiplier !== 1) number *= this.multiplier;
    if (!Number.isFinite(number)) {
      return isNegative
        ? this.negativePrefix + this.symbols.infinity + this.negativeSuffix
        : this.positivePrefix + this.symbols.infinity + this.positiveSuffix;
    }
    if (isNegative) number = -number;
    const digitList = new DigitList(this.roundingModeValue);
    digitList.setDouble(
      isNegative,
      doubleDigits(number),
      this.useExponentialNotation ? this.superMaxInt + this.superMaxFrac : this.superMaxFrac,
      !this.useExponentialNotation,
    );
    return this.subformat(
      digitList,
      isNegative,
      false,
      this.superMaxInt,
      this.superMinInt,
      this.superMaxFrac,
      this.superMinFrac,
    );
  }

  /** long (Java's format(long), asLong) or BigInteger semantics. */
  private formatInteger(value: bigint, asLong: boolean): string {
    let isNegative = value < 0n;
    let number = isNegative ? -value : value;
    number *= BigInt(this.multiplier);
    if (number === 0n) isNegative = false;
    else if (this.multiplier < 0) {
      number = -number;
      isNegative = !isNegative;
    }
    let maxInt: number;
    let minInt: number;
    let maxFrac: number;
    let minFrac: number;
    let maximumDigits: number;
    if (asLong) {
      maxInt = this.superMaxInt;
      minInt = this.superMinInt;
      maxFrac = this.superMaxFrac;
      minFrac = this.superMinFrac;
      maximumDigits = maxInt + maxFrac;
    } else {
      maxInt = this.maximumIntegerDigits;
      minInt = this.minimumIntegerDigits;
      maxFrac = this.maximumFractionDigits;
      minFrac = this.minimumFractionDigits;
      maximumDigits = maxInt + maxFrac;
      if (maximumDigits > MAXIMUM_INTEGER_DIGITS) maximumDigits = MAXIMUM_INTEGER_DIGITS;
    }
    const digitList = new DigitList(this.roundingModeValue);
    digitList.setInteger(isNegative, number, this.useExponentialNotation ? maximumDigits : 0);
    return this.subformat(digitList, isNegative, true, maxInt, minInt, maxFrac, minFrac);
  }

  /**
   * BigDecimal semantics without a text round trip: the value is `digits` (an unsigned unscaled
   * integer, decimal digits only) × 10^-scale, negated when `negative`.
   */
  formatUnscaled(negative: boolean, digits: string, scale: number): string {
    const r = this.fastFormat(negative, digits, scale, false);
    if (r !== undefined) return r;
    return this.formatDecimal(negative, digits, digits.length, -scale);
  }

  /** BigDecimal semantics: `digits` is the unscaled digit string with `intLength` integer digits, × 10^exp. */
  private formatDecimal(negative: boolean, digits: string, intLength: number, exp: number): string {
    let lead = 0;
    while (lead < digits.length && digits.charCodeAt(lead) === 48) lead++;
    let significant = lead === 0 ? digits : digits.slice(lead);
    let decimalAt = intLength - lead + exp;
    if (this.multiplier !== 1) {
      // Multiply the exact value: digits × multiplier keeps the same scale.
      const scaleDigits = significant.length - decimalAt;
      const product = BigInt(significant || '0') * BigInt(Math.abs(this.multiplier));
      significant = product === 0n ? '' : product.toString();
      decimalAt = significant.length - scaleDigits;
      if (this.multiplier < 0) negative = !negative;
    }
    // no leading zero is left: all zeros is the empty string
    if (significant === '') {
      significant = '';
      negative = false;
    }
    const isNegative = negative;
    const maxInt = this.maximumIntegerDigits;
    const minInt = this.minimumIntegerDigits;
    const maxFrac = this.maximumFractionDigits;
    const minFrac = this.minimumFractionDigits;
    let maximumDigits = maxInt + maxFrac;
    if (maximumDigits > MAXIMUM_INTEGER_DIGITS) maximumDigits = MAXIMUM_INTEGER_DIGITS;
    const digitList = new DigitList(this.roundingModeValue);
    digitList.setDecimal(
      isNegative,
      significant,
      decimalAt,
      this.useExponentialNotation ? maximumDigits : maxFrac,
      !this.useExponentialNotation,
    );
    return this.subformat(digitList, isNegative, false, maxInt, minInt, maxFrac, minFrac);
  }

  private subformat(
    digitList: DigitList,
    isNegative: boolean,
    isInteger: boolean,
    maxIntDigits: number,
    minIntDigits: number,
    maxFraDigits: number,
    minFraDigits: number,
  ): string {
    const prefix = isNegative ? this.negativePrefix : this.positivePrefix;
    const suffix = isNegative ? this.negativeSuffix : this.positiveSuffix;
    return (
      prefix +
      this.subformatNumber(digitList, isInteger, maxIntDigits, minIntDigits, maxFraDigits, minFraDigits) +
      suffix
    );
  }

  /**
   * The fixed-point patterns of everyday use ("0.00", "#,##0.00", "0.#", the locale's number,
   * currency and percent instances) with HALF_EVEN rounding, computed on the decimal digits
   * directly instead of through a DigitList; the same text as subformatNumber, which handles
   * everything else (exponents, other rounding modes, other digit characters, a minimum of zero
   * integer digits, truncated integer parts, long digit strings). `digits` are the unsigned
   * unscaled digits, the value is digits × 10^-scale; `exactDouble`: a safe integer's double
   * (multiplied as a double by Java, so a product past 2^53 goes the general way).
   */
  private fastFormat(
    negative: boolean,
    digits: string,
    scale: number,
    exactDouble: boolean,
  ): string | undefined {
    let p = this.plan;
    if (p === undefined) p = this.plan = this.makePlan();
    if (p === null || digits.length > 40) return undefined;
    if (negative && /^0*$/.test(digits)) negative = false;
    if (p.shift !== 0) {
      if (exactDouble && Number(digits) * this.multiplier > Number.MAX_SAFE_INTEGER) return undefined;
      scale -= p.shift;
    }
    if (scale > 60 || scale < -20) return undefined;
    const len = digits.length;
    let int: string;
    let frac: string;
    if (scale <= 0) {
      int = scale === 0 ? digits : digits + '0'.repeat(-scale);
      frac = '';
    } else if (scale < len) {
      int = digits.slice(0, len - scale);
      frac = digits.slice(len - scale);
    } else {
      int = '';
      frac = scale === len ? digits : '0'.repeat(scale - len) + digits;
    }
    const maxFrac = this.maximumFractionDigits;
    if (frac.length > maxFrac) {
      // HALF_EVEN on the exact digits: up past a half, down below it, to the even digit on a tie
      const first = frac.charCodeAt(maxFrac) - 48;
      let up = first > 5;
      if (first === 5) {
        up = false;
        for (let i = maxFrac + 1; i < frac.length; i++) {
          if (frac.charCodeAt(i) !== 48) {
            up = true;
            break;
          }
        }
        if (!up) {
          const before =
            maxFrac > 0 ? frac.charCodeAt(maxFrac - 1) : int.length > 0 ? int.charCodeAt(int.length - 1) : 48;
          up = ((before - 48) & 1) === 1;
        }
      }
      frac = frac.slice(0, maxFrac);
      if (up) {
        const all = increment(int + frac);
        int = all.slice(0, all.length - maxFrac);
        frac = all.slice(all.length - maxFrac);
      }
    }
    let fracEnd = frac.length;
    const minFrac = this.minimumFractionDigits;
    while (fracEnd > minFrac && frac.charCodeAt(fracEnd - 1) === 48) fracEnd--;
    if (fracEnd < frac.length) frac = frac.slice(0, fracEnd);
    else if (frac.length < minFrac) frac += '0'.repeat(minFrac - frac.length);
    let lead = 0;
    while (lead < int.length && int.charCodeAt(lead) === 48) lead++;
    if (lead > 0) int = int.slice(lead);
    if (int.length > this.maximumIntegerDigits) return undefined;
    const minInt = this.minimumIntegerDigits;
    if (int.length < minInt) int = '0'.repeat(minInt - int.length) + int;
    const g = p.groupingSize;
    if (g > 0 && int.length > g) {
      let i = int.length % g || g;
      let out = int.slice(0, i);
      for (; i < int.length; i += g) out += p.grouping + int.slice(i, i + g);
      int = out;
    }
    const number = frac.length > 0 ? int + p.decimal + frac : int;
    return negative
      ? this.negativePrefix + number + this.negativeSuffix
      : this.positivePrefix + number + this.positiveSuffix;
  }

  private makePlan(): FastPlan | null {
    const sym = this.symbols;
    const m = this.multiplier;
    if (
      this.useExponentialNotation ||
      this.roundingModeValue !== 'HALF_EVEN' ||
      this.decimalSeparatorAlwaysShown ||
      sym.zero !== '0' ||
      (m !== 1 && m !== 100 && m !== 1000) ||
      this.minimumIntegerDigits < 1 ||
      this.minimumIntegerDigits > 20 ||
      this.minimumFractionDigits > 20 ||
      this.maximumFractionDigits > 340
    )
      return null;
    return {
      shift: m === 1 ? 0 : m === 100 ? 2 : 3,
      groupingSize: this.groupingUsed ? this.groupingSize : 0,
      grouping: this.isCurrencyFormat ? sym.monetaryGrouping : sym.grouping,
      decimal: this.isCurrencyFormat ? sym.monetaryDecimal : sym.decimal,
    };
  }

  private digitCharsCache: string[] | null = null;

  /** The locale's ten digit characters. */
  private digitChars(): string[] {
    if (!this.digitCharsCache) {
      const zero = this.symbols.zero.charCodeAt(0);
      this.digitCharsCache = Array.from({ length: 10 }, (_, d) => String.fromCharCode(zero + d));
    }
    return this.digitCharsCache;
  }

  private subformatNumber(
    digitList: DigitList,
    isInteger: boolean,
    maxIntDigits: number,
    minIntDigits: number,
    maxFraDigits: number,
    minFraDigits: number,
  ): string {
    const sym = this.symbols;
    const grouping = this.isCurrencyFormat ? sym.monetaryGrouping : sym.grouping;
    const zero = sym.zero;
    const digitChars = this.digitChars();
    const decimal = this.isCurrencyFormat ? sym.monetaryDecimal : sym.decimal;
    let result = '';

    if (digitList.isZero()) digitList.decimalAt = 0;

    if (this.useExponentialNotation) {
      let exponent = digitList.decimalAt;
      const repeat = maxIntDigits;
      let minimumIntegerDigits = minIntDigits;
      if (repeat > 1 && repeat > minIntDigits) {
        if (exponent >= 1) exponent = Math.trunc((exponent - 1) / repeat) * repeat;
        else exponent = Math.trunc((exponent - repeat) / repeat) * repeat;
        minimumIntegerDigits = 1;
      } else {
        exponent -= minimumIntegerDigits;
      }
      let minimumDigits = minIntDigits + minFraDigits;
      if (minimumDigits > MAXIMUM_INTEGER_DIGITS) minimumDigits = MAXIMUM_INTEGER_DIGITS;
      const integerDigits = digitList.isZero() ? minimumIntegerDigits : digitList.decimalAt - exponent;
      if (minimumDigits < integerDigits) minimumDigits = integerDigits;
      let totalDigits = digitList.count;
      if (minimumDigits > totalDigits) totalDigits = minimumDigits;
      for (let i = 0; i < totalDigits; ++i) {
        if (i === integerDigits) result += decimal;
        result += i < digitList.count ? digitChars[digitList.digits[i]!]! : zero;
      }
      if (this.decimalSeparatorAlwaysShown && totalDigits === integerDigits) result += decimal;
      result += sym.exponent;
      if (digitList.isZero()) exponent = 0;
      const negativeExponent = exponent < 0;
      if (negativeExponent) {
        exponent = -exponent;
        result += sym.minus;
      }
      const exponentDigits = String(exponent);
      for (let i = exponentDigits.length; i < this.minExponentDigits; ++i) result += zero;
      for (const c of exponentDigits) result += digitChars[c.charCodeAt(0) - 48]!;
      return result;
    }

    let count = minIntDigits;
    let digitIndex = 0;
    if (digitList.decimalAt > 0 && count < digitList.decimalAt) count = digitList.decimalAt;
    if (count > maxIntDigits) {
      count = maxIntDigits;
      digitIndex = digitList.decimalAt - count;
    }
    const sizeBeforeIntegerPart = result.length;
    for (let i = count - 1; i >= 0; --i) {
      if (i < digitList.decimalAt && digitIndex < digitList.count) {
        result += digitChars[digitList.digits[digitIndex++]!]!;
      } else {
        result += zero;
      }
      if (this.groupingUsed && i > 0 && this.groupingSize !== 0 && i % this.groupingSize === 0)
        result += grouping;
    }
    const fractionPresent = minFraDigits > 0 || (!isInteger && digitIndex < digitList.count);
    if (!fractionPresent && result.length === sizeBeforeIntegerPart) result += zero;
    if (this.decimalSeparatorAlwaysShown || fractionPresent) result += decimal;
    for (let i = 0; i < maxFraDigits; ++i) {
      if (i >= minFraDigits && (isInteger || digitIndex >= digitList.count)) break;
      if (-1 - i > digitList.decimalAt - 1) {
        result += zero;
        continue;
      }
      if (!isInteger && digitIndex < digitList.count) result += digitChars[digitList.digits[digitIndex++]!]!;
      else result += zero;
    }
    return result;
  }
}
