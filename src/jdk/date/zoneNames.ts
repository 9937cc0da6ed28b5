/**
 * Time-zone display names of the JDK 17 (TimeZone.getDisplayName and
 * DateFormatSymbols.getZoneStrings), from the bundled data.
 */
import { ZONE_IDS, ZONE_NAMES, ZONE_ORDERS } from '../tables/zoneData.js';
import { localeData } from '../locale.js';
import { customZoneId, type JavaTimeZone } from './timeZone.js';

const SEP = '\u0001';

/** Per zone index: [long standard, short standard, long daylight, short daylight]. */
const tables = new Map<string, string[][]>();

function table(key: string): string[][] {
  let t = tables.get(key);
  if (t) return t;
  const src = ZONE_NAMES[key]!;
  t = src.parent ? table(src.parent).slice() : new Array<string[]>(ZONE_IDS.length);
  const entries = src.entries ? src.entries.split(',').map(Number) : [];
  for (let i = 0; i < entries.length; i += 2) t[entries[i]!] = src.strings[entries[i + 1]!]!.split(SEP);
  tables.set(key, t);
  return t;
}

export interface ZoneStringsRow {
  id: string;
  /** [long standard, short standard, long daylight, short daylight] */
  names: string[];
}

const rowsCache = new Map<string, ZoneStringsRow[]>();

/** DateFormatSymbols.getZoneStrings() of a locale, in Java's order (used to parse 'z'). */
export function zoneStrings(locale: string): ZoneStringsRow[] {
  const key = localeData(locale).dataKey;
  let rows = rowsCache.get(key);
  if (rows) return rows;
  const src = ZONE_NAMES[key]!;
  const t = table(key);
  rows = ZONE_ORDERS[src.order]!.split(',').map((s) => {
    const zi = Number(s);
    const override = src.rows[zi];
    return { id: ZONE_IDS[zi]!, names: override ? override.split(SEP) : t[zi]! };
  });
  rowsCache.set(key, rows);
  return rows;
}

/** TimeZone.getDisplayName(daylight, style, locale); custom zones print their id ("GMT+01:00"). */
export function zoneDisplayName(
  zone: JavaTimeZone,
  daylight: boolean,
  long: boolean,
  locale: string,
): string {
  if (zone.index < 0) {
    if (/^GMT[+-]/.test(zone.id)) return zone.id;
    return customZoneId(zone.rawOffset + (daylight ? zone.dstSavings : 0));
  }
  const names = table(localeData(locale).dataKey)[zone.index]!;
  return names[(daylight ? 2 : 0) + (long ? 0 : 1)]!;
}
