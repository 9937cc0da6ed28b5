/**
 * NumberFormat.getNumberInstance / getIntegerInstance / getPercentInstance / getCurrencyInstance
 * of JDK 17 for a locale: the CLDR pattern plus the digit limits Java sets on the instance
 * (the integer instance drops fractions, the currency instance uses the currency's digits).
 */
import { localeData } from '../locale.js';
import { DecimalFormat } from './decimalFormat.js';

export type NumberFormatKind = 'number' | 'integer' | 'percent' | 'currency';

export function numberFormatFor(kind: NumberFormatKind, locale = 'en_US'): DecimalFormat {
  const data = localeData(locale);
  const spec = data[kind];
  if (!spec || !['number', 'integer', 'percent', 'currency'].includes(kind)) {
    throw new RangeError(
      `numberFormatFor: kind must be number, integer, percent or currency, not "${String(kind)}"`,
    );
  }
  const format = new DecimalFormat(spec.pattern, { locale });
  format.setMaximumIntegerDigits(spec.maxInt);
  format.setMinimumIntegerDigits(spec.minInt);
  format.setMaximumFractionDigits(spec.maxFrac);
  format.setMinimumFractionDigits(spec.minFrac);
  if (kind === 'integer') format.setDecimalSeparatorAlwaysShown(false);
  return format;
}
