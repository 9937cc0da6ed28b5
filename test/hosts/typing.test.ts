/** The typing rule of computed variables (docs/hosts.md). */
import { describe, expect, it } from 'vitest';
import { typedValue } from '../../src/hosts/index.js';

describe('typing rule', () => {
  it('stores JSON objects, arrays, numbers and booleans typed', () => {
    expect(typedValue('{"a": [1, {"b": null}], "c": "x"}')).toEqual({ a: [1, { b: null }], c: 'x' });
    expect(typedValue('[1, "two", false]')).toEqual([1, 'two', false]);
    expect(typedValue('[]')).toEqual([]);
    expect(typedValue('42')).toBe(42);
    expect(typedValue('-0.5')).toBe(-0.5);
    expect(typedValue('1.50')).toBe(1.5);
    expect(typedValue('6.02e23')).toBe(6.02e23);
    expect(typedValue('9007199254740991')).toBe(9007199254740991);
    expect(typedValue('true')).toBe(true);
    expect(typedValue('false')).toBe(false);
  });

  it('tests the output trimmed of JSON white space, and keeps a string as printed', () => {
    expect(typedValue('\n  {"a": 1}\r\n\t')).toEqual({ a: 1 });
    expect(typedValue(' 12 ')).toBe(12);
    expect(typedValue('  hello ')).toBe('  hello ');
    expect(typedValue('\u00a012')).toBe('\u00a012'); // a no-break space is not JSON white space
  });

  it('keeps as strings what is not wholly JSON of those kinds', () => {
    for (const text of [
      '',
      '   ',
      'null',
      '"quoted"',
      'True',
      'TRUE',
      '1,234', // FreeMarker's default number format: use ?c for numbers
      '+1',
      '01',
      '.5',
      '1.',
      '0x10',
      'NaN',
      'Infinity',
      '12 apples',
      '{"a": 1} trailing',
      '{a: 1}',
      "{'a': 1}",
      '[1, 2',
      '{"a":1}{"b":2}',
    ])
      expect(typedValue(text), JSON.stringify(text)).toBe(text);
  });

  it('keeps a number as a string when a double would change its value', () => {
    expect(typedValue('12345678901234567890')).toBe('12345678901234567890');
    expect(typedValue('9007199254740993')).toBe('9007199254740993');
    expect(typedValue('0.1000000000000000000001')).toBe('0.1000000000000000000001');
    expect(typedValue('1e400')).toBe('1e400');
    expect(typedValue('0.1')).toBe(0.1);
    expect(typedValue('1e21')).toBe(1e21);
  });

  it('keeps as a string JSON with a key reaching a prototype', () => {
    for (const text of ['{"__proto__": {"x": 1}}', '[{"constructor": 1}]', '{"a": {"prototype": 2}}'])
      expect(typedValue(text)).toBe(text);
  });
});
