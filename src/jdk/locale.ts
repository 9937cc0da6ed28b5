/**
 * Java locale resolution for the bundled JDK 17 CLDR data: a tag such as "de_DE" or "de-DE" uses
 * its own data when bundled, else its language's ("de_LU" → "de"), else the root locale's, which is
 * what the JDK does for a language it has no data for. Week rules (first day of week, minimal days
 * in the first week) follow the region, as in Java.
 */
import { LOCALE_DATA, WEEK_DATA, WEEK_DATA_OTHER_REGION } from './tables/localeData.js';

export interface NumberInstanceData {
  pattern: string;
  minInt: number;
  maxInt: number;
  minFrac: number;
  maxFrac: number;
}

export interface DecimalSymbols {
  zero: string;
  grouping: string;
  decimal: string;
  perMill: string;
  percent: string;
  digit: string;
  patternSeparator: string;
  infinity: string;
  nan: string;
  minus: string;
  currency: string;
  intlCurrency: string;
  monetaryDecimal: string;
  monetaryGrouping: string;
  exponent: string;
}

export interface LocaleData {
  /** Normalized tag ("de_DE"); the data may come from a parent. */
  tag: string;
  /** The bundled locale the data comes from ("de_DE", "de" or "root"). */
  dataKey: string;
  language: string;
  region: string;
  eras: string[];
  months: string[];
  shortMonths: string[];
  /** Index 1 = Sunday … 7 = Saturday (index 0 is empty), as DateFormatSymbols. */
  weekdays: string[];
  shortWeekdays: string[];
  ampm: string[];
  standaloneMonths: string[];
  shortStandaloneMonths: string[];
  /** All short/long, format/standalone month names with their 0-based month (parsing of 'L'). */
  monthNames: [string, number][];
  firstDayOfWeek: number;
  minimalDays: number;
  /** DateFormat patterns: index 0 FULL, 1 LONG, 2 MEDIUM, 3 SHORT; datetime is [dateStyle * 4 + timeStyle]. */
  date: string[];
  time: string[];
  datetime: string[];
  symbols: DecimalSymbols;
  number: NumberInstanceData;
  integer: NumberInstanceData;
  percent: NumberInstanceData;
  currency: NumberInstanceData;
}

export function normalizeLocaleTag(tag: string): { language: string; region: string } {
  const parts = tag.trim().split(/[_-]/);
  return { language: (parts[0] ?? '').toLowerCase(), region: (parts[1] ?? '').toUpperCase() };
}

function weekDataOf(region: string): [number, number] {
  let rule = WEEK_DATA_OTHER_REGION;
  if (!region) rule = '1,1';
  else {
    for (const [value, regions] of Object.entries(WEEK_DATA)) {
      if (regions.split(',').includes(region)) {
        rule = value;
        break;
      }
    }
  }
  const [first, minimal] = rule.split(',').map(Number);
  return [first!, minimal!];
}

const resolved = new Map<string, LocaleData>();

function rawChain(key: string): Record<string, unknown> {
  const own = LOCALE_DATA[key] as Record<string, unknown> & { parent?: string };
  if (!own.parent) return { ...own };
  return { ...rawChain(own.parent), ...own };
}

/** The locale data Java 17 uses for a tag (bundled locales listed in docs/jdk.md). */
export function localeData(tag = 'en_US'): LocaleData {
  let data = resolved.get(tag);
  if (data) return data;
  const { language, region } = normalizeLocaleTag(tag);
  const normalized = region ? `${language}_${region}` : language;
  const key =
    normalized in LOCALE_DATA ? normalized : language && language in LOCALE_DATA ? language : 'root';
  const chain = rawChain(key);
  delete chain.parent;
  const [firstDayOfWeek, minimalDays] = weekDataOf(region);
  data = {
    ...(chain as object),
    tag: normalized,
    dataKey: key,
    language,
    region,
    firstDayOfWeek,
    minimalDays,
  } as LocaleData;
  resolved.set(tag, data);
  return data;
}
