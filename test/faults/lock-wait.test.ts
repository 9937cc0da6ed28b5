/**
 * One bound for waiting on the store (FLOWMARK_LOCK_WAIT_MS, the store's `lockWaitMs`): a write
 * behind a lock another connection holds gives up after it, and the retries of a conflicted
 * statement (next_value) stay within it in all — before, each of next_value's 8 tries waited the
 * whole bound (8 × 10 s on SQLite).
 */
import { expect, it } from 'vitest';
import { contextFor } from '../../src/functions/request/index.js';
import { evaluate } from '../../src/hosts/evaluate.js';
import { createPlatform } from '../../src/platform/index.js';
import { sql, type Store } from '../../src/store/index.js';
import { describeEachEngine } from '../support/engines.js';

describeEachEngine('waiting on the store', (engine) => {
  it('next_value behind a held lock gives up within the lock wait, with the contention error', async () => {
    const bounded = await engine.openStore({ lockWaitMs: 500 });
    const counters = createPlatform(bounded).counters;
    expect(await counters.next('acme', 'held')).toBe(1);
    const { release, holding } = await holdCounter(engine, 'acme');
    const started = Date.now();
    const outcome = await counters.next('acme', 'held').then(
      (v) => v,
      (e: Error) => e.message,
    );
    const waited = Date.now() - started;
    release();
    await holding;
    expect(outcome).toBe('Counter already being modified, cannot increment it.');
    expect(waited).toBeGreaterThanOrEqual(450);
    expect(waited).toBeLessThan(1500);
    expect(await counters.next('acme', 'held')).toBe(2);
  });

  it("next_value's retries stop at the evaluation's remaining time", async () => {
    // Many tries allowed beyond the lock wait: only the evaluation's 1 s wall time bounds them.
    const bounded = await engine.openStore({ lockWaitMs: 200 });
    const platform = createPlatform(bounded, { contention: { attempts: 100, totalWaitMs: 60_000 } });
    await platform.accounts.create({ id: 'timed', name: 'Timed' });
    expect(await platform.counters.next('timed', 'held')).toBe(1);
    const { release, holding } = await holdCounter(engine, 'timed');
    const ctx = await contextFor({
      platform,
      account: 'timed',
      mode: 'LIVE',
      limits: { dataDocumentBytes: 5 * 1024 * 1024, evaluation: { wallTimeMs: 1000 } },
    });
    const started = Date.now();
    const outcome = await evaluate('${next_value("held")}', ctx).then(
      (r) => r.output,
      (e: Error) => e.message.split('\n')[0],
    );
    const waited = Date.now() - started;
    release();
    await holding;
    expect(outcome).toBe('Counter already being modified, cannot increment it.');
    expect(waited).toBeGreaterThanOrEqual(700);
    expect(waited).toBeLessThan(1600);
  });
});

/**
 * Another connection (its own store) holding the counter "held" of `account` in an open
 * transaction: its row on PostgreSQL, the write lock on SQLite; `release` ends it.
 */
async function holdCounter(
  engine: { openStore(): Promise<Store> },
  account: string,
): Promise<{ release: () => void; holding: Promise<unknown> }> {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let locked!: () => void;
  const isLocked = new Promise<void>((r) => (locked = r));
  const other = await engine.openStore();
  const holding = other.transaction(async (tx) => {
    await tx.run(sql`UPDATE counters SET value = value WHERE account_id = ${account} AND name = 'held'`);
    locked();
    await released;
  });
  await isLocked;
  return { release, holding };
}
