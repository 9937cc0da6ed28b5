/**
 * java.util.TimeZone of JDK 17, exactly: the zone rules are the JDK's own tzdb.dat (bundled), turned
 * into sun.util.calendar.ZoneInfo tables the way ZoneInfoFile does it — transitions from 1900 to
 * 2037, the current raw offset before 1900 (no LMT), a SimpleTimeZone rule after 2037, Java's
 * standard/daylight split (ZONE_OFFSET / DST_OFFSET) and its resolution of local times in gaps and
 * overlaps.
 *
 * Ids are Java's: exact case, custom "GMT+h[h][[:]mm]" (normalized to "GMT+hh:mm"), anything else
 * silently becomes "GMT".
 */
import { zlib } from '../on-demand.js';
import { TZDB_GZIP_BASE64, ZONE_IDS } from '../tables/zoneData.js';
import {
  floorDivide,
  gregorian,
  getDayOfWeekDateOnOrBefore,
  mod,
  EPOCH_OFFSET,
  ONE_DAY,
} from './calendarSystem.js';

const ZONE_INDEX = new Map(ZONE_IDS.map((id, i) => [id, i]));
/** ZoneInfoFile: these three are fixed offsets, not the tzdb zones of the same name. */
const FIXED_JAVA_ZONES: Record<string, number> = { EST: -18000000, MST: -25200000, HST: -36000000 };
/** ZoneInfoFile's "old mappings" (java.time.ZoneId.SHORT_IDS without EST/MST/HST). */
const OLD_MAPPINGS: Record<string, string> = {
  ACT: 'Australia/Darwin',
  AET: 'Australia/Sydney',
  AGT: 'America/Argentina/Buenos_Aires',
  ART: 'Africa/Cairo',
  AST: 'America/Anchorage',
  BET: 'America/Sao_Paulo',
  BST: 'Asia/Dhaka',
  CAT: 'Africa/Harare',
  CNT: 'America/St_Johns',
  CST: 'America/Chicago',
  CTT: 'Asia/Shanghai',
  EAT: 'Africa/Addis_Ababa',
  ECT: 'Europe/Paris',
  IET: 'America/Indiana/Indianapolis',
  IST: 'Asia/Kolkata',
  JST: 'Asia/Tokyo',
  MIT: 'Pacific/Apia',
  NET: 'Asia/Yerevan',
  NST: 'Pacific/Auckland',
  PLT: 'Asia/Karachi',
  PNT: 'America/Phoenix',
  PRT: 'America/Puerto_Rico',
  PST: 'America/Los_Angeles',
  SST: 'Pacific/Guadalcanal',
  VST: 'Asia/Ho_Chi_Minh',
};

export interface JavaTimeZone {
  /** Java's getID(). */
  readonly id: string;
  /** getRawOffset(): the current standard offset in ms. */
  readonly rawOffset: number;
  /** getDSTSavings() in ms. */
  readonly dstSavings: number;
  /** Index in the JDK id list (display names), -1 for custom zones. */
  readonly index: number;
  /** [standard, daylight] offsets in ms at a UTC instant. */
  getOffsets(utcMs: number): [number, number];
  /** [standard, daylight] offsets for a local wall time, resolving gaps and overlaps as ZoneInfo does. */
  getOffsetsByWall(wallMs: number): [number, number];
}

// ------------------------------------------------------------------ ids

/** JDK 17's TimeZone.parseCustomTimeZone; returns the offset in ms. */
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

/** ZoneInfoFile.toCustomID: "GMT+01:00", "GMT-05:30". */
export function customZoneId(offsetMs: number): string {
  let offset = Math.trunc(offsetMs / 1000);
  const sign = offset >= 0 ? '+' : '-';
  offset = Math.abs(offset);
  const hh = Math.trunc(offset / 3600);
  const mm = Math.trunc((offset % 3600) / 60);
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

// ------------------------------------------------------------------ tzdb.dat (ZoneInfoFile.load)

interface Tzdb {
  regions: string[];
  rules: Uint8Array[];
  indices: number[];
  aliases: Map<string, string>;
}

let tzdb: Tzdb | null = null;

class DataInput {
  private pos = 0;
  private readonly view: DataView;
  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  byte(): number {
    return this.view.getInt8(this.pos++);
  }
  short(): number {
    const v = this.view.getInt16(this.pos);
    this.pos += 2;
    return v;
  }
  int(): number {
    const v = this.view.getInt32(this.pos);
    this.pos += 4;
    return v;
  }
  long(): number {
    const v = this.view.getBigInt64(this.pos);
    this.pos += 8;
    return Number(v);
  }
  utf(): string {
    const n = this.view.getUint16(this.pos);
    this.pos += 2;
    const s = Buffer.from(this.bytes.subarray(this.pos, this.pos + n)).toString('utf8');
    this.pos += n;
    return s;
  }
  fully(n: number): Uint8Array {
    const b = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }
}

function loadTzdb(): Tzdb {
  if (tzdb) return tzdb;
  const dis = new DataInput(zlib().gunzipSync(Buffer.from(TZDB_GZIP_BASE64, 'base64')));
  if (dis.byte() !== 1) throw new Error('tzdb.dat: format not recognised');
  if (dis.utf() !== 'TZDB') throw new Error('tzdb.dat: format not recognised');
  const versionCount = dis.short();
  for (let i = 0; i < versionCount; i++) dis.utf();
  const regionCount = dis.short();
  const regionArray: string[] = [];
  for (let i = 0; i < regionCount; i++) regionArray.push(dis.utf());
  const ruleCount = dis.short();
  const rules: Uint8Array[] = [];
  for (let i = 0; i < ruleCount; i++) rules.push(dis.fully(dis.short()));
  let regions: string[] = [];
  let indices: number[] = [];
  for (let i = 0; i < versionCount; i++) {
    const n = dis.short();
    regions = [];
    indices = [];
    for (let j = 0; j < n; j++) {
      regions.push(regionArray[dis.short()]!);
      indices.push(dis.short());
    }
  }
  const aliases = new Map<string, string>();
  for (let i = 0; i < versionCount; i++) {
    const n = dis.short();
    aliases.clear();
    for (let j = 0; j < n; j++) aliases.set(regionArray[dis.short()]!, regionArray[dis.short()]!);
  }
  for (const [k, v] of Object.entries(OLD_MAPPINGS)) aliases.set(k, v);
  tzdb = { regions, rules, indices, aliases };
  return tzdb;
}

function readOffset(dis: DataInput): number {
  const b = dis.byte();
  return b === 127 ? dis.int() : b * 900;
}

function readEpochSec(dis: DataInput): number {
  const hi = dis.byte() & 255;
  if (hi === 255) return dis.long();
  const mid = dis.byte() & 255;
  const lo = dis.byte() & 255;
  return ((hi << 16) + (mid << 8) + lo) * 900 - 4575744000;
}

/** ZoneInfoFile.ZoneOffsetTransitionRule. */
interface TransitionRule {
  month: number;
  dom: number;
  dow: number;
  secondOfDay: number;
  timeDefinition: number;
  standardOffset: number;
  offsetBefore: number;
  offsetAfter: number;
}

function readRule(dis: DataInput): TransitionRule {
  const data = dis.int();
  const dowByte = (data & (7 << 19)) >>> 19;
  const timeByte = (data & (31 << 14)) >>> 14;
  const stdByte = (data & (255 << 4)) >>> 4;
  const beforeByte = (data & (3 << 2)) >>> 2;
  const afterByte = data & 3;
  const month = data >>> 28;
  const dom = ((((data & (63 << 22)) >>> 22) - 32) << 24) >> 24;
  const dow = dowByte === 0 ? -1 : dowByte;
  const secondOfDay = timeByte === 31 ? dis.int() : timeByte * 3600;
  const timeDefinition = (data & (3 << 12)) >>> 12;
  const standardOffset = stdByte === 255 ? dis.int() : (stdByte - 128) * 900;
  const offsetBefore = beforeByte === 3 ? dis.int() : standardOffset + beforeByte * 1800;
  const offsetAfter = afterByte === 3 ? dis.int() : standardOffset + afterByte * 1800;
  return { month, dom, dow, secondOfDay, timeDefinition, standardOffset, offsetBefore, offsetAfter };
}

const DAYS_PER_CYCLE = 146097;
const DAYS_0000_TO_1970 = DAYS_PER_CYCLE * 5 - (30 * 365 + 7);

function isLeap(year: number): boolean {
  return mod(year, 4) === 0 && (mod(year, 100) !== 0 || mod(year, 400) === 0);
}

function lengthOfMonth(year: number, month: number): number {
  if (month === 2) return isLeap(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function toEpochDay(year: number, month: number, day: number): number {
  let total = 365 * year;
  if (year >= 0)
    total += Math.trunc((year + 3) / 4) - Math.trunc((year + 99) / 100) + Math.trunc((year + 399) / 400);
  else total -= Math.trunc(year / -4) - Math.trunc(year / -100) + Math.trunc(year / -400);
  total += Math.trunc((367 * month - 362) / 12);
  total += day - 1;
  if (month > 2) {
    total--;
    if (!isLeap(year)) total--;
  }
  return total - DAYS_0000_TO_1970;
}

function adjustDow(epochDay: number, dow: number, relative: number): number {
  const calDow = mod(epochDay + 3, 7) + 1;
  if (relative < 2 && calDow === dow) return epochDay;
  if ((relative & 1) === 0) {
    const daysDiff = calDow - dow;
    return epochDay + (daysDiff >= 0 ? 7 - daysDiff : -daysDiff);
  }
  const daysDiff = dow - calDow;
  return epochDay - (daysDiff >= 0 ? 7 - daysDiff : -daysDiff);
}

function transitionEpochSecond(r: TransitionRule, year: number): number {
  let epochDay: number;
  if (r.dom < 0) {
    epochDay = toEpochDay(year, r.month, lengthOfMonth(year, r.month) + 1 + r.dom);
    if (r.dow !== -1) epochDay = adjustDow(epochDay, r.dow, 1);
  } else {
    epochDay = toEpochDay(year, r.month, r.dom);
    if (r.dow !== -1) epochDay = adjustDow(epochDay, r.dow, 0);
  }
  const difference =
    r.timeDefinition === 1 ? -r.offsetBefore : r.timeDefinition === 2 ? -r.standardOffset : 0;
  return epochDay * 86400 + r.secondOfDay + difference;
}

/** Gregorian year of a local date (ZoneInfoFile.getYear). */
function yearOf(epochSecond: number, offset: number): number {
  return gregorian.getCalendarDateFromFixedDate(floorDivide(epochSecond + offset, 86400) + EPOCH_OFFSET).year;
}

// ------------------------------------------------------------------ ZoneInfo construction

// JDK 17 builds ZoneInfo tables up to 2037 (later JDKs go to 2100); past them a SimpleTimeZone
// rule made of the last recurring rules applies, or else the last transition's offset.
const UTC1900 = -2208988800;
const UTC2037 = 2145916799;
const LDT2037 = 2114380800;
const LASTYEAR = 2037;
/** Calendar day-of-week of a java.time DayOfWeek (1 = Monday … 7 = Sunday). */
const TO_CALENDAR_DOW = [-1, 2, 3, 4, 5, 6, 7, 1];
const WALL_TIME = 0;
const STANDARD_TIME = 1;
const UTC_TIME = 2;
/** java.time time definition (0 UTC, 1 WALL, 2 STANDARD) → SimpleTimeZone time mode. */
const TO_STZ_TIME = [UTC_TIME, WALL_TIME, STANDARD_TIME];

interface Transition {
  /** UTC ms */
  time: number;
  offsetIndex: number;
  dstIndex: number;
}

interface ZoneInfoData {
  rawOffset: number;
  dstSavings: number;
  transitions: Transition[] | null;
  offsets: number[] | null;
  params: number[] | null;
}

function buildZoneInfo(
  zoneId: string,
  standardTransitions: number[],
  standardOffsets: number[],
  savingsInstantTransitions: number[],
  wallOffsets: number[],
  lastRules: TransitionRule[],
): ZoneInfoData {
  let rawOffset: number;
  let dstSavings = 0;
  let params: number[] | null = null;
  if (standardTransitions.length > 0) rawOffset = standardOffsets[standardOffsets.length - 1]! * 1000;
  else rawOffset = standardOffsets[0]! * 1000;

  let transitions: Transition[] | null = null;
  let offsets: number[] | null = null;
  if (savingsInstantTransitions.length !== 0) {
    transitions = [];
    offsets = [];
    const offs = offsets;
    const trs = transitions;
    const indexOf = (from: number, offset: number): number => {
      offset *= 1000;
      for (; from < offs.length; from++) if (offs[from] === offset) return from;
      offs[from] = offset;
      return from;
    };
    const addTrans = (trans: number, offset: number, stdOffset: number) => {
      const offsetIndex = indexOf(0, offset);
      let dstIndex = 0;
      if (offset !== stdOffset) dstIndex = indexOf(1, offset - stdOffset);
      trs.push({ time: trans * 1000, offsetIndex: offsetIndex & 0xf, dstIndex: dstIndex & 0xf });
    };
    const getStandardOffset = (epochSec: number): number => {
      let index = 0;
      for (; index < standardTransitions.length; index++) if (epochSec < standardTransitions[index]!) break;
      return standardOffsets[index]!;
    };

    const n = savingsInstantTransitions.length;
    let lastyear = yearOf(savingsInstantTransitions[n - 1]!, wallOffsets[n - 1]!);
    let i = 0;
    let k = 1;
    while (i < n && savingsInstantTransitions[i]! < UTC1900) i++;
    if (i < n) {
      offs[0] = standardOffsets[standardOffsets.length - 1]! * 1000;
      addTrans(UTC1900, wallOffsets[i]!, getStandardOffset(UTC1900));
    }
    for (; i < n; i++) {
      const trans = savingsInstantTransitions[i]!;
      if (trans > UTC2037) {
        lastyear = LASTYEAR;
        break;
      }
      while (k < standardTransitions.length) {
        const transS = standardTransitions[k]!;
        if (transS >= UTC1900) {
          if (transS > trans) break;
          if (transS < trans) addTrans(transS, wallOffsets[i]!, standardOffsets[k + 1]!);
        }
        k++;
      }
      addTrans(trans, wallOffsets[i + 1]!, getStandardOffset(trans));
    }
    while (k < standardTransitions.length) {
      const trans = standardTransitions[k]!;
      if (trans >= UTC1900) {
        const offsetIndex = indexOf(0, wallOffsets[i]!);
        trs.push({ time: trans * 1000, offsetIndex: offsetIndex & 0xf, dstIndex: 0 });
      }
      k++;
    }
    if (lastRules.length > 1) {
      while (lastyear++ < LASTYEAR) {
        for (const zotr of lastRules)
          addTrans(transitionEpochSecond(zotr, lastyear), zotr.offsetAfter, zotr.standardOffset);
      }
      let startRule = lastRules[lastRules.length - 2]!;
      let endRule = lastRules[lastRules.length - 1]!;
      params = new Array<number>(10).fill(0);
      if (
        startRule.offsetAfter - startRule.offsetBefore < 0 &&
        endRule.offsetAfter - endRule.offsetBefore > 0
      ) {
        [startRule, endRule] = [endRule, startRule];
      }
      const encode = (rule: TransitionRule, at: number) => {
        params![at] = rule.month - 1;
        if (rule.dow === -1) {
          params![at + 1] = rule.dom;
          params![at + 2] = 0;
        } else if (rule.dom < 0 || rule.dom >= 24) {
          params![at + 1] = -1;
          params![at + 2] = TO_CALENDAR_DOW[rule.dow]!;
        } else {
          params![at + 1] = rule.dom;
          params![at + 2] = -TO_CALENDAR_DOW[rule.dow]!;
        }
        params![at + 3] = rule.secondOfDay * 1000;
        params![at + 4] = TO_STZ_TIME[rule.timeDefinition]!;
      };
      encode(startRule, 0);
      encode(endRule, 5);
      dstSavings = (startRule.offsetAfter - startRule.offsetBefore) * 1000;
      if (zoneId === 'Africa/Cairo' && params[7] === 6 && params[8] === 0) {
        params[7] = 5;
        params[8] = 86400 * 1000;
      }
    } else if (trs.length > 0) {
      if (lastyear < LASTYEAR) {
        const trans = LDT2037 - rawOffset / 1000;
        const offsetIndex = indexOf(0, rawOffset / 1000);
        trs.push({ time: trans * 1000, offsetIndex: offsetIndex & 0xf, dstIndex: 0 });
      } else if (n > 2) {
        params = lastPairParams(savingsInstantTransitions, wallOffsets, getStandardOffset);
        if (params) dstSavings = params.pop()!;
      }
    }
    if (trs.length === 0) transitions = null;
    if (offs.length === 0) offsets = null;
  }
  return { rawOffset, dstSavings, transitions, offsets, params };
}

/** ZoneInfoFile's workaround for zones with transitions up to 2037 but no recurring rule. */
function lastPairParams(
  sav: number[],
  wall: number[],
  getStandardOffset: (epochSec: number) => number,
): number[] | null {
  const m0 = sav.length;
  const startTrans = sav[m0 - 2]!;
  const startOffset = wall[m0 - 2 + 1]!;
  const startStd = getStandardOffset(startTrans);
  const endTrans = sav[m0 - 1]!;
  const endOffset = wall[m0 - 1 + 1]!;
  const endStd = getStandardOffset(endTrans);
  if (!(startOffset > startStd && endOffset === endStd)) return null;
  const local = (sec: number, offset: number) => {
    const d = new Date((sec + offset) * 1000);
    return { month: d.getUTCMonth(), day: d.getUTCDate(), secondOfDay: Math.floor(mod(sec + offset, 86400)) };
  };
  let m = m0 - 2;
  let startLDT = local(sav[m]!, wall[m]!);
  if (!(wall[m + 1]! > wall[m]!)) startLDT = local(sav[m]!, wall[m]! + (wall[m + 1]! - wall[m]!));
  m = m0 - 1;
  let endLDT = local(sav[m]!, wall[m]!);
  if (wall[m + 1]! > wall[m]!) endLDT = local(sav[m]!, wall[m]! + (wall[m + 1]! - wall[m]!));
  return [
    startLDT.month,
    startLDT.day,
    0,
    startLDT.secondOfDay * 1000,
    WALL_TIME,
    endLDT.month,
    endLDT.day,
    0,
    endLDT.secondOfDay * 1000,
    WALL_TIME,
    (startOffset - startStd) * 1000,
  ];
}

function readZoneInfo(bytes: Uint8Array, zoneId: string): ZoneInfoData {
  const dis = new DataInput(bytes);
  dis.byte();
  const stdSize = dis.int();
  const stdTrans: number[] = [];
  for (let i = 0; i < stdSize; i++) stdTrans.push(readEpochSec(dis));
  const stdOffsets: number[] = [];
  for (let i = 0; i <= stdSize; i++) stdOffsets.push(readOffset(dis));
  const savSize = dis.int();
  const savTrans: number[] = [];
  for (let i = 0; i < savSize; i++) savTrans.push(readEpochSec(dis));
  const savOffsets: number[] = [];
  for (let i = 0; i <= savSize; i++) savOffsets.push(readOffset(dis));
  const ruleSize = dis.byte();
  const rules: TransitionRule[] = [];
  for (let i = 0; i < ruleSize; i++) rules.push(readRule(dis));
  return buildZoneInfo(zoneId, stdTrans, stdOffsets, savTrans, savOffsets, rules);
}

// ------------------------------------------------------------------ SimpleTimeZone (after 2037)

const DOM_MODE = 1;
const DOW_IN_MONTH_MODE = 2;
const DOW_GE_DOM_MODE = 3;
const DOW_LE_DOM_MODE = 4;

interface StzRule {
  mode: number;
  month: number;
  day: number;
  dayOfWeek: number;
  time: number;
  timeMode: number;
}

function decodeRule(month: number, day: number, dayOfWeek: number, time: number, timeMode: number): StzRule {
  let mode = DOM_MODE;
  if (dayOfWeek !== 0) {
    if (dayOfWeek > 0) mode = DOW_IN_MONTH_MODE;
    else {
      dayOfWeek = -dayOfWeek;
      if (day > 0) mode = DOW_GE_DOM_MODE;
      else {
        day = -day;
        mode = DOW_LE_DOM_MODE;
      }
    }
  }
  return { mode, month, day, dayOfWeek, time, timeMode };
}

class SimpleTimeZone {
  private readonly start: StzRule;
  private readonly end: StzRule;
  private readonly useDaylight: boolean;

  constructor(
    readonly rawOffset: number,
    params: number[],
    private readonly dstSavings: number,
  ) {
    this.start = decodeRule(params[0]!, params[1]!, params[2]!, params[3]!, params[4]!);
    this.end = decodeRule(params[5]!, params[6]!, params[7]!, params[8]!, params[9]!);
    this.useDaylight = params[1] !== 0 && params[6] !== 0;
  }

  getOffset(date: number): number {
    if (!this.useDaylight) return this.rawOffset;
    const fixed = floorDivide(date + this.rawOffset, ONE_DAY) + EPOCH_OFFSET;
    const year = gregorian.getCalendarDateFromFixedDate(fixed).year;
    const start = this.transition(this.start, year, false);
    const end = this.transition(this.end, year, true);
    let offset = this.rawOffset;
    if (start <= end) {
      if (date >= start && date < end) offset += this.dstSavings;
    } else if (date < end) {
      if (date >= this.transition(this.start, year - 1, false)) offset += this.dstSavings;
    } else if (date >= start) {
      if (date < this.transition(this.end, year + 1, true)) offset += this.dstSavings;
    }
    return offset;
  }

  private transition(rule: StzRule, year: number, isEnd: boolean): number {
    let time = rule.time;
    if (rule.timeMode !== UTC_TIME) time -= this.rawOffset;
    if (isEnd && rule.timeMode === WALL_TIME) time -= this.dstSavings;
    const month = rule.month + 1;
    let fd: number;
    switch (rule.mode) {
      case DOM_MODE:
        fd = gregorian.getFixedDate(year, month, rule.day);
        break;
      case DOW_IN_MONTH_MODE: {
        let base = gregorian.getFixedDate(year, month, 1);
        if (rule.day < 0) base = gregorian.getFixedDate(year, month, gregorian.getMonthLength(year, month));
        fd = nthDayOfWeek(rule.day, rule.dayOfWeek, base);
        break;
      }
      case DOW_GE_DOM_MODE:
        fd = nthDayOfWeek(1, rule.dayOfWeek, gregorian.getFixedDate(year, month, rule.day));
        break;
      default:
        fd = nthDayOfWeek(-1, rule.dayOfWeek, gregorian.getFixedDate(year, month, rule.day));
    }
    return (fd - EPOCH_OFFSET) * ONE_DAY + time;
  }
}

function nthDayOfWeek(nth: number, dayOfWeek: number, fd: number): number {
  if (nth > 0) return 7 * nth + getDayOfWeekDateOnOrBefore(fd - 1, dayOfWeek);
  return 7 * nth + getDayOfWeekDateOnOrBefore(fd + 7, dayOfWeek);
}

// ------------------------------------------------------------------ ZoneInfo

const UTC_TYPE = 0;
const STANDARD_TYPE = 1;
const WALL_TYPE = 2;

class ZoneInfo implements JavaTimeZone {
  private readonly transitions: Transition[] | null;
  private readonly offsets: number[] | null;
  private readonly lastRule: SimpleTimeZone | null;
  readonly rawOffset: number;
  readonly dstSavings: number;

  constructor(
    readonly id: string,
    readonly index: number,
    data: ZoneInfoData,
  ) {
    this.rawOffset = data.rawOffset;
    this.dstSavings = data.dstSavings;
    this.transitions = data.transitions;
    this.offsets = data.offsets;
    this.lastRule = data.params ? new SimpleTimeZone(data.rawOffset, data.params, data.dstSavings) : null;
  }

  getOffsets(utcMs: number): [number, number] {
    return this.compute(utcMs, UTC_TYPE);
  }

  getOffsetsByWall(wallMs: number): [number, number] {
    return this.compute(wallMs, WALL_TYPE);
  }

  private compute(date: number, type: number): [number, number] {
    const transitions = this.transitions;
    const offsets = this.offsets;
    if (!transitions || !offsets) return [this.rawOffset, 0];
    const index = this.transitionIndex(date, type);
    if (index < 0) return [this.rawOffset, 0];
    if (index < transitions.length) {
      const t = transitions[index]!;
      const offset = offsets[t.offsetIndex]!;
      const save = t.dstIndex === 0 ? 0 : offsets[t.dstIndex]!;
      return [offset - save, save];
    }
    const tz = this.lastRule;
    if (tz) {
      const rawoffset = tz.rawOffset;
      let msec = date;
      if (type !== UTC_TYPE) msec -= this.rawOffset;
      let dstoffset = tz.getOffset(msec) - this.rawOffset;
      if (dstoffset > 0 && tz.getOffset(msec - dstoffset) === rawoffset && type === WALL_TYPE) dstoffset = 0;
      return [rawoffset, dstoffset];
    }
    const t = transitions[transitions.length - 1]!;
    const offset = offsets[t.offsetIndex]!;
    const save = t.dstIndex === 0 ? 0 : offsets[t.dstIndex]!;
    return [offset - save, save];
  }

  private transitionIndex(date: number, type: number): number {
    const transitions = this.transitions!;
    const offsets = this.offsets!;
    let low = 0;
    let high = transitions.length - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const t = transitions[mid]!;
      let midVal = t.time;
      if (type !== UTC_TYPE) midVal += offsets[t.offsetIndex]!;
      if (type === STANDARD_TYPE && t.dstIndex !== 0) midVal -= offsets[t.dstIndex]!;
      if (midVal < date) low = mid + 1;
      else if (midVal > date) high = mid - 1;
      else return mid;
    }
    if (low >= transitions.length) return low;
    return low - 1;
  }
}

class FixedZone implements JavaTimeZone {
  readonly dstSavings = 0;
  constructor(
    readonly id: string,
    readonly rawOffset: number,
    readonly index: number,
  ) {}
  getOffsets(): [number, number] {
    return [this.rawOffset, 0];
  }
  getOffsetsByWall(): [number, number] {
    return [this.rawOffset, 0];
  }
}

const zoneCache = new Map<string, JavaTimeZone>();

function createZone(javaId: string): JavaTimeZone {
  const index = ZONE_INDEX.get(javaId) ?? -1;
  if (index < 0) return new FixedZone(javaId, parseCustomOffset(javaId) ?? 0, -1);
  if (javaId in FIXED_JAVA_ZONES) return new FixedZone(javaId, FIXED_JAVA_ZONES[javaId]!, index);
  const db = loadTzdb();
  const zid = db.aliases.get(javaId) ?? javaId;
  const region = binarySearch(db.regions, zid);
  if (region < 0) return new FixedZone(javaId, 0, index);
  return new ZoneInfo(javaId, index, readZoneInfo(db.rules[db.indices[region]!]!, zid));
}

function binarySearch(sorted: string[], key: string): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid]!;
    if (v < key) lo = mid + 1;
    else if (v > key) hi = mid - 1;
    else return mid;
  }
  return -1;
}

/** TimeZone.getTimeZone(id) of Java 17 (unknown ids fall back to GMT). */
export function getTimeZone(id: string): JavaTimeZone {
  let zone = zoneCache.get(id);
  if (zone) return zone;
  const javaId = javaTimeZone(id);
  zone = zoneCache.get(javaId);
  if (!zone) {
    zone = createZone(javaId);
    zoneCache.set(javaId, zone);
  }
  zoneCache.set(id, zone);
  return zone;
}
