import { describe, expect, it } from 'vitest';
import { doubleToString, javaMathRound } from '../../src/jdk/index.js';
import { fixture, mismatches } from './fixtures.js';

describe('doubleToString (JDK 17 Double.toString)', () => {
  it('matches Java on the fixture doubles', () => {
    const { cases } = fixture<{ cases: [string, string][] }>('double-to-string.json');
    expect(cases.length).toBeGreaterThan(5000);
    const r = mismatches(cases, ([x, expected]) => ({ expected, actual: doubleToString(Number(x)) }));
    expect(r.first).toEqual([]);
  });

  it('keeps the non-shortest JDK 17 forms and the special values', () => {
    expect(doubleToString(2e23)).toBe('1.9999999999999998E23');
    expect(doubleToString(1e7)).toBe('1.0E7');
    expect(doubleToString(9999999)).toBe('9999999.0');
    expect(doubleToString(0.001)).toBe('0.001');
    expect(doubleToString(0.0001)).toBe('1.0E-4');
    expect(doubleToString(-0)).toBe('-0.0');
    expect(doubleToString(NaN)).toBe('NaN');
    expect(doubleToString(-Infinity)).toBe('-Infinity');
  });
});

describe('javaMathRound (Math.round(double))', () => {
  it('matches Java on Math.round(x * 1e6) / 1e6', () => {
    const { cases } = fixture<{ cases: [string, string][] }>('math-round.json');
    const r = mismatches(cases, ([x, expected]) => ({
      expected,
      actual: doubleToString(javaMathRound(Number(x) * 1e6) / 1e6),
    }));
    expect(r.first).toEqual([]);
  });

  it('rounds halves up, not away from zero, and clamps to the long range', () => {
    expect(javaMathRound(-2.5)).toBe(-2);
    expect(javaMathRound(2.5)).toBe(3);
    expect(javaMathRound(0.49999999999999994)).toBe(0);
    expect(javaMathRound(1e19)).toBe(2 ** 63);
    expect(javaMathRound(NaN)).toBe(0);
  });
});
