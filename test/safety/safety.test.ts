import { describe, expect, it } from 'vitest';
import {
  isPrototypeKey,
  keyNotAllowed,
  parseJsonSafely,
  PROTOTYPE_KEYS,
  readJsonText,
  UnsafeJsonKeyError,
} from '../../src/safety/index.js';

describe('the prototype-key deny-list', () => {
  it('holds exactly __proto__, constructor and prototype', () => {
    expect([...PROTOTYPE_KEYS]).toEqual(['__proto__', 'constructor', 'prototype']);
    expect(['__proto__', 'constructor', 'prototype', 'proto', 'Constructor', ''].map(isPrototypeKey)).toEqual(
      [true, true, true, false, false, false],
    );
    expect(keyNotAllowed('__proto__')).toBe('the key "__proto__" is not allowed');
  });
});

describe('parseJsonSafely', () => {
  it('parses JSON without a refused key as JSON.parse does', () => {
    expect(parseJsonSafely('{"a":[1,{"b":"__proto__"}],"constructor":1}')).toEqual({
      a: [1, { b: '__proto__' }],
      constructor: 1,
    });
  });

  it('refuses a __proto__ key anywhere, also spelled with \\u escapes', () => {
    for (const text of ['{"__proto__":{}}', '[{"a":{"__proto__":1}}]', '{"\\u005f_proto__":{"x":1}}']) {
      let error: unknown;
      try {
        parseJsonSafely(text);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(UnsafeJsonKeyError);
      expect((error as UnsafeJsonKeyError).key).toBe('__proto__');
      expect((error as Error).message).toBe('the key "__proto__" is not allowed');
    }
  });

  it('refuses constructor.prototype only when asked', () => {
    const text = '{"constructor":{"prototype":{"x":1}}}';
    expect(parseJsonSafely(text)).toEqual({ constructor: { prototype: { x: 1 } } });
    expect(() => parseJsonSafely(text, { constructorPrototype: true })).toThrow(
      'the key "constructor.prototype" is not allowed',
    );
  });

  it("lets JSON.parse's SyntaxError through", () => {
    expect(() => parseJsonSafely('{"a":')).toThrow(SyntaxError);
  });
});

describe('readJsonText', () => {
  it('names the input in both wordings', () => {
    expect(readJsonText('[1]', 'query')).toEqual([1]);
    expect(() => readJsonText('{"__proto__":1}', 'query')).toThrow(
      /^query: the key "__proto__" is not allowed$/,
    );
    expect(() => readJsonText('{x', 'line 3')).toThrow(/^line 3: invalid JSON \(.+\)$/);
  });
});
