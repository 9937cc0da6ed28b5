import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/template/index.js';
import { harness, loadManifest, runCase } from './support/suite-harness.js';

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

  // Like FreeMarker's TemplateTestSuite: each case at every incompatible_improvements level it lists.
  for (const c of cases) {
    const run = gapNames.has(c.name) ? it.skip : it;
    for (const ici of c.icis) {
      run(`${c.name} (ici=${ici})`, async () => {
        const r = await runCase(c, ici);
        expect(r.detail).toBe('');
        expect(r.ok).toBe(true);
      });
    }
  }

  it('assertFails causeNestingLevel checks the n-th cause of the error', async () => {
    const data = {
      ...harness('cause', '2.3.31'),
      boom: () => {
        throw new TypeError('inner trouble');
      },
    };
    const run = (src: string): Promise<string> => compile(src, { strict: true }).render(data);
    await expect(
      run('<@assertFails causeNestingLevel=1 message="inner" exception="TypeError">${boom()}</@assertFails>'),
    ).resolves.toBe('');
    await expect(
      run('<@assertFails causeNestingLevel=2 message="inner">${boom()}</@assertFails>'),
    ).rejects.toThrow('cause nesting too shallow');
    await expect(
      run('<@assertFails causeNestingLevel=1 exception="RangeError">${boom()}</@assertFails>'),
    ).rejects.toThrow("The exception class name TypeError doesn't contain RangeError.");
  });
});
