/** RSA private keys from PEM text (PKCS#8 or PKCS#1, unencrypted) and PKCS#1 v1.5 signatures. */
import { constants, createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { decodeJavaBase64 } from './java-base64.js';
import { messageOf } from '../errors.js';

export class RsaKeyError extends Error {
  override name = 'RsaKeyError';
}

const PEM = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/;

/**
 * Reads a private key. Line breaks may be real or written as the two characters `\n` (as keys
 * stored in JSON often are); the header decides the format, a bare Base64 body is tried as PKCS#8
 * then PKCS#1.
 */
export function readRsaPrivateKey(text: string): KeyObject {
  if (/ENCRYPTED/.test(text))
    throw new RsaKeyError(
      'encrypted private keys are not supported: give the key unencrypted, as PKCS#8 (BEGIN PRIVATE KEY) or PKCS#1 (BEGIN RSA PRIVATE KEY) PEM',
    );
  const m = PEM.exec(text);
  const label = m?.[1];
  if (label !== undefined && label !== 'PRIVATE KEY' && label !== 'RSA PRIVATE KEY')
    throw new RsaKeyError(
      `expected an RSA private key in PEM (BEGIN PRIVATE KEY or BEGIN RSA PRIVATE KEY), got BEGIN ${label}`,
    );
  const body = (m ? m[2] : text).replace(/\\[nr]/g, '').replace(/\s+/g, '');
  let der: Buffer;
  try {
    der = decodeJavaBase64(body);
  } catch (e) {
    throw new RsaKeyError(`the key is not valid PEM: ${messageOf(e)}`);
  }
  const types: Array<'pkcs8' | 'pkcs1'> =
    label === 'RSA PRIVATE KEY' ? ['pkcs1'] : label ? ['pkcs8'] : ['pkcs8', 'pkcs1'];
  for (const type of types) {
    let key: KeyObject;
    try {
      key = createPrivateKey({ key: der, format: 'der', type });
    } catch {
      continue;
    }
    if (key.asymmetricKeyType !== 'rsa')
      throw new RsaKeyError(
        `expected an RSA private key, got an ${key.asymmetricKeyType?.toUpperCase()} key`,
      );
    return key;
  }
  throw new RsaKeyError(
    `the key is not a valid ${types.map((t) => t.toUpperCase().replace('PKCS', 'PKCS#')).join(' or ')} RSA private key`,
  );
}

export type RsaDigest = 'SHA256' | 'SHA1' | 'MD5';

/** SHA256withRSA / SHA1withRSA / MD5withRSA (RSASSA-PKCS1-v1_5). */
export function rsaSign(digest: RsaDigest, data: Uint8Array, key: KeyObject): Buffer {
  const alg = digest === 'SHA256' ? 'sha256' : digest === 'SHA1' ? 'sha1' : 'md5';
  return sign(alg, data, { key, padding: constants.RSA_PKCS1_PADDING });
}
