/**
 * The one place that recognises a store's faults other than contention (contention.ts): the
 * storage is full or failing (SQLite SQLITE_FULL / SQLITE_IOERR, PostgreSQL 53100 disk_full, an
 * ENOSPC), answered `507 insufficient-storage`; or the database cannot be reached (a refused,
 * reset or dropped connection, SQLSTATE classes 08 and 57P: the server is restarting or shutting
 * down), answered `503 unavailable` with Retry-After. Neither is ever reported as a success.
 */
import { CONTENTION_MESSAGE, CONTENTION_RETRY_AFTER_SECONDS, isContention } from './contention.js';
import { propertyOf } from '../safety/narrow.js';

export const STORAGE_FULL_MESSAGE =
  'the database could not store the change (its storage is full or failing): nothing was written';

export const UNAVAILABLE_MESSAGE = 'the database is unavailable: try again in a moment';

/** Seconds a client is told to wait before trying again after an unavailable database. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

const UNAVAILABLE_ERRNO = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** pg's own errors for a connection that went away (they carry no code). */
const PG_CONNECTION_MESSAGES = [
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'timeout exceeded when trying to connect',
  'Client was closed and is not queryable',
];

function codeOf(error: unknown): string | undefined {
  const code = propertyOf(error, 'code');
  return typeof code === 'string' ? code : undefined;
}

/** The error itself or one of its causes (a template or function error wrapping the store's). */
function* chain(error: unknown): Generator<unknown> {
  const seen = new Set<unknown>();
  for (let e = error; e && typeof e === 'object' && !seen.has(e); e = propertyOf(e, 'cause')) {
    seen.add(e);
    yield e;
  }
}

function isStorageFullOne(error: unknown): boolean {
  const code = codeOf(error);
  if (!code) return false;
  return code === 'SQLITE_FULL' || code.startsWith('SQLITE_IOERR') || code === '53100' || code === 'ENOSPC';
}

function isUnavailableOne(error: unknown): boolean {
  const code = codeOf(error);
  if (code) {
    if (UNAVAILABLE_ERRNO.has(code)) return true;
    // SQLSTATE class 08 (connection exception) and 57P (operator intervention: shutdown, restart).
    if (/^(08[0-9A-Z]{3}|57P[0-9A-Z]{2})$/.test(code)) return true;
  }
  const message = propertyOf(error, 'message');
  return typeof message === 'string' && PG_CONNECTION_MESSAGES.some((m) => message.startsWith(m));
}

/** True when the store could not write because its storage is full or failing. */
export function isStorageFull(error: unknown): boolean {
  for (const e of chain(error)) if (isStorageFullOne(e)) return true;
  return false;
}

/** True when the database could not be reached or went away during the statement. */
export function isUnavailable(error: unknown): boolean {
  for (const e of chain(error)) if (isUnavailableOne(e)) return true;
  return false;
}

/** How an HTTP answer reports a store fault: its status, code, message and Retry-After seconds. */
export interface StoreFaultAnswer {
  status: 409 | 503 | 507;
  code: 'contention' | 'unavailable' | 'insufficient-storage';
  message: string;
  retryAfter?: number;
}

/**
 * The answer for an error that is (or was caused by) a store fault: contention (409, Retry-After),
 * an unavailable database (503, Retry-After), a full store (507); undefined for any other error.
 */
export function storeFaultAnswer(error: unknown): StoreFaultAnswer | undefined {
  for (const e of chain(error)) {
    if (isContention(e))
      return {
        status: 409,
        code: 'contention',
        message: CONTENTION_MESSAGE,
        retryAfter: CONTENTION_RETRY_AFTER_SECONDS,
      };
    if (isStorageFullOne(e))
      return { status: 507, code: 'insufficient-storage', message: STORAGE_FULL_MESSAGE };
    if (isUnavailableOne(e))
      return {
        status: 503,
        code: 'unavailable',
        message: UNAVAILABLE_MESSAGE,
        retryAfter: UNAVAILABLE_RETRY_AFTER_SECONDS,
      };
  }
  return undefined;
}
