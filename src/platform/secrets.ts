/**
 * Secrets at rest (docs/deploy.md "Secrets at rest"): project vaults and OAuth2 tokens are stored
 * sealed with AES-256-GCM (node:crypto), so the database alone reveals nothing.
 *
 * The key: FLOWMARK_SECRET_KEY (32 bytes as 64 hex digits or base64), else the file named by
 * FLOWMARK_SECRET_KEY_FILE, else `<FLOWMARK_DATA>/secret.key`, made (mode 0600) on first use.
 * Servers sharing a PostgreSQL database must share the key: a sealed value names the fingerprint
 * of its key, and a server with another key refuses to open it with a message saying so.
 *
 * A sealed value is stored as a JSON string `fmk1:<fingerprint>:<base64 of iv | tag | ciphertext>`;
 * a value stored before this (a JSON object) is read as it is, and sealed when next written or by
 * `flowmark secrets seal`.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConfigError, loadConfig } from '../config/index.js';
import { PlatformError } from './errors.js';
import { isRecord, propertyOf } from '../safety/narrow.js';

const PREFIX = 'fmk1:';

export class SecretBox {
  readonly fingerprint: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new ConfigError('a secret key is 32 bytes');
    this.fingerprint = createHash('sha256')
      .update('flowmark secret key')
      .update(key)
      .digest('hex')
      .slice(0, 12);
  }

  /** `value` sealed: the text stored in its place. */
  seal(value: unknown): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return `${PREFIX}${this.fingerprint}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  /** What `stored` holds: a sealed text opened, anything else (stored before sealing) as it is. */
  open(stored: unknown, what: string): unknown {
    if (!isSealed(stored)) return stored;
    const [fingerprint = '', payload = ''] = stored.slice(PREFIX.length).split(':');
    if (fingerprint !== this.fingerprint)
      throw new PlatformError(
        'conflict',
        `${what} was sealed with the secret key ${fingerprint}, and this server's key is ${this.fingerprint}: ` +
          'every server of a deployment needs the same FLOWMARK_SECRET_KEY (docs/deploy.md "Secrets at rest")',
      );
    const bytes = Buffer.from(payload, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    try {
      const text = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
      const value: unknown = JSON.parse(text);
      return value;
    } catch {
      throw new PlatformError('conflict', `${what} cannot be opened: its sealed value was altered`);
    }
  }
}

export function isSealed(stored: unknown): stored is string {
  return typeof stored === 'string' && stored.startsWith(PREFIX);
}

/** A key as FLOWMARK_SECRET_KEY gives it: 64 hex digits, or base64 of 32 bytes. */
export function parseSecretKey(text: string, source: string): Buffer {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  const decoded = /^[A-Za-z0-9+/_-]{42,44}={0,2}$/.test(trimmed) ? Buffer.from(trimmed, 'base64') : undefined;
  if (decoded?.length === 32) return decoded;
  throw new ConfigError(
    `${source}: expected a key of 32 bytes as 64 hex digits or base64 (make one with: openssl rand -hex 32)`,
  );
}

/** The key file made on first use when no key is set. */
export function defaultKeyFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(loadConfig(env).dataDir, 'secret.key');
}

/** The deployment's key, from the environment, its file, or a new file. */
export function loadSecretKey(env: NodeJS.ProcessEnv = process.env): Buffer {
  if (env.FLOWMARK_SECRET_KEY) return parseSecretKey(env.FLOWMARK_SECRET_KEY, 'FLOWMARK_SECRET_KEY');
  const file = env.FLOWMARK_SECRET_KEY_FILE || defaultKeyFile(env);
  const source = env.FLOWMARK_SECRET_KEY_FILE ? `FLOWMARK_SECRET_KEY_FILE (${file})` : file;
  if (existsSync(file)) return parseSecretKey(readFileSync(file, 'utf8'), source);
  if (env.FLOWMARK_SECRET_KEY_FILE) throw new ConfigError(`FLOWMARK_SECRET_KEY_FILE: no file ${file}`);
  mkdirSync(dirname(file), { recursive: true });
  try {
    writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (e) {
    // another process made it first: use theirs
    if (propertyOf(e, 'code') !== 'EEXIST') throw e;
  }
  chmodSync(file, 0o600);
  return parseSecretKey(readFileSync(file, 'utf8'), file);
}

let box: SecretBox | undefined;

/** The process's secret box (its key loaded on first use). */
export function secretBox(): SecretBox {
  return (box ??= new SecretBox(loadSecretKey()));
}

/** Forgets the loaded key (tests that change FLOWMARK_SECRET_KEY). */
export function resetSecretBox(): void {
  box = undefined;
}

/** A stored object (a vault, a token) opened with the process's key; an Error if it is not an object. */
export function openRecord(stored: unknown, what: string): Record<string, unknown> {
  const value = secretBox().open(stored, what);
  if (isRecord(value)) return value;
  throw new PlatformError('conflict', `${what} is not an object`);
}
