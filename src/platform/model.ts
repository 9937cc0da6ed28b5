/**
 * Small shared pieces of the platform model: execution modes, JSON columns, ids, retries.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_LOCK_WAIT_MS } from '../config/index.js';
import type { Queryable } from '../store/index.js';
import { isForbiddenKey, isPlainObject } from './collections/safety.js';
import { MESSAGES, PlatformError } from './errors.js';
import { boundedCopyBytes, DEFAULT_EVALUATION_LIMITS } from '../limits/index.js';
import { oneOf, propertyOf } from '../safety/narrow.js';

export type Mode = 'LIVE' | 'ACCEPTANCE' | 'TEST';
export const MODES: readonly Mode[] = ['LIVE', 'ACCEPTANCE', 'TEST'];

/** The two lane configurations: LIVE (also seen from TEST) and ACCEPTANCE. */
export type LaneMode = 'LIVE' | 'ACCEPTANCE';

/** The spec's mode rule: from LIVE or TEST a script sees LIVE lane users; from ACCEPTANCE, ACCEPTANCE ones. */
export function laneModeFor(mode: Mode): LaneMode {
  return mode === 'ACCEPTANCE' ? 'ACCEPTANCE' : 'LIVE';
}

/** A mode read from the store (an Error if the column holds anything else). */
export function storedMode(value: unknown): Mode {
  return oneOf(MODES, value, 'a stored mode');
}

export function isMode(value: unknown): value is Mode {
  return value === 'LIVE' || value === 'ACCEPTANCE' || value === 'TEST';
}

/** A JSON column's text as a value (null for SQL NULL). */
export function fromJson<T = unknown>(text: unknown): T {
  return JSON.parse(text === null || text === undefined ? 'null' : String(text)) as T;
}

/** A value as the text of a JSON column. */
export function toJson(value: unknown): string {
  return JSON.stringify(value ?? null);
}

export { isForbiddenKey, isPlainObject } from './collections/safety.js';

/**
 * A deep copy made only of JSON values (Maps become objects), refusing keys that reach a
 * prototype and nesting deeper than 100 levels. `what` names the value in errors.
 */
export function toJsonValue(value: unknown, what: string, depth = 0): unknown {
  if (depth === 0) refuseHugeCopy(value, what);
  if (depth > 100) throw new PlatformError('invalid', `${what} is nested more than 100 levels deep`);
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'object':
      break;
    default:
      throw new PlatformError('invalid', `${what} holds a ${typeof value}, which is not a JSON value`);
  }
  if (Array.isArray(value)) return value.map((v) => toJsonValue(v, what, depth + 1));
  if (value instanceof Map) value = Object.fromEntries(value);
  if (!isPlainObject(value)) {
    const epochMs = propertyOf(value, 'epochMs');
    if (typeof epochMs === 'number') return epochMs; // a template date
    throw new PlatformError('invalid', `${what} holds an object that is not a JSON value`);
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (isForbiddenKey(k)) throw new PlatformError('invalid', `${what} may not have a key named ${k}`);
    out[k] = toJsonValue(v, what, depth + 1);
  }
  return out;
}

/**
 * Refuses a value whose full copy would pass one evaluation's default memory (shared structure:
 * `[h, h]` nested 60 times is 2^60 leaves in 60 arrays) before the copy expands it.
 */
function refuseHugeCopy(value: unknown, what: string): void {
  if (value === null || typeof value !== 'object') return;
  const max = DEFAULT_EVALUATION_LIMITS.maxAllocBytes;
  boundedCopyBytes(
    value,
    max,
    () => new PlatformError('invalid', `${what} is too large: a copy of it would exceed ${max} bytes`),
  );
}

/** A JSON object (see toJsonValue), refusing anything else. */
export function toJsonObject(value: unknown, what: string): Record<string, unknown> {
  const copy = toJsonValue(value, what);
  if (!isPlainObject(copy)) throw new PlatformError('invalid', `${what} must be an object`);
  return copy;
}

/** How a conflicting write is retried (createPlatform's `contention` option). */
export interface ContentionPolicy {
  /** Tries in all before the contention error (default 8). */
  attempts: number;
  /** Pause after the first try, doubled after each further one, jittered ×0.5–1.5 (default 10 ms). */
  firstPauseMs: number;
  /** Longest pause (default 200 ms). */
  maxPauseMs: number;
  /**
   * The most time the tries take together, their waits for the lock included (default: the
   * store's lock wait, FLOWMARK_LOCK_WAIT_MS when serving): no retry starts past it.
   */
  totalWaitMs?: number;
}

export const DEFAULT_CONTENTION: ContentionPolicy = { attempts: 8, firstPauseMs: 10, maxPauseMs: 200 };

/**
 * Runs one atomic statement (or short transaction) again while the engine reports a transient
 * conflict (deadlock, serialization failure, a lock held past the store's lock wait, busy
 * database), within `policy.totalWaitMs` (default the store's lock wait, 10 s) in all; after
 * `policy.attempts` tries, or when that time is up, the spec's contention error:
 * `Counter already being modified, cannot increment it.`
 */
export async function withContentionRetry<T>(
  db: Queryable,
  fn: () => Promise<T>,
  policy: ContentionPolicy = DEFAULT_CONTENTION,
): Promise<T> {
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (!db.dialect.isRetryable(e)) throw e;
      const pause =
        Math.min(policy.firstPauseMs * 2 ** (attempt - 1), policy.maxPauseMs) * (0.5 + Math.random());
      // Each try may itself have waited the store's whole lock wait: the tries together stay within it.
      if (
        attempt >= policy.attempts ||
        Date.now() - started + pause > (policy.totalWaitMs ?? db.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS)
      )
        throw new PlatformError('contention', MESSAGES.contention);
      await sleep(pause);
    }
  }
}
