import { describe, expect, it } from 'vitest';
import { call, errorOf } from '../helpers.js';

describe('P_json_put', () => {
  it('returns a new object with the field set, leaving the argument alone', () => {
    const m = { a: 1 };
    expect(call('P_json_put', [m, 'b', 'x'])).toEqual({ a: 1, b: 'x' });
    expect(m).toEqual({ a: 1 });
    expect(call('P_json_put', [m, 'a', 2])).toEqual({ a: 2 });
  });

  it('stores JSON text as its value unless forceString', () => {
    expect(call('P_json_put', [{}, 'n', '12'])).toEqual({ n: 12 });
    expect(call('P_json_put', [{}, 'n', '12', true])).toEqual({ n: '12' });
    expect(call('P_json_put', [{}, 'o', '{"x":[1,true]}'])).toEqual({ o: { x: [1, true] } });
    expect(call('P_json_put', [{}, 'o', '{"x":[1,true]}', 'true'])).toEqual({ o: '{"x":[1,true]}' });
    expect(call('P_json_put', [{}, 'b', 'true'])).toEqual({ b: true });
    expect(call('P_json_put', [{}, 's', '"quoted"'])).toEqual({ s: 'quoted' });
    expect(call('P_json_put', [{}, 's', 'null'])).toEqual({ s: 'null' });
    expect(call('P_json_put', [{}, 's', '12 apples'])).toEqual({ s: '12 apples' });
    expect(call('P_json_put', [{}, 's', '2024-01-15'])).toEqual({ s: '2024-01-15' });
    expect(call('P_json_put', [{}, 'n', 5, true])).toEqual({ n: '5' });
    expect(call('P_json_put', [{}, 'h', { a: 1 }, true])).toEqual({ h: '{"a":1}' });
  });

  it('builds query operators (a platform idiom)', () => {
    expect(call('P_json_put', ['{}', '$lt', '2024-01-01', true])).toEqual({ $lt: '2024-01-01' });
  });

  it.each(['__proto__', 'constructor', 'prototype'])('refuses the key %s', (key) => {
    expect(errorOf('P_json_put', [{}, key, '{"polluted":1}'])).toBe(
      `P_json_put: argument 2 (field) the key "${key}" is not allowed`,
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('checks its arguments', () => {
    expect(errorOf('P_json_put', ['[1]', 'a', 1])).toBe(
      'P_json_put: argument 1 (object) expected a hash or the JSON text of an object, got the string "[1]" (the JSON text of an array)',
    );
    expect(errorOf('P_json_put', [{}, 'a'])).toBe(
      'P_json_put: argument 3 (value) is missing: expected a value',
    );
    expect(errorOf('P_json_put', [{}, 'a', 1, 'maybe'])).toBe(
      'P_json_put: argument 4 (forceString) expected a boolean (true or false), got the string "maybe"',
    );
  });
});

describe('P_json_put_ext', () => {
  it('creates missing levels and copies the levels it changes', () => {
    const m = { a: { keep: 1 } };
    expect(call('P_json_put_ext', [m, 'a.b.c', '5'])).toEqual({ a: { keep: 1, b: { c: 5 } } });
    expect(m).toEqual({ a: { keep: 1 } });
    expect(call('P_json_put_ext', [{}, 'x', 'y'])).toEqual({ x: 'y' });
  });

  it('indexes arrays with numeric segments', () => {
    const m = { list: [{ v: 1 }, { v: 2 }] };
    expect(call('P_json_put_ext', [m, 'list.1.v', 3])).toEqual({ list: [{ v: 1 }, { v: 3 }] });
    expect(call('P_json_put_ext', [m, 'list.2', 'new'])).toEqual({ list: [{ v: 1 }, { v: 2 }, 'new'] });
    expect(m.list[1]).toEqual({ v: 2 });
    expect(errorOf('P_json_put_ext', [m, 'list.x', 1])).toBe(
      'P_json_put_ext: argument 2 (field) "x" is not an index of the array there (0 to 2)',
    );
  });

  it('refuses to go through a simple value, empty segments and forbidden keys', () => {
    expect(errorOf('P_json_put_ext', [{ a: 'text' }, 'a.b', 1])).toBe(
      'P_json_put_ext: argument 2 (field) cannot go through "a": it holds a string',
    );
    expect(errorOf('P_json_put_ext', [{}, 'a..b', 1])).toBe(
      'P_json_put_ext: argument 2 (field) has an empty segment in the path "a..b"',
    );
    expect(errorOf('P_json_put_ext', [{}, 'a.__proto__.polluted', 1])).toBe(
      'P_json_put_ext: argument 2 (field) the key "__proto__" is not allowed',
    );
    expect(errorOf('P_json_put_ext', [{}, 'constructor.prototype.polluted', 1])).toBe(
      'P_json_put_ext: argument 2 (field) the key "constructor" is not allowed',
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('P_json_accumulate and P_json_accumulateAll', () => {
  it('sets an absent field, turns a present one into an array, appends to an array', () => {
    expect(call('P_json_accumulate', [{}, 'a', 1])).toEqual({ a: 1 });
    expect(call('P_json_accumulate', [{ a: 1 }, 'a', '2'])).toEqual({ a: [1, 2] });
    expect(call('P_json_accumulate', [{ a: [1, 2] }, 'a', '3', true])).toEqual({ a: [1, 2, '3'] });
    expect(call('P_json_accumulate', [{ a: 1 }, 'a', [9]])).toEqual({ a: [1, [9]] });
    expect(errorOf('P_json_accumulate', [{}, '__proto__', 1])).toBe(
      'P_json_accumulate: argument 2 (field) the key "__proto__" is not allowed',
    );
  });

  it('accumulates every field of object2; common fields become arrays', () => {
    const a = { x: 1, y: [1] };
    expect(call('P_json_accumulateAll', [a, { x: 2, y: 2, z: 3 }])).toEqual({ x: [1, 2], y: [1, 2], z: 3 });
    expect(a).toEqual({ x: 1, y: [1] });
    expect(errorOf('P_json_accumulateAll', [{}, '{"constructor":1}'])).toBe(
      'P_json_accumulateAll: argument 2 (object2) the key "constructor" is not allowed',
    );
  });
});

describe('P_json_putAll', () => {
  it('merges, object2 winning', () => {
    expect(call('P_json_putAll', [{ a: 1, b: 1 }, '{"b":2,"c":3}'])).toEqual({ a: 1, b: 2, c: 3 });
    expect(errorOf('P_json_putAll', [{}, { prototype: 1 }])).toBe(
      'P_json_putAll: argument 2 (object2) the key "prototype" is not allowed',
    );
    expect(errorOf('P_json_putAll', [{}, '{"__proto__":{"polluted":1}}'])).toContain(
      '(not valid JSON: the key "__proto__" is not allowed)',
    );
  });
});

describe('P_json_remove and P_json_remove_ext', () => {
  it('removes a field, the same content when absent', () => {
    const m = { a: 1, b: 2 };
    expect(call('P_json_remove', [m, 'a'])).toEqual({ b: 2 });
    expect(m).toEqual({ a: 1, b: 2 });
    expect(call('P_json_remove', [m, 'zz'])).toEqual(m);
    expect(errorOf('P_json_remove', [m, 'constructor'])).toBe(
      'P_json_remove: argument 2 (field) the key "constructor" is not allowed',
    );
  });

  it('removes along a path; nothing when a level is missing', () => {
    const m = { a: { b: { c: 1, d: 2 } }, l: [1, 2, 3] };
    expect(call('P_json_remove_ext', [m, 'a.b.c'])).toEqual({ a: { b: { d: 2 } }, l: [1, 2, 3] });
    expect(call('P_json_remove_ext', [m, 'l.1'])).toEqual({ a: { b: { c: 1, d: 2 } }, l: [1, 3] });
    expect(m).toEqual({ a: { b: { c: 1, d: 2 } }, l: [1, 2, 3] });
    expect(call('P_json_remove_ext', [m, 'a.x.c'])).toBe(m);
    expect(call('P_json_remove_ext', [m, 'a.b.c.d'])).toBe(m);
    expect(call('P_json_remove_ext', [m, 'l.9'])).toBe(m);
    expect(errorOf('P_json_remove_ext', [m, 'a.__proto__'])).toBe(
      'P_json_remove_ext: argument 2 (field) the key "__proto__" is not allowed',
    );
  });
});

describe('P_json_parse and P_json_stringify', () => {
  it('parses JSON text and refuses what is not JSON', () => {
    expect(call('P_json_parse', ['{"a":[1,{"b":null}]}'])).toEqual({ a: [1, { b: null }] });
    expect(call('P_json_parse', ['[1,2]'])).toEqual([1, 2]);
    expect(errorOf('P_json_parse', ['{a:1}'])).toMatch(
      /^P_json_parse: argument 1 \(value\) is not valid JSON: /,
    );
    expect(errorOf('P_json_parse', ['{"__proto__":{"x":1}}'])).toBe(
      'P_json_parse: argument 1 (value) is not valid JSON: the key "__proto__" is not allowed',
    );
  });

  it('writes compact JSON', () => {
    expect(call('P_json_stringify', [{ a: [1, 'x'], b: { c: true } }])).toBe('{"a":[1,"x"],"b":{"c":true}}');
    expect(call('P_json_stringify', ['{ "a" : 1 }'])).toBe('{"a":1}');
    expect(call('P_json_stringify', ['plain'])).toBe('"plain"');
    expect(call('P_json_stringify', [[1, 2]])).toBe('[1,2]');
    expect(call('P_json_stringify', [new Map([['k', 1]])])).toBe('{"k":1}');
  });
});

describe('P_to_array', () => {
  it('normalises one value or a list into a sequence', () => {
    expect(call('P_to_array', [{ entry: [1, 2] }, 'entry'])).toEqual([1, 2]);
    expect(call('P_to_array', [{ entry: { id: 1 } }, 'entry'])).toEqual([{ id: 1 }]);
    expect(call('P_to_array', ['{"entry":"x"}', 'entry'])).toEqual(['x']);
    expect(call('P_to_array', [{}, 'entry'])).toEqual([]);
    expect(call('P_to_array', [{ entry: null }, 'entry'])).toEqual([]);
    expect(call('P_to_array', [{}, '__proto__'])).toEqual([]);
    expect(errorOf('P_to_array', [[1], 'x'])).toBe(
      'P_to_array: argument 1 (json_object) expected a hash or the JSON text of an object, got a sequence',
    );
  });
});
