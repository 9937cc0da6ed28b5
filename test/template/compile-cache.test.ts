/**
 * The compile cache is bounded by the characters of the sources it keeps as well as by units: a
 * compiled template keeps ~45 bytes of heap per source character, so many large distinct
 * templates must not accumulate (issue 29; the heap itself: bench/template.bench.ts).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compile, compileCacheSize, setCompileCacheLimits } from '../../src/template/index.js';
import { clearCompileCache } from '../../src/template/compile.js';

/** A distinct template of exactly `chars` characters rendering `<i>:<n>`. */
function template(i: number, chars: number): string {
  const bare = `${i}:\${n}<#---->`;
  return `${i}:\${n}<#--${'x'.repeat(chars - bare.length)}-->`;
}

describe('compile cache', () => {
  beforeEach(() => clearCompileCache());
  afterEach(() => {
    setCompileCacheLimits();
    clearCompileCache();
  });

  it('keeps at most its bound of source characters, dropping the least recently used', async () => {
    setCompileCacheLimits({ sourceChars: 100_000 });
    for (let i = 0; i < 30; i++) expect(await compile(template(i, 10_000)).render({ n: 1 })).toBe(`${i}:1`);
    expect(compileCacheSize()).toEqual({ units: 10, sourceChars: 100_000 });
    // A recent one is a hit (nothing added), an old one was dropped (compiled and added again).
    compile(template(29, 10_000));
    expect(compileCacheSize()).toEqual({ units: 10, sourceChars: 100_000 });
    compile(template(25, 10_000), { name: 'other' });
    expect(compileCacheSize()).toEqual({ units: 10, sourceChars: 100_000 });
    compile(template(0, 10_000));
    expect(compileCacheSize()).toEqual({ units: 10, sourceChars: 100_000 });
  });

  it('does not keep a template larger than the whole bound, and still renders it', async () => {
    setCompileCacheLimits({ sourceChars: 50_000 });
    compile(template(1, 1_000));
    expect(await compile(template(2, 60_000)).render({ n: 7 })).toBe('2:7');
    expect(compileCacheSize()).toEqual({ units: 1, sourceChars: 1_000 });
  });

  it('keeps at most its bound of units, and a lower bound applies at once', () => {
    setCompileCacheLimits({ units: 5 });
    for (let i = 0; i < 12; i++) compile(template(i, 100));
    expect(compileCacheSize()).toEqual({ units: 5, sourceChars: 500 });
    setCompileCacheLimits({ units: 5, sourceChars: 250 });
    expect(compileCacheSize()).toEqual({ units: 2, sourceChars: 200 });
  });

  it('has the default bounds of 1000 units and 4 Mi characters', () => {
    setCompileCacheLimits();
    for (let i = 0; i < 50; i++) compile(template(i, 100_000));
    expect(compileCacheSize().units).toBe(41);
    expect(compileCacheSize().sourceChars).toBeLessThanOrEqual(4 * 1024 * 1024);
    for (let i = 0; i < 1100; i++) compile(template(1000 + i, 100));
    expect(compileCacheSize().units).toBe(1000);
  });
});
