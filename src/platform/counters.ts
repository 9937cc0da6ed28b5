/**
 * Counters: named persistent integers per account. next_value is one statement that creates the
 * counter at 0 and increments it, returning the new value: concurrent callers (any number of
 * processes sharing the database) each get a distinct value with no gap. A transient engine
 * conflict is retried; only when retries cannot resolve it does the spec's contention error surface.
 */
import { DEFAULT_LOCK_WAIT_MS } from '../config/index.js';
import { sql, type Store } from '../store/index.js';
import { PlatformError } from './errors.js';
import { DEFAULT_CONTENTION, withContentionRetry, type ContentionPolicy } from './model.js';

export class Counters {
  constructor(
    private readonly store: Store,
    private readonly contention: ContentionPolicy = DEFAULT_CONTENTION,
  ) {}

  /**
   * The counter's next value. `withinMs`: the caller's remaining time (an evaluation's), which
   * the retries of a conflict stay within as well as within the store's lock wait.
   */
  async next(accountId: string, name: string, options: { withinMs?: number } = {}): Promise<number> {
    checkName(name);
    const policy =
      options.withinMs === undefined
        ? this.contention
        : {
            ...this.contention,
            totalWaitMs: Math.min(
              this.contention.totalWaitMs ?? this.store.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS,
              Math.max(options.withinMs, 0),
            ),
          };
    const row = await withContentionRetry(
      this.store,
      () =>
        this.store.get<{ value: number }>(sql`
        INSERT INTO counters (account_id, name, value) VALUES (${accountId}, ${name}, 1)
        ON CONFLICT (account_id, name) DO UPDATE SET value = counters.value + 1
        RETURNING value`),
      policy,
    );
    return Number(row!.value);
  }

  /** The current value (0 for a counter never incremented). */
  async current(accountId: string, name: string): Promise<number> {
    const row = await this.store.get<{ value: number }>(
      sql`SELECT value FROM counters WHERE account_id = ${accountId} AND name = ${name}`,
    );
    return row ? Number(row.value) : 0;
  }
}

function checkName(name: string): void {
  if (name === '' || name.length > 255)
    throw new PlatformError('invalid', `invalid counter name ${JSON.stringify(name)}`);
}
