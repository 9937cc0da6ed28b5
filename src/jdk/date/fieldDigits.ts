/**
 * The digits SimpleDateFormat writes (java.text.SimpleDateFormat and sun.util.calendar.CalendarUtils):
 * zero-padded numbers and the numeric zone offset fields, shared by the ported format and its
 * direct path for Gregorian instants.
 */

/** The pattern index of `Z` (SimpleDateFormat.PATTERN_ZONE_VALUE); `X` is every other tag given. */
export const ZONE_VALUE_TAG = 18;

/** CalendarUtils.sprintf0d: zero-padded to width (the minus sign counts in the width). */
function sprintf0d(value: number, width: number): string {
  let d = value;
  let out = '';
  if (d < 0) {
    out = '-';
    d = -d;
    --width;
  }
  return out + String(d).padStart(width, '0');
}

/** The Z (RFC 822) and X (ISO 8601) fields of a total offset of `offsetMs`. */
export function zoneOffsetText(tag: number, count: number, offsetMs: number): string {
  if (tag === ZONE_VALUE_TAG) {
    const value = Math.trunc(offsetMs / 60000);
    let width = 4;
    let out = '';
    if (value >= 0) out += '+';
    else width++;
    const num = Math.trunc(value / 60) * 100 + (value % 60);
    return out + sprintf0d(num, width);
  }
  if (offsetMs === 0) return 'Z';
  let value = Math.trunc(offsetMs / 60000);
  let out = value >= 0 ? '+' : '-';
  value = Math.abs(value);
  out += sprintf0d(Math.trunc(value / 60), 2);
  if (count === 1) return out;
  if (count === 3) out += ':';
  return out + sprintf0d(value % 60, 2);
}

/** zeroPaddingNumber with the locale's integer NumberFormat (ASCII digits, no grouping). */
export function zeroPadding(value: number, minDigits: number, maxDigits: number): string {
  // the usual fields: 0 … 99 in one or two digits
  if (value >= 0 && value < 100 && minDigits <= 2 && maxDigits >= 2)
    return value < 10 && minDigits === 2 ? '0' + value : '' + value;
  const negative = value < 0;
  let digits = String(Math.abs(value));
  if (digits.length > maxDigits) digits = digits.slice(digits.length - maxDigits);
  const min = Math.min(minDigits, 309);
  if (digits.length < min) digits = '0'.repeat(min - digits.length) + digits;
  return (negative ? '-' : '') + digits;
}
