import { setTimeout as sleep } from 'node:timers/promises';
import { metricSinks } from '../metrics/hooks.js';
import type { EngineName } from './sql.js';
import type { TransactionOptions } from './types.js';

/**
 * Runs a top-level transaction, again after a retryable failure (a serialization failure, a busy
 * database) up to `options.retries` times (5 for a serializable one, else none), waiting
 * `backoffMs(attempt)` between tries; each try is counted in the store's metrics.
 */
export async function retryingTransaction<T>(
  engine: EngineName,
  options: TransactionOptions,
  isRetryable: (error: unknown) => boolean,
  backoffMs: (attempt: number) => number,
  run: () => Promise<T>,
): Promise<T> {
  const retries = options.retries ?? (options.isolation === 'serializable' ? 5 : 0);
  for (let attempt = 0; ; attempt++) {
    const started = performance.now();
    try {
      const result = await run();
      metricSinks.transaction(engine, started, true);
      return result;
    } catch (e) {
      metricSinks.transaction(engine, started, false);
      if (attempt >= retries || !isRetryable(e)) throw e;
      await sleep(backoffMs(attempt));
    }
  }
}
