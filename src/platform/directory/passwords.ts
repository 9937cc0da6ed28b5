/**
 * Password hashes: scrypt (node:crypto) with a random salt, stored as
 * `scrypt$N$r$p$<salt base64>$<hash base64>` so the parameters can be raised later.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const N = 16384;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const MAX_PASSWORD_BYTES = 1024;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  if (Buffer.byteLength(password) > MAX_PASSWORD_BYTES)
    throw new Error(`a password is at most ${MAX_PASSWORD_BYTES} bytes`);
  const salt = randomBytes(16);
  const key = await derive(password, salt, { N, r: R, p: P });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** True when `password` matches the stored hash (false for a malformed or missing hash). */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  if (!stored || Buffer.byteLength(password) > MAX_PASSWORD_BYTES) return false;
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [n = NaN, r = NaN, p = NaN] = parts.slice(1, 4).map(Number);
  if (![n, r, p].every((x) => Number.isSafeInteger(x) && x > 0) || n > 2 ** 20) return false;
  const salt = Buffer.from(parts[4]!, 'base64');
  const expected = Buffer.from(parts[5]!, 'base64');
  const key = await derive(password, salt, { N: n, r, p, maxmem: 256 * n * r + 1024 * 1024 });
  return key.length === expected.length && timingSafeEqual(key, expected);
}
