/**
 * Port of java.text.SimpleDateFormat (JDK 17) for the Gregorian calendar: pattern compilation,
 * formatting and parsing with Java's exact rules, lenient or not.
 */
import { JavaIllegalArgumentException, JavaParseException } from '../errors.js';
import { localeData, type LocaleData } from '../locale.js';
import {
  javaDigit,
  parseJavaInt,
  type IntegerParseSymbols,
  type ParsePosition,
} from '../number/integerParse.js';
import {
  AM_PM,
  CalendarFieldError,
  DAY_OF_MONTH,
  DAY_OF_WEEK,
  DAY_OF_WEEK_IN_MONTH,
  DAY_OF_YEAR,
  DST_OFFSET,
  ERA,
  FIELD_COUNT,
  GregorianCalendar,
  HOUR,
  HOUR_OF_DAY,
  MILLISECOND,
  MINUTE,
  MONTH,
  SECOND,
  WEEK_OF_MONTH,
  WEEK_OF_YEAR,
  YEAR,
  ZONE_OFFSET,
} from './gregorianCalendar.js';
import { zeroPadding, zoneOffsetText, ZONE_VALUE_TAG } from './fieldDigits.js';
import { getTimeZone, type JavaTimeZone } from './timeZone.js';
import { zoneDisplayName, zoneStrings } from './zoneNames.js';

const PATTERN_CHARS = 'GyMdkHmsSEDFwWahKzZYuXL';
const P_ERA = 0;
const P_YEAR = 1;
const P_MONTH = 2;
const P_DAY_OF_MONTH = 3;
const P_HOUR_OF_DAY1 = 4;
const P_HOUR_OF_DAY0 = 5;
const P_MINUTE = 6;
const P_SECOND = 7;
const P_MILLISECOND = 8;
const P_DAY_OF_WEEK = 9;
const P_DAY_OF_YEAR = 10;
const P_DAY_OF_WEEK_IN_MONTH = 11;
const P_WEEK_OF_YEAR = 12;
const P_WEEK_OF_MONTH = 13;
const P_AM_PM = 14;
const P_HOUR1 = 15;
const P_HOUR0 = 16;
const P_ZONE_NAME = 17;
const P_ZONE_VALUE = ZONE_VALUE_TAG;
const P_WEEK_YEAR = 19;
const P_ISO_DAY_OF_WEEK = 20;
const P_ISO_ZONE = 21;
const P_MONTH_STANDALONE = 22;

/** CalendarBuilder pseudo fields. */
const WEEK_YEAR = FIELD_COUNT;
const ISO_DAY_OF_WEEK = 1000;

const PATTERN_INDEX_TO_CALENDAR_FIELD = [
  ERA,
  YEAR,
  MONTH,
  DAY_OF_MONTH,
  HOUR_OF_DAY,
  HOUR_OF_DAY,
  MINUTE,
  SECOND,
  MILLISECOND,
  DAY_OF_WEEK,
  DAY_OF_YEAR,
  DAY_OF_WEEK_IN_MONTH,
  WEEK_OF_YEAR,
  WEEK_OF_MONTH,
  AM_PM,
  HOUR,
  HOUR,
  ZONE_OFFSET,
  ZONE_OFFSET,
  WEEK_YEAR,
  ISO_DAY_OF_WEEK,
  ZONE_OFFSET,
  MONTH,
];

type CompiledItem = { literal: string } | { tag: number; count: number };

/** The pattern letters formatDirect handles (the zone ones through subFormat, once per format). */
const DIRECT_TAGS = new Set([
  P_ERA,
  P_YEAR,
  P_MONTH,
  P_MONTH_STANDALONE,
  P_DAY_OF_MONTH,
  P_DAY_OF_WEEK,
  P_ISO_DAY_OF_WEEK,
  P_HOUR_OF_DAY0,
  P_HOUR_OF_DAY1,
  P_HOUR0,
  P_HOUR1,
  P_AM_PM,
  P_MINUTE,
  P_SECOND,
  P_MILLISECOND,
  P_ZONE_NAME,
  P_ZONE_VALUE,
  P_ISO_ZONE,
]);
/** The Gregorian cutover (1582-10-15T00:00 local): the calendar is Julian before it. */
const GREGORIAN_CUTOVER_MS = -12219292800000;
/** The last instant a Date holds (beyond it the arithmetic of formatDirect is not exact). */
const MAX_DATE_MS = 8.64e15;
const ONE_DAY_MS = 86400000;

/** SimpleDateFormat.compile: throws Java's IllegalArgumentException for a bad pattern. */
function compile(pattern: string): CompiledItem[] {
  const out: CompiledItem[] = [];
  const length = pattern.length;
  let inQuote = false;
  let quoted = '';
  let count = 0;
  let lastTag = -1;
  const flush = () => {
    if (count !== 0) {
      encode(lastTag, count);
      lastTag = -1;
      count = 0;
    }
  };
  const encode = (tag: number, n: number) => {
    if (tag === P_ISO_ZONE && n >= 4)
      throw new JavaIllegalArgumentException(`invalid ISO 8601 format: length=${n}`);
    out.push({ tag, count: n });
  };
  for (let i = 0; i < length; i++) {
    let c = pattern[i]!;
    if (c === "'") {
      if (i + 1 < length) {
        c = pattern[i + 1]!;
        if (c === "'") {
          i++;
          flush();
          if (inQuote) quoted += c;
          else out.push({ literal: c });
          continue;
        }
      }
      if (!inQuote) {
        flush();
        quoted = '';
        inQuote = true;
      } else {
        out.push({ literal: quoted });
        inQuote = false;
      }
      continue;
    }
    if (inQuote) {
      quoted += c;
      continue;
    }
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
      flush();
      out.push({ literal: c });
      continue;
    }
    const tag = PATTERN_CHARS.indexOf(c);
    if (tag === -1) throw new JavaIllegalArgumentException(`Illegal pattern character '${c}'`);
    if (lastTag === -1 || lastTag === tag) {
      lastTag = tag;
      count++;
      continue;
    }
    encode(lastTag, count);
    lastTag = tag;
    count = 1;
  }
  if (inQuote) throw new JavaIllegalArgumentException('Unterminated quote');
  flush();
  // Adjacent literals are matched one character at a time anyway; keep them apart like Java.
  return out;
}

/** String.regionMatches(true, …) of Java. */
function regionMatchesIgnoreCase(text: string, start: number, other: string): boolean {
  if (start < 0 || start + other.length > text.length) return false;
  for (let i = 0; i < other.length; i++) {
    const a = text[start + i]!;
    const b = other[i]!;
    if (a === b) continue;
    const ua = upper(a);
    const ub = upper(b);
    if (ua === ub) continue;
    if (lower(ua) === lower(ub)) continue;
    return false;
  }
  return true;
}

function upper(c: string): string {
  const u = c.toUpperCase();
  return u.length === 1 ? u : c;
}

function lower(c: string): string {
  const l = c.toLowerCase();
  return l.length === 1 ? l : c;
}

/** Character.getType(c) == SPACE_SEPARATOR. */
function isSpaceSeparator(c: string): boolean {
  return /\p{Zs}/u.test(c);
}

class CalendarBuilder {
  private readonly stamps = new Array<number>(FIELD_COUNT + 1).fill(0);
  private readonly values = new Array<number>(FIELD_COUNT + 1).fill(0);
  private nextStamp = 2;
  private maxFieldIndex = -1;

  set(index: number, value: number): this {
    if (index === ISO_DAY_OF_WEEK) {
      index = DAY_OF_WEEK;
      value = toCalendarDayOfWeek(value);
    }
    this.stamps[index] = this.nextStamp++;
    this.values[index] = value;
    if (index > this.maxFieldIndex && index < FIELD_COUNT) this.maxFieldIndex = index;
    return this;
  }

  clear(index: number): this {
    this.stamps[index] = 0;
    this.values[index] = 0;
    return this;
  }

  isSet(index: number): boolean {
    return this.stamps[index]! > 0;
  }

  addYear(value: number): this {
    this.values[YEAR] += value;
    this.values[WEEK_YEAR] += value;
    return this;
  }

  establish(cal: GregorianCalendar): GregorianCalendar {
    const weekDate = this.isSet(WEEK_YEAR) && this.stamps[WEEK_YEAR]! > this.stamps[YEAR]!;
    cal.clear();
    for (let stamp = 2; stamp < this.nextStamp; stamp++) {
      for (let index = 0; index <= this.maxFieldIndex; index++) {
        if (this.stamps[index] === stamp) {
          cal.set(index, this.values[index]!);
          break;
        }
      }
    }
    if (weekDate) {
      let weekOfYear = this.isSet(WEEK_OF_YEAR) ? this.values[WEEK_OF_YEAR]! : 1;
      let dayOfWeek = this.isSet(DAY_OF_WEEK) ? this.values[DAY_OF_WEEK]! : cal.firstDayOfWeek;
      if (!isValidDayOfWeek(dayOfWeek) && cal.lenient) {
        if (dayOfWeek >= 8) {
          dayOfWeek--;
          weekOfYear += Math.trunc(dayOfWeek / 7);
          dayOfWeek = (dayOfWeek % 7) + 1;
        } else {
          while (dayOfWeek <= 0) {
            dayOfWeek += 7;
            weekOfYear--;
          }
        }
        dayOfWeek = toCalendarDayOfWeek(dayOfWeek);
      }
      cal.setWeekDate(this.values[WEEK_YEAR]!, weekOfYear, dayOfWeek);
    }
    return cal;
  }
}

function isValidDayOfWeek(d: number): boolean {
  return d > 0 && d <= 7;
}

function toCalendarDayOfWeek(iso: number): number {
  if (!isValidDayOfWeek(iso)) return iso;
  return iso === 7 ? 1 : iso + 1;
}

function toISODayOfWeek(calendarDayOfWeek: number): number {
  return calendarDayOfWeek === 1 ? 7 : calendarDayOfWeek - 1;
}

function shouldObeyCount(tag: number, count: number): boolean {
  switch (tag) {
    case P_MONTH:
    case P_MONTH_STANDALONE:
      return count <= 2;
    case P_YEAR:
    case P_DAY_OF_MONTH:
    case P_HOUR_OF_DAY1:
    case P_HOUR_OF_DAY0:
    case P_MINUTE:
    case P_SECOND:
    case P_MILLISECOND:
    case P_DAY_OF_YEAR:
    case P_DAY_OF_WEEK_IN_MONTH:
    case P_WEEK_OF_YEAR:
    case P_WEEK_OF_MONTH:
    case P_HOUR1:
    case P_HOUR0:
    case P_WEEK_YEAR:
    case P_ISO_DAY_OF_WEEK:
      return true;
    default:
      return false;
  }
}

export interface SimpleDateFormatOptions {
  /** Java locale tag, "en_US" by default ("de_DE", "fr-FR" …). */
  locale?: string;
  /** Java time-zone id, "UTC" by default; unknown ids become GMT as in Java. */
  timeZone?: string;
  /** Java's setLenient; false by default here (Java's own default is true). */
  lenient?: boolean;
  /** Clock for the two-digit-year window (now - 80 years … now + 20 years); Date.now by default. */
  now?: () => number;
}

const GMT = 'GMT';
/** The JVM default time zone assumed when parsing zone names (the platform runs in UTC). */
const DEFAULT_ZONE_ID = 'UTC';

export class SimpleDateFormat {
  readonly pattern: string;
  readonly locale: string;
  private readonly data: LocaleData;
  private readonly compiled: CompiledItem[];
  private readonly calendar: GregorianCalendar;
  private readonly numberSymbols: IntegerParseSymbols;
  /** Construction time: the two-digit-year window starts 80 years before it (computed on first use). */
  private readonly createdAt: number;
  private centuryStart: { time: number; year: number } | null = null;
  /** Every field of the pattern is one formatDirect gives. */
  private readonly direct: boolean;

  constructor(pattern: string, options: SimpleDateFormatOptions = {}) {
    this.pattern = pattern;
    this.locale = options.locale ?? 'en_US';
    this.data = localeData(this.locale);
    this.compiled = compile(pattern);
    this.direct = this.compiled.every((item) => 'literal' in item || DIRECT_TAGS.has(item.tag));
    this.calendar = new GregorianCalendar(
      getTimeZone(options.timeZone ?? 'UTC'),
      this.data.firstDayOfWeek,
      this.data.minimalDays,
    );
    this.calendar.lenient = options.lenient ?? false;
    const s = this.data.symbols;
    this.numberSymbols = {
      minus: s.minus,
      nan: s.nan,
      infinity: s.infinity,
      exponent: s.exponent,
      decimal: s.decimal,
      zero: s.zero,
    };
    this.createdAt = (options.now ?? Date.now)();
  }

  /** SimpleDateFormat.initializeDefaultCentury: now - 80 years, in the format's calendar. */
  private defaultCenturyStart(): { time: number; year: number } {
    if (!this.centuryStart) {
      const cal = this.calendar.clone();
      cal.lenient = true;
      cal.setTimeInMillis(this.createdAt);
      cal.add(YEAR, -80);
      this.centuryStart = { time: cal.getTimeInMillis(), year: cal.get(YEAR) };
    }
    return this.centuryStart;
  }

  /** The Java id of the zone in use (parsing a zone name can change it, as in Java). */
  get timeZone(): string {
    return this.calendar.zone.id;
  }

  get lenient(): boolean {
    return this.calendar.lenient;
  }

  set lenient(value: boolean) {
    this.calendar.lenient = value;
  }

  // ------------------------------------------------------------------ format

  format(epochMs: number): string {
    if (!Number.isFinite(epochMs)) throw new RangeError('SimpleDateFormat.format: not a finite epoch');
    if (this.direct) {
      const r = this.formatDirect(Math.trunc(epochMs));
      if (r !== undefined) return r;
    }
    const cal = this.calendar;
    cal.setTimeInMillis(Math.trunc(epochMs));
    let out = '';
    for (const item of this.compiled) {
      if ('literal' in item) out += item.literal;
      else out += this.subFormat(item.tag, item.count);
    }
    return out;
  }

  /**
   * format() for the patterns whose fields a Gregorian date gives directly (era, year, month, day,
   * weekday, hours, minutes, seconds, milliseconds, AM/PM, zone): the fields of the local time
   * (epoch + the zone's offsets at that instant, as computeFields takes them) come from the
   * proleptic Gregorian calendar of Date, which is the calendar's own from the cutover (1582-10-15)
   * on; earlier instants (Julian) and week fields go through the calendar. Same text as subFormat.
   */
  private formatDirect(ms: number): string | undefined {
    const zone = this.calendar.zone;
    const offsets = zone.getOffsets(ms);
    const local = ms + offsets[0] + offsets[1];
    if (!(local >= GREGORIAN_CUTOVER_MS && local <= MAX_DATE_MS)) return undefined;
    // civil date of the day (Hinnant's days-to-civil on the proleptic Gregorian calendar), then time of day
    const days = Math.floor(local / ONE_DAY_MS);
    let timeOfDay = local - days * ONE_DAY_MS;
    const z = days + 719468;
    const era = Math.floor(z / 146097);
    const doe = z - era * 146097;
    const yoe = Math.floor(
      (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
    );
    const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
    const mp = Math.floor((5 * doy + 2) / 153);
    const dayOfMonth = doy - Math.floor((153 * mp + 2) / 5) + 1;
    const month = mp < 10 ? mp + 2 : mp - 10; // 0-based
    const year = yoe + era * 400 + (month <= 1 ? 1 : 0);
    const dayOfWeek = ((((days + 4) % 7) + 7) % 7) + 1; // Calendar's 1 = Sunday (1970-01-01 was a Thursday)
    const hours = Math.floor(timeOfDay / 3600000);
    timeOfDay -= hours * 3600000;
    const minutes = Math.floor(timeOfDay / 60000);
    timeOfDay -= minutes * 60000;
    const seconds = Math.floor(timeOfDay / 1000);
    const millis = timeOfDay - seconds * 1000;
    const d = this.data;
    let out = '';
    for (const item of this.compiled) {
      if ('literal' in item) {
        out += item.literal;
        continue;
      }
      const count = item.count;
      switch (item.tag) {
        case P_ERA:
          out += d.eras[1] ?? '';
          break;
        case P_YEAR:
          out += count !== 2 ? zeroPadding(year, count, Infinity) : zeroPadding(year, 2, 2);
          break;
        case P_MONTH: {
          out +=
            count >= 4
              ? d.months[month]!
              : count === 3
                ? d.shortMonths[month]!
                : zeroPadding(month + 1, count, Infinity);
          break;
        }
        case P_MONTH_STANDALONE: {
          out +=
            count >= 4
              ? d.standaloneMonths[month]!
              : count === 3
                ? d.shortStandaloneMonths[month]!
                : zeroPadding(month + 1, count, Infinity);
          break;
        }
        case P_DAY_OF_MONTH:
          out += zeroPadding(dayOfMonth, count, Infinity);
          break;
        case P_DAY_OF_WEEK: {
          out += count >= 4 ? d.weekdays[dayOfWeek]! : d.shortWeekdays[dayOfWeek]!;
          break;
        }
        case P_ISO_DAY_OF_WEEK:
          out += zeroPadding(toISODayOfWeek(dayOfWeek), count, Infinity);
          break;
        case P_HOUR_OF_DAY0:
          out += zeroPadding(hours, count, Infinity);
          break;
        case P_HOUR_OF_DAY1: {
          const h = hours;
          out += zeroPadding(h === 0 ? this.calendar.getMaximum(HOUR_OF_DAY) + 1 : h, count, Infinity);
          break;
        }
        case P_HOUR0:
          out += zeroPadding(hours % 12, count, Infinity);
          break;
        case P_HOUR1: {
          const h = hours % 12;
          out += zeroPadding(h === 0 ? this.calendar.getLeastMaximum(HOUR) + 1 : h, count, Infinity);
          break;
        }
        case P_AM_PM:
          out += d.ampm[hours < 12 ? 0 : 1]!;
          break;
        case P_MINUTE:
          out += zeroPadding(minutes, count, Infinity);
          break;
        case P_SECOND:
          out += zeroPadding(seconds, count, Infinity);
          break;
        case P_MILLISECOND:
          out += zeroPadding(millis, count, Infinity);
          break;
        case P_ZONE_NAME:
          out += zoneDisplayName(zone, offsets[1] !== 0, count >= 4, this.locale);
          break;
        default:
          out += zoneOffsetText(item.tag, count, offsets[0] + offsets[1]);
      }
    }
    return out;
  }

  private subFormat(tag: number, count: number): string {
    const cal = this.calendar;
    const d = this.data;
    const field = PATTERN_INDEX_TO_CALENDAR_FIELD[tag]!;
    let value: number;
    if (field === WEEK_YEAR) value = cal.getWeekYear();
    else if (field === ISO_DAY_OF_WEEK) value = toISODayOfWeek(cal.get(DAY_OF_WEEK));
    else value = cal.get(field);

    switch (tag) {
      case P_ERA:
        return d.eras[value] ?? '';
      case P_WEEK_YEAR:
      case P_YEAR:
        return count !== 2 ? zeroPadding(value, count, Infinity) : zeroPadding(value, 2, 2);
      case P_MONTH:
        if (count >= 4) return d.months[value]!;
        if (count === 3) return d.shortMonths[value]!;
        return zeroPadding(value + 1, count, Infinity);
      case P_MONTH_STANDALONE:
        if (count >= 4) return d.standaloneMonths[value]!;
        if (count === 3) return d.shortStandaloneMonths[value]!;
        return zeroPadding(value + 1, count, Infinity);
      case P_HOUR_OF_DAY1:
        return zeroPadding(value === 0 ? cal.getMaximum(HOUR_OF_DAY) + 1 : value, count, Infinity);
      case P_DAY_OF_WEEK:
        return count >= 4 ? d.weekdays[value]! : d.shortWeekdays[value]!;
      case P_AM_PM:
        return d.ampm[value]!;
      case P_HOUR1:
        return zeroPadding(value === 0 ? cal.getLeastMaximum(HOUR) + 1 : value, count, Infinity);
      case P_ZONE_NAME: {
        const daylight = cal.get(DST_OFFSET) !== 0;
        return zoneDisplayName(cal.zone, daylight, count >= 4, this.locale);
      }
      case P_ZONE_VALUE:
      case P_ISO_ZONE:
        return zoneOffsetText(tag, count, cal.get(ZONE_OFFSET) + cal.get(DST_OFFSET));
      default:
        return zeroPadding(value, count, Infinity);
    }
  }

  // ------------------------------------------------------------------ parse

  /** SimpleDateFormat.parse(String): epoch ms; throws JavaParseException `Unparseable date: "x"`. */
  parse(text: string): number {
    const pos: ParsePosition = { index: 0, errorIndex: -1 };
    const result = this.parseAt(text, pos);
    if (pos.index === 0 || result === null) {
      throw new JavaParseException(`Unparseable date: "${text}"`, pos.errorIndex);
    }
    return result;
  }

  /** SimpleDateFormat.parse(String, ParsePosition): null on failure (pos.errorIndex set). */
  parseAt(text: string, pos: ParsePosition): number | null {
    let start = pos.index;
    const oldStart = start;
    const textLength = text.length;
    const ambiguousYear = { value: false };
    const calb = new CalendarBuilder();
    const items = this.compiled;
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      if ('literal' in item) {
        for (const ch of item.literal) {
          if (start >= textLength || !this.charEquals(text[start]!, ch)) {
            pos.index = oldStart;
            pos.errorIndex = start;
            return null;
          }
          start++;
        }
        continue;
      }
      let obeyCount = false;
      const next = items[i + 1];
      if (next && !('literal' in next)) obeyCount = shouldObeyCount(next.tag, next.count);
      start = this.subParse(text, start, item.tag, item.count, obeyCount, ambiguousYear, pos, calb);
      if (start < 0) {
        pos.index = oldStart;
        return null;
      }
    }
    pos.index = start;
    try {
      let parsed = calb.establish(this.calendar).getTimeInMillis();
      if (ambiguousYear.value && parsed < this.defaultCenturyStart().time) {
        parsed = calb.addYear(100).establish(this.calendar).getTimeInMillis();
      }
      return parsed;
    } catch (e) {
      if (!(e instanceof CalendarFieldError)) throw e;
      pos.errorIndex = start;
      pos.index = oldStart;
      return null;
    }
  }

  private charEquals(a: string, b: string): boolean {
    return a === b || (this.calendar.lenient && isSpaceSeparator(a) && isSpaceSeparator(b));
  }

  private parseNumber(text: string, pos: ParsePosition, obeyCount: boolean, start: number, count: number) {
    if (obeyCount) {
      if (start + count > text.length) return undefined;
      return parseJavaInt(text.slice(0, start + count), pos, this.numberSymbols);
    }
    return parseJavaInt(text, pos, this.numberSymbols);
  }

  private subParse(
    text: string,
    start: number,
    tag: number,
    count: number,
    obeyCount: boolean,
    ambiguousYear: { value: boolean },
    origPos: ParsePosition,
    calb: CalendarBuilder,
  ): number {
    const pos: ParsePosition = { index: start, errorIndex: -1 };
    const field = PATTERN_INDEX_TO_CALENDAR_FIELD[tag]!;
    const d = this.data;
    for (;;) {
      if (pos.index >= text.length) {
        origPos.errorIndex = start;
        return -1;
      }
      const c = text[pos.index];
      if (c !== ' ' && c !== '\t') break;
      ++pos.index;
    }
    const actualStart = pos.index;
    let value = 0;

    parsing: {
      if (
        tag === P_HOUR_OF_DAY1 ||
        tag === P_HOUR1 ||
        (tag === P_MONTH && count <= 2) ||
        (tag === P_MONTH_STANDALONE && count <= 2) ||
        tag === P_YEAR ||
        tag === P_WEEK_YEAR
      ) {
        const n = this.parseNumber(text, pos, obeyCount, start, count);
        if (n === undefined || n === null) break parsing;
        value = n;
      }

      let index: number;
      switch (tag) {
        case P_ERA:
          if ((index = matchString(text, start, ERA, d.eras, calb)) > 0) return index;
          break parsing;

        case P_WEEK_YEAR:
        case P_YEAR:
          if (
            count <= 2 &&
            pos.index - actualStart === 2 &&
            javaDigit(text.charCodeAt(actualStart)) >= 0 &&
            javaDigit(text.charCodeAt(actualStart + 1)) >= 0
          ) {
            const startYear = this.defaultCenturyStart().year;
            const ambiguousTwoDigitYear = startYear % 100;
            ambiguousYear.value = value === ambiguousTwoDigitYear;
            value += Math.trunc(startYear / 100) * 100 + (value < ambiguousTwoDigitYear ? 100 : 0);
          }
          calb.set(field, value);
          return pos.index;

        case P_MONTH:
          if (count <= 2) {
            calb.set(MONTH, value - 1);
            return pos.index;
          }
          if ((index = matchString(text, start, MONTH, d.months, calb)) > 0) return index;
          if ((index = matchString(text, start, MONTH, d.shortMonths, calb)) > 0) return index;
          break parsing;

        case P_MONTH_STANDALONE:
          if (count <= 2) {
            calb.set(MONTH, value - 1);
            return pos.index;
          }
          if ((index = matchNames(text, start, MONTH, d.monthNames, calb)) > 0) return index;
          break parsing;

        case P_HOUR_OF_DAY1:
          if (!this.calendar.lenient && (value < 1 || value > 24)) break parsing;
          if (value === this.calendar.getMaximum(HOUR_OF_DAY) + 1) value = 0;
          calb.set(HOUR_OF_DAY, value);
          return pos.index;

        case P_DAY_OF_WEEK:
          if ((index = matchString(text, start, DAY_OF_WEEK, d.weekdays, calb)) > 0) return index;
          if ((index = matchString(text, start, DAY_OF_WEEK, d.shortWeekdays, calb)) > 0) return index;
          break parsing;

        case P_AM_PM:
          if ((index = matchString(text, start, AM_PM, d.ampm, calb)) > 0) return index;
          break parsing;

        case P_HOUR1:
          if (!this.calendar.lenient && (value < 1 || value > 12)) break parsing;
          if (value === this.calendar.getLeastMaximum(HOUR) + 1) value = 0;
          calb.set(HOUR, value);
          return pos.index;

        case P_ZONE_NAME:
        case P_ZONE_VALUE: {
          let sign = 0;
          let c = text[pos.index]!;
          if (c === '+') sign = 1;
          else if (c === '-') sign = -1;
          if (sign === 0) {
            if (
              (c === 'G' || c === 'g') &&
              text.length - start >= GMT.length &&
              regionMatchesIgnoreCase(text, start, GMT)
            ) {
              pos.index = start + GMT.length;
              if (text.length - pos.index > 0) {
                c = text[pos.index]!;
                if (c === '+') sign = 1;
                else if (c === '-') sign = -1;
              }
              if (sign === 0) {
                calb.set(ZONE_OFFSET, 0).set(DST_OFFSET, 0);
                return pos.index;
              }
              const i = subParseNumericZone(text, ++pos.index, sign, 0, true, calb);
              if (i > 0) return i;
              pos.index = -i;
            } else {
              const i = this.subParseZoneString(text, pos.index, calb);
              if (i > 0) return i;
              pos.index = -i;
            }
          } else {
            const i = subParseNumericZone(text, ++pos.index, sign, 0, false, calb);
            if (i > 0) return i;
            pos.index = -i;
          }
          break parsing;
        }

        case P_ISO_ZONE: {
          if (text.length - pos.index <= 0) break parsing;
          const c = text[pos.index];
          if (c === 'Z') {
            calb.set(ZONE_OFFSET, 0).set(DST_OFFSET, 0);
            return ++pos.index;
          }
          let sign: number;
          if (c === '+') sign = 1;
          else if (c === '-') sign = -1;
          else {
            ++pos.index;
            break parsing;
          }
          const i = subParseNumericZone(text, ++pos.index, sign, count, count === 3, calb);
          if (i > 0) return i;
          pos.index = -i;
          break parsing;
        }

        default: {
          const n = this.parseNumber(text, pos, obeyCount, start, count);
          if (n === undefined) break parsing;
          if (n !== null) {
            calb.set(field, n);
            return pos.index;
          }
          break parsing;
        }
      }
    }
    origPos.errorIndex = pos.index;
    return -1;
  }

  private subParseZoneString(text: string, start: number, calb: CalendarBuilder): number {
    let useSameName = false;
    const current = this.calendar.zone;
    const rows = zoneStrings(this.locale);
    let tz: JavaTimeZone | null = null;
    let names: string[] = [];
    let nameIndex = 0;
    const tryRow = (row: { id: string; names: string[] } | undefined) => {
      if (!row) return false;
      const i = matchZoneString(text, start, row.names);
      if (i > 0) {
        nameIndex = i;
        names = row.names;
        if (i <= 2) useSameName = equalsIgnoreCase(row.names[i - 1]!, row.names[i + 1]!);
        tz = getTimeZone(row.id);
        return true;
      }
      return false;
    };
    if (!tryRow(rows.find((r) => r.id === current.id))) {
      if (!tryRow(rows.find((r) => r.id === DEFAULT_ZONE_ID))) {
        for (const row of rows) if (tryRow(row)) break;
      }
    }
    if (tz === null) return -start;
    const zone: JavaTimeZone = tz;
    if (zone.id !== current.id) this.calendar.setTimeZone(zone);
    const dstAmount = nameIndex >= 3 ? zone.dstSavings : 0;
    if (!(useSameName || (nameIndex >= 3 && dstAmount === 0))) {
      calb.clear(ZONE_OFFSET).set(DST_OFFSET, dstAmount);
    }
    return start + names[nameIndex - 1]!.length;
  }
}

function equalsIgnoreCase(a: string, b: string): boolean {
  return a.length === b.length && regionMatchesIgnoreCase(a, 0, b);
}

/** Index 1..4 of the matching name (long std, short std, long dst, short dst), or -1. */
function matchZoneString(text: string, start: number, names: string[]): number {
  for (let i = 1; i <= 4; ++i) {
    const name = names[i - 1]!;
    if (regionMatchesIgnoreCase(text, start, name)) return i;
  }
  return -1;
}

function matchString(
  text: string,
  start: number,
  field: number,
  data: string[],
  calb: CalendarBuilder,
): number {
  let i = field === DAY_OF_WEEK ? 1 : 0;
  let bestMatchLength = 0;
  let bestMatch = -1;
  for (; i < data.length; ++i) {
    const length = data[i]!.length;
    if (length > bestMatchLength && regionMatchesIgnoreCase(text, start, data[i]!)) {
      bestMatch = i;
      bestMatchLength = length;
    }
  }
  if (bestMatch >= 0) {
    calb.set(field, bestMatch);
    return start + bestMatchLength;
  }
  return -start;
}

function matchNames(
  text: string,
  start: number,
  field: number,
  data: [string, number][],
  calb: CalendarBuilder,
): number {
  let best: [string, number] | null = null;
  for (const entry of data) {
    if (best === null || entry[0].length > best[0].length) {
      if (regionMatchesIgnoreCase(text, start, entry[0])) best = entry;
    }
  }
  if (best) {
    calb.set(field, best[1]);
    return start + best[0].length;
  }
  return -start;
}

function isAsciiDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

function subParseNumericZone(
  text: string,
  start: number,
  sign: number,
  count: number,
  colon: boolean,
  calb: CalendarBuilder,
): number {
  let index = start;
  const at = (i: number): string => {
    if (i >= text.length) throw OUT_OF_BOUNDS;
    return text[i]!;
  };
  try {
    let c = at(index++);
    if (!isAsciiDigit(c)) return 1 - index;
    let hours = c.charCodeAt(0) - 48;
    c = at(index++);
    if (isAsciiDigit(c)) {
      hours = hours * 10 + (c.charCodeAt(0) - 48);
    } else {
      if (count > 0 || !colon) return 1 - index;
      --index;
    }
    if (hours > 23) return 1 - index;
    let minutes = 0;
    if (count !== 1) {
      c = at(index++);
      if (colon) {
        if (c !== ':') return 1 - index;
        c = at(index++);
      }
      if (!isAsciiDigit(c)) return 1 - index;
      minutes = c.charCodeAt(0) - 48;
      c = at(index++);
      if (!isAsciiDigit(c)) return 1 - index;
      minutes = minutes * 10 + (c.charCodeAt(0) - 48);
      if (minutes > 59) return 1 - index;
    }
    minutes += hours * 60;
    calb.set(ZONE_OFFSET, minutes * 60000 * sign).set(DST_OFFSET, 0);
    return index;
  } catch (e) {
    if (e !== OUT_OF_BOUNDS) throw e;
  }
  return 1 - index;
}

const OUT_OF_BOUNDS = new Error('index out of bounds');
