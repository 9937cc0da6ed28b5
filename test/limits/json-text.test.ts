/** The bounded JSON writer and size measure: shared structure once, cycles, early refusal. */
import { describe, expect, it } from 'vitest';
import { Budget } from '../../src/limits/budget.js';
import { boundedCopyBytes, boundedJson, boundedSize, chargeCopy } from '../../src/limits/json-text.js';
import { compile } from '../../src/template/index.js';

const tooLarge = () => new Error('too large');

/** [h, h] nested `levels` times around `leaf`: 2^levels leaves, `levels` arrays. */
function dag(levels: number, leaf: unknown = 1): unknown {
  let h: unknown = [leaf];
  for (let i = 0; i < levels; i++) h = [h, h];
  return h;
}

describe('boundedJson', () => {
  it('writes what JSON.stringify writes, shared structure included', () => {
    const shared = { a: [1, 'x', null, true], d: new Date(0), skip: undefined, f: () => 1 };
    const values = [dag(4), { x: shared, y: [shared, shared], n: NaN, u: [undefined] }, 'text', 12, null];
    for (const v of values) expect(boundedJson(v, 1e6, tooLarge)).toBe(JSON.stringify(v));
    expect(boundedJson(undefined, 10, tooLarge)).toBeUndefined();
  });

  it('refuses 2^40 leaves at once, without building the text', () => {
    const started = performance.now();
    expect(() => boundedJson(dag(40), 20_000_000, tooLarge)).toThrow('too large');
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('refuses at the limit, not past it', () => {
    const v = ['x'.repeat(8)];
    expect(boundedJson(v, 12, tooLarge)).toBe('["xxxxxxxx"]');
    expect(() => boundedJson(v, 11, tooLarge)).toThrow('too large');
  });

  it('writes null where a container recurs inside itself', () => {
    const a: Record<string, unknown> = { n: 1 };
    a.self = a;
    expect(boundedJson(a, 100, tooLarge)).toBe('{"n":1,"self":null}');
  });
});

describe('boundedSize', () => {
  it('measures the tree a DAG stands for, refusing it past the limit and refusing cycles', () => {
    expect(boundedSize(dag(3), 1000, tooLarge)).toBeGreaterThanOrEqual(JSON.stringify(dag(3)).length);
    expect(() => boundedSize(dag(40), 1e9, tooLarge)).toThrow('too large');
    const c: unknown[] = [];
    c.push(c);
    expect(() => boundedSize(c, 1e9, tooLarge)).toThrow('too large');
  });
});

describe('${hash} and ${sequence} (the compact JSON printer)', () => {
  it('prints shared structure and data cycles', async () => {
    const shared = { k: [1, 2] };
    const cyclic: Record<string, unknown> = { id: 7 };
    cyclic.me = cyclic;
    const out = await compile('${a} ${b}').render({ a: [shared, shared, { s: shared }], b: cyclic });
    expect(out).toBe('[{"k":[1,2]},{"k":[1,2]},{"s":{"k":[1,2]}}] {"id":7,"me":null}');
  });

  it('stops at the output limit left by what was already written', async () => {
    const t = compile('${"x"?left_pad(90, "x")}${h}');
    await expect(t.render({ h: dag(3) }, { limits: { maxOutputChars: 100 } })).rejects.toThrow(
      'Template execution stopped: printing a hash or sequence as JSON: the output would exceed the limit of 10 characters for one evaluation.',
    );
    expect(await t.render({ h: [1, 2] }, { limits: { maxOutputChars: 100 } })).toHaveLength(95);
  });
});

describe('boundedCopyBytes and chargeCopy', () => {
  it('weighs a full copy in the budget’s units and measures shared containers once', () => {
    // 2 arrays of one slot each around a 3-character string: 2 × (32 + 8) + 6
    expect(boundedCopyBytes([['abc']], 1e6, tooLarge)).toBe(86);
    const started = performance.now();
    expect(() => boundedCopyBytes(dag(60), 256 * 1024 * 1024, tooLarge)).toThrow('too large');
    expect(() => boundedCopyBytes(new Map([['k', dag(60)]]), 256 * 1024 * 1024, tooLarge)).toThrow(
      'too large',
    );
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('charges the copy to the budget, and refuses one past what is left naming the argument', () => {
    const budget = new Budget({ maxAllocBytes: 1000 });
    chargeCopy(budget, [['abc']], 'f: argument 1 (x)');
    expect(budget.allocated).toBe(86);
    expect(() => chargeCopy(budget, dag(10), 'f: argument 1 (x)')).toThrow(
      'f: argument 1 (x) is too large: a copy of it would exceed the 1000 bytes limit for one evaluation',
    );
    expect(budget.allocated).toBe(86);
  });
});
