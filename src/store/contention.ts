/**
 * The one place that recognises a store's lock errors: another connection or process held a lock
 * past the store's wait (SQLite SQLITE_BUSY / SQLITE_LOCKED after its busy wait), or PostgreSQL
 * gave up a lock wait (55P03 past lock_timeout), a serialization failure (40001) or a deadlock
 * (40P01) that retries did not resolve. Callers answer them as contention (HTTP 409 with
 * Retry-After), never as a server fault.
 */
import { propertyOf } from '../safety/narrow.js';

const CONTENTION_CODES = new Set([
  'SQLITE_BUSY',
  'SQLITE_BUSY_SNAPSHOT',
  'SQLITE_BUSY_RECOVERY',
  'SQLITE_BUSY_TIMEOUT',
  'SQLITE_LOCKED',
  'SQLITE_LOCKED_SHAREDCACHE',
  '40001',
  '40P01',
  '55P03',
]);

export const CONTENTION_MESSAGE =
  'the database is busy with a write of another connection or process: try again in a moment';

/** Seconds a client is told to wait before trying again. */
export const CONTENTION_RETRY_AFTER_SECONDS = 1;

export function isContention(error: unknown): boolean {
  const code = propertyOf(error, 'code');
  return typeof code === 'string' && CONTENTION_CODES.has(code);
}
