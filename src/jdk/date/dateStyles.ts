/**
 * DateFormat.getDateInstance / getTimeInstance / getDateTimeInstance patterns of JDK 17 (CLDR),
 * the patterns FreeMarker uses for ?string.short, ?date, ?time, ?datetime and friends.
 */
import { localeData } from '../locale.js';

export type DateStyleKind = 'date' | 'time' | 'datetime';
export type DateStyle = 'short' | 'medium' | 'long' | 'full';

const STYLE_INDEX: Record<DateStyle, number> = { full: 0, long: 1, medium: 2, short: 3 };

function styleIndex(style: string, what: string): number {
  const i = STYLE_INDEX[style as DateStyle];
  if (i === undefined)
    throw new RangeError(
      `dateStylePattern: ${what} style must be short, medium, long or full, not "${style}"`,
    );
  return i;
}

/** The pattern of a style; for 'datetime', `timeStyle` defaults to the date style (as FreeMarker does). */
export function dateStylePattern(
  kind: DateStyleKind,
  style: DateStyle,
  locale = 'en_US',
  timeStyle: DateStyle = style,
): string {
  const data = localeData(locale);
  const s = styleIndex(style, kind === 'time' ? 'time' : 'date');
  switch (kind) {
    case 'date':
      return data.date[s]!;
    case 'time':
      return data.time[s]!;
    case 'datetime':
      return data.datetime[s * 4 + styleIndex(timeStyle, 'time')]!;
    default:
      throw new RangeError(`dateStylePattern: kind must be date, time or datetime, not "${String(kind)}"`);
  }
}
