import { hash, randomBytes } from 'node:crypto';

/** 32 random bytes as base64url text (256 bits: a session id or the secret of a token). */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * What is stored for a secret: its SHA-256. The secrets are random and long, so a fast hash is
 * enough (nothing to brute-force), and a lookup by hash needs no per-row salt. One-shot `hash`
 * (a third of createHash's cost): every request with a credential computes it.
 */
export function secretHash(secret: string): string {
  return hash('sha256', secret, 'base64url');
}
