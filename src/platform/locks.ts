/**
 * Locks (R_lock / R_unlock): a named lease per account, held as one row (name, owner, expiry).
 * Acquiring is one statement: insert the row, or take it over when its lease has expired (or
 * when the same owner holds it: a lock is re-entrant for its owner and the lease is renewed).
 * A caller that does not get it polls with a growing pause until its wait time is over. Being
 * rows in the shared database, locks hold across every server process using it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Store } from '../store/index.js';
import { sql, type Sql } from '../store/sql.js';
import { MESSAGES, PlatformError } from './errors.js';

/** Longest wait for a lock (wait_timeout above it waits only this long). */
export const MAX_LOCK_WAIT_MS = 40_000;
/** Lease of a lock not released (exec_timeout default: 1 hour). */
export const DEFAULT_LOCK_LEASE_MS = 3_600_000;
const FIRST_PAUSE_MS = 2;
const MAX_PAUSE_MS = 100;

export interface LockLease {
  name: string;
  owner: string;
  acquiredAt: number;
  expiresAt: number;
}

/**
 * The monotonic clock and the pause a waiting R_lock measures and sleeps with (createPlatform's
 * `lockTimer`; default performance.now and a timer).
 */
export interface WaitTimer {
  now(): number;
  sleep(ms: number): Promise<unknown>;
}

const REAL_TIMER: WaitTimer = { now: () => performance.now(), sleep: (ms) => sleep(ms) };

export interface AcquireOptions {
  /** How long to wait for the lock, in ms (capped at 40 s; 0 = one attempt). */
  waitMs: number;
  /** How long the lease lasts if never released, in ms. */
  leaseMs: number;
  /** The clock leases are measured with (epoch ms); default Date.now. */
  clock?: () => number;
}

type LockRow = { name: string; owner: string; acquired_at: number; expires_at: number };

export class Locks {
  constructor(
    private readonly store: Store,
    private readonly timer: WaitTimer = REAL_TIMER,
  ) {}

  /** One attempt: true when `owner` now holds the lock until `expiresAt`. */
  async tryAcquire(
    accountId: string,
    name: string,
    owner: string,
    now: number,
    expiresAt: number,
  ): Promise<boolean> {
    const row = await this.store.get(sql`
      INSERT INTO locks (account_id, name, owner, acquired_at, expires_at)
      VALUES (${accountId}, ${name}, ${owner}, ${now}, ${expiresAt})
      ON CONFLICT (account_id, name) DO UPDATE
        SET owner = excluded.owner, acquired_at = excluded.acquired_at, expires_at = excluded.expires_at
        WHERE locks.expires_at <= ${now} OR locks.owner = excluded.owner
      RETURNING owner`);
    return row !== undefined;
  }

  /** Waits for the lock (polling with backoff) and returns the lease, or throws `Timeout exception`. */
  async acquire(accountId: string, name: string, owner: string, options: AcquireOptions): Promise<LockLease> {
    checkName(name);
    if (!(options.leaseMs > 0)) throw new PlatformError('invalid', 'the lease must be longer than 0');
    const clock = options.clock ?? Date.now;
    const wait = Math.min(Math.max(options.waitMs, 0), MAX_LOCK_WAIT_MS);
    const timer = this.timer;
    const deadline = timer.now() + wait;
    for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(pause * 2, MAX_PAUSE_MS)) {
      const now = clock();
      const expiresAt = now + options.leaseMs;
      if (await this.tryAcquire(accountId, name, owner, now, expiresAt))
        return { name, owner, acquiredAt: now, expiresAt };
      const remaining = deadline - timer.now();
      if (remaining <= 0) throw new PlatformError('timeout', MESSAGES.lockTimeout);
      // Jitter keeps contending callers from polling in step.
      await timer.sleep(Math.min(remaining, pause * (0.5 + Math.random())));
    }
  }

  /** Releases a lock `owner` holds; false when it holds none of that name. */
  async release(accountId: string, name: string, owner: string): Promise<boolean> {
    const { changes } = await this.store.run(
      sql`DELETE FROM locks WHERE account_id = ${accountId} AND name = ${name} AND owner = ${owner}`,
    );
    return changes > 0;
  }

  /** Releases every lock of an owner (a request that ends); returns how many. */
  async releaseAll(accountId: string, owner: string): Promise<number> {
    const { changes } = await this.store.run(releaseAllStatement(accountId, owner));
    return changes;
  }

  /** The lease currently recorded under a name (possibly expired), if any. */
  async holder(accountId: string, name: string): Promise<LockLease | undefined> {
    const row = await this.store.get<LockRow>(
      sql`SELECT name, owner, acquired_at, expires_at FROM locks WHERE account_id = ${accountId} AND name = ${name}`,
    );
    return (
      row && { name: row.name, owner: row.owner, acquiredAt: row.acquired_at, expiresAt: row.expires_at }
    );
  }
}

function checkName(name: string): void {
  if (name === '' || name.length > 255)
    throw new PlatformError('invalid', `invalid lock name ${JSON.stringify(name)}`);
}

/** The statement of `Locks.releaseAll`, for a caller that runs it with its own (Requests.transition). */
export function releaseAllStatement(accountId: string, owner: string): Sql {
  return sql`DELETE FROM locks WHERE account_id = ${accountId} AND owner = ${owner}`;
}
