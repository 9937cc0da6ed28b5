import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { call, caseName, checkJavaCase, errorOf, fixture, testContext, type JavaCase } from '../helpers.js';

const digests = fixture('digests');
const hmac = fixture('hmac');
const rsa = fixture<{ keys: { pkcs8: string; pkcs1: string; public: string }; cases: JavaCase[] }>('rsa');
const aes = fixture<{ cipher: JavaCase[]; decipher: JavaCase[]; generate_key: JavaCase[] }>('aes');

describe('encrypt and password_digest agree with Java MessageDigest and Base64', () => {
  it.each(digests.map((c) => [caseName(c), c] as const))('%s', (_n, c) => checkJavaCase(c));
});

describe('encrypt', () => {
  it('feeds each step the bytes of the previous one', () => {
    const md5 = createHash('md5').update('abc').digest();
    const sha1OfMd5 = createHash('sha1').update(md5).digest();
    expect(call('encrypt', ['MD5,SHA1', 'abc', 'HEXA'])).toBe(sha1OfMd5.toString('hex'));
    expect(call('encrypt', ['MD5,SHA1,BASE64', 'abc'])).toBe(sha1OfMd5.toString('base64'));
    expect(call('encrypt', ['BASE64,BASE64', 'abc'])).toBe(Buffer.from('YWJj').toString('base64'));
  });

  it('names an unknown step, and checks output_type', () => {
    expect(errorOf('encrypt', ['SHA1,FOO', 'x'])).toBe(
      'encrypt: argument 1 (algorithm) has an unknown step "FOO": expected BASE64, MD5, SHA1 or SHA256, or a comma-separated chain of them such as SHA1,BASE64',
    );
    expect(errorOf('encrypt', ['SHA1,', 'x'])).toContain('has an unknown step ""');
    expect(errorOf('encrypt', ['SHA1', 'x', 'BIN'])).toBe(
      'encrypt: argument 3 (output_type) expected CHAR or HEXA, got the string "BIN"',
    );
    expect(errorOf('encrypt', [])).toBe('encrypt: argument 1 (input) is missing: expected a string');
    expect(errorOf('encrypt', ['a', 'b', 'c', 'd'])).toBe(
      'encrypt: argument 4 is not expected: encrypt takes 1 to 3 arguments, got 4',
    );
  });
});

describe('R_hmac_hash agrees with Java Mac', () => {
  it.each(hmac.map((c) => [caseName(c), c] as const))('%s', (_n, c) => checkJavaCase(c));

  it('refuses an empty key (Java: Empty key), unknown algorithms and encodings', () => {
    expect(errorOf('R_hmac_hash', ['data', ''])).toBe(
      'R_hmac_hash: argument 2 (key) must not be empty (Java: Empty key)',
    );
    expect(errorOf('R_hmac_hash', ['data', 'k', 'SHA512'])).toBe(
      'R_hmac_hash: argument 3 (algorithm) expected SHA256, SHA1 or MD5, got the string "SHA512"',
    );
    expect(errorOf('R_hmac_hash', ['data', 'k', 'SHA256', 'HEX'])).toBe(
      'R_hmac_hash: argument 4 (encoding) expected BASE64, BASE64URL or HEXA, got the string "HEX"',
    );
  });

  it('accepts the hyphenated digest names', () => {
    expect(call('R_hmac_hash', ['d', 'k', 'sha-256', 'hexa'])).toBe(
      call('R_hmac_hash', ['d', 'k', 'SHA256', 'HEXA']),
    );
  });
});

describe('R_rsa_hash agrees with Java Signature (PKCS#8 and PKCS#1 keys)', () => {
  it.each(rsa.cases.map((c) => [caseName(c), c] as const))('%s', (_n, c) => checkJavaCase(c));

  it('refuses an encrypted PEM with a clear message', () => {
    const encrypted =
      '-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQI\n-----END ENCRYPTED PRIVATE KEY-----';
    expect(errorOf('R_rsa_hash', ['x', encrypted])).toBe(
      'R_rsa_hash: argument 2 (key) encrypted private keys are not supported: give the key unencrypted, as PKCS#8 (BEGIN PRIVATE KEY) or PKCS#1 (BEGIN RSA PRIVATE KEY) PEM',
    );
    const legacy = rsa.keys.pkcs1.replace(
      '-----\n',
      '-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\n',
    );
    expect(errorOf('R_rsa_hash', ['x', legacy])).toContain('encrypted private keys are not supported');
  });

  it('refuses public keys, garbage and non-RSA keys', () => {
    expect(errorOf('R_rsa_hash', ['x', rsa.keys.public])).toBe(
      'R_rsa_hash: argument 2 (key) expected an RSA private key in PEM (BEGIN PRIVATE KEY or BEGIN RSA PRIVATE KEY), got BEGIN PUBLIC KEY',
    );
    expect(errorOf('R_rsa_hash', ['x', 'not a key.'])).toBe(
      'R_rsa_hash: argument 2 (key) the key is not valid PEM: Illegal base64 character 2e',
    );
    expect(errorOf('R_rsa_hash', ['x', 'notakey0'])).toBe(
      'R_rsa_hash: argument 2 (key) the key is not a valid PKCS#8 or PKCS#1 RSA private key',
    );
    expect(errorOf('R_rsa_hash', ['x', '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----'])).toBe(
      'R_rsa_hash: argument 2 (key) the key is not a valid PKCS#8 RSA private key',
    );
    const ec =
      '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgevZzL1gdAFr88hb2\nOF/2NxApJCzGCEDdfSp6VQO30hyhRANCAAQRWz+jn65BtOMvdyHKcvjBeBSDZH2r\n1RTwjmYSi9R/zpBnuQ4EiMnCqfMPWiZqB4QdbAd0E7oH50VpuZ1P087G\n-----END PRIVATE KEY-----';
    expect(errorOf('R_rsa_hash', ['x', ec])).toBe(
      'R_rsa_hash: argument 2 (key) expected an RSA private key, got an EC key',
    );
  });

  it('takes a bare Base64 body as PKCS#8', () => {
    const body = rsa.keys.pkcs8.replace(/-----[A-Z ]+-----/g, '');
    expect(call('R_rsa_hash', ['abc', body])).toBe(call('R_rsa_hash', ['abc', rsa.keys.pkcs8]));
  });
});

describe('cipher agrees with Java Cipher (IV from ctx.randomBytes)', () => {
  it.each(aes.cipher.map((c) => [caseName(c), c] as const))('%s', (_n, c) => checkJavaCase(c));
});

describe('decipher agrees with Java Cipher, errors included', () => {
  it.each(aes.decipher.map((c) => [caseName(c), c] as const))('%s', (_n, c) => checkJavaCase(c));

  it('round-trips with cipher and generate_key', () => {
    const key = call('generate_key', ['my passphrase']) as string;
    const ctx = testContext({ randomBytes: undefined });
    for (const t of [undefined, 'AES/GCM/NoPadding', 'AES', 'AES/CTR/NoPadding']) {
      const { iv, ciphered } = call('cipher', t ? ['Grüße 🙂', key, t] : ['Grüße 🙂', key], ctx) as Record<
        string,
        string
      >;
      expect(call('decipher', t ? [ciphered, iv, key, t] : [ciphered, iv, key], ctx)).toBe('Grüße 🙂');
    }
  });

  it('draws a fresh IV from the context each time', () => {
    const key = call('generate_key', ['k']) as string;
    const a = call('cipher', ['same', key], testContext({ randomBytes: undefined })) as Record<
      string,
      string
    >;
    const b = call('cipher', ['same', key], testContext({ randomBytes: undefined })) as Record<
      string,
      string
    >;
    expect(a.iv).not.toBe(b.iv);
    expect(a.ciphered).not.toBe(b.ciphered);
  });

  it('names the argument at fault', () => {
    const key = call('generate_key', ['k']) as string;
    expect(errorOf('cipher', ['x', key, 'DES/CBC/PKCS5Padding'])).toBe(
      'cipher: argument 3 (algorithm) Cannot find any provider supporting DES/CBC/PKCS5Padding (supported: AES, or AES/MODE/PADDING with MODE ECB, CBC, CTR, CFB, CFB8, OFB, GCM and PADDING PKCS5Padding or NoPadding; CTR and GCM need NoPadding)',
    );
    expect(errorOf('cipher', ['x', key, 'AES/GCM/PKCS5Padding'])).toContain(
      'Cannot find any provider supporting AES/GCM/PKCS5Padding',
    );
    expect(errorOf('cipher', ['x', 'not-base64!'])).toBe(
      'cipher: argument 2 (key) is not valid Base64: Illegal base64 character 2d',
    );
    expect(errorOf('cipher', ['x', 'AAAA'])).toBe('cipher: argument 2 (key) Invalid AES key length: 3 bytes');
    expect(errorOf('decipher', ['%%', 'AAAA', key])).toBe(
      'decipher: argument 1 (input) is not valid Base64: Illegal base64 character 25',
    );
    const iv = 'AAAAAAAAAAAAAAAAAAAAAA==';
    expect(errorOf('decipher', ['AAAA', iv, key])).toBe(
      'decipher: argument 1 (input) Input length must be multiple of 16 when decrypting with padded cipher',
    );
    expect(errorOf('decipher', ['AAAA', 'AAAA', key])).toBe(
      'decipher: argument 2 (iv) Wrong IV length: must be 16 bytes long',
    );
    expect(errorOf('decipher', ['AAAAAAAAAAAAAAAAAAAAAA==', iv, key])).toBe(
      'decipher: Given final block not properly padded. Such issues can arise if a bad key is used during decryption.',
    );
    expect(errorOf('decipher', ['AAAA', iv, key, 'AES/GCM/NoPadding'])).toBe('decipher: Tag mismatch!');
  });

  it('ignores the IV in ECB mode', () => {
    const key = call('generate_key', ['k']) as string;
    const { iv, ciphered } = call('cipher', ['text', key, 'AES']) as Record<string, string>;
    expect(iv).toBe('');
    expect(call('decipher', [ciphered, 'whatever', key, 'AES/ECB/PKCS5Padding'])).toBe('text');
  });
});

describe('generate_key: PBKDF2WithHmacSHA256 (65536 iterations, 256 bits, the text as salt) like Java', () => {
  it.each(aes.generate_key.map((c) => [caseName(c), c] as const))('%s', (_n, c) => checkJavaCase(c));

  it('is deterministic, refuses an empty text and other algorithms', () => {
    expect(call('generate_key', ['x', 'AES/CBC/PKCS5Padding'])).toBe(call('generate_key', ['x']));
    expect(errorOf('generate_key', [''])).toBe('generate_key: argument 1 (paswword) must not be empty');
    expect(errorOf('generate_key', ['x', 'DES'])).toBe(
      'generate_key: argument 2 (algorithm) expected AES, got "DES"',
    );
  });
});
