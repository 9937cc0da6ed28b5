/**
 * Ciphering, hashing and signatures: cipher, decipher, generate_key, encrypt, password_digest,
 * R_hmac_hash, R_rsa_hash.
 */
import { createHash, createHmac, pbkdf2Sync } from 'node:crypto';
import { strongRandomBytes } from '../context.js';
import { argumentError, FunctionError, messageOf } from '../errors.js';
import { defineFunction, type FunctionSpec } from '../spec.js';
import { AesError, aesDecrypt, aesEncrypt, parseTransformation, type AesTransformation } from './aes.js';
import { choice, listChoices } from './args.js';
import { encodeBinary, hex, utf8Bytes, utf8Text, type BinaryEncoding } from './bytes.js';
import { Base64DecodeError, decodeJavaBase64 } from './java-base64.js';
import { readRsaPrivateKey, RsaKeyError, rsaSign, type RsaDigest } from './rsa.js';

export const DEFAULT_TRANSFORMATION = 'AES/CBC/PKCS5Padding';

/** generate_key: PBKDF2WithHmacSHA256, the argument as password and (UTF-8) as salt. */
export const KEY_DERIVATION = { algorithm: 'PBKDF2WithHmacSHA256', iterations: 65536, keyBits: 256 } as const;

function transformation(fn: string, index: number, text: string): AesTransformation {
  try {
    return parseTransformation(text);
  } catch (e) {
    throw argumentError(fn, index, 'algorithm', messageOf(e));
  }
}

function base64Argument(fn: string, index: number, name: string, text: string): Buffer {
  try {
    return decodeJavaBase64(text);
  } catch (e) {
    if (e instanceof Base64DecodeError)
      throw argumentError(fn, index, name, `is not valid Base64: ${e.message}`);
    throw e;
  }
}

/** Runs an AES operation, turning its errors into the function's, on the argument they concern. */
function aes<T>(fn: string, keyIndex: number, inputIndex: number, run: () => T): T {
  try {
    return run();
  } catch (e) {
    if (!(e instanceof AesError)) throw e;
    if (e.message.startsWith('Invalid AES key length')) throw argumentError(fn, keyIndex, 'key', e.message);
    if (e.message.startsWith('Wrong IV length') || e.message === 'IV is empty')
      throw argumentError(fn, inputIndex + 1, 'iv', e.message);
    if (e.message.startsWith('Input length')) throw argumentError(fn, inputIndex, 'input', e.message);
    throw new FunctionError(fn, e.message);
  }
}

const cipher = defineFunction({
  name: 'cipher',
  group: 'Utilities',
  rights: 'none',
  doc:
    'Ciphers the UTF-8 bytes of `input` with AES. `key` is the Base64 of a 128, 192 or 256-bit key (as generate_key returns it). ' +
    'The IV is random (16 bytes; 12 for GCM; none for ECB, where `iv` is an empty string). ' +
    '`algorithm` is a Java transformation: AES (= AES/ECB/PKCS5Padding) or AES/MODE/PADDING with MODE ECB, CBC, CTR, CFB, CFB8, OFB or GCM ' +
    'and PADDING PKCS5Padding or NoPadding (CTR and GCM: NoPadding; GCM appends its 16-byte tag to `ciphered`).',
  returns: 'object {iv, ciphered} (both Base64)',
  forms: [
    {
      params: [
        { name: 'input', type: 'string' },
        { name: 'key', type: 'string' },
        { name: 'algorithm', type: 'string', optional: true, default: DEFAULT_TRANSFORMATION },
      ],
      impl(ctx, args) {
        const [input, keyText, algorithm] = args;
        const t = transformation('cipher', 3, algorithm);
        const key = base64Argument('cipher', 2, 'key', keyText);
        const iv = t.ivLength ? strongRandomBytes(ctx, t.ivLength) : null;
        const ciphered = aes('cipher', 2, 1, () => aesEncrypt(t, key, iv, utf8Bytes(input)));
        return { iv: iv ? encodeBinary(iv, 'BASE64') : '', ciphered: encodeBinary(ciphered, 'BASE64') };
      },
    },
  ],
});

const decipher = defineFunction({
  name: 'decipher',
  group: 'Utilities',
  rights: 'none',
  flags: { pure: true },
  doc: 'Deciphers what cipher produced: `input` and `iv` in Base64 (iv is ignored for ECB), the same key and algorithm. The result is read as UTF-8.',
  returns: 'string',
  forms: [
    {
      params: [
        { name: 'input', type: 'string' },
        { name: 'iv', type: 'string' },
        { name: 'key', type: 'string' },
        { name: 'algorithm', type: 'string', optional: true, default: DEFAULT_TRANSFORMATION },
      ],
      impl(_ctx, args) {
        const [input, ivText, keyText, algorithm] = args;
        const t = transformation('decipher', 4, algorithm);
        const data = base64Argument('decipher', 1, 'input', input);
        const iv = t.mode === 'ECB' ? null : base64Argument('decipher', 2, 'iv', ivText);
        const key = base64Argument('decipher', 3, 'key', keyText);
        return utf8Text(aes('decipher', 3, 1, () => aesDecrypt(t, key, iv, data)));
      },
    },
  ],
});

const generateKey = defineFunction({
  name: 'generate_key',
  group: 'Utilities',
  rights: 'none',
  flags: { pure: true },
  doc:
    'Derives a secret key from `paswword`, deterministically: PBKDF2WithHmacSHA256 with the argument as password and its UTF-8 bytes as salt, ' +
    '65536 iterations, 256 bits, returned in Base64 (the key form cipher and decipher take). The same text always gives the same key. ' +
    '`algorithm`: AES (an AES transformation such as AES/CBC/PKCS5Padding is accepted too).',
  returns: 'string (Base64 key)',
  forms: [
    {
      params: [
        { name: 'paswword', type: 'string' },
        { name: 'algorithm', type: 'string', optional: true, default: 'AES' },
      ],
      impl(_ctx, args) {
        const [password, algorithm] = args;
        if (algorithm.trim().split('/')[0].trim().toUpperCase() !== 'AES')
          throw argumentError(
            'generate_key',
            2,
            'algorithm',
            `expected AES, got ${JSON.stringify(algorithm)}`,
          );
        if (password === '') throw argumentError('generate_key', 1, 'paswword', 'must not be empty');
        const { iterations, keyBits } = KEY_DERIVATION;
        return pbkdf2Sync(password, utf8Bytes(password), iterations, keyBits / 8, 'sha256').toString(
          'base64',
        );
      },
    },
  ],
});

type DigestName = 'MD5' | 'SHA1' | 'SHA256';
type ChainStep = DigestName | 'BASE64';
const CHAIN_STEPS: readonly ChainStep[] = ['BASE64', 'MD5', 'SHA1', 'SHA256'];
const STEP_ALIASES: Record<string, ChainStep> = { 'SHA-1': 'SHA1', 'SHA-256': 'SHA256' };
const NODE_DIGEST: Record<DigestName, string> = { MD5: 'md5', SHA1: 'sha1', SHA256: 'sha256' };

export const ENCRYPT_DEFAULT_ALGORITHM = 'SHA256';

function encryptChain(fn: string, algorithm: string): ChainStep[] {
  return algorithm.split(',').map((step) => {
    const key = step.trim().toUpperCase();
    const found = CHAIN_STEPS.find((s) => s === key) ?? STEP_ALIASES[key];
    if (!found)
      throw argumentError(
        fn,
        1,
        'algorithm',
        `has an unknown step ${JSON.stringify(step.trim())}: expected ${listChoices(CHAIN_STEPS)}, or a comma-separated chain of them such as SHA1,BASE64`,
      );
    return found;
  });
}

function runEncrypt(
  algorithm: string,
  input: string,
  outputType: string | undefined,
  argOffset: number,
): string {
  const chain = encryptChain('encrypt', algorithm);
  const out =
    outputType === undefined
      ? chain[chain.length - 1] === 'BASE64'
        ? 'CHAR'
        : 'HEXA'
      : choice('encrypt', 2 + argOffset, 'output_type', outputType, ['CHAR', 'HEXA'] as const);
  let bytes: Buffer = utf8Bytes(input);
  for (const step of chain)
    bytes =
      step === 'BASE64'
        ? Buffer.from(bytes.toString('base64'), 'latin1')
        : createHash(NODE_DIGEST[step]).update(bytes).digest();
  return out === 'HEXA' ? hex(bytes) : utf8Text(bytes);
}

const encrypt = defineFunction({
  name: 'encrypt',
  group: 'Utilities',
  rights: 'none',
  doc:
    'Hashes or encodes `input` through a comma-separated chain of steps (BASE64, MD5, SHA1, SHA256), each step taking the bytes the previous one produced: ' +
    '`SHA1,BASE64` is the Base64 of the SHA-1 digest. `output_type` CHAR gives the final bytes as (UTF-8) text, HEXA as lower-case hexadecimal. ' +
    'Defaults: algorithm SHA256; output_type HEXA when the chain ends with a digest, CHAR when it ends with BASE64. With one argument, it is the input.',
  returns: 'string',
  flags: { webInterface: true, pure: true },
  forms: [
    {
      params: [{ name: 'input', type: 'string' }],
      impl: (_ctx, args) => runEncrypt(ENCRYPT_DEFAULT_ALGORITHM, args[0], undefined, 0),
    },
    {
      params: [
        { name: 'algorithm', type: 'string' },
        { name: 'input', type: 'string' },
        { name: 'output_type', type: 'string', optional: true },
      ],
      impl: (_ctx, args) => runEncrypt(args[0], args[1], args[2], 1),
    },
  ],
});

const passwordDigest = defineFunction({
  name: 'password_digest',
  group: 'Utilities',
  rights: 'none',
  flags: { pure: true },
  doc: "The lower-case hexadecimal SHA-256 of the password's UTF-8 bytes (64 characters), neither salted nor keyed: a given password always gives the same digest. It is not a password hash to store (no salt, no work factor) nor the digest of HTTP Digest authentication (MD5 of user:realm:password).",
  returns: 'string',
  forms: [
    {
      params: [{ name: 'password', type: 'string' }],
      impl: (_ctx, args) => createHash('sha256').update(utf8Bytes(args[0])).digest('hex'),
    },
  ],
});

const SIGNATURE_DIGESTS: readonly RsaDigest[] = ['SHA256', 'SHA1', 'MD5'];
const SIGNATURE_ENCODINGS: readonly BinaryEncoding[] = ['BASE64', 'BASE64URL', 'HEXA'];
const signatureParams = (keyDoc: string) => [
  { name: 'data', type: 'string' as const },
  { name: 'key', type: 'string' as const, doc: keyDoc },
  { name: 'algorithm', type: 'string' as const, optional: true, default: 'SHA256' },
  { name: 'encoding', type: 'string' as const, optional: true, default: 'BASE64' },
];

const hmacHash = defineFunction({
  name: 'R_hmac_hash',
  group: 'Utilities',
  rights: 'none',
  flags: { pure: true },
  doc: 'HMAC of the UTF-8 bytes of `data` with the UTF-8 bytes of `key`. algorithm SHA256 (default), SHA1 or MD5; encoding BASE64 (default), BASE64URL (padded) or HEXA (lower case).',
  returns: 'string',
  forms: [
    {
      params: signatureParams('the secret, as text'),
      impl(_ctx, args) {
        const [data, key, algorithm, encoding] = args as [string, string, string, string];
        const digest = choice(
          'R_hmac_hash',
          3,
          'algorithm',
          algorithm,
          SIGNATURE_DIGESTS,
          STEP_ALIASES as Record<string, RsaDigest>,
        );
        const enc = choice('R_hmac_hash', 4, 'encoding', encoding, SIGNATURE_ENCODINGS);
        if (key === '') throw argumentError('R_hmac_hash', 2, 'key', 'must not be empty (Java: Empty key)');
        return encodeBinary(
          createHmac(NODE_DIGEST[digest], utf8Bytes(key)).update(utf8Bytes(data)).digest(),
          enc,
        );
      },
    },
  ],
});

const rsaHash = defineFunction({
  name: 'R_rsa_hash',
  group: 'Utilities',
  rights: 'none',
  flags: { pure: true },
  doc:
    'RSA signature (PKCS#1 v1.5: SHA256withRSA, SHA1withRSA or MD5withRSA) of the UTF-8 bytes of `data`. `key` is an unencrypted private key in PEM, ' +
    'PKCS#8 (BEGIN PRIVATE KEY) or PKCS#1 (BEGIN RSA PRIVATE KEY); line breaks may be written as \\n. encoding BASE64 (default), BASE64URL (padded) or HEXA.',
  returns: 'string',
  forms: [
    {
      params: signatureParams('private key in PEM'),
      impl(_ctx, args) {
        const [data, keyText, algorithm, encoding] = args as [string, string, string, string];
        const digest = choice(
          'R_rsa_hash',
          3,
          'algorithm',
          algorithm,
          SIGNATURE_DIGESTS,
          STEP_ALIASES as Record<string, RsaDigest>,
        );
        const enc = choice('R_rsa_hash', 4, 'encoding', encoding, SIGNATURE_ENCODINGS);
        let key;
        try {
          key = readRsaPrivateKey(keyText);
        } catch (e) {
          if (e instanceof RsaKeyError) throw argumentError('R_rsa_hash', 2, 'key', e.message);
          throw e;
        }
        return encodeBinary(rsaSign(digest, utf8Bytes(data), key), enc);
      },
    },
  ],
});

export const cryptoFunctions: FunctionSpec[] = [
  cipher,
  decipher,
  generateKey,
  encrypt,
  passwordDigest,
  hmacHash,
  rsaHash,
];
