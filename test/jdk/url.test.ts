import { describe, expect, it } from 'vitest';
import { urlDecode, urlEncode } from '../../src/jdk/index.js';
import { fixture, mismatches, outcome } from './fixtures.js';

/**
 * The oracle looks charsets up with Charset.forName, whose errors are UnsupportedCharsetException /
 * IllegalCharsetNameException; URLEncoder.encode(String, String) and URLDecoder.decode(String,
 * String), which this port follows, turn both into UnsupportedEncodingException(name).
 */
function expectedOf(expected: unknown): unknown {
  if (expected && typeof expected === 'object') {
    const message = (expected as { error: string }).error;
    const m = /^java\.nio\.charset\.(?:UnsupportedCharset|IllegalCharsetName)Exception: (.*)$/.exec(message);
    if (m) return { error: `java.io.UnsupportedEncodingException: ${m[1]}` };
  }
  return expected;
}

describe('urlEncode / urlDecode (URLEncoder / URLDecoder of JDK 17)', () => {
  const f = fixture<{ encode: [string, string, unknown][]; decode: [string, string, unknown][] }>('url.json');

  it('encodes as URLEncoder', () => {
    const r = mismatches(f.encode, ([s, charset, expected]) => ({
      expected: expectedOf(expected),
      actual: outcome(() => urlEncode(s, charset)),
    }));
    expect(r.first).toEqual([]);
  });

  it('decodes as URLDecoder, with its exceptions', () => {
    const r = mismatches(f.decode, ([s, charset, expected]) => ({
      expected: expectedOf(expected),
      actual: outcome(() => urlDecode(s, charset)),
    }));
    expect(r.first).toEqual([]);
  });

  it('uses UTF-8 by default and rejects an empty charset like URLDecoder', () => {
    expect(urlEncode('a b&ü')).toBe('a+b%26%C3%BC');
    expect(urlDecode('a+b%26%C3%BC')).toBe('a b&ü');
    expect(outcome(() => urlDecode('x', ''))).toEqual({
      error: 'java.io.UnsupportedEncodingException: URLDecoder: empty string enc parameter',
    });
  });
});
