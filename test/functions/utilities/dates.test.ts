import { describe, expect, it } from 'vitest';
import { call, caseName, checkJavaCase, errorOf, fixture, testContext } from '../helpers.js';

const dates = fixture('dates');

describe('dates agree with Java SimpleDateFormat and Calendar (time zone and locale from the context)', () => {
  it.each(dates.map((c) => [caseName(c), c] as const))('%s', (_n, c) => checkJavaCase(c));
});

describe('date functions', () => {
  it('get_time gives seconds and get_date takes them', () => {
    expect(call('get_time', ['15/01/2024', 'dd/MM/yyyy'])).toBe(1705276800);
    expect(call('get_date', [1705276800, 'MM/dd/yyyy'])).toBe('01/15/2024');
    expect(call('get_date', [call('get_time', ['2024-02-29'])])).toBe('2024-02-29');
  });

  it('now and timestamp read the context clock', () => {
    const ctx = testContext({ clock: () => 1705276800999, timeZone: 'Asia/Tokyo' });
    expect(call('now', [], ctx)).toBe('2024-01-15');
    expect(call('now', ['HH:mm:ss.SSS'], ctx)).toBe('09:00:00.999');
    expect(call('timestamp', [], ctx)).toBe(1705276800999);
    expect(call('timestamp', ['MILLISEC'], ctx)).toBe(1705276800999);
    expect(call('timestamp', ['SECOND'], ctx)).toBe(1705276800);
    expect(call('timestamp', ['second'], ctx)).toBe(1705276800);
    expect(call('timestamp', ['SECOND'], testContext({ clock: () => -1500 }))).toBe(-1);
  });

  it('reads two-digit years in the window around the context clock', () => {
    // Java's window: from 80 years before now to 20 years after.
    const in1990 = testContext({ clock: () => Date.UTC(1990, 0, 1) });
    expect(call('date_format', ['01/01/30', 'dd/MM/yy', 'yyyy'], in1990)).toBe('1930');
    expect(call('date_format', ['01/01/30', 'dd/MM/yy', 'yyyy'])).toBe('2030');
  });

  it('names the argument at fault', () => {
    expect(errorOf('get_time', ['2024-13-45'])).toBe(
      'get_time: argument 1 (date) Unparseable date: "2024-13-45"',
    );
    expect(errorOf('get_time', ['2024', 'yyyy-qq'])).toBe(
      "get_time: argument 2 (format) Illegal pattern character 'q'",
    );
    expect(errorOf('date_format', ['x', 'yyyy', 'dd'])).toBe(
      'date_format: argument 1 (date) Unparseable date: "x"',
    );
    expect(errorOf('date_format', ['2024', 'yyyy', 'bb'])).toBe(
      "date_format: argument 3 (target_format) Illegal pattern character 'b'",
    );
    expect(errorOf('date_offset', ['2024-01-01', 'one'])).toBe(
      'date_offset: argument 2 (offset) expected an integer, got the string "one"',
    );
    expect(errorOf('get_date', ['soon'])).toBe(
      'get_date: argument 1 (seconds) expected an integer, got the string "soon"',
    );
    expect(errorOf('timestamp', ['HOURS'])).toBe(
      'timestamp: argument 1 (unit) expected SECOND or MILLISEC, got the string "HOURS"',
    );
    expect(errorOf('now', ['yyyy', 'x'])).toBe(
      'now: argument 2 is not expected: now takes 0 to 1 arguments, got 2',
    );
  });
});
