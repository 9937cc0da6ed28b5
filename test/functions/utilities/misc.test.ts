import { describe, expect, it } from 'vitest';
import { call, caseName, checkJavaCase, errorOf, fixture, sequence, testContext } from '../helpers.js';

const numbers = fixture('numbers').filter((c) => c.call[0].startsWith('get_random'));

describe('get_random and get_random_gaussian round like Java Math.round(x * 1e6) / 1e6', () => {
  it.each(numbers.map((c) => [caseName(c), c] as const))('%s', (_n, c) => checkJavaCase(c));

  it('draws from the context', () => {
    expect(call('get_random', [], testContext({ random: sequence([0.25]) }))).toBe(0.25);
    const values = new Set(
      Array.from({ length: 20 }, () => call('get_random', [], testContext({ random: Math.random }))),
    );
    expect(values.size).toBeGreaterThan(15);
    for (const v of values) expect(Math.round((v as number) * 1e6) / 1e6).toBe(v);
  });

  it('has the mean and spread asked for', () => {
    const ctx = testContext({ random: Math.random });
    const xs = Array.from({ length: 4000 }, () => call('get_random_gaussian', ['50', '5'], ctx) as number);
    const mean = xs.reduce((a, b) => a + b) / xs.length;
    const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length);
    expect(Math.abs(mean - 50)).toBeLessThan(0.5);
    expect(Math.abs(sd - 5)).toBeLessThan(0.5);
  });

  it('gives up on a random source that never yields a usable draw', () => {
    expect(errorOf('get_random_gaussian', ['0', '1'], testContext({ random: () => 0.5 }))).toBe(
      'get_random_gaussian: the random source gives no usable values',
    );
  });

  it('refuses what is not a number', () => {
    expect(errorOf('get_random_gaussian', ['ten', '1'])).toBe(
      'get_random_gaussian: argument 1 (average) expected a number, got the string "ten"',
    );
    expect(errorOf('get_random', [1])).toBe(
      'get_random: argument 1 is not expected: get_random takes no arguments, got 1',
    );
  });
});

describe('uuid', () => {
  it('is a version 4 UUID made of the context\u2019s random bytes', () => {
    const bytes = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
    expect(call('uuid', [], testContext({ randomBytes: (n) => new Uint8Array(bytes.subarray(0, n)) }))).toBe(
      '00112233-4455-4677-8899-aabbccddeeff',
    );
    const real = testContext({ randomBytes: undefined });
    const a = call('uuid', [], real) as string;
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(call('uuid', [], real)).not.toBe(a);
  });
});

describe('transpose', () => {
  it('turns columns into rows and back', () => {
    const columns = { a: [1, 2], b: ['x', 'y'] };
    const rows = [
      { a: 1, b: 'x' },
      { a: 2, b: 'y' },
    ];
    expect(call('transpose', [columns])).toEqual(rows);
    expect(call('transpose', [rows])).toEqual(columns);
    expect(call('transpose', [JSON.stringify(rows)])).toEqual(columns);
    expect(call('transpose', [JSON.stringify(columns)])).toEqual(rows);
  });

  it('fills gaps with null', () => {
    expect(call('transpose', [{ a: [1, 2, 3], b: [4] }])).toEqual([
      { a: 1, b: 4 },
      { a: 2, b: null },
      { a: 3, b: null },
    ]);
    expect(call('transpose', [[{ a: 1 }, { b: 2 }]])).toEqual({ a: [1, null], b: [null, 2] });
    expect(call('transpose', [[]])).toEqual({});
    expect(call('transpose', [{}])).toEqual([]);
  });

  it('refuses malformed input', () => {
    expect(errorOf('transpose', [{ a: 1 }])).toBe(
      'transpose: argument 1 (input) column "a" is the number 1, expected a sequence',
    );
    expect(errorOf('transpose', [[{ a: 1 }, 2]])).toBe(
      'transpose: argument 1 (input) row 2 is the number 2, expected a hash',
    );
    expect(errorOf('transpose', ['[{"constructor":1}]'])).toBe(
      'transpose: argument 1 (input) the key "constructor" is not allowed',
    );
    expect(errorOf('transpose', ['nope'])).toContain(
      'transpose: argument 1 (input) expected a hash or the JSON text of an object, or a sequence or the JSON text of an array, got the string "nope"',
    );
  });
});

describe('P_quoted', () => {
  it('quotes as a JavaScript string literal', () => {
    expect(call('P_quoted', ["it's"])).toBe("'it\\'s'");
    expect(call('P_quoted', ['say "hi"', '"'])).toBe('"say \\"hi\\""');
    expect(call('P_quoted', ['a\'b"c'])).toBe("'a\\'b\"c'");
    expect(call('P_quoted', ['back\\slash'])).toBe("'back\\\\slash'");
    expect(call('P_quoted', ['l1\r\nl2\u2028\u2029\u0000'])).toBe("'l1\\r\\nl2\\u2028\\u2029\\u0000'");
    expect(call('P_quoted', [''])).toBe("''");
    expect(call('P_quoted', [12])).toBe("'12'");
    expect(call('P_quoted', ['${x} `t`', '`'])).toBe('`\\${x} \\`t\\``');
  });

  it('cannot end the script element it is written in', () => {
    const out = call('P_quoted', ['</script><script>alert(1)</script><!-- x']) as string;
    expect(out).toBe("'\\x3C/script><script>alert(1)\\x3C/script>\\x3C!-- x'");
    expect(out.toLowerCase()).not.toContain('</script');
    expect(out).not.toContain('<!--');
  });

  it('gives back the original text when evaluated as JavaScript', () => {
    for (const quote of ["'", '"', '`']) {
      const text = 'mixed \' " ` \\ \r\n \t </script> <!-- ${x} \u2028 é 🙂';
      const literal = call('P_quoted', [text, quote]) as string;
      expect(new Function(`return ${literal};`)()).toBe(text);
    }
  });

  it('refuses other quote characters', () => {
    expect(errorOf('P_quoted', ['x', '<'])).toBe(
      'P_quoted: argument 2 (quote) expected \' or " or `, got "<"',
    );
  });
});
