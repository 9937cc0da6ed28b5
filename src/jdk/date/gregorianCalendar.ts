/**
 * Port of java.util.GregorianCalendar (with the parts of java.util.Calendar it relies on) of JDK 17,
 * for the default Julian/Gregorian cutover of 1582-10-15: field computation, field resolution with
 * stamps (the most recently set fields win), non-lenient validation, week numbering, week years,
 * and add() with Java's time-zone adjustments.
 */
import {
  EPOCH_OFFSET,
  ONE_DAY,
  floorDivide,
  getDayOfWeekDateOnOrBefore,
  gregorian,
  isGregorianLeapYear,
  isJulianLeapYear,
  julian,
  mod,
  type CalendarDate,
  type CalendarSystem,
} from './calendarSystem.js';
import { getTimeZone, type JavaTimeZone } from './timeZone.js';

export const ERA = 0;
export const YEAR = 1;
export const MONTH = 2;
export const WEEK_OF_YEAR = 3;
export const WEEK_OF_MONTH = 4;
export const DAY_OF_MONTH = 5;
export const DAY_OF_YEAR = 6;
export const DAY_OF_WEEK = 7;
export const DAY_OF_WEEK_IN_MONTH = 8;
export const AM_PM = 9;
export const HOUR = 10;
export const HOUR_OF_DAY = 11;
export const MINUTE = 12;
export const SECOND = 13;
export const MILLISECOND = 14;
export const ZONE_OFFSET = 15;
export const DST_OFFSET = 16;
export const FIELD_COUNT = 17;

const BCE = 0;
const CE = 1;
const UNSET = 0;
const COMPUTED = 1;
const MINIMUM_USER_STAMP = 2;
const ALL_FIELDS = (1 << FIELD_COUNT) - 1;
const ONE_SECOND = 1000;
const ONE_MINUTE = 60000;
const ONE_HOUR = 3600000;
const EPOCH_YEAR = 1970;

const GREGORIAN_CUTOVER = -12219292800000;
const CUTOVER_DATE = floorDivide(GREGORIAN_CUTOVER, ONE_DAY) + EPOCH_OFFSET; // 577736
const CUTOVER_YEAR = 1582;
const CUTOVER_YEAR_JULIAN = 1582;

const mask = (field: number) => 1 << field;
const ERA_MASK = mask(ERA);
const YEAR_MASK = mask(YEAR);
const MONTH_MASK = mask(MONTH);
const WEEK_OF_YEAR_MASK = mask(WEEK_OF_YEAR);
const WEEK_OF_MONTH_MASK = mask(WEEK_OF_MONTH);
const DAY_OF_MONTH_MASK = mask(DAY_OF_MONTH);
const DAY_OF_YEAR_MASK = mask(DAY_OF_YEAR);
const DAY_OF_WEEK_MASK = mask(DAY_OF_WEEK);
const DAY_OF_WEEK_IN_MONTH_MASK = mask(DAY_OF_WEEK_IN_MONTH);
const AM_PM_MASK = mask(AM_PM);
const HOUR_MASK = mask(HOUR);
const HOUR_OF_DAY_MASK = mask(HOUR_OF_DAY);
const MINUTE_MASK = mask(MINUTE);
const SECOND_MASK = mask(SECOND);
const MILLISECOND_MASK = mask(MILLISECOND);
const ZONE_OFFSET_MASK = mask(ZONE_OFFSET);
const DST_OFFSET_MASK = mask(DST_OFFSET);

const MIN_VALUES = [BCE, 1, 0, 1, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, -13 * ONE_HOUR, 0];
const LEAST_MAX_VALUES = [
  CE,
  292269054,
  11,
  52,
  4,
  28,
  365,
  7,
  4,
  1,
  11,
  23,
  59,
  59,
  999,
  14 * ONE_HOUR,
  20 * ONE_MINUTE,
];
const MAX_VALUES = [
  CE,
  292278994,
  11,
  53,
  6,
  31,
  366,
  7,
  6,
  1,
  11,
  23,
  59,
  59,
  999,
  14 * ONE_HOUR,
  2 * ONE_HOUR,
];

const FIELD_NAMES = [
  'ERA',
  'YEAR',
  'MONTH',
  'WEEK_OF_YEAR',
  'WEEK_OF_MONTH',
  'DAY_OF_MONTH',
  'DAY_OF_YEAR',
  'DAY_OF_WEEK',
  'DAY_OF_WEEK_IN_MONTH',
  'AM_PM',
  'HOUR',
  'HOUR_OF_DAY',
  'MINUTE',
  'SECOND',
  'MILLISECOND',
  'ZONE_OFFSET',
  'DST_OFFSET',
];

/** Java's IllegalArgumentException from Calendar (the message names the field). */
export class CalendarFieldError extends Error {}

const isFieldSet = (fieldMask: number, field: number) => (fieldMask & (1 << field)) !== 0;

function aggregateStamp(a: number, b: number): number {
  return a === UNSET || b === UNSET ? UNSET : Math.max(a, b);
}

export class GregorianCalendar {
  zone: JavaTimeZone;
  lenient = true;
  firstDayOfWeek: number;
  minimalDaysInFirstWeek: number;

  time = 0;
  private readonly fields = new Array<number>(FIELD_COUNT).fill(0);
  private readonly stamp = new Array<number>(FIELD_COUNT).fill(UNSET);
  private readonly isSetFlags = new Array<boolean>(FIELD_COUNT).fill(false);
  private isTimeSet = false;
  private areFieldsSet = false;
  private areAllFieldsSet = false;
  private nextStamp = MINIMUM_USER_STAMP;
  private zoneOffsets: [number, number] = [0, 0];
  private calsys: CalendarSystem | null = null;
  private cdate: CalendarDate | null = null;
  private cachedFixedDate = Number.MIN_SAFE_INTEGER;

  constructor(zone: JavaTimeZone, firstDayOfWeek = 1, minimalDaysInFirstWeek = 1) {
    this.zone = zone;
    this.firstDayOfWeek = firstDayOfWeek;
    this.minimalDaysInFirstWeek = minimalDaysInFirstWeek;
  }

  clone(): GregorianCalendar {
    const c = new GregorianCalendar(this.zone, this.firstDayOfWeek, this.minimalDaysInFirstWeek);
    c.lenient = this.lenient;
    c.time = this.time;
    for (let i = 0; i < FIELD_COUNT; i++) {
      c.fields[i] = this.fields[i]!;
      c.stamp[i] = this.stamp[i]!;
      c.isSetFlags[i] = this.isSetFlags[i]!;
    }
    c.isTimeSet = this.isTimeSet;
    c.areFieldsSet = this.areFieldsSet;
    c.areAllFieldsSet = this.areAllFieldsSet;
    c.nextStamp = this.nextStamp;
    c.zoneOffsets = [this.zoneOffsets[0], this.zoneOffsets[1]];
    c.calsys = this.calsys;
    c.cdate = this.cdate ? { ...this.cdate } : null;
    c.cachedFixedDate = this.cachedFixedDate;
    return c;
  }

  // ------------------------------------------------------------------ Calendar basics

  getMinimum(field: number): number {
    return MIN_VALUES[field]!;
  }
  getMaximum(field: number): number {
    return MAX_VALUES[field]!;
  }
  getLeastMaximum(field: number): number {
    return LEAST_MAX_VALUES[field]!;
  }

  internalGet(field: number): number {
    return this.fields[field]!;
  }
  private internalSet(field: number, value: number): void {
    this.fields[field] = value;
  }

  isSet(field: number): boolean {
    return this.stamp[field] !== UNSET;
  }

  private isExternallySet(field: number): boolean {
    return this.stamp[field]! >= MINIMUM_USER_STAMP;
  }

  setTimeInMillis(millis: number): void {
    this.time = millis;
    this.isTimeSet = true;
    this.areFieldsSet = false;
    this.computeFieldsAll();
    this.areAllFieldsSet = this.areFieldsSet = true;
  }

  getTimeInMillis(): number {
    if (!this.isTimeSet) this.updateTime();
    return this.time;
  }

  setTimeZone(zone: JavaTimeZone): void {
    this.zone = zone;
    this.areAllFieldsSet = this.areFieldsSet = false;
  }

  get(field: number): number {
    this.complete();
    return this.internalGet(field);
  }

  set(field: number, value: number): void {
    if (this.areFieldsSet && !this.areAllFieldsSet) this.computeFieldsAll();
    this.internalSet(field, value);
    this.isTimeSet = false;
    this.areFieldsSet = false;
    this.isSetFlags[field] = true;
    this.stamp[field] = this.nextStamp++;
  }

  clear(field?: number): void {
    if (field === undefined) {
      for (let i = 0; i < FIELD_COUNT; i++) {
        this.stamp[i] = this.fields[i] = 0;
        this.isSetFlags[i] = false;
      }
    } else {
      this.fields[field] = 0;
      this.stamp[field] = UNSET;
      this.isSetFlags[field] = false;
    }
    this.areAllFieldsSet = this.areFieldsSet = false;
    this.isTimeSet = false;
  }

  complete(): void {
    if (!this.isTimeSet) this.updateTime();
    if (!this.areFieldsSet || !this.areAllFieldsSet) {
      this.computeFieldsAll();
      this.areAllFieldsSet = this.areFieldsSet = true;
    }
  }

  private updateTime(): void {
    this.computeTime();
    this.isTimeSet = true;
  }

  private isPartiallyNormalized(): boolean {
    return this.areFieldsSet && !this.areAllFieldsSet;
  }

  private getSetStateFields(): number {
    let m = 0;
    for (let i = 0; i < FIELD_COUNT; i++) if (this.stamp[i] !== UNSET) m |= 1 << i;
    return m;
  }

  private setFieldsComputed(fieldMask: number): void {
    if (fieldMask === ALL_FIELDS) {
      for (let i = 0; i < FIELD_COUNT; i++) {
        this.stamp[i] = COMPUTED;
        this.isSetFlags[i] = true;
      }
      this.areFieldsSet = this.areAllFieldsSet = true;
    } else {
      for (let i = 0; i < FIELD_COUNT; i++) {
        if ((fieldMask & 1) === 1) {
          this.stamp[i] = COMPUTED;
          this.isSetFlags[i] = true;
        } else if (this.areAllFieldsSet && !this.isSetFlags[i]) {
          this.areAllFieldsSet = false;
        }
        fieldMask >>>= 1;
      }
    }
  }

  private setFieldsNormalized(fieldMask: number): void {
    if (fieldMask !== ALL_FIELDS) {
      for (let i = 0; i < FIELD_COUNT; i++) {
        if ((fieldMask & 1) === 0) {
          this.stamp[i] = this.fields[i] = 0;
          this.isSetFlags[i] = false;
        }
        fieldMask >>= 1;
      }
    }
    this.areFieldsSet = true;
    this.areAllFieldsSet = false;
  }

  private selectFields(): number {
    const stamp = this.stamp;
    let fieldMask = YEAR_MASK;
    if (stamp[ERA] !== UNSET) fieldMask |= ERA_MASK;
    const dowStamp = stamp[DAY_OF_WEEK]!;
    const monthStamp = stamp[MONTH]!;
    let domStamp = stamp[DAY_OF_MONTH]!;
    let womStamp = aggregateStamp(stamp[WEEK_OF_MONTH]!, dowStamp);
    let dowimStamp = aggregateStamp(stamp[DAY_OF_WEEK_IN_MONTH]!, dowStamp);
    const doyStamp = stamp[DAY_OF_YEAR]!;
    let woyStamp = aggregateStamp(stamp[WEEK_OF_YEAR]!, dowStamp);

    let bestStamp = domStamp;
    if (womStamp > bestStamp) bestStamp = womStamp;
    if (dowimStamp > bestStamp) bestStamp = dowimStamp;
    if (doyStamp > bestStamp) bestStamp = doyStamp;
    if (woyStamp > bestStamp) bestStamp = woyStamp;

    if (bestStamp === UNSET) {
      womStamp = stamp[WEEK_OF_MONTH]!;
      dowimStamp = Math.max(stamp[DAY_OF_WEEK_IN_MONTH]!, dowStamp);
      woyStamp = stamp[WEEK_OF_YEAR]!;
      bestStamp = Math.max(Math.max(womStamp, dowimStamp), woyStamp);
      if (bestStamp === UNSET) bestStamp = domStamp = monthStamp;
    }

    if (
      bestStamp === domStamp ||
      (bestStamp === womStamp && stamp[WEEK_OF_MONTH]! >= stamp[WEEK_OF_YEAR]!) ||
      (bestStamp === dowimStamp && stamp[DAY_OF_WEEK_IN_MONTH]! >= stamp[WEEK_OF_YEAR]!)
    ) {
      fieldMask |= MONTH_MASK;
      if (bestStamp === domStamp) {
        fieldMask |= DAY_OF_MONTH_MASK;
      } else {
        if (dowStamp !== UNSET) fieldMask |= DAY_OF_WEEK_MASK;
        if (womStamp === dowimStamp) {
          if (stamp[WEEK_OF_MONTH]! >= stamp[DAY_OF_WEEK_IN_MONTH]!) fieldMask |= WEEK_OF_MONTH_MASK;
          else fieldMask |= DAY_OF_WEEK_IN_MONTH_MASK;
        } else if (bestStamp === womStamp) {
          fieldMask |= WEEK_OF_MONTH_MASK;
        } else if (stamp[DAY_OF_WEEK_IN_MONTH] !== UNSET) {
          fieldMask |= DAY_OF_WEEK_IN_MONTH_MASK;
        }
      }
    } else if (bestStamp === doyStamp) {
      fieldMask |= DAY_OF_YEAR_MASK;
    } else {
      if (dowStamp !== UNSET) fieldMask |= DAY_OF_WEEK_MASK;
      fieldMask |= WEEK_OF_YEAR_MASK;
    }

    const hourOfDayStamp = stamp[HOUR_OF_DAY]!;
    const hourStamp = aggregateStamp(stamp[HOUR]!, stamp[AM_PM]!);
    bestStamp = hourStamp > hourOfDayStamp ? hourStamp : hourOfDayStamp;
    if (bestStamp === UNSET) bestStamp = Math.max(stamp[HOUR]!, stamp[AM_PM]!);
    if (bestStamp !== UNSET) {
      if (bestStamp === hourOfDayStamp) {
        fieldMask |= HOUR_OF_DAY_MASK;
      } else {
        fieldMask |= HOUR_MASK;
        if (stamp[AM_PM] !== UNSET) fieldMask |= AM_PM_MASK;
      }
    }
    if (stamp[MINUTE] !== UNSET) fieldMask |= MINUTE_MASK;
    if (stamp[SECOND] !== UNSET) fieldMask |= SECOND_MASK;
    if (stamp[MILLISECOND] !== UNSET) fieldMask |= MILLISECOND_MASK;
    if (stamp[ZONE_OFFSET]! >= MINIMUM_USER_STAMP) fieldMask |= ZONE_OFFSET_MASK;
    if (stamp[DST_OFFSET]! >= MINIMUM_USER_STAMP) fieldMask |= DST_OFFSET_MASK;
    return fieldMask;
  }

  // ------------------------------------------------------------------ time -> fields

  private computeFieldsAll(): void {
    let m: number;
    if (this.isPartiallyNormalized()) {
      m = this.getSetStateFields();
      const fieldMask = ~m & ALL_FIELDS;
      if (fieldMask !== 0 || this.calsys === null) {
        m |= this.computeFields(fieldMask, m & (ZONE_OFFSET_MASK | DST_OFFSET_MASK));
      }
    } else {
      m = ALL_FIELDS;
      this.computeFields(m, 0);
    }
    this.setFieldsComputed(m);
  }

  private computeFields(fieldMask: number, tzMask: number): number {
    let zoneOffset = 0;
    if (tzMask !== (ZONE_OFFSET_MASK | DST_OFFSET_MASK)) {
      this.zoneOffsets = this.zone.getOffsets(this.time);
      zoneOffset = this.zoneOffsets[0] + this.zoneOffsets[1];
    }
    if (tzMask !== 0) {
      if (isFieldSet(tzMask, ZONE_OFFSET)) this.zoneOffsets[0] = this.internalGet(ZONE_OFFSET);
      if (isFieldSet(tzMask, DST_OFFSET)) this.zoneOffsets[1] = this.internalGet(DST_OFFSET);
      zoneOffset = this.zoneOffsets[0] + this.zoneOffsets[1];
    }

    let fixedDate = Math.trunc(zoneOffset / ONE_DAY);
    let timeOfDay = zoneOffset % ONE_DAY;
    fixedDate += Math.trunc(this.time / ONE_DAY);
    timeOfDay += this.time % ONE_DAY;
    if (timeOfDay >= ONE_DAY) {
      timeOfDay -= ONE_DAY;
      ++fixedDate;
    } else {
      while (timeOfDay < 0) {
        timeOfDay += ONE_DAY;
        --fixedDate;
      }
    }
    fixedDate += EPOCH_OFFSET;

    let era = CE;
    let year: number;
    let cdate: CalendarDate;
    if (fixedDate >= CUTOVER_DATE) {
      cdate = gregorian.getCalendarDateFromFixedDate(fixedDate);
      this.cachedFixedDate = fixedDate;
      year = cdate.year;
      if (year <= 0) {
        year = 1 - year;
        era = BCE;
      }
      this.calsys = gregorian;
    } else {
      cdate = julian.getCalendarDateFromFixedDate(fixedDate);
      this.calsys = julian;
      year = cdate.year;
      if (year <= 0) {
        year = 1 - year;
        era = BCE;
      }
    }
    this.cdate = cdate;

    this.internalSet(ERA, era);
    this.internalSet(YEAR, year);
    let m = fieldMask | ERA_MASK | YEAR_MASK;

    const month = cdate.month - 1;
    const dayOfMonth = cdate.dayOfMonth;
    if ((fieldMask & (MONTH_MASK | DAY_OF_MONTH_MASK | DAY_OF_WEEK_MASK)) !== 0) {
      this.internalSet(MONTH, month);
      this.internalSet(DAY_OF_MONTH, dayOfMonth);
      this.internalSet(DAY_OF_WEEK, cdate.dayOfWeek);
      m |= MONTH_MASK | DAY_OF_MONTH_MASK | DAY_OF_WEEK_MASK;
    }

    if (
      (fieldMask &
        (HOUR_OF_DAY_MASK | AM_PM_MASK | HOUR_MASK | MINUTE_MASK | SECOND_MASK | MILLISECOND_MASK)) !==
      0
    ) {
      const hours = Math.trunc(timeOfDay / ONE_HOUR);
      this.internalSet(HOUR_OF_DAY, hours);
      this.internalSet(AM_PM, Math.trunc(hours / 12));
      this.internalSet(HOUR, hours % 12);
      let r = timeOfDay % ONE_HOUR;
      this.internalSet(MINUTE, Math.trunc(r / ONE_MINUTE));
      r %= ONE_MINUTE;
      this.internalSet(SECOND, Math.trunc(r / ONE_SECOND));
      this.internalSet(MILLISECOND, r % ONE_SECOND);
      m |= HOUR_OF_DAY_MASK | AM_PM_MASK | HOUR_MASK | MINUTE_MASK | SECOND_MASK | MILLISECOND_MASK;
    }

    if ((fieldMask & (ZONE_OFFSET_MASK | DST_OFFSET_MASK)) !== 0) {
      this.internalSet(ZONE_OFFSET, this.zoneOffsets[0]);
      this.internalSet(DST_OFFSET, this.zoneOffsets[1]);
      m |= ZONE_OFFSET_MASK | DST_OFFSET_MASK;
    }

    if (
      (fieldMask &
        (DAY_OF_YEAR_MASK | WEEK_OF_YEAR_MASK | WEEK_OF_MONTH_MASK | DAY_OF_WEEK_IN_MONTH_MASK)) !==
      0
    ) {
      const normalizedYear = cdate.year;
      const calsys = this.calsys;
      let fixedDateJan1 = calsys.getFixedDate(normalizedYear, 1, 1);
      let dayOfYear = fixedDate - fixedDateJan1 + 1;
      let fixedDateMonth1 = fixedDate - dayOfMonth + 1;
      const cutoverYear = calsys === gregorian ? CUTOVER_YEAR : CUTOVER_YEAR_JULIAN;
      let relativeDayOfMonth = dayOfMonth - 1;

      if (normalizedYear === cutoverYear) {
        fixedDateJan1 = this.getFixedDateJan1(cdate, fixedDate);
        if (fixedDate >= CUTOVER_DATE) fixedDateMonth1 = this.getFixedDateMonth1(cdate, fixedDate);
        dayOfYear = fixedDate - fixedDateJan1 + 1;
        relativeDayOfMonth = fixedDate - fixedDateMonth1;
      }
      this.internalSet(DAY_OF_YEAR, dayOfYear);
      this.internalSet(DAY_OF_WEEK_IN_MONTH, Math.trunc(relativeDayOfMonth / 7) + 1);

      let weekOfYear = this.getWeekNumber(fixedDateJan1, fixedDate);
      if (weekOfYear === 0) {
        const fixedDec31 = fixedDateJan1 - 1;
        let prevJan1 = fixedDateJan1 - 365;
        if (normalizedYear > cutoverYear + 1) {
          if (isGregorianLeapYear(normalizedYear - 1)) --prevJan1;
        } else if (normalizedYear <= CUTOVER_YEAR_JULIAN) {
          if (isJulianLeapYear(normalizedYear - 1)) --prevJan1;
        } else {
          const prevYear = this.getCalendarDate(fixedDec31).year;
          if (prevYear === CUTOVER_YEAR) {
            prevJan1 = julian.getFixedDate(prevYear, 1, 1);
          } else if (prevYear <= CUTOVER_YEAR_JULIAN) {
            prevJan1 = julian.getFixedDate(prevYear, 1, 1);
          }
        }
        weekOfYear = this.getWeekNumber(prevJan1, fixedDec31);
      } else if (normalizedYear > CUTOVER_YEAR || normalizedYear < CUTOVER_YEAR_JULIAN - 1) {
        if (weekOfYear >= 52) {
          let nextJan1 = fixedDateJan1 + 365;
          if (cdate.leap) nextJan1++;
          const nextJan1st = getDayOfWeekDateOnOrBefore(nextJan1 + 6, this.firstDayOfWeek);
          const ndays = nextJan1st - nextJan1;
          if (ndays >= this.minimalDaysInFirstWeek && fixedDate >= nextJan1st - 7) weekOfYear = 1;
        }
      } else {
        let calForJan1 = calsys;
        let nextYear = normalizedYear + 1;
        if (nextYear === CUTOVER_YEAR_JULIAN + 1 && nextYear < CUTOVER_YEAR) nextYear = CUTOVER_YEAR;
        if (nextYear === CUTOVER_YEAR) calForJan1 = julian;
        let nextJan1: number;
        if (
          nextYear > CUTOVER_YEAR ||
          CUTOVER_YEAR_JULIAN === CUTOVER_YEAR ||
          nextYear === CUTOVER_YEAR_JULIAN
        ) {
          nextJan1 = calForJan1.getFixedDate(nextYear, 1, 1);
        } else {
          nextJan1 = CUTOVER_DATE;
        }
        const nextJan1st = getDayOfWeekDateOnOrBefore(nextJan1 + 6, this.firstDayOfWeek);
        const ndays = nextJan1st - nextJan1;
        if (ndays >= this.minimalDaysInFirstWeek && fixedDate >= nextJan1st - 7) weekOfYear = 1;
      }
      this.internalSet(WEEK_OF_YEAR, weekOfYear);
      this.internalSet(WEEK_OF_MONTH, this.getWeekNumber(fixedDateMonth1, fixedDate));
      m |= DAY_OF_YEAR_MASK | WEEK_OF_YEAR_MASK | WEEK_OF_MONTH_MASK | DAY_OF_WEEK_IN_MONTH_MASK;
    }
    return m;
  }

  private getWeekNumber(fixedDay1: number, fixedDate: number): number {
    let fixedDay1st = getDayOfWeekDateOnOrBefore(fixedDay1 + 6, this.firstDayOfWeek);
    const ndays = fixedDay1st - fixedDay1;
    if (ndays >= this.minimalDaysInFirstWeek) fixedDay1st -= 7;
    const normalizedDayOfPeriod = fixedDate - fixedDay1st;
    if (normalizedDayOfPeriod >= 0) return Math.trunc(normalizedDayOfPeriod / 7) + 1;
    return floorDivide(normalizedDayOfPeriod, 7) + 1;
  }

  private getFixedDateJan1(date: CalendarDate, _fixedDate: number): number {
    // The default cutover year is the same in both calendars: January 1 exists in the Julian year.
    return julian.getFixedDate(date.year, 1, 1);
  }

  private getFixedDateMonth1(date: CalendarDate, fixedDate: number): number {
    const gCutover = this.getCalendarDate(CUTOVER_DATE); // 1582-10-15
    if (date.month === gCutover.month) {
      const jLastDate = this.getCalendarDate(CUTOVER_DATE - 1); // 1582-10-04 (Julian)
      if (gCutover.month === jLastDate.month) return julian.getFixedDate(date.year, date.month, 1);
      return CUTOVER_DATE;
    }
    return fixedDate - date.dayOfMonth + 1;
  }

  private getCalendarDate(fd: number): CalendarDate {
    return (fd >= CUTOVER_DATE ? gregorian : julian).getCalendarDateFromFixedDate(fd);
  }

  // ------------------------------------------------------------------ fields -> time

  private computeTime(): void {
    let originalFields: number[] | null = null;
    if (!this.lenient) {
      originalFields = new Array<number>(FIELD_COUNT);
      for (let field = 0; field < FIELD_COUNT; field++) {
        const value = this.internalGet(field);
        if (this.isExternallySet(field)) {
          if (value < this.getMinimum(field) || value > this.getMaximum(field)) {
            throw new CalendarFieldError(FIELD_NAMES[field]);
          }
        }
        originalFields[field] = value;
      }
    }

    let fieldMask = this.selectFields();
    let year = this.isSet(YEAR) ? this.internalGet(YEAR) : EPOCH_YEAR;
    const era = this.internalGetEra();
    if (era === BCE) year = 1 - year;
    else if (era !== CE) throw new CalendarFieldError('Invalid era');

    if (year <= 0 && !this.isSet(ERA)) {
      fieldMask |= ERA_MASK;
      this.setFieldsComputed(ERA_MASK);
    }

    let timeOfDay = 0;
    if (isFieldSet(fieldMask, HOUR_OF_DAY)) {
      timeOfDay += this.internalGet(HOUR_OF_DAY);
    } else {
      timeOfDay += this.internalGet(HOUR);
      if (isFieldSet(fieldMask, AM_PM)) timeOfDay += 12 * this.internalGet(AM_PM);
    }
    timeOfDay *= 60;
    timeOfDay += this.internalGet(MINUTE);
    timeOfDay *= 60;
    timeOfDay += this.internalGet(SECOND);
    timeOfDay *= 1000;
    timeOfDay += this.internalGet(MILLISECOND);

    let fixedDate = Math.trunc(timeOfDay / ONE_DAY);
    timeOfDay %= ONE_DAY;
    while (timeOfDay < 0) {
      timeOfDay += ONE_DAY;
      --fixedDate;
    }

    calculate: {
      let gfd: number;
      let jfd: number;
      if (year > CUTOVER_YEAR && year > CUTOVER_YEAR_JULIAN) {
        gfd = fixedDate + this.getFixedDate(gregorian, year, fieldMask);
        if (gfd >= CUTOVER_DATE) {
          fixedDate = gfd;
          break calculate;
        }
        jfd = fixedDate + this.getFixedDate(julian, year, fieldMask);
      } else if (year < CUTOVER_YEAR && year < CUTOVER_YEAR_JULIAN) {
        jfd = fixedDate + this.getFixedDate(julian, year, fieldMask);
        if (jfd < CUTOVER_DATE) {
          fixedDate = jfd;
          break calculate;
        }
        gfd = jfd;
      } else {
        jfd = fixedDate + this.getFixedDate(julian, year, fieldMask);
        gfd = fixedDate + this.getFixedDate(gregorian, year, fieldMask);
      }

      if (isFieldSet(fieldMask, DAY_OF_YEAR) || isFieldSet(fieldMask, WEEK_OF_YEAR)) {
        // gregorianCutoverYear == gregorianCutoverYearJulian
        fixedDate = jfd;
        break calculate;
      }

      if (gfd >= CUTOVER_DATE) {
        if (jfd >= CUTOVER_DATE) {
          fixedDate = gfd;
        } else if (this.calsys === gregorian || this.calsys === null) {
          fixedDate = gfd;
        } else {
          fixedDate = jfd;
        }
      } else if (jfd < CUTOVER_DATE) {
        fixedDate = jfd;
      } else {
        if (!this.lenient) throw new CalendarFieldError("the specified date doesn't exist");
        fixedDate = jfd;
      }
    }

    let millis = (fixedDate - EPOCH_OFFSET) * ONE_DAY + timeOfDay;

    const tzMask = fieldMask & (ZONE_OFFSET_MASK | DST_OFFSET_MASK);
    if (tzMask !== (ZONE_OFFSET_MASK | DST_OFFSET_MASK)) {
      this.zoneOffsets = this.zone.getOffsetsByWall(millis);
    }
    if (tzMask !== 0) {
      if (isFieldSet(tzMask, ZONE_OFFSET)) this.zoneOffsets[0] = this.internalGet(ZONE_OFFSET);
      if (isFieldSet(tzMask, DST_OFFSET)) this.zoneOffsets[1] = this.internalGet(DST_OFFSET);
    }
    millis -= this.zoneOffsets[0] + this.zoneOffsets[1];
    this.time = millis;

    const m = this.computeFields(fieldMask | this.getSetStateFields(), tzMask);

    if (originalFields) {
      for (let field = 0; field < FIELD_COUNT; field++) {
        if (!this.isExternallySet(field)) continue;
        if (originalFields[field] !== this.internalGet(field)) {
          const s = `${originalFields[field]} -> ${this.internalGet(field)}`;
          for (let i = 0; i < FIELD_COUNT; i++) this.fields[i] = originalFields[i]!;
          throw new CalendarFieldError(`${FIELD_NAMES[field]}: ${s}`);
        }
      }
    }
    this.setFieldsNormalized(m);
  }

  private getFixedDate(cal: CalendarSystem, year: number, fieldMask: number): number {
    let month = 0;
    if (isFieldSet(fieldMask, MONTH)) {
      month = this.internalGet(MONTH);
      if (month > 11) {
        year += Math.trunc(month / 12);
        month %= 12;
      } else if (month < 0) {
        year += floorDivide(month, 12);
        month = mod(month, 12);
      }
    }

    let fixedDate = cal.getFixedDate(year, month + 1, 1);
    if (isFieldSet(fieldMask, MONTH)) {
      if (isFieldSet(fieldMask, DAY_OF_MONTH)) {
        if (this.isSet(DAY_OF_MONTH)) {
          fixedDate += this.internalGet(DAY_OF_MONTH);
          fixedDate--;
        }
      } else if (isFieldSet(fieldMask, WEEK_OF_MONTH)) {
        let firstDayOfWeek = getDayOfWeekDateOnOrBefore(fixedDate + 6, this.firstDayOfWeek);
        if (firstDayOfWeek - fixedDate >= this.minimalDaysInFirstWeek) firstDayOfWeek -= 7;
        if (isFieldSet(fieldMask, DAY_OF_WEEK)) {
          firstDayOfWeek = getDayOfWeekDateOnOrBefore(firstDayOfWeek + 6, this.internalGet(DAY_OF_WEEK));
        }
        fixedDate = firstDayOfWeek + 7 * (this.internalGet(WEEK_OF_MONTH) - 1);
      } else {
        const dayOfWeek = isFieldSet(fieldMask, DAY_OF_WEEK)
          ? this.internalGet(DAY_OF_WEEK)
          : this.firstDayOfWeek;
        const dowim = isFieldSet(fieldMask, DAY_OF_WEEK_IN_MONTH)
          ? this.internalGet(DAY_OF_WEEK_IN_MONTH)
          : 1;
        if (dowim >= 0) {
          fixedDate = getDayOfWeekDateOnOrBefore(fixedDate + 7 * dowim - 1, dayOfWeek);
        } else {
          const lastDate = this.monthLength(month, year) + 7 * (dowim + 1);
          fixedDate = getDayOfWeekDateOnOrBefore(fixedDate + lastDate - 1, dayOfWeek);
        }
      }
    } else {
      if (isFieldSet(fieldMask, DAY_OF_YEAR)) {
        fixedDate += this.internalGet(DAY_OF_YEAR);
        fixedDate--;
      } else {
        let firstDayOfWeek = getDayOfWeekDateOnOrBefore(fixedDate + 6, this.firstDayOfWeek);
        if (firstDayOfWeek - fixedDate >= this.minimalDaysInFirstWeek) firstDayOfWeek -= 7;
        if (isFieldSet(fieldMask, DAY_OF_WEEK)) {
          const dayOfWeek = this.internalGet(DAY_OF_WEEK);
          if (dayOfWeek !== this.firstDayOfWeek) {
            firstDayOfWeek = getDayOfWeekDateOnOrBefore(firstDayOfWeek + 6, dayOfWeek);
          }
        }
        fixedDate = firstDayOfWeek + 7 * (this.internalGet(WEEK_OF_YEAR) - 1);
      }
    }
    return fixedDate;
  }

  /** GregorianCalendar.isLeapYear: Gregorian rules from 1583, Julian before (1582 is not leap). */
  isLeapYear(year: number): boolean {
    if ((year & 3) !== 0) return false;
    if (year > CUTOVER_YEAR) return year % 100 !== 0 || year % 400 === 0;
    if (year < CUTOVER_YEAR_JULIAN) return true;
    return false; // 1582 (cutover year, not a leap year in either calendar)
  }

  private monthLength(month: number, year: number): number {
    const leap = this.isLeapYear(year);
    return gregorian.getMonthLength(leap ? 2000 : 2001, month + 1);
  }

  private internalGetEra(): number {
    return this.isSet(ERA) ? this.internalGet(ERA) : CE;
  }

  // ------------------------------------------------------------------ week years

  getActualMaximum(field: number): number {
    const gc = this.normalized();
    const date = gc.cdate!;
    const cal = gc.calsys!;
    const normalizedYear = date.year;
    const cutover = cal === gregorian ? CUTOVER_YEAR : CUTOVER_YEAR_JULIAN;
    if (field === DAY_OF_MONTH) {
      const value = cal.getMonthLength(normalizedYear, date.month);
      if (normalizedYear !== cutover || date.dayOfMonth === value) return value;
      const fd = gc.getCurrentFixedDate();
      if (fd >= CUTOVER_DATE) return value;
      const monthLength = gc.actualMonthLength();
      const monthEnd = gc.getFixedDateMonth1(date, fd) + monthLength - 1;
      return gc.getCalendarDate(monthEnd).dayOfMonth;
    }
    if (field === DAY_OF_YEAR) {
      if (normalizedYear !== cutover) return cal.getYearLength(normalizedYear);
      const jan1 = julian.getFixedDate(normalizedYear, 1, 1);
      let nextJan1 = gregorian.getFixedDate(normalizedYear + 1, 1, 1);
      if (nextJan1 < CUTOVER_DATE) nextJan1 = CUTOVER_DATE;
      return nextJan1 - jan1;
    }
    return this.getMaximum(field);
  }

  private actualMonthLength(): number {
    const date = this.cdate!;
    const cal = this.calsys!;
    const year = date.year;
    if (year !== CUTOVER_YEAR && year !== CUTOVER_YEAR_JULIAN) return cal.getMonthLength(year, date.month);
    const fd = cal.getFixedDate(date.year, date.month, date.dayOfMonth);
    const month1 = this.getFixedDateMonth1(date, fd);
    let next1 = month1 + cal.getMonthLength(date.year, date.month);
    if (next1 < CUTOVER_DATE) return next1 - month1;
    const d = gregorian.getCalendarDateFromFixedDate(next1);
    next1 = this.getFixedDateMonth1(d, next1);
    return next1 - month1;
  }

  private normalized(): GregorianCalendar {
    if (this.areFieldsSet && this.areAllFieldsSet && this.isTimeSet) return this;
    const gc = this.clone();
    gc.lenient = true;
    gc.complete();
    return gc;
  }

  private getCurrentFixedDate(): number {
    const d = this.cdate!;
    return this.calsys === gregorian
      ? this.cachedFixedDate
      : this.calsys!.getFixedDate(d.year, d.month, d.dayOfMonth);
  }

  getWeekYear(): number {
    let year = this.get(YEAR);
    if (this.internalGetEra() === BCE) year = 1 - year;
    if (year > CUTOVER_YEAR + 1) {
      const weekOfYear = this.internalGet(WEEK_OF_YEAR);
      if (this.internalGet(MONTH) === 0) {
        if (weekOfYear >= 52) --year;
      } else if (weekOfYear === 1) {
        ++year;
      }
      return year;
    }
    const dayOfYear = this.internalGet(DAY_OF_YEAR);
    const maxDayOfYear = this.getActualMaximum(DAY_OF_YEAR);
    const minimalDays = this.minimalDaysInFirstWeek;
    if (dayOfYear > minimalDays && dayOfYear < maxDayOfYear - 6) return year;

    const cal = this.clone();
    cal.lenient = true;
    cal.setTimeZone(getTimeZone('GMT'));
    cal.set(DAY_OF_YEAR, 1);
    cal.complete();
    let delta = this.firstDayOfWeek - cal.get(DAY_OF_WEEK);
    if (delta !== 0) {
      if (delta < 0) delta += 7;
      cal.add(DAY_OF_YEAR, delta);
    }
    let minDayOfYear = cal.get(DAY_OF_YEAR);
    if (dayOfYear < minDayOfYear) {
      if (minDayOfYear <= minimalDays) --year;
    } else {
      cal.set(YEAR, year + 1);
      cal.set(DAY_OF_YEAR, 1);
      cal.complete();
      let del = this.firstDayOfWeek - cal.get(DAY_OF_WEEK);
      if (del !== 0) {
        if (del < 0) del += 7;
        cal.add(DAY_OF_YEAR, del);
      }
      minDayOfYear = cal.get(DAY_OF_YEAR) - 1;
      if (minDayOfYear === 0) minDayOfYear = 7;
      if (minDayOfYear >= minimalDays) {
        const days = maxDayOfYear - dayOfYear + 1;
        if (days <= 7 - minDayOfYear) ++year;
      }
    }
    return year;
  }

  setWeekDate(weekYear: number, weekOfYear: number, dayOfWeek: number): void {
    if (dayOfWeek < 1 || dayOfWeek > 7) throw new CalendarFieldError(`invalid dayOfWeek: ${dayOfWeek}`);
    const gc = this.clone();
    gc.lenient = true;
    const era = gc.get(ERA);
    gc.clear();
    gc.setTimeZone(getTimeZone('GMT'));
    gc.set(ERA, era);
    gc.set(YEAR, weekYear);
    gc.set(WEEK_OF_YEAR, 1);
    gc.set(DAY_OF_WEEK, this.firstDayOfWeek);
    let days = dayOfWeek - this.firstDayOfWeek;
    if (days < 0) days += 7;
    days += 7 * (weekOfYear - 1);
    if (days !== 0) gc.add(DAY_OF_YEAR, days);
    else gc.complete();

    if (
      !this.lenient &&
      (gc.getWeekYear() !== weekYear ||
        gc.internalGet(WEEK_OF_YEAR) !== weekOfYear ||
        gc.internalGet(DAY_OF_WEEK) !== dayOfWeek)
    ) {
      throw new CalendarFieldError('');
    }
    this.set(ERA, gc.internalGet(ERA));
    this.set(YEAR, gc.internalGet(YEAR));
    this.set(MONTH, gc.internalGet(MONTH));
    this.set(DAY_OF_MONTH, gc.internalGet(DAY_OF_MONTH));
    this.internalSet(WEEK_OF_YEAR, weekOfYear);
    this.complete();
  }

  // ------------------------------------------------------------------ add

  add(field: number, amount: number): void {
    if (amount === 0) return;
    if (field < 0 || field >= ZONE_OFFSET) throw new CalendarFieldError('');
    this.complete();
    if (field === YEAR) {
      let year = this.internalGet(YEAR);
      if (this.internalGetEra() === CE) {
        year += amount;
        if (year > 0) this.set(YEAR, year);
        else {
          this.set(YEAR, 1 - year);
          this.set(ERA, BCE);
        }
      } else {
        year -= amount;
        if (year > 0) this.set(YEAR, year);
        else {
          this.set(YEAR, 1 - year);
          this.set(ERA, CE);
        }
      }
      this.pinDayOfMonth();
    } else if (field === MONTH) {
      let month = this.internalGet(MONTH) + amount;
      let year = this.internalGet(YEAR);
      const yAmount = month >= 0 ? Math.trunc(month / 12) : Math.trunc((month + 1) / 12) - 1;
      if (yAmount !== 0) {
        if (this.internalGetEra() === CE) {
          year += yAmount;
          if (year > 0) this.set(YEAR, year);
          else {
            this.set(YEAR, 1 - year);
            this.set(ERA, BCE);
          }
        } else {
          year -= yAmount;
          if (year > 0) this.set(YEAR, year);
          else {
            this.set(YEAR, 1 - year);
            this.set(ERA, CE);
          }
        }
      }
      if (month >= 0) this.set(MONTH, month % 12);
      else {
        month %= 12;
        if (month < 0) month += 12;
        this.set(MONTH, month);
      }
      this.pinDayOfMonth();
    } else if (field === ERA) {
      let era = this.internalGet(ERA) + amount;
      if (era < 0) era = 0;
      if (era > 1) era = 1;
      this.set(ERA, era);
    } else {
      let delta = amount;
      let timeOfDay = 0;
      switch (field) {
        case HOUR:
        case HOUR_OF_DAY:
          delta *= ONE_HOUR;
          break;
        case MINUTE:
          delta *= ONE_MINUTE;
          break;
        case SECOND:
          delta *= ONE_SECOND;
          break;
        case WEEK_OF_YEAR:
        case WEEK_OF_MONTH:
        case DAY_OF_WEEK_IN_MONTH:
          delta *= 7;
          break;
        case AM_PM:
          delta = Math.trunc(amount / 2);
          timeOfDay = 12 * (amount % 2);
          break;
      }
      if (field >= HOUR) {
        this.setTimeInMillis(this.time + delta);
        return;
      }
      let fd = this.getCurrentFixedDate();
      timeOfDay += this.internalGet(HOUR_OF_DAY);
      timeOfDay *= 60;
      timeOfDay += this.internalGet(MINUTE);
      timeOfDay *= 60;
      timeOfDay += this.internalGet(SECOND);
      timeOfDay *= 1000;
      timeOfDay += this.internalGet(MILLISECOND);
      if (timeOfDay >= ONE_DAY) {
        fd++;
        timeOfDay -= ONE_DAY;
      } else if (timeOfDay < 0) {
        fd--;
        timeOfDay += ONE_DAY;
      }
      fd += delta;
      let zoneOffset = this.internalGet(ZONE_OFFSET) + this.internalGet(DST_OFFSET);
      this.setTimeInMillis((fd - EPOCH_OFFSET) * ONE_DAY + timeOfDay - zoneOffset);
      zoneOffset -= this.internalGet(ZONE_OFFSET) + this.internalGet(DST_OFFSET);
      if (zoneOffset !== 0) {
        this.setTimeInMillis(this.time + zoneOffset);
        const fd2 = this.getCurrentFixedDate();
        if (fd2 !== fd) this.setTimeInMillis(this.time - zoneOffset);
      }
    }
  }

  private pinDayOfMonth(): void {
    const year = this.internalGet(YEAR);
    let monthLen: number;
    if (year > CUTOVER_YEAR || year < CUTOVER_YEAR_JULIAN) {
      let y = year;
      if (this.internalGetEra() === BCE) y = 1 - y;
      monthLen = this.monthLength(this.internalGet(MONTH), y);
    } else {
      monthLen = this.normalized().getActualMaximum(DAY_OF_MONTH);
    }
    const dom = this.internalGet(DAY_OF_MONTH);
    if (dom > monthLen) this.set(DAY_OF_MONTH, monthLen);
  }
}
