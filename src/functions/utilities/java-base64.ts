/**
 * java.util.Base64's basic and URL decoders, with their strictness and their exact messages
 * (a port of JDK 17 Base64.Decoder.decode(String)): no line breaks, no characters of the other
 * alphabet, padding checked, missing padding accepted.
 */
export class Base64DecodeError extends Error {
  override name = 'Base64DecodeError';
}

const BASIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URL_SAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function table(alphabet: string): Int8Array {
  const t = new Int8Array(256).fill(-1);
  for (let i = 0; i < alphabet.length; i++) t[alphabet.charCodeAt(i)] = i;
  t['='.charCodeAt(0)] = -2;
  return t;
}
const FROM_BASIC = table(BASIC);
const FROM_URL = table(URL_SAFE);

/** Java's String → byte[] with ISO-8859-1: characters above U+00FF become '?'. */
function latin1Bytes(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    out[i] = c > 0xff ? 0x3f : c;
  }
  return out;
}

/** Integer.toString(byte, 16) of a signed Java byte. */
function signedHex(b: number): string {
  return (b > 127 ? b - 256 : b).toString(16);
}

export function decodeJavaBase64(text: string, urlSafe = false): Buffer {
  const src = latin1Bytes(text);
  const from = urlSafe ? FROM_URL : FROM_BASIC;
  const sl = src.length;
  if (sl === 0) return Buffer.alloc(0);
  if (sl < 2) throw new Base64DecodeError('Input byte[] should at least have 2 bytes for base64 bytes');
  const dst: number[] = [];
  let sp = 0;
  let bits = 0;
  let shiftto = 18;
  while (sp < sl) {
    const b = from[src[sp++]];
    if (b < 0) {
      if (b === -2) {
        if ((shiftto === 6 && (sp === sl || src[sp++] !== 0x3d)) || shiftto === 18)
          throw new Base64DecodeError('Input byte array has wrong 4-byte ending unit');
        break;
      }
      throw new Base64DecodeError(`Illegal base64 character ${signedHex(src[sp - 1])}`);
    }
    bits |= b << shiftto;
    shiftto -= 6;
    if (shiftto < 0) {
      dst.push((bits >> 16) & 0xff, (bits >> 8) & 0xff, bits & 0xff);
      shiftto = 18;
      bits = 0;
    }
  }
  if (shiftto === 6) dst.push((bits >> 16) & 0xff);
  else if (shiftto === 0) dst.push((bits >> 16) & 0xff, (bits >> 8) & 0xff);
  else if (shiftto === 12) throw new Base64DecodeError('Last unit does not have enough valid bits');
  if (sp < sl) throw new Base64DecodeError(`Input byte array has incorrect ending byte at ${sp}`);
  return Buffer.from(dst);
}
