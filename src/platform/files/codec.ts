/**
 * How a file's bytes become the text a script works on, and back:
 * - the `algorithm` says how the text represents the bytes: NONE (characters in `charset`),
 *   BASE64, BASE64URL or HEXA (the bytes, encoded; `charset` is then unused);
 * - the `charset` is any character set iconv-lite knows (UTF-8, ISO-8859-1, windows-1252,
 *   UTF-16LE, Shift_JIS …). Decoding keeps a byte-order mark (as Java does), so writing the
 *   text back gives the same bytes; characters a charset cannot encode become `?` (as in Java).
 */
import iconv from 'iconv-lite';
import { PlatformError } from '../errors.js';
import { isOneOf } from '../../safety/narrow.js';

export const ALGORITHMS = ['NONE', 'BASE64', 'BASE64URL', 'HEXA'] as const;
export type Algorithm = (typeof ALGORITHMS)[number];

export const DEFAULT_CHARSET = 'UTF-8';

/** The algorithm named by `text` (any case), or undefined. */
export function parseAlgorithm(text: string): Algorithm | undefined {
  const upper = text.trim().toUpperCase();
  return isOneOf(ALGORITHMS, upper) ? upper : undefined;
}

/** True when iconv-lite can encode and decode this character set. */
export function isCharset(name: string): boolean {
  return name.trim() !== '' && iconv.encodingExists(name.trim());
}

export function describeAlgorithms(): string {
  return `${ALGORITHMS.slice(0, -1).join(', ')} or ${ALGORITHMS[ALGORITHMS.length - 1]}`;
}

/** The text view of some bytes. */
export function bytesToText(bytes: Uint8Array, algorithm: Algorithm, charset: string): string {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (algorithm) {
    case 'NONE':
      return iconv.decode(buffer, charset.trim(), { stripBOM: false });
    case 'BASE64':
      return buffer.toString('base64');
    case 'BASE64URL':
      return buffer.toString('base64url');
    case 'HEXA':
      return buffer.toString('hex');
  }
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;
const HEXA = /^(?:[0-9A-Fa-f]{2})*$/;

/** The bytes a text view stands for; `PlatformError('invalid')` when the text is not of the algorithm. */
export function textToBytes(text: string, algorithm: Algorithm, charset: string): Buffer {
  switch (algorithm) {
    case 'NONE':
      return iconv.encode(text, charset.trim(), { addBOM: false });
    case 'BASE64':
    case 'BASE64URL': {
      const compact = text.replace(/\s+/g, '');
      const valid = algorithm === 'BASE64' ? BASE64 : BASE64URL;
      if (!valid.test(compact) || compact.replace(/=+$/, '').length % 4 === 1)
        throw new PlatformError('invalid', `the content is not valid ${algorithm}`);
      return Buffer.from(compact, algorithm === 'BASE64' ? 'base64' : 'base64url');
    }
    case 'HEXA': {
      const compact = text.replace(/\s+/g, '');
      if (!HEXA.test(compact)) throw new PlatformError('invalid', 'the content is not valid HEXA');
      return Buffer.from(compact, 'hex');
    }
  }
}
