/**
 * The part of java.math.BigDecimal that FreeMarker's default arithmetic engine relies on: an exact
 * decimal (unscaled bigint, scale) with Java's add/subtract/multiply, divide-to-scale with a
 * rounding mode, compareTo, setScale and toString. Scale is kept exactly as Java keeps it, because
 * FreeMarker's division picks its precision from the operands' scales.
 */

export type Rounding =
  'UP' | 'DOWN' | 'CEILING' | 'FLOOR' | 'HALF_UP' | 'HALF_DOWN' | 'HALF_EVEN' | 'UNNECESSARY';

const TEN = 10n;
const pow10Cache: bigint[] = [];
function pow10(n: number): bigint {
  if (n < 64) {
    let v = pow10Cache[n];
    if (v === undefined) {
      v = TEN ** BigInt(n);
      pow10Cache[n] = v;
    }
    return v;
  }
  return TEN ** BigInt(n);
}

const DECIMAL_RE = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * The largest exponent (in either direction) and the most digits one number may have
 * (docs/template.md "Number limits"). Java's BigDecimal allows exponents to ±2^31, but printing
 * or expanding such a number takes time and memory that grow with the exponent; past this limit a
 * number is refused instead.
 */
export const NUMBER_LIMIT = 100_000;
/** 10^NUMBER_LIMIT, a 332,193-bit power: computed when a product first needs it, not at import (~2 ms). */
let magnitudeLimit: bigint | undefined;
/** Products below this (2^1024, far under 10^NUMBER_LIMIT) need no comparison with the limit. */
const SURELY_WITHIN = 1n << 1024n;

export class BigDec {
  /** The unscaled value; made from `digits` on first use when the number was read from text. */
  private u: bigint | undefined;
  /** |unscaled| in decimal without leading zeros ("0" for zero), once known. */
  private digits: string | undefined;
  /** Whether unscaled < 0, once known. */
  private neg: boolean | undefined;

  constructor(
    unscaled: bigint,
    readonly scale: number,
  ) {
    this.u = unscaled;
    this.digits = undefined;
    this.neg = undefined;
  }

  get unscaled(): bigint {
    let u = this.u;
    if (u === undefined) u = this.u = BigInt(this.neg ? '-' + this.digits! : this.digits!);
    return u;
  }

  /**
   * digits × 10^-scale, negated when `negative`: a number read from text keeps its digits, so
   * formatting it needs no bigint (which costs more than the text it came from).
   */
  static fromDigits(negative: boolean, digits: string, scale: number): BigDec {
    let lead = 0;
    while (lead < digits.length - 1 && digits.charCodeAt(lead) === 48) lead++;
    const d = lead > 0 ? digits.slice(lead) : digits;
    const b = new BigDec(0n, scale);
    b.u = undefined;
    b.digits = d;
    b.neg = negative && d !== '0';
    return b;
  }

  /** |unscaled| in decimal, without leading zeros ("0" for zero). */
  absDigits(): string {
    let d = this.digits;
    if (d === undefined) {
      const u = this.u!;
      d = this.digits = (u < 0n ? -u : u).toString();
    }
    return d;
  }

  /** unscaled < 0. */
  isNegative(): boolean {
    let n = this.neg;
    if (n === undefined) n = this.neg = this.u! < 0n;
    return n;
  }

  /** Java's `new BigDecimal(String)`; throws on anything else. */
  static parse(text: string): BigDec {
    const m = DECIMAL_RE.exec(text);
    if (!m || (m[2] === '' && (m[3] === undefined || m[3] === ''))) {
      throw new NumberFormatError(text);
    }
    const intPart = m[2];
    const frac = m[3] ?? '';
    if (intPart.length + frac.length > NUMBER_LIMIT) throw new NumberLimitError(text, 'digits');
    let scale = frac.length;
    if (m[4] !== undefined) scale -= Number(m[4]);
    if (!(Math.abs(scale) <= NUMBER_LIMIT)) throw new NumberLimitError(text, 'exponent');
    return BigDec.fromDigits(m[1] === '-', (intPart || '0') + frac, scale);
  }

  static fromInteger(n: number | bigint): BigDec {
    return new BigDec(typeof n === 'bigint' ? n : BigInt(n), 0);
  }

  /** The decimal a JavaScript number stands for: its shortest round-tripping digits. */
  static fromNumber(n: number): BigDec {
    if (Number.isInteger(n) && Number.isSafeInteger(n)) return new BigDec(BigInt(n), 0);
    return BigDec.parse(String(n));
  }

  signum(): number {
    return this.unscaled > 0n ? 1 : this.unscaled < 0n ? -1 : 0;
  }

  negate(): BigDec {
    return new BigDec(-this.unscaled, this.scale);
  }

  abs(): BigDec {
    return this.unscaled < 0n ? this.negate() : this;
  }

  private static align(a: BigDec, b: BigDec): [bigint, bigint, number] {
    if (a.scale === b.scale) return [a.unscaled, b.unscaled, a.scale];
    if (a.scale > b.scale) return [a.unscaled, b.unscaled * pow10(a.scale - b.scale), a.scale];
    return [a.unscaled * pow10(b.scale - a.scale), b.unscaled, b.scale];
  }

  add(o: BigDec): BigDec {
    const [x, y, s] = BigDec.align(this, o);
    return new BigDec(x + y, s);
  }

  subtract(o: BigDec): BigDec {
    const [x, y, s] = BigDec.align(this, o);
    return new BigDec(x - y, s);
  }

  multiply(o: BigDec): BigDec {
    const scale = this.scale + o.scale;
    if (Math.abs(scale) > NUMBER_LIMIT) throw new ResultLimitError();
    const u = this.unscaled * o.unscaled;
    if (u >= SURELY_WITHIN || -u >= SURELY_WITHIN) {
      const limit = (magnitudeLimit ??= TEN ** BigInt(NUMBER_LIMIT));
      if (u >= limit || -u >= limit) throw new ResultLimitError();
    }
    return new BigDec(u, scale);
  }

  compareTo(o: BigDec): number {
    const [x, y] = BigDec.align(this, o);
    return x < y ? -1 : x > y ? 1 : 0;
  }

  /** `this / o` rounded to `scale` fraction digits (Java's divide(divisor, scale, roundingMode)). */
  divide(o: BigDec, scale: number, mode: Rounding): BigDec {
    if (o.unscaled === 0n)
      throw new ArithmeticError(this.unscaled === 0n ? 'Division undefined' : 'Division by zero');
    // result = this.unscaled * 10^(scale - this.scale + o.scale) / o.unscaled
    const shift = scale - this.scale + o.scale;
    if (Math.abs(scale) > NUMBER_LIMIT || Math.abs(shift) > 2 * NUMBER_LIMIT) throw new ResultLimitError();
    let num = this.unscaled;
    let den = o.unscaled;
    if (shift >= 0) num *= pow10(shift);
    else den *= pow10(-shift);
    return new BigDec(divideRounded(num, den, mode), scale);
  }

  setScale(scale: number, mode: Rounding): BigDec {
    if (scale === this.scale) return this;
    if (scale > this.scale) return new BigDec(this.unscaled * pow10(scale - this.scale), scale);
    return new BigDec(divideRounded(this.unscaled, pow10(this.scale - scale), mode), scale);
  }

  stripTrailingZeros(): BigDec {
    if (this.unscaled === 0n) return new BigDec(0n, 0);
    if (this.unscaled % TEN !== 0n) return this;
    // one division by the counted power of ten, not one division per zero (quadratic on long numbers)
    const digits = this.unscaled.toString();
    let end = digits.length;
    while (digits.charCodeAt(end - 1) === 48) end--;
    const zeros = digits.length - end;
    return new BigDec(this.unscaled / pow10(zeros), this.scale - zeros);
  }

  /** Integral part (truncated toward zero) as an unbounded integer. */
  toBigInt(): bigint {
    if (this.scale <= 0) return this.unscaled * pow10(-this.scale);
    return this.unscaled / pow10(this.scale);
  }

  isInteger(): boolean {
    return this.scale <= 0 || this.unscaled % pow10(this.scale) === 0n;
  }

  /** The nearest double (Java's doubleValue()). */
  toNumber(): number {
    if (this.scale === 0) return Number(this.unscaled);
    return Number(this.toString());
  }

  /** Digits without exponent (Java's toPlainString()). */
  toPlainString(): string {
    const neg = this.isNegative();
    let digits = this.absDigits();
    if (this.scale <= 0) {
      if (digits !== '0' && this.scale < 0) digits += '0'.repeat(-this.scale);
      else if (this.scale < 0) digits = '0';
      return (neg ? '-' : '') + digits;
    }
    if (digits.length <= this.scale) digits = '0'.repeat(this.scale - digits.length + 1) + digits;
    const cut = digits.length - this.scale;
    return (neg ? '-' : '') + digits.slice(0, cut) + '.' + digits.slice(cut);
  }

  /** Java's BigDecimal.toString(): plain unless the exponent is small, else scientific notation. */
  toString(): string {
    const neg = this.isNegative();
    const coeff = this.absDigits();
    const adjusted = -this.scale + (coeff.length - 1);
    if (this.scale >= 0 && adjusted >= -6) return this.toPlainString();
    let s = coeff.length > 1 ? coeff[0] + '.' + coeff.slice(1) : coeff;
    s += 'E' + (adjusted >= 0 ? '+' : '') + adjusted;
    return (neg ? '-' : '') + s;
  }
}

export class NumberFormatError extends Error {
  constructor(readonly text: string) {
    super(`Character array is missing "exponent" mark 'e' or 'E'.`);
  }
}

export class ArithmeticError extends Error {}

/** A number text beyond NUMBER_LIMIT; the caller names the built-in. */
export class NumberLimitError extends ArithmeticError {
  constructor(
    readonly text: string,
    readonly what: 'exponent' | 'digits',
  ) {
    const shown = text.length > 64 ? text.slice(0, 64) + '…' : text;
    super(
      what === 'exponent'
        ? `the exponent of ${JSON.stringify(shown)} is beyond ±${NUMBER_LIMIT} (the limit for one number)`
        : `${JSON.stringify(shown)} has more than ${NUMBER_LIMIT} digits (the limit for one number)`,
    );
  }
}

/** An arithmetic result beyond NUMBER_LIMIT. */
export class ResultLimitError extends ArithmeticError {
  constructor() {
    super(
      `the result would have an exponent or a digit count beyond ${NUMBER_LIMIT} (the limit for one number)`,
    );
  }
}

function divideRounded(num: bigint, den: bigint, mode: Rounding): bigint {
  if (den < 0n) {
    num = -num;
    den = -den;
  }
  const q = num / den; // truncates toward zero
  const r = num - q * den;
  if (r === 0n) return q;
  const sign = num < 0n ? -1n : 1n;
  const twice = (r < 0n ? -r : r) * 2n;
  const cmpHalf = twice === den ? 0 : twice > den ? 1 : -1;
  let awayFromZero: boolean;
  switch (mode) {
    case 'UP':
      awayFromZero = true;
      break;
    case 'DOWN':
      awayFromZero = false;
      break;
    case 'CEILING':
      awayFromZero = sign > 0n;
      break;
    case 'FLOOR':
      awayFromZero = sign < 0n;
      break;
    case 'HALF_UP':
      awayFromZero = cmpHalf >= 0;
      break;
    case 'HALF_DOWN':
      awayFromZero = cmpHalf > 0;
      break;
    case 'HALF_EVEN':
      awayFromZero = cmpHalf > 0 || (cmpHalf === 0 && (q & 1n) === 1n);
      break;
    case 'UNNECESSARY':
      throw new ArithmeticError('Rounding necessary');
  }
  return awayFromZero ? q + sign : q;
}
