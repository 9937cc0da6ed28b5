/** Byte-level helpers: text ↔ bytes the way the Java platform converts them. */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** String.getBytes(UTF_8): a lone surrogate becomes '?' (Node would write U+FFFD). */
export function utf8Bytes(text: string): Buffer {
  return Buffer.from(text.replace(LONE_SURROGATE, '?'), 'utf8');
}

/** new String(bytes, UTF_8): malformed sequences become U+FFFD. */
export function utf8Text(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/** Lower-case hexadecimal. */
export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

export type BinaryEncoding = 'BASE64' | 'BASE64URL' | 'HEXA';

/** Base64 and Base64URL are padded, as java.util.Base64's encoders write them; HEXA is lower case. */
export function encodeBinary(bytes: Uint8Array, encoding: BinaryEncoding): string {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (encoding) {
    case 'BASE64':
      return buf.toString('base64');
    case 'BASE64URL':
      return buf.toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
    case 'HEXA':
      return buf.toString('hex');
  }
}
