import { describe, expect, it } from 'vitest';
import { SimpleDateFormat, dateOffset } from '../../src/jdk/index.js';
import { fixture, mismatches, outcome } from './fixtures.js';

interface ParseFixture {
  generatedAt: number;
  patterns: string[];
  zones: string[];
  locales: string[];
  cases: [string, number, number, number, number, unknown][];
}

describe('SimpleDateFormat.parse', () => {
  const f = fixture<ParseFixture>('date-parse.json');

  it('matches Java 17 strict and lenient parsing on valid and mutated texts', () => {
    expect(f.cases.length).toBeGreaterThan(3000);
    const r = mismatches(f.cases, ([text, p, z, l, lenient, expected]) => ({
      expected,
      actual: outcome(() =>
        new SimpleDateFormat(f.patterns[p]!, {
          timeZone: f.zones[z],
          locale: f.locales[l],
          lenient: lenient === 1,
          now: () => f.generatedAt,
        }).parse(text),
      ),
    }));
    expect(r.first).toEqual([]);
  });
});

describe('dateOffset (Calendar.add(DAY_OF_MONTH, n) in a zone)', () => {
  it('matches Java 17', () => {
    const { cases } = fixture<{ cases: [string, number, string, string, unknown][] }>('date-offset.json');
    const r = mismatches(cases, ([text, days, pattern, timeZone, expected]) => ({
      expected,
      actual: outcome(() => dateOffset(text, days, { pattern, timeZone })),
    }));
    expect(r.first).toEqual([]);
  });
});
