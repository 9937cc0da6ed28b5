/**
 * Calendar.add(DAY_OF_MONTH, days) in a time zone, on a date parsed and printed with one
 * SimpleDateFormat pattern (strict parsing), as the platform's date_offset does in Java.
 */
import { GregorianCalendar, DAY_OF_MONTH } from './gregorianCalendar.js';
import { SimpleDateFormat } from './simpleDateFormat.js';
import { getTimeZone } from './timeZone.js';

export interface DateOffsetOptions {
  /** Pattern used to parse and print, "yyyy-MM-dd" by default. */
  pattern?: string;
  timeZone?: string;
  locale?: string;
  now?: () => number;
}

/** Adds calendar days to an epoch in a zone (Java's Calendar.add with DST adjustment). */
export function addDays(epochMs: number, days: number, timeZone = 'UTC'): number {
  const cal = new GregorianCalendar(getTimeZone(timeZone));
  cal.setTimeInMillis(epochMs);
  cal.add(DAY_OF_MONTH, days | 0);
  return cal.getTimeInMillis();
}

/** Parses `text`, adds `days` calendar days, prints with the same pattern; throws JavaParseException. */
export function dateOffset(text: string, days: number, options: DateOffsetOptions = {}): string {
  const format = new SimpleDateFormat(options.pattern ?? 'yyyy-MM-dd', {
    locale: options.locale ?? 'en_US',
    timeZone: options.timeZone ?? 'UTC',
    now: options.now,
  });
  const epoch = format.parse(text);
  return format.format(addDays(epoch, days, options.timeZone ?? 'UTC'));
}
