/**
 * The Java 17 behaviours the platform's scripts depend on, one by one (values checked with the
 * java-utils and FreeMarker oracles; the bulk comparisons are in the other files of this folder).
 */
import { describe, expect, it } from 'vitest';
import {
  DecimalFormat,
  JavaIllegalArgumentException,
  JavaParseException,
  SimpleDateFormat,
  dateOffset,
  javaTimeZone,
  numberFormatFor,
} from '../../src/jdk/index.js';

const parse = (
  pattern: string,
  text: string,
  options: ConstructorParameters<typeof SimpleDateFormat>[1] = {},
) => new SimpleDateFormat(pattern, options).parse(text);

describe('SimpleDateFormat parsing quirks', () => {
  it('does not need to consume the whole text, skips spaces and accepts other digit counts', () => {
    expect(parse('yyyy-MM-dd', '2024-01-15garbage')).toBe(1705276800000);
    expect(parse('yyyy-MM-dd', ' 2024-1-5')).toBe(1704412800000);
    expect(parse('yyyy-MM-dd', '2024-001-0005')).toBe(1704412800000);
  });

  it('rejects out-of-range fields and a weekday that disagrees in strict mode, with Java message', () => {
    expect(() => parse('yyyy-MM-dd', '2024-02-30')).toThrow(JavaParseException);
    expect(() => parse('yyyy-MM-dd', '2024-02-30')).toThrow('Unparseable date: "2024-02-30"');
    expect(() => parse('yyyy-MM-dd HH', '2024-01-01 24')).toThrow('Unparseable date: "2024-01-01 24"');
    expect(() => parse('yyyy-MM-dd EEE', '2024-01-01 Tue')).toThrow('Unparseable date: "2024-01-01 Tue"');
    expect(parse('yyyy-MM-dd', '2024-02-30', { lenient: true })).toBe(Date.UTC(2024, 2, 1));
  });

  it('parses zones: Z wants +hhmm or GMT+hh:mm, X takes Z and +hh, XXX wants the colon', () => {
    expect(() => parse("yyyy-MM-dd'T'HH:mmZ", '2024-01-01T10:00Z')).toThrow(JavaParseException);
    expect(() => parse("yyyy-MM-dd'T'HH:mmZ", '2024-01-01T10:00+01:00')).toThrow(JavaParseException);
    expect(parse("yyyy-MM-dd'T'HH:mmZ", '2024-01-01T10:00+0100')).toBe(1704099600000);
    expect(parse("yyyy-MM-dd'T'HH:mmZ", '2024-01-01T10:00GMT+01:00')).toBe(1704099600000);
    expect(parse('HH:mmX', '10:00+01')).toBe(32400000);
    expect(() => parse('HH:mmXXX', '10:00+0100')).toThrow(JavaParseException);
  });

  it('reads S as milliseconds, not as a fraction', () => {
    expect(parse('ss.S', '01.5')).toBe(1005);
    expect(() => parse('ss.SSSSSS', '01.123456')).toThrow(JavaParseException);
    expect(parse('ss.SSSSSS', '01.123456', { lenient: true })).toBe(124456);
  });

  it('takes years literally with yyyy and with a two-digit window with yy', () => {
    const now = () => Date.UTC(2026, 0, 1);
    expect(parse('yyyy', '24')).toBe(-61410009600000); // year 24, Julian calendar
    expect(parse('yy', '99', { now })).toBe(915148800000);
    expect(parse('yy', '2024', { now })).toBe(1704067200000);
  });

  it('throws away month and day with a week year (YYYY), by the locale week rules', () => {
    expect(parse('YYYY-MM-dd', '2024-05-05', { locale: 'en_US' })).toBe(1703980800000);
    expect(parse('YYYY-MM-dd', '2024-05-05', { locale: 'en_GB' })).toBe(1704067200000);
  });
});

describe('SimpleDateFormat formatting', () => {
  it('prints week years, zones and the Julian calendar as Java', () => {
    expect(new SimpleDateFormat('YYYY-MM-dd').format(Date.UTC(2024, 11, 30))).toBe('2025-12-30');
    expect(new SimpleDateFormat('X XX XXX Z z').format(0)).toBe('Z Z Z +0000 UTC');
    expect(new SimpleDateFormat('yyyy-MM-dd G').format(-12219292800001)).toBe('1582-10-04 AD');
  });

  it('uses the JDK 17 CLDR names of the locale', () => {
    const sept = Date.UTC(2024, 8, 1);
    expect(new SimpleDateFormat('MMM', { locale: 'en_GB' }).format(sept)).toBe('Sept');
    expect(new SimpleDateFormat('MMM', { locale: 'de_DE' }).format(Date.UTC(2024, 0, 1))).toBe('Jan.');
    expect(new SimpleDateFormat('MMM', { locale: 'fr_FR' }).format(Date.UTC(2024, 0, 1))).toBe('janv.');
    expect(
      new SimpleDateFormat('EEEE d MMMM yyyy HH:mm z', { locale: 'fr_FR', timeZone: 'Europe/Paris' }).format(
        Date.UTC(2024, 6, 1, 13, 5),
      ),
    ).toBe('lundi 1 juillet 2024 15:05 CEST');
  });

  it('rejects bad patterns with Java exceptions', () => {
    expect(() => new SimpleDateFormat('yyyy-qq')).toThrow(JavaIllegalArgumentException);
    expect(() => new SimpleDateFormat('yyyy-qq')).toThrow("Illegal pattern character 'q'");
    expect(() => new SimpleDateFormat("yyyy-'MM")).toThrow('Unterminated quote');
    expect(() => new SimpleDateFormat('XXXX')).toThrow('invalid ISO 8601 format: length=4');
  });
});

describe('time zones and calendar arithmetic', () => {
  it('resolves ids as TimeZone.getTimeZone does', () => {
    expect(javaTimeZone('Europe/Paris')).toBe('Europe/Paris');
    expect(javaTimeZone('europe/paris')).toBe('GMT');
    expect(javaTimeZone('+01:00')).toBe('GMT');
    expect(javaTimeZone('Foo/Bar')).toBe('GMT');
    expect(javaTimeZone('GMT+1')).toBe('GMT+01:00');
    expect(javaTimeZone('GMT-0530')).toBe('GMT-05:30');
    expect(javaTimeZone('UTC')).toBe('UTC');
  });

  it('adds days across a DST change like Calendar.add(DAY_OF_MONTH, n)', () => {
    expect(dateOffset('2024-03-30 02:30', 1, { pattern: 'yyyy-MM-dd HH:mm', timeZone: 'Europe/Paris' })).toBe(
      '2024-03-31 01:30',
    );
    expect(dateOffset('2024-02-28', 2)).toBe('2024-03-01');
  });
});

describe('DecimalFormat', () => {
  it('rounds doubles by their exact value and decimal text exactly (HALF_EVEN by default)', () => {
    const df = new DecimalFormat('0.00');
    expect(df.format(0.125)).toBe('0.12');
    expect(df.format(1.005)).toBe('1.00'); // the double is 1.00499999999999989…
    expect(df.format(2.675)).toBe('2.67');
    expect(df.format('1.005')).toBe('1.00');
    expect(new DecimalFormat('0.00', { roundingMode: 'HALF_UP' }).format('1.005')).toBe('1.01');
    expect(df.format('1234.5050')).toBe('1234.50');
  });

  it('prints the locale symbols of JDK 17, NaN and infinity', () => {
    expect(new DecimalFormat('#,##0.###', { locale: 'de_DE' }).format(1234.5)).toBe('1.234,5');
    expect(new DecimalFormat('#,##0.###', { locale: 'fr_FR' }).format(1234567.891)).toBe(
      '1\u202f234\u202f567,891',
    );
    expect(numberFormatFor('currency', 'de_DE').format(1234.5)).toBe('1.234,50\u00a0€');
    expect(new DecimalFormat('0.00').format(NaN)).toBe('NaN');
    expect(new DecimalFormat('0.00').format(-Infinity)).toBe('-∞');
    expect(new DecimalFormat('0.00').format(-0.001)).toBe('-0.00');
  });

  it('keeps Java bigint (long) and double semantics apart', () => {
    const df = new DecimalFormat('#,##0');
    expect(df.format(1152921504606846976n)).toBe('1,152,921,504,606,846,976');
    expect(df.format(1152921504606846976)).toBe('1,152,921,504,606,846,980');
  });

  it('reports bad patterns and impossible rounding like Java', () => {
    expect(() => new DecimalFormat('0.00.0')).toThrow('Multiple decimal separators in pattern "0.00.0"');
    expect(() => new DecimalFormat('#%%')).toThrow('Too many percent/per mille characters in pattern "#%%"');
    expect(() => new DecimalFormat('0.00', { roundingMode: 'UNNECESSARY' }).format(1.234)).toThrow(
      'Rounding needed with the rounding mode being set to RoundingMode.UNNECESSARY',
    );
    expect(() => new DecimalFormat('0').format('12abc')).toThrow(
      'DecimalFormat.format: "12abc" is not a decimal number',
    );
  });
});
