/**
 * Fixed-date arithmetic of `sun.util.calendar` (Gregorian and Julian), as used by Java's
 * GregorianCalendar. A fixed date counts days from January 1, 1 (proleptic Gregorian) = 1.
 * Years are "normalized": 0 is 1 BCE, -1 is 2 BCE.
 */

export const EPOCH_OFFSET = 719163; // fixed date of 1970-01-01
export const ONE_DAY = 86400000;
const JULIAN_EPOCH = -1;
const ACCUMULATED_DAYS_IN_MONTH = [-30, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];

export function floorDivide(n: number, d: number): number {
  return Math.floor(n / d);
}

export function mod(n: number, d: number): number {
  return n - d * Math.floor(n / d);
}

export interface CalendarDate {
  /** Normalized year (0 = 1 BCE). */
  year: number;
  /** 1-based month. */
  month: number;
  dayOfMonth: number;
  /** 1 = Sunday … 7 = Saturday. */
  dayOfWeek: number;
  leap: boolean;
}

export interface CalendarSystem {
  readonly name: 'gregorian' | 'julian';
  isLeapYear(year: number): boolean;
  getFixedDate(year: number, month: number, dayOfMonth: number): number;
  getCalendarDateFromFixedDate(fixedDate: number): CalendarDate;
  getMonthLength(year: number, month: number): number;
  getYearLength(year: number): number;
}

const MONTH_LENGTH = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function getDayOfWeekFromFixedDate(fixedDate: number): number {
  return mod(fixedDate, 7) + 1;
}

export function getDayOfWeekDateOnOrBefore(fixedDate: number, dayOfWeek: number): number {
  const fd = fixedDate - (dayOfWeek - 1);
  return fixedDate - mod(fd, 7);
}

export function isGregorianLeapYear(year: number): boolean {
  return mod(year, 4) === 0 && (mod(year, 100) !== 0 || mod(year, 400) === 0);
}

export function isJulianLeapYear(year: number): boolean {
  return mod(year, 4) === 0;
}

function monthFromPriorDays(priorDays: number): number {
  return floorDivide(12 * priorDays + 373, 367);
}

export const gregorian: CalendarSystem = {
  name: 'gregorian',
  isLeapYear: isGregorianLeapYear,
  getFixedDate(year, month, dayOfMonth) {
    const prevyear = year - 1;
    let days =
      dayOfMonth +
      365 * prevyear +
      floorDivide(prevyear, 4) -
      floorDivide(prevyear, 100) +
      floorDivide(prevyear, 400) +
      floorDivide(367 * month - 362, 12);
    if (month > 2) days -= isGregorianLeapYear(year) ? 1 : 2;
    return days;
  },
  getCalendarDateFromFixedDate(fixedDate) {
    const d0 = fixedDate - 1;
    const n400 = floorDivide(d0, 146097);
    const d1 = mod(d0, 146097);
    const n100 = floorDivide(d1, 36524);
    const d2 = mod(d1, 36524);
    const n4 = floorDivide(d2, 1461);
    const d3 = mod(d2, 1461);
    const n1 = floorDivide(d3, 365);
    let year = 400 * n400 + 100 * n100 + 4 * n4 + n1;
    if (!(n100 === 4 || n1 === 4)) ++year;
    const jan1 = this.getFixedDate(year, 1, 1);
    const leap = isGregorianLeapYear(year);
    let priorDays = fixedDate - jan1;
    const mar1 = jan1 + 31 + 28 + (leap ? 1 : 0);
    if (fixedDate >= mar1) priorDays += leap ? 1 : 2;
    const month = monthFromPriorDays(priorDays);
    const month1 = jan1 + ACCUMULATED_DAYS_IN_MONTH[month]! + (leap && month >= 3 ? 1 : 0);
    return {
      year,
      month,
      dayOfMonth: fixedDate - month1 + 1,
      dayOfWeek: getDayOfWeekFromFixedDate(fixedDate),
      leap,
    };
  },
  getMonthLength(year, month) {
    return month === 2 && isGregorianLeapYear(year) ? 29 : MONTH_LENGTH[month]!;
  },
  getYearLength(year) {
    return isGregorianLeapYear(year) ? 366 : 365;
  },
};

export const julian: CalendarSystem = {
  name: 'julian',
  isLeapYear: isJulianLeapYear,
  getFixedDate(year, month, dayOfMonth) {
    let days = JULIAN_EPOCH - 1 + 365 * (year - 1) + dayOfMonth;
    days += floorDivide(year - 1, 4);
    days += floorDivide(367 * month - 362, 12);
    if (month > 2) days -= isJulianLeapYear(year) ? 1 : 2;
    return days;
  },
  getCalendarDateFromFixedDate(fixedDate) {
    const year = floorDivide(4 * (fixedDate - JULIAN_EPOCH) + 1464, 1461);
    let priorDays = fixedDate - this.getFixedDate(year, 1, 1);
    const leap = isJulianLeapYear(year);
    if (fixedDate >= this.getFixedDate(year, 3, 1)) priorDays += leap ? 1 : 2;
    const month = monthFromPriorDays(priorDays);
    return {
      year,
      month,
      dayOfMonth: fixedDate - this.getFixedDate(year, month, 1) + 1,
      dayOfWeek: getDayOfWeekFromFixedDate(fixedDate),
      leap,
    };
  },
  getMonthLength(year, month) {
    return month === 2 && isJulianLeapYear(year) ? 29 : MONTH_LENGTH[month]!;
  },
  getYearLength(year) {
    return isJulianLeapYear(year) ? 366 : 365;
  },
};
