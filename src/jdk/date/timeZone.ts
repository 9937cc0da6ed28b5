/**
 * java.util.TimeZone as Java 17 resolves and applies it.
 *
 * - Ids: exactly the JDK's ids (case-sensitive), custom ids "GMT+h", "GMT+hh:mm", "GMT-hhmm"
 *   (normalized to "GMT+hh:mm"), and anything else silently becomes "GMT".
 * - Offsets: the IANA rules come from Intl (Node's ICU), with Java's ZoneInfo quirks on top: before
 *   1900-01-01T00:00Z a zone uses its current raw offset (no LMT), and EST/MST/HST are fixed offsets.
 * - The split of an offset into standard + daylight (Calendar ZONE_OFFSET / DST_OFFSET, which picks
 *   the daylight name for 'z') is the smaller offset of January 1 and July 1 of the year as standard.
 */
import { ZONE_IDS, ZONE_RAW_SECONDS, ZONE_DST_MINUTES } from '../data/zoneData.js';

const UTC1900 = -2208988800000;
const ZONE_INDEX = new Map(ZONE_IDS.map((id, i) => [id, i]));
const FIXED_JAVA_ZONES: Record<string, number> = { EST: -18000000, MST: -25200000, HST: -36000000 };

export interface JavaTimeZone {
  /** Java's getID(). */
  readonly id: string;
  /** getRawOffset(): the current standard offset in ms. */
  readonly rawOffset: number;
  /** getDSTSavings() in ms. */
  readonly dstSavings: number;
  /** Index in the JDK id list, -1 for custom zones. */
  readonly index: number;
  /** [standard, daylight] offsets in ms at a UTC instant. */
  getOffsets(utcMs: number): [number, number];
  /** [standard, daylight] offsets for a local wall time, resolving gaps and overlaps as ZoneInfo does. */
  getOffsetsByWall(wallMs: number): [number, number];
}

/** Parses a custom id the way JDK 17's TimeZone.parseCustomTimeZone does; returns the offset in ms. */
function parseCustomOffset(id: string): number | undefined {
  const length = id.length;
  if (length < 5 || !id.startsWith('GMT')) return undefined;
  let index = 3;
  let c = id[index++];
  let negative = false;
  if (c === '-') negative = true;
  else if (c !== '+') return undefined;
  let hours = 0;
  let num = 0;
  let countDelim = 0;
  let len = 0;
  while (index < length) {
    c = id[index++]!;
    if (c === ':') {
      if (countDelim > 0) return undefined;
      if (len > 2) return undefined;
      hours = num;
      countDelim++;
      num = 0;
      len = 0;
      continue;
    }
    if (c < '0' || c > '9') return undefined;
    num = num * 10 + (c.charCodeAt(0) - 48);
    len++;
  }
  if (countDelim === 0) {
    if (len <= 2) {
      hours = num;
      num = 0;
    } else {
      hours = Math.trunc(num / 100);
      num %= 100;
    }
  } else if (len !== 2) {
    return undefined;
  }
  if (hours > 23 || num > 59) return undefined;
  const offset = (hours * 60 + num) * 60000;
  return negative ? -offset : offset;
}

/** Java's custom id for an offset: "GMT+01:00", "GMT-05:30". */
export function customZoneId(offsetMs: number): string {
  let offset = Math.trunc(offsetMs / 60000);
  const sign = offset >= 0 ? '+' : '-';
  offset = Math.abs(offset);
  const hh = Math.trunc(offset / 60);
  const mm = offset % 60;
  return `GMT${sign}${String(hh).padStart(2, '0')}:${String(mm).padStart(2, '0')}`;
}

/** The id Java 17 reports for TimeZone.getTimeZone(id).getID(): unknown or wrong-case ids give "GMT". */
export function javaTimeZone(id: string): string {
  if (ZONE_INDEX.has(id)) return id;
  const custom = parseCustomOffset(id);
  if (custom !== undefined) {
    if (custom === 0) return id[3] === '-' ? 'GMT-00:00' : 'GMT+00:00';
    return customZoneId(custom);
  }
  return 'GMT';
}

class FixedZone implements JavaTimeZone {
  constructor(
    readonly id: string,
    readonly rawOffset: number,
    readonly index: number,
  ) {}
  readonly dstSavings = 0;
  getOffsets(): [number, number] {
    return [this.rawOffset, 0];
  }
  getOffsetsByWall(): [number, number] {
    return [this.rawOffset, 0];
  }
}

const WEEK = 7 * 86400;

/** A zone whose rules come from Intl; offsets are computed per UTC year and cached. */
class IntlZone implements JavaTimeZone {
  private readonly dtf: Intl.DateTimeFormat;
  /** Per UTC year: offset (s) at Jan 1 00:00Z, then pairs [transition second, offset after (s)]. */
  private readonly years = new Map<number, number[]>();

  constructor(
    readonly id: string,
    readonly rawOffset: number,
    readonly dstSavings: number,
    readonly index: number,
  ) {
    this.dtf = new Intl.DateTimeFormat('en-US', {
      timeZone: id,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  }

  /** Offset in seconds from Intl at a UTC second (only used from 1900 on, so no eras). */
  private intlOffset(sec: number): number {
    const p: Record<string, number> = {};
    for (const part of this.dtf.formatToParts(sec * 1000)) {
      if (part.type !== 'literal') p[part.type] = Number(part.value);
    }
    const local = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) / 1000;
    return local - sec;
  }

  private findChange(from: number, fromOffset: number, to: number, out: number[]): void {
    // Invariant: offset(from) = fromOffset, offset(to) differs; find the first second with a new offset.
    let lo = from;
    let hi = to;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (this.intlOffset(mid) === fromOffset) lo = mid;
      else hi = mid;
    }
    const after = this.intlOffset(hi);
    out.push(hi, after);
    const end = this.intlOffset(to);
    if (end !== after) this.findChange(hi, after, to, out);
  }

  private yearTable(year: number): number[] {
    let table = this.years.get(year);
    if (table) return table;
    const start = Date.UTC(year, 0, 1) / 1000;
    const end = Date.UTC(year + 1, 0, 1) / 1000;
    const first = this.intlOffset(start);
    table = [first];
    let t = start;
    let offset = first;
    while (t < end) {
      const next = Math.min(t + WEEK, end);
      const o = this.intlOffset(next);
      if (o !== offset) {
        this.findChange(t, offset, next, table);
        offset = o;
      }
      t = next;
    }
    this.years.set(year, table);
    return table;
  }

  /** Total offset (ms) at a UTC instant, Java-style (raw offset before 1900). */
  offsetAt(utcMs: number): number {
    if (utcMs < UTC1900) return this.rawOffset;
    const sec = Math.floor(utcMs / 1000);
    const table = this.yearTable(new Date(sec * 1000).getUTCFullYear());
    let offset = table[0]!;
    for (let i = 1; i < table.length && table[i]! <= sec; i += 2) offset = table[i + 1]!;
    return offset * 1000;
  }

  private standardOffset(utcMs: number, total: number): number {
    if (utcMs < UTC1900) return total;
    const year = new Date(utcMs).getUTCFullYear();
    const jan = this.offsetAt(Math.max(Date.UTC(year, 0, 1), UTC1900));
    const jul = this.offsetAt(Date.UTC(year, 6, 1));
    return Math.min(total, jan, jul);
  }

  getOffsets(utcMs: number): [number, number] {
    const total = this.offsetAt(utcMs);
    const std = this.standardOffset(utcMs, total);
    return [std, total - std];
  }

  getOffsetsByWall(wallMs: number): [number, number] {
    // ZoneInfo picks the last transition whose (instant + offset after) is <= the wall time.
    const lo = wallMs - 36 * 3600000;
    const hi = wallMs + 36 * 3600000;
    const oLo = this.offsetAt(lo);
    const oHi = this.offsetAt(hi);
    let utc: number;
    if (oLo === oHi) {
      utc = wallMs - oLo;
    } else {
      let a = lo;
      let b = hi;
      while (b - a > 1) {
        const mid = Math.floor((a + b) / 2);
        if (this.offsetAt(mid) === oLo) a = mid;
        else b = mid;
      }
      const after = this.offsetAt(b);
      utc = wallMs >= b + after ? wallMs - after : wallMs - oLo;
    }
    return this.getOffsets(utc);
  }
}

const zoneCache = new Map<string, JavaTimeZone>();

/** TimeZone.getTimeZone(id) of Java 17 (unknown ids fall back to GMT). */
export function getTimeZone(id: string): JavaTimeZone {
  let zone = zoneCache.get(id);
  if (zone) return zone;
  const javaId = javaTimeZone(id);
  zone = zoneCache.get(javaId);
  if (!zone) {
    const index = ZONE_INDEX.get(javaId) ?? -1;
    if (index < 0) {
      zone = new FixedZone(javaId, parseCustomOffset(javaId) ?? 0, -1);
    } else if (javaId in FIXED_JAVA_ZONES) {
      zone = new FixedZone(javaId, FIXED_JAVA_ZONES[javaId]!, index);
    } else {
      const raw = ZONE_RAW_SECONDS[index]! * 1000;
      const dst = ZONE_DST_MINUTES[index]! * 60000;
      zone = new IntlZone(javaId, raw, dst, index);
    }
    zoneCache.set(javaId, zone);
  }
  zoneCache.set(id, zone);
  return zone;
}

/** A zone with a fixed offset and a Java id ("GMT" or a custom id), as parse results use. */
export function fixedZone(offsetMs: number): JavaTimeZone {
  return offsetMs === 0 ? getTimeZone('GMT') : getTimeZone(customZoneId(offsetMs));
}
