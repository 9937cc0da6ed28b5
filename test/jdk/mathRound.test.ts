import { describe, expect, it } from 'vitest';
import { javaMathRoundLong } from '../../src/jdk/index.js';

describe('javaMathRoundLong (the exact long of Math.round(double))', () => {
  it('returns the long Java returns, clamped to the long range', () => {
    expect(javaMathRoundLong(2.5)).toBe(3n);
    expect(javaMathRoundLong(-2.5)).toBe(-2n);
    expect(javaMathRoundLong(4503599627370497)).toBe(4503599627370497n);
    expect(javaMathRoundLong(1e19)).toBe(9223372036854775807n);
    expect(javaMathRoundLong(-Infinity)).toBe(-9223372036854775808n);
    expect(javaMathRoundLong(NaN)).toBe(0n);
  });
});
