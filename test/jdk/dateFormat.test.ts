import { describe, expect, it } from 'vitest';
import { SimpleDateFormat } from '../../src/jdk/index.js';
import { fixture, mismatches, outcome } from './fixtures.js';

interface FormatFixture {
  patterns: string[];
  zones: string[];
  locales: string[];
  cases: [number, number, number, number, unknown][];
}

describe('SimpleDateFormat.format', () => {
  it('matches Java 17 for random epochs × patterns × zones × locales', () => {
    const f = fixture<FormatFixture>('date-format.json');
    expect(f.cases.length).toBeGreaterThan(5000);
    const r = mismatches(f.cases, ([epoch, p, z, l, expected]) => ({
      expected,
      actual: outcome(() =>
        new SimpleDateFormat(f.patterns[p]!, { timeZone: f.zones[z], locale: f.locales[l] }).format(epoch),
      ),
    }));
    expect(r.first).toEqual([]);
  });

  it('applies Java zone offsets (ZoneInfo rules, no LMT before 1900) for every JDK zone id', () => {
    const f = fixture<{ ids: string[]; epochs: number[]; cases: [number, number, string][] }>(
      'zone-offsets.json',
    );
    const formats = new Map<string, SimpleDateFormat>();
    const r = mismatches(f.cases, ([z, e, expected]) => {
      const id = f.ids[z]!;
      let sdf = formats.get(id);
      if (!sdf) formats.set(id, (sdf = new SimpleDateFormat('yyyy-MM-dd HH:mm:ss Z', { timeZone: id })));
      return { expected, actual: sdf.format(f.epochs[e]!) };
    });
    expect(r.first).toEqual([]);
  });
});
