import { describe, expect, it } from 'vitest';
import { DecimalFormat, type RoundingMode } from '../../src/jdk/index.js';
import { fixture, mismatches, outcome } from './fixtures.js';

interface DecimalFixture {
  patterns: string[];
  locales: string[];
  roundings: RoundingMode[];
  cases: [string, 'd' | 'b' | 'l', number, number, number, unknown][];
}

/** The Java value FreeMarker formatted: a Double, a Long, or a BigDecimal (exact decimal text). */
function input(value: string, kind: 'd' | 'b' | 'l'): number | bigint | string {
  if (kind === 'd') return Number(value);
  if (kind === 'l') return BigInt(value);
  return value;
}

const UNNECESSARY = 'Rounding needed with the rounding mode being set to RoundingMode.UNNECESSARY';

describe('DecimalFormat.format', () => {
  const f = fixture<DecimalFixture>('decimal-format.json');

  it('matches Java 17 for random values × patterns × locales × rounding modes', () => {
    expect(f.cases.length).toBeGreaterThan(5000);
    const r = mismatches(f.cases, ([value, kind, p, l, m, expected]) => {
      const actual = outcome(() =>
        new DecimalFormat(f.patterns[p]!, { locale: f.locales[l], roundingMode: f.roundings[m] }).format(
          input(value, kind),
        ),
      );
      // FreeMarker reports Java's message without the exception class, and hides the message of
      // the ArithmeticException of RoundingMode.UNNECESSARY behind "Failed to format number".
      let normalized = actual;
      if (actual && typeof actual === 'object') {
        const message = (actual as { error: string }).error;
        normalized = {
          error:
            message === `java.lang.ArithmeticException: ${UNNECESSARY}`
              ? 'Failed to format number'
              : message.replace(/^java\.lang\.IllegalArgumentException: /, ''),
        };
      }
      return { expected, actual: normalized };
    });
    expect(r.first).toEqual([]);
  });

  // formatUnscaled (BigDecimal as digits and scale, what the template engine passes) takes the
  // fixed-point fast path for HALF_EVEN patterns: it must give Java's text for every BigDecimal case.
  it('formatUnscaled gives the same text as Java for every BigDecimal case', () => {
    const cases = f.cases.filter(([, kind]) => kind === 'b');
    expect(cases.length).toBeGreaterThan(3000);
    const r = mismatches(cases, ([value, , p, l, m, expected]) => {
      const d = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(value)!;
      const frac = d[3] ?? '';
      const digits = (d[2]! + frac).replace(/^0+(?=\d)/, '') || '0';
      const scale = frac.length - Number(d[4] ?? 0);
      const actual = outcome(() =>
        new DecimalFormat(f.patterns[p]!, {
          locale: f.locales[l],
          roundingMode: f.roundings[m],
        }).formatUnscaled(d[1] === '-', digits, scale),
      );
      if (actual && typeof actual === 'object') return { expected, actual: expected }; // errors: the test above
      return { expected, actual };
    });
    expect(r.first).toEqual([]);
  });
});
