import { describe, expect, it } from 'vitest';
import { call, caseName, checkJavaCase, envWith, errorOf, fixture, testContext } from '../helpers.js';

const encodings = fixture('encodings');

describe('decode, R_encode and URL decoding agree with java.util.Base64, URLEncoder and URLDecoder', () => {
  it.each(encodings.map((c) => [caseName(c), c] as const))('%s', (_n, c) => checkJavaCase(c));
});

describe('decode and R_encode', () => {
  it('refuse unknown algorithms and result types', () => {
    expect(errorOf('decode', ['Base32', 'AA'])).toBe(
      'decode: argument 1 (algorithm) expected Base64, got the string "Base32"',
    );
    expect(call('decode', ['BASE64', 'YWJj'])).toBe('abc');
    expect(errorOf('decode', ['Base64', 'Zm-v'])).toBe(
      'decode: argument 2 (input) is not valid Base64: Illegal base64 character 2d',
    );
    expect(errorOf('R_encode', ['ROT13', 'x'])).toBe(
      'R_encode: argument 1 (encoding) expected BASE64, BASE64URL or URL, got the string "ROT13"',
    );
    expect(errorOf('R_encode', ['URL', 'x', 'BYTES'])).toBe(
      'R_encode: argument 3 (result) expected CHAR or HEXA, got the string "BYTES"',
    );
  });

  it('decodes what R_encode encodes', () => {
    const text = 'Grüße, 世界 🙂';
    expect(call('decode', ['Base64', call('R_encode', ['BASE64', text])])).toBe(text);
  });
});

describe('bubble_babble', () => {
  it.each([
    ['', 'xexax'],
    ['1234567890', 'xesef-disof-gytuf-katof-movif-baxux'],
    ['Pineapple', 'xigak-nyryk-humil-bosek-sonax'],
  ])('encodes %j as the reference vectors say', (input, output) => {
    expect(call('bubble_babble', [input])).toBe(output);
  });

  it('encodes the UTF-8 bytes (é is C3 A9)', () => {
    // worked by hand from the specification: u-b-o, p-n, checksum o-x-u
    expect(call('bubble_babble', ['é'])).toBe('xubop-noxux');
  });
});

describe('safe_get', () => {
  const env = envWith({
    name: 'Ann <b>&',
    order: { customer: { name: 'Bob' }, lines: [{ sku: 'A1' }] },
    n: 12,
    flag: false,
  });
  const get = (args: unknown[]) => call('safe_get', args, testContext(), env);

  it('reads a variable or gives the default', () => {
    expect(get(['name', 'x'])).toBe('Ann <b>&');
    expect(get(['missing', 'fallback'])).toBe('fallback');
    expect(get(['n', ''])).toBe('12');
    expect(get(['flag', ''])).toBe('false');
  });

  it('reads dotted paths through hashes and sequences', () => {
    expect(get(['order.customer.name', '?'])).toBe('Bob');
    expect(get(['order.lines.0.sku', '?'])).toBe('A1');
    expect(get(['order.lines.5.sku', '?'])).toBe('?');
    expect(get(['order.customer.name.first', '?'])).toBe('?');
    expect(get(['order.__proto__', '?'])).toBe('?');
    expect(get(['order.customer', ''])).toBe('{"name":"Bob"}');
  });

  it('encodes the result', () => {
    expect(get(['name', '', 'HTML'])).toBe('Ann &#60;b&#62;&#38;');
    expect(get(['name', '', 'URL'])).toBe('Ann+%3Cb%3E%26');
    expect(get(['name', '', 'BASE64'])).toBe(Buffer.from('Ann <b>&').toString('base64'));
    expect(get(['missing', '</script>"', 'JS'])).toBe('\\x3C/script>\\"');
    expect(get(['missing', 'a b', 'url'])).toBe('a+b');
    expect(errorOf('safe_get', ['name', '', 'ROT13'], testContext(), env)).toBe(
      'safe_get: argument 3 (encoding) expected NONE, HTML, XML, JS, URL or BASE64, got the string "ROT13"',
    );
  });
});
