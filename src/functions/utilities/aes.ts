/**
 * AES with Java's Cipher transformation names ("AES/CBC/PKCS5Padding", "AES" = ECB with PKCS#5)
 * and Java's behaviour: PKCS#5 padding wherever SunJCE applies it (also CFB and OFB), GCM with a
 * 128-bit tag appended to the ciphertext, ECB without an IV, Java's error messages.
 */
import { createCipheriv, createDecipheriv, type CipherGCM, type DecipherGCM } from 'node:crypto';

export type AesMode = 'ECB' | 'CBC' | 'CTR' | 'CFB' | 'CFB8' | 'OFB' | 'GCM';
const MODES: readonly AesMode[] = ['ECB', 'CBC', 'CTR', 'CFB', 'CFB8', 'OFB', 'GCM'];

export interface AesTransformation {
  mode: AesMode;
  padded: boolean;
  /** IV length this mode generates (0: none). */
  ivLength: number;
}

/** A problem the user caused: the message is Java's where Java has one. */
export class AesError extends Error {
  override name = 'AesError';
}

const BLOCK = 16;
const GCM_TAG = 16;

/** Parses a transformation, or throws AesError naming what is supported. */
export function parseTransformation(text: string): AesTransformation {
  const parts = text
    .trim()
    .split('/')
    .map((p) => p.trim().toUpperCase());
  const unsupported = () =>
    new AesError(
      `Cannot find any provider supporting ${text} (supported: AES, or AES/MODE/PADDING with MODE ${MODES.join(', ')} and PADDING PKCS5Padding or NoPadding; CTR and GCM need NoPadding)`,
    );
  if (parts[0] !== 'AES') throw unsupported();
  if (parts.length === 1) return { mode: 'ECB', padded: true, ivLength: 0 };
  if (parts.length !== 3) throw unsupported();
  const mode = MODES.find((m) => m === parts[1]);
  const padding = parts[2];
  if (!mode || (padding !== 'PKCS5PADDING' && padding !== 'NOPADDING')) throw unsupported();
  const padded = padding === 'PKCS5PADDING';
  if (padded && (mode === 'CTR' || mode === 'GCM')) throw unsupported();
  return { mode, padded, ivLength: mode === 'ECB' ? 0 : mode === 'GCM' ? 12 : BLOCK };
}

function nodeCipherName(t: AesTransformation, key: Uint8Array): string {
  if (key.length !== 16 && key.length !== 24 && key.length !== 32)
    throw new AesError(`Invalid AES key length: ${key.length} bytes`);
  return `aes-${key.length * 8}-${t.mode.toLowerCase()}`;
}

function checkIv(t: AesTransformation, iv: Uint8Array): void {
  if (t.mode === 'GCM') {
    if (iv.length === 0) throw new AesError('IV is empty');
  } else if (iv.length !== BLOCK) throw new AesError(`Wrong IV length: must be ${BLOCK} bytes long`);
}

function pad(data: Uint8Array): Buffer {
  const n = BLOCK - (data.length % BLOCK);
  return Buffer.concat([data, Buffer.alloc(n, n)]);
}

function unpad(data: Buffer): Buffer {
  const n = data.length ? data[data.length - 1] : 0;
  const bad = () =>
    new AesError(
      'Given final block not properly padded. Such issues can arise if a bad key is used during decryption.',
    );
  if (data.length % BLOCK !== 0)
    throw new AesError('Input length must be multiple of 16 when decrypting with padded cipher');
  if (n < 1 || n > BLOCK || n > data.length) throw bad();
  for (let i = data.length - n; i < data.length; i++) if (data[i] !== n) throw bad();
  return data.subarray(0, data.length - n);
}

const needsWholeBlocks = (t: AesTransformation) => t.mode === 'ECB' || t.mode === 'CBC';

export function aesEncrypt(
  t: AesTransformation,
  key: Uint8Array,
  iv: Uint8Array | null,
  plain: Uint8Array,
): Buffer {
  const name = nodeCipherName(t, key);
  if (iv) checkIv(t, iv);
  const input = t.padded ? pad(plain) : Buffer.from(plain);
  if (!t.padded && needsWholeBlocks(t) && input.length % BLOCK !== 0)
    throw new AesError('Input length not multiple of 16 bytes');
  const cipher = createCipheriv(name, key, t.mode === 'ECB' ? null : iv);
  cipher.setAutoPadding(false);
  const out = Buffer.concat([cipher.update(input), cipher.final()]);
  return t.mode === 'GCM' ? Buffer.concat([out, (cipher as CipherGCM).getAuthTag()]) : out;
}

export function aesDecrypt(
  t: AesTransformation,
  key: Uint8Array,
  iv: Uint8Array | null,
  data: Uint8Array,
): Buffer {
  const name = nodeCipherName(t, key);
  if (t.mode !== 'ECB') checkIv(t, iv ?? new Uint8Array(0));
  let body = Buffer.from(data);
  let tag: Buffer | undefined;
  if (t.mode === 'GCM') {
    if (body.length < GCM_TAG) throw new AesError('Tag mismatch!');
    tag = body.subarray(body.length - GCM_TAG);
    body = body.subarray(0, body.length - GCM_TAG);
  }
  if ((t.padded || needsWholeBlocks(t)) && body.length % BLOCK !== 0)
    throw new AesError(
      t.padded
        ? 'Input length must be multiple of 16 when decrypting with padded cipher'
        : 'Input length not multiple of 16 bytes',
    );
  const decipher = createDecipheriv(name, key, t.mode === 'ECB' ? null : iv);
  decipher.setAutoPadding(false);
  if (tag) (decipher as DecipherGCM).setAuthTag(tag);
  let out: Buffer;
  try {
    out = Buffer.concat([decipher.update(body), decipher.final()]);
  } catch {
    throw new AesError('Tag mismatch!');
  }
  return t.padded ? unpad(out) : out;
}
