import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadManifest, runCase } from './support/suite-harness.js';

interface Gap {
  name: string;
  reason: string;
}
const gaps: Gap[] = JSON.parse(
  readFileSync(new URL('../fixtures/template/suite-known-gaps.json', import.meta.url), 'utf8'),
).gaps;
const gapNames = new Set(gaps.map((g) => g.name));
const cases = loadManifest();

describe('FreeMarker 2.3.31 template test suite', () => {
  it('has 67 cases and at most 7 known gaps, each naming what needs the JVM', () => {
    expect(cases.length).toBe(67);
    expect(gaps.length).toBeLessThanOrEqual(7);
    for (const g of gaps) {
      expect(cases.some((c) => c.name === g.name)).toBe(true);
      expect(g.reason).toMatch(/Java|JVM|byte encoding|\?new/);
    }
  });

  for (const c of cases) {
    const run = gapNames.has(c.name) ? it.skip : it;
    run(c.name, async () => {
      const r = await runCase(c);
      expect(r.detail).toBe('');
      expect(r.ok).toBe(true);
    });
  }
});
