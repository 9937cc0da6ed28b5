/**
 * Number, date and boolean formatting as FreeMarker does it, on top of src/jdk (DecimalFormat,
 * SimpleDateFormat, the locale styles). Formatters are cached; the default number format of
 * integers and short decimals has a fast path checked against DecimalFormat by the tests.
 */
import { dict } from './dict.js';
import { BigDec } from './bigdecimal.js';
import { computerFormat, toBig } from './arith.js';
import { JDouble, type FmNumber } from './values.js';
import {
  DecimalFormat,
  SimpleDateFormat,
  dateStylePattern,
  numberFormatFor,
  type RoundingMode,
} from '../jdk/index.js';
import { errorMessage } from './errors.js';

export type NumberFormatter = (n: FmNumber) => string;

const numberFormatters = new Map<string, NumberFormatter>();
/** numberFormatter's cache: locale, then format (no key string built per call). */
const numberFormattersByLocale = new Map<string, Map<string, NumberFormatter>>();
let numberFormatterCount = 0;

export class FormatError extends Error {}

/** A formatter for a number_format value / ?string(...) argument. */
export function numberFormatter(format: string, locale: string): NumberFormatter {
  let byFormat = numberFormattersByLocale.get(locale);
  let f = byFormat?.get(format);
  if (!f) {
    f = createNumberFormatter(format, locale);
    if (numberFormatterCount > 500) {
      numberFormattersByLocale.clear();
      numberFormatterCount = 0;
      byFormat = undefined;
    }
    if (!byFormat) numberFormattersByLocale.set(locale, (byFormat = new Map()));
    byFormat.set(format, f);
    numberFormatterCount++;
  }
  return f;
}

function createNumberFormatter(format: string, locale: string): NumberFormatter {
  switch (format) {
    case 'computer':
      return computerFormat;
    case 'number':
      return defaultNumberFormatter(locale);
    case 'currency':
    case 'percent':
      return viaDecimalFormat(numberFormatFor(format, locale), 1);
  }
  if (format.startsWith('@')) {
    throw new FormatError(`Custom number formats (${format}) are not supported by flowmark.`);
  }
  const { pattern, roundingMode, multiplier } = parseExtendedPattern(format);
  let df: DecimalFormat;
  try {
    df = new DecimalFormat(pattern, { locale, roundingMode });
  } catch (e) {
    throw new FormatError(`Invalid number format pattern ${JSON.stringify(format)}: ${errorMessage(e)}`);
  }
  return viaDecimalFormat(df, multiplier);
}

/**
 * DecimalFormat.format of the value FreeMarker would hold: a safe integer as a double (exact), a
 * larger integer as a long/BigInteger, a non-integer JS number as the BigDecimal of its shortest
 * digits, a BigDec exactly, a JDouble as a double. Decimals go in as digits and scale (no text).
 */
function formatWith(df: DecimalFormat, n: FmNumber): string {
  if (typeof n === 'number') {
    if (Number.isSafeInteger(n)) return df.format(n);
    if (Number.isInteger(n)) return df.format(BigInt(n));
    if (!isFinite(n)) return df.format(n);
    return formatJsDecimal(df, n);
  }
  if (n instanceof BigDec) return df.formatUnscaled(n.isNegative(), n.absDigits(), n.scale);
  return df.format(n.value);
}

/** A finite non-integer JS number as the decimal of String(n) ("-12.5", "1.5e-7"). */
function formatJsDecimal(df: DecimalFormat, n: number): string {
  const s = String(n);
  const negative = s.charCodeAt(0) === 45;
  const e = s.indexOf('e');
  const mantissa = s.slice(negative ? 1 : 0, e < 0 ? s.length : e);
  const exp = e < 0 ? 0 : Number(s.slice(e + 1));
  const dot = mantissa.indexOf('.');
  if (dot < 0) return df.formatUnscaled(negative, mantissa, -exp);
  const digits = mantissa.slice(0, dot) + mantissa.slice(dot + 1);
  return df.formatUnscaled(negative, digits, mantissa.length - dot - 1 - exp);
}

function viaDecimalFormat(df: DecimalFormat, multiplier: number): NumberFormatter {
  if (multiplier === 1) return (n) => formatWith(df, n);
  return (n) => {
    if (n instanceof JDouble) return df.format(n.value * multiplier);
    return df.format(toBig(n).multiply(BigDec.fromInteger(multiplier)).toPlainString());
  };
}

const ROUNDING: Record<string, RoundingMode> = dict({
  up: 'UP',
  down: 'DOWN',
  ceiling: 'CEILING',
  floor: 'FLOOR',
  halfUp: 'HALF_UP',
  halfDown: 'HALF_DOWN',
  halfEven: 'HALF_EVEN',
  unnecessary: 'UNNECESSARY',
});

/** FreeMarker's extended DecimalFormat syntax: "0.00;; roundingMode=halfUp multiplier=100". */
function parseExtendedPattern(format: string): {
  pattern: string;
  roundingMode?: RoundingMode;
  multiplier: number;
} {
  const i = format.indexOf(';;');
  if (i < 0) return { pattern: format, multiplier: 1 };
  const pattern = format.slice(0, i);
  let roundingMode: RoundingMode | undefined;
  let multiplier = 1;
  for (const opt of format
    .slice(i + 2)
    .trim()
    .split(/\s+/)) {
    if (!opt) continue;
    const eq = opt.indexOf('=');
    const name = eq < 0 ? opt : opt.slice(0, eq);
    const value = eq < 0 ? '' : opt.slice(eq + 1);
    if (name === 'roundingMode') {
      roundingMode = ROUNDING[value];
      if (!roundingMode) throw new FormatError(`Invalid roundingMode value: ${JSON.stringify(value)}`);
    } else if (name === 'multiplier' || name === 'multipier') {
      multiplier = Number(value);
      if (!Number.isInteger(multiplier))
        throw new FormatError(`Invalid multiplier value: ${JSON.stringify(value)}`);
    } else {
      throw new FormatError(`The number format option "${name}" is not supported by flowmark.`);
    }
  }
  return { pattern, roundingMode, multiplier };
}

/**
 * NumberFormat.getNumberInstance(locale): "#,##0.###", half-even. Integers and decimals of up to
 * 15 significant digits are formatted directly when the locale groups by 3 with a single
 * separator character; everything else goes to DecimalFormat.
 */
function defaultNumberFormatter(locale: string): NumberFormatter {
  const df = numberFormatFor('number', locale);
  const sample = df.format(-1234567.5);
  const m = /^-1(.)234(?:\1)567(.)5$/.exec(sample);
  if (!m) return (n) => formatWith(df, n);
  const group = m[1];
  const decimal = m[2];
  return (n) => {
    if (typeof n === 'number') {
      if (Number.isSafeInteger(n)) return groupDigits(n < 0 ? String(-n) : String(n), n < 0, group);
      if (isFinite(n)) {
        const s = fastDecimal(String(n), group, decimal);
        if (s !== null) return s;
      }
    } else if (n instanceof BigDec && n.scale <= 15 && n.scale > 0) {
      const s = fastDecimal(n.toPlainString(), group, decimal);
      if (s !== null) return s;
    }
    return formatWith(df, n);
  };
}

function groupDigits(digits: string, negative: boolean, sep: string): string {
  const len = digits.length;
  if (len <= 3) return negative ? '-' + digits : digits;
  let out = digits.slice(0, len % 3 || 3);
  for (let i = len % 3 || 3; i < len; i += 3) out += sep + digits.slice(i, i + 3);
  return negative ? '-' + out : out;
}

/** "#,##0.###" of a plain decimal string (no exponent), or null when the fast path doesn't apply. */
function fastDecimal(text: string, group: string, decimal: string): string | null {
  if (text.indexOf('e') >= 0) return null;
  const negative = text[0] === '-';
  const body = negative ? text.slice(1) : text;
  const dot = body.indexOf('.');
  let intPart = dot < 0 ? body : body.slice(0, dot);
  let frac = dot < 0 ? '' : body.slice(dot + 1);
  if (intPart.length > 15) return null;
  if (frac.length > 3) {
    // half-even rounding on exact decimal digits
    const keep = frac.slice(0, 3);
    const rest = frac.slice(3);
    const first = rest.charCodeAt(0) - 48;
    let roundUp: boolean;
    if (first > 5) roundUp = true;
    else if (first < 5) roundUp = false;
    else if (/[1-9]/.test(rest.slice(1))) roundUp = true;
    else roundUp = ((keep.charCodeAt(2) - 48) & 1) === 1;
    if (roundUp) {
      const n = BigInt(intPart + keep) + 1n;
      let s = n.toString().padStart(intPart.length + 3, '0');
      intPart = s.slice(0, s.length - 3) || '0';
      s = s.slice(s.length - 3);
      frac = s;
    } else frac = keep;
  }
  // trailing zeros of the fraction go; leading zeros of the integer part too, but its last digit
  let fracEnd = frac.length;
  while (fracEnd > 0 && frac.charCodeAt(fracEnd - 1) === 48) fracEnd--;
  if (fracEnd < frac.length) frac = frac.slice(0, fracEnd);
  let intStart = 0;
  while (intStart < intPart.length - 1 && intPart.charCodeAt(intStart) === 48) intStart++;
  const isZero =
    frac === '' &&
    (intPart === '' || (intPart.charCodeAt(intStart) === 48 && intStart === intPart.length - 1));
  const grouped = groupDigits(intStart > 0 ? intPart.slice(intStart) : intPart, false, group);
  const out = frac ? grouped + decimal + frac : grouped;
  // Java keeps the minus sign of a negative number that rounds to zero ("-0")
  return negative ? '-' + out : isZero ? '0' : out;
}

/** #{x; m1M3}: NumberFormat with explicit fraction digits (FreeMarker's NumericalOutput). */
export function fractionDigitsFormatter(locale: string, minFrac: number, maxFrac: number): NumberFormatter {
  const key = `\u0001${locale}\u0000${minFrac}\u0000${maxFrac}`;
  let f = numberFormatters.get(key);
  if (!f) {
    const df = numberFormatFor('number', locale);
    df.setMinimumFractionDigits(minFrac);
    df.setMaximumFractionDigits(maxFrac);
    df.setGroupingUsed(false);
    f = (n) => formatWith(df, n);
    if (numberFormatters.size > 500) numberFormatters.clear();
    numberFormatters.set(key, f);
  }
  return f;
}

// ------------------------------------------------------------------ dates

export type DateKind = 'date' | 'time' | 'datetime';

const STYLES = new Set(['short', 'medium', 'long', 'full']);

export interface DateFormatter {
  /** `sqlTime`: the value is a java.sql.Time (ISO formats then omit the offset). */
  format(epochMs: number, sqlTime?: boolean): string;
  parse(text: string): number;
  /** Description for messages ("MMM d, y"). */
  readonly description: string;
}

/** dateFormatter's cache: time zone, then locale, then kind and format (no key string built per call). */
const dateFormatters = new Map<string, Map<string, Map<string, Map<string, DateFormatter>>>>();
let dateFormatterCount = 0;

/** A formatter for a date/time/datetime format string (styles, "iso…", "xs…" or a SimpleDateFormat pattern). */
export function dateFormatter(
  format: string,
  kind: DateKind,
  locale: string,
  timeZone: string,
): DateFormatter {
  const byFormat = dateFormatters.get(timeZone)?.get(locale)?.get(kind);
  let f = byFormat?.get(format);
  if (!f) {
    f = createDateFormatter(format, kind, locale, timeZone);
    if (dateFormatterCount > 500) {
      dateFormatters.clear();
      dateFormatterCount = 0;
    }
    let byLocale = dateFormatters.get(timeZone);
    if (!byLocale) dateFormatters.set(timeZone, (byLocale = new Map()));
    let byKind = byLocale.get(locale);
    if (!byKind) byLocale.set(locale, (byKind = new Map()));
    let formats = byKind.get(kind);
    if (!formats) byKind.set(kind, (formats = new Map()));
    formats.set(format, f);
    dateFormatterCount++;
  }
  return f;
}

function createDateFormatter(
  format: string,
  kind: DateKind,
  locale: string,
  timeZone: string,
): DateFormatter {
  const iso = /^(iso|xs)(?:[_ ]|$)/.exec(format);
  if (iso) return isoFormatter(format, kind, timeZone, iso[1] === 'xs');
  if (format.startsWith('@'))
    throw new FormatError(`Custom date formats (${format}) are not supported by flowmark.`);
  let pattern: string;
  const styles = format === '' ? ['medium'] : format.split('_');
  if (styles.every((s) => STYLES.has(s)) && styles.length <= 2) {
    const dateStyle = styles[0] as 'short';
    const timeStyle = (styles[1] ?? styles[0]) as 'short';
    pattern =
      kind === 'date'
        ? dateStylePattern('date', dateStyle, locale)
        : kind === 'time'
          ? dateStylePattern('time', styles.length === 2 ? timeStyle : dateStyle, locale)
          : dateStylePattern('datetime', dateStyle, locale, timeStyle);
  } else {
    pattern = format;
  }
  let sdf: SimpleDateFormat;
  try {
    sdf = new SimpleDateFormat(pattern, { locale, timeZone });
  } catch (e) {
    throw new FormatError(`Invalid date format pattern ${JSON.stringify(format)}: ${errorMessage(e)}`);
  }
  return {
    format: (ms) => sdf.format(ms),
    parse: (text) => sdf.parse(text),
    description: pattern,
  };
}

interface IsoOptions {
  accuracy: 'h' | 'm' | 's' | 'ms' | 'msForced';
  /** true: always, false: never, undefined: FreeMarker's default for the kind. */
  offset: boolean | undefined;
  utc: boolean;
}

function isoFormatter(format: string, kind: DateKind, timeZone: string, xs: boolean): DateFormatter {
  const opts: IsoOptions = { accuracy: 'ms', offset: undefined, utc: false };
  for (const o of format.split(/[_ ]/).slice(1)) {
    switch (o) {
      case 'u':
      case 'utc':
        opts.utc = true;
        break;
      case 'nz':
        opts.offset = false;
        break;
      case 'fz':
        opts.offset = true;
        break;
      case 'h':
        opts.accuracy = 'h';
        break;
      case 'm':
        opts.accuracy = 'm';
        break;
      case 's':
        opts.accuracy = 's';
        break;
      case 'ms':
        opts.accuracy = 'msForced';
        break;
      case '':
        break;
      default:
        throw new FormatError(`Unrecognized ISO 8601 date format option: ${JSON.stringify(o)}`);
    }
  }
  const zone = opts.utc ? 'UTC' : timeZone;
  const showOffset = kind === 'date' ? xs && opts.offset === true : (opts.offset ?? true);
  return {
    format: (ms, sqlTime) =>
      isoString(ms, kind, zone, opts.accuracy, sqlTime && opts.offset === undefined ? false : showOffset),
    parse: (text) => parseIso(text, kind, zone, xs),
    description: xs ? 'XML Schema' : 'ISO 8601',
  };
}

const isoParts = new Map<string, SimpleDateFormat>();
function sdfCached(pattern: string, timeZone: string): SimpleDateFormat {
  const key = pattern + '\u0000' + timeZone;
  let f = isoParts.get(key);
  if (!f) {
    f = new SimpleDateFormat(pattern, { locale: 'en_US', timeZone });
    if (isoParts.size > 500) isoParts.clear();
    isoParts.set(key, f);
  }
  return f;
}

/** FreeMarker's DateUtil.dateToISO8601String. */
export function isoString(
  ms: number,
  kind: DateKind,
  timeZone: string,
  accuracy: IsoOptions['accuracy'],
  showOffset: boolean,
): string {
  let out = '';
  if (kind !== 'time') out += sdfCached('yyyy-MM-dd', timeZone).format(ms);
  if (kind !== 'date') {
    if (kind === 'datetime') out += 'T';
    const p = accuracy === 'h' ? 'HH' : accuracy === 'm' ? 'HH:mm' : 'HH:mm:ss';
    out += sdfCached(p, timeZone).format(ms);
    if (accuracy === 'ms' || accuracy === 'msForced') {
      const milli = ((ms % 1000) + 1000) % 1000;
      if (milli !== 0 || accuracy === 'msForced') {
        let s = String(milli).padStart(3, '0');
        if (accuracy === 'ms') s = s.replace(/0+$/, '');
        out += '.' + s;
      }
    }
  }
  if (showOffset) out += sdfCached('XXX', timeZone).format(ms);
  return out;
}

const ISO_DATE = /^(-?\d{4,})-(\d{2})-(\d{2})$/;
const ISO_DATE_BASIC = /^(-?\d{4,})(\d{2})(\d{2})$/;
const ZONE = String.raw`(Z|[+-]\d{2}(?::?\d{2})?)`;
const TIME_EXT = String.raw`(\d{2})(?::(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?`;
const TIME_BASIC = String.raw`(\d{2})(?:(\d{2})(?:(\d{2})(?:[.,](\d+))?)?)?`;
const ISO_TIME = new RegExp(`^${TIME_EXT}${ZONE}?$`);
const ISO_TIME_BASIC = new RegExp(`^${TIME_BASIC}${ZONE}?$`);
const ISO_DATETIME = new RegExp(String.raw`^(-?\d{4,})-(\d{2})-(\d{2})T` + TIME_EXT + ZONE + '?$');
const ISO_DATETIME_BASIC = new RegExp(String.raw`^(-?\d{4,})(\d{2})(\d{2})T` + TIME_BASIC + ZONE + '?$');

export class IsoParseError extends Error {}

/** Parses an ISO 8601 (or XML Schema) date, time or date-time string. */
export function parseIso(text: string, kind: DateKind, timeZone: string, xs = false): number {
  const fail = (): never => {
    const what = kind === 'date' ? 'date' : kind === 'time' ? 'time' : 'date-time';
    throw new IsoParseError(
      `The value didn't match the expected pattern: ${xs ? 'XML Schema' : 'ISO 8601'} ${what}: ${JSON.stringify(text)}`,
    );
  };
  let y = '1970';
  let mo = '01';
  let d = '01';
  let h = '00';
  let mi = '00';
  let s = '00';
  let frac = '';
  let zone: string | undefined;
  if (kind === 'date') {
    const m =
      ISO_DATE.exec(text) ??
      (xs ? /^(-?\d{4,})-(\d{2})-(\d{2})(Z|[+-]\d{2}:\d{2})$/.exec(text) : ISO_DATE_BASIC.exec(text));
    if (!m) return fail();
    [, y, mo, d] = m;
    zone = m[4];
  } else if (kind === 'time') {
    const m = ISO_TIME.exec(text) ?? (xs ? null : ISO_TIME_BASIC.exec(text));
    if (!m) return fail();
    h = m[1];
    mi = m[2] ?? '00';
    s = m[3] ?? '00';
    frac = m[4] ?? '';
    zone = m[5];
  } else {
    const m = ISO_DATETIME.exec(text) ?? (xs ? null : ISO_DATETIME_BASIC.exec(text));
    if (!m) return fail();
    [, y, mo, d, h] = m;
    mi = m[5] ?? '00';
    s = m[6] ?? '00';
    frac = m[7] ?? '';
    zone = m[8];
  }
  const ms = frac ? Math.round(Number('0.' + frac) * 1000) : 0;
  const stamp = `${y}-${mo}-${d} ${h}:${mi}:${s}`;
  let tz = timeZone;
  if (zone !== undefined) {
    if (zone === 'Z') tz = 'UTC';
    else {
      const zm = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone)!;
      tz = `GMT${zm[1]}${zm[2]}:${zm[3] ?? '00'}`;
    }
  }
  try {
    return sdfCached('yyyy-MM-dd HH:mm:ss', tz).parse(stamp) + ms;
  } catch {
    return fail();
  }
}
