import { describe, expect, it } from 'vitest';
import {
  SimpleDateFormat,
  dateStylePattern,
  numberFormatFor,
  type DateStyle,
  type DateStyleKind,
  type NumberFormatKind,
} from '../../src/jdk/index.js';
import { fixture, mismatches, outcome } from './fixtures.js';

describe('numberFormatFor (NumberFormat.getXInstance of JDK 17, via FreeMarker ?string.number/currency/percent)', () => {
  const f = fixture<{
    kinds: NumberFormatKind[];
    locales: string[];
    cases: [string, number, number, unknown, unknown][];
  }>('number-styles.json');

  it('formats doubles as Java does', () => {
    const r = mismatches(f.cases, ([v, k, l, expected]) => ({
      expected,
      actual: outcome(() => numberFormatFor(f.kinds[k]!, f.locales[l]!).format(Number(v))),
    }));
    expect(r.first).toEqual([]);
  });

  it('formats longs and BigDecimals as Java does', () => {
    const r = mismatches(f.cases, ([v, k, l, , expected]) => ({
      expected,
      actual: outcome(() =>
        numberFormatFor(f.kinds[k]!, f.locales[l]!).format(/^-?\d+$/.test(v) ? BigInt(v) : v),
      ),
    }));
    expect(r.first).toEqual([]);
  });

  it('has the integer instance of Java (no fraction, HALF_EVEN)', () => {
    const integer = numberFormatFor('integer', 'de_DE');
    expect(integer.format(1234.5)).toBe('1.234');
    expect(integer.format(1235.5)).toBe('1.236');
    expect(integer.format('-0.5')).toBe('-0');
  });
});

describe('dateStylePattern (DateFormat styles of JDK 17, via FreeMarker ?string.short … ?string.full)', () => {
  const f = fixture<{
    styles: DateStyle[];
    locales: string[];
    zones: string[];
    cases: [number, DateStyleKind, number, number, number, number, unknown][];
  }>('date-styles.json');

  it('gives the patterns FreeMarker prints with', () => {
    expect(f.cases.length).toBeGreaterThan(1500);
    const r = mismatches(f.cases, ([epoch, kind, ds, ts, l, z, expected]) => ({
      expected,
      actual: outcome(() =>
        new SimpleDateFormat(dateStylePattern(kind, f.styles[ds]!, f.locales[l]!, f.styles[ts]!), {
          locale: f.locales[l]!,
          timeZone: f.zones[z]!,
        }).format(epoch),
      ),
    }));
    expect(r.first).toEqual([]);
  });

  it('rejects unknown styles with a clear error', () => {
    expect(() => dateStylePattern('date', 'tiny' as DateStyle, 'en_US')).toThrow(
      'dateStylePattern: date style must be short, medium, long or full, not "tiny"',
    );
  });
});
