/**
 * java.net.URLEncoder.encode(String, String) and URLDecoder.decode(String, String) of JDK 17,
 * with charsets through iconv-lite and Java's exceptions and messages.
 */
import iconv from 'iconv-lite';
import { JavaIllegalArgumentException, JavaUnsupportedEncodingException } from './errors.js';
import { javaDigit } from './number/integerParse.js';

const DONT_NEED_ENCODING = /[a-zA-Z0-9 \-_.*]/;

interface Codec {
  encode(s: string): Uint8Array;
  decode(bytes: Uint8Array): string;
}

function resolveCharset(name: string): Codec {
  const key = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (key === 'utf16') {
    // Java's "UTF-16" encodes big-endian with a byte-order mark, and decodes by the mark (big-endian by default).
    return {
      encode: (s) => Buffer.concat([Buffer.from([0xfe, 0xff]), iconv.encode(s, 'utf-16be')]),
      decode: (b) => {
        if (b[0] === 0xff && b[1] === 0xfe) return iconv.decode(Buffer.from(b.subarray(2)), 'utf-16le');
        if (b[0] === 0xfe && b[1] === 0xff) return iconv.decode(Buffer.from(b.subarray(2)), 'utf-16be');
        return iconv.decode(Buffer.from(b), 'utf-16be');
      },
    };
  }
  if (!/^[A-Za-z0-9][A-Za-z0-9.:_+-]*$/.test(name) || !iconv.encodingExists(name)) {
    throw new JavaUnsupportedEncodingException(name);
  }
  return {
    encode: (s) => iconv.encode(s, name),
    decode: (b) => iconv.decode(Buffer.from(b), name),
  };
}

/** Lone surrogates cannot be encoded: Java's String.getBytes replaces them with '?'. */
function replaceLoneSurrogates(s: string): string {
  return s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '?');
}

const HEX = '0123456789ABCDEF';

/** URLEncoder.encode(s, charset): space → "+", `a-zA-Z0-9-_.*` kept, the rest %XX of the charset's bytes. */
export function urlEncode(s: string, charset = 'UTF-8'): string {
  const codec = resolveCharset(charset);
  let out = '';
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (DONT_NEED_ENCODING.test(c)) {
      out += c === ' ' ? '+' : c;
      i++;
      continue;
    }
    let j = i;
    while (j < s.length && !DONT_NEED_ENCODING.test(s[j]!)) j++;
    for (const b of codec.encode(replaceLoneSurrogates(s.slice(i, j))))
      out += '%' + HEX[b >> 4] + HEX[b & 15];
    i = j;
  }
  return out;
}

/** Character.digit(ch, 16) for the characters that can appear in an escape. */
function hexDigit(ch: string): number {
  const c = ch.charCodeAt(0);
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 70) return c - 55;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 0xff21 && c <= 0xff26) return c - 0xff21 + 10; // fullwidth A-F
  if (c >= 0xff41 && c <= 0xff46) return c - 0xff41 + 10; // fullwidth a-f
  return javaDigit(c);
}

/** Integer.parseInt(s, begin, end, 16) of JDK 17, with its NumberFormatException message. */
function parseHexByte(s: string, begin: number, end: number): number {
  const fail = (): never => {
    throw new JavaIllegalArgumentException(
      `URLDecoder: Illegal hex characters in escape (%) pattern - Error at index ${errorIndex - begin} in: "${s.slice(begin, end)}"`,
    );
  };
  let errorIndex = begin;
  let i = begin;
  let negative = false;
  const first = s[i]!;
  if (first < '0') {
    if (first === '-') negative = true;
    else if (first !== '+') fail();
    i++;
    if (i === end) {
      throw new JavaIllegalArgumentException(
        `URLDecoder: Illegal hex characters in escape (%) pattern - Error at index 1 in: "${s.slice(begin, end)}"`,
      );
    }
  }
  let result = 0;
  while (i < end) {
    errorIndex = i;
    const d = hexDigit(s[i]!);
    if (d < 0) fail();
    result = result * 16 + d;
    i++;
  }
  return negative ? -result : result;
}

/** URLDecoder.decode(s, charset): "+" → space, %XX runs decoded with the charset (bad bytes → U+FFFD). */
export function urlDecode(s: string, charset = 'UTF-8'): string {
  if (charset === '') throw new JavaUnsupportedEncodingException('URLDecoder: empty string enc parameter');
  const codec = resolveCharset(charset);
  const numChars = s.length;
  let out = '';
  let i = 0;
  while (i < numChars) {
    let c = s[i]!;
    if (c === '+') {
      out += ' ';
      i++;
    } else if (c === '%') {
      const bytes: number[] = [];
      while (i + 2 < numChars && c === '%') {
        const v = parseHexByte(s, i + 1, i + 3);
        if (v < 0) {
          throw new JavaIllegalArgumentException(
            'URLDecoder: Illegal hex characters in escape (%) pattern - negative value',
          );
        }
        bytes.push(v & 0xff);
        i += 3;
        if (i < numChars) c = s[i]!;
      }
      if (i < numChars && c === '%') {
        throw new JavaIllegalArgumentException('URLDecoder: Incomplete trailing escape (%) pattern');
      }
      out += codec.decode(Uint8Array.from(bytes));
    } else {
      out += c;
      i++;
    }
  }
  return out;
}
