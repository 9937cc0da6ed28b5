/**
 * java.net.URLEncoder.encode(String, String) and URLDecoder.decode(String, String) of JDK 17,
 * with charsets through iconv-lite and Java's exceptions and messages.
 */
import { iconv } from './on-demand.js';
import { JavaIllegalArgumentException, JavaUnsupportedEncodingException } from './errors.js';
import { javaDigit } from './number/integerParse.js';

const DONT_NEED_ENCODING = /[a-zA-Z0-9 \-_.*]/;

interface Codec {
  encode(s: string): Uint8Array;
  decode(bytes: Uint8Array): string;
  /** What String.getBytes writes for an unmappable or malformed character. */
  replacement: string;
  /** Charsets of the Unicode family encode every code point. */
  unicode: boolean;
}

const LONE_SURROGATES = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** UTF-16 as Java decodes it: a byte-order mark picks the order, an odd byte or a lone surrogate is U+FFFD. */
function decodeUtf16(b: Uint8Array, order: 'be' | 'le' | 'bom'): string {
  let little = order === 'le';
  let i = 0;
  if (order === 'bom' && b.length >= 2) {
    if (b[0] === 0xfe && b[1] === 0xff) i = 2;
    else if (b[0] === 0xff && b[1] === 0xfe) {
      little = true;
      i = 2;
    }
  }
  let out = '';
  for (; i + 1 < b.length; i += 2)
    out += String.fromCharCode(little ? b[i]! | (b[i + 1]! << 8) : (b[i]! << 8) | b[i + 1]!);
  if (i < b.length) out += '\ufffd';
  return out.replace(LONE_SURROGATES, '\ufffd');
}

function utf16Codec(order: 'be' | 'le' | 'bom'): Codec {
  const encoding = order === 'le' ? 'utf-16le' : 'utf-16be';
  const bom = order === 'bom' ? Buffer.from([0xfe, 0xff]) : Buffer.alloc(0);
  return {
    encode: (s) => Buffer.concat([bom, iconv().encode(s, encoding)]),
    decode: (b) => decodeUtf16(b, order),
    replacement: '\ufffd',
    unicode: true,
  };
}

function resolveCharset(name: string): Codec {
  const key = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (key === 'utf16' || key === 'unicode' || key === 'unicodebig') return utf16Codec('bom');
  if (['utf16be', 'xutf16be', 'unicodebigunmarked', 'iso10646ucs2'].includes(key)) return utf16Codec('be');
  if (['utf16le', 'xutf16le', 'unicodelittleunmarked'].includes(key)) return utf16Codec('le');
  if (!/^[A-Za-z0-9][A-Za-z0-9.:_+-]*$/.test(name) || !iconv().encodingExists(name)) {
    throw new JavaUnsupportedEncodingException(name);
  }
  return {
    encode: (s) => iconv().encode(s, name),
    decode: (b) => iconv().decode(Buffer.from(b), name),
    replacement: '?',
    unicode: /^(utf|ucs|cesu)/.test(key),
  };
}

/** Characters the charset cannot encode (and lone surrogates) become its replacement, one per code point. */
function encodable(s: string, codec: Codec): string {
  let out = '';
  for (const ch of s) {
    if (ch.length === 1 && ch >= '\ud800' && ch <= '\udfff') out += codec.replacement;
    else if (codec.unicode || codec.decode(codec.encode(ch)) === ch) out += ch;
    else out += codec.replacement;
  }
  return out;
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
    for (const b of codec.encode(encodable(s.slice(i, j), codec))) out += '%' + HEX[b >> 4] + HEX[b & 15];
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
