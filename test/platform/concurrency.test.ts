/**
 * Counters and locks across processes: two Node processes on one database (SQLite file or
 * PostgreSQL), calling next_value and R_lock through the function library.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../src/store/index.js';
import { availableEngines } from '../support/engines.js';
import { isolatedDatabase, Workers, type IsolatedDatabase } from './support/isolated.js';

let workers: Workers;
beforeAll(async () => {
  // Two processes for every engine's suite: a start costs a second or more (tsx and the library).
  workers = await Workers.start(2);
});
afterAll(() => workers?.stop());

for (const engine of availableEngines()) {
  describe(`counters and locks across processes [${engine}]`, () => {
    let db: IsolatedDatabase;
    beforeAll(async () => {
      db = await isolatedDatabase(engine);
      await db.store.exec(
        'CREATE TABLE cs_probe (id INTEGER PRIMARY KEY, inside INTEGER NOT NULL, total INTEGER NOT NULL)',
      );
      await db.store.run(sql`INSERT INTO cs_probe (id, inside, total) VALUES (1, 0, 0)`);
    });
    afterAll(() => db?.close());

    it('two processes × 5,000 next_value give 10,000 distinct consecutive values', async () => {
      const task = { kind: 'counter' as const, name: 'invoice', count: 5000, concurrency: 8 };
      const [a, b] = await workers.run(db, [task, task]);
      expect(a!.values).toHaveLength(5000);
      expect(b!.values).toHaveLength(5000);
      const all = [...a!.values!, ...b!.values!].sort((x, y) => x - y);
      expect(new Set(all).size).toBe(10_000);
      expect(all[0]).toBe(1);
      expect(all[all.length - 1]).toBe(10_000);
      // Both processes really interleaved: each got values from all over the range.
      expect(Math.max(...a!.values!)).toBeGreaterThan(5000);
      expect(Math.max(...b!.values!)).toBeGreaterThan(5000);
      expect(await db.platform.counters.current(db.account, 'invoice')).toBe(10_000);
      console.log(`[${engine}] next_value 2×5000: ${a!.ms!.toFixed(0)} ms / ${b!.ms!.toFixed(0)} ms`);
    });

    it('20 R_lock callers in two processes never hold the lock together', async () => {
      const task = { kind: 'lock' as const, name: 'critical', callers: 10, rounds: 3, holdMs: 2 };
      const [a, b] = await workers.run(db, [task, task]);
      expect(a!.sections! + b!.sections!).toBe(60);
      expect(a!.maxInside).toBe(1);
      expect(b!.maxInside).toBe(1);
      const probe = await db.store.get<{ inside: number; total: number }>(
        sql`SELECT inside, total FROM cs_probe WHERE id = 1`,
      );
      expect({ inside: Number(probe!.inside), total: Number(probe!.total) }).toEqual({
        inside: 0,
        total: 60,
      });
      expect(await db.platform.locks.holder(db.account, 'critical')).toBeUndefined();
      console.log(`[${engine}] R_lock 20 callers × 3 sections: ${Math.max(a!.ms!, b!.ms!).toFixed(0)} ms`);
    });

    it('takes over an expired lease another process never released', async () => {
      const [holder] = await workers.run(db, [{ kind: 'hold', name: 'orphan', leaseSeconds: 1 }]);
      expect(holder!.held).toBe(true);
      const lease = (await db.platform.locks.holder(db.account, 'orphan'))!;
      expect(lease.expiresAt - lease.acquiredAt).toBe(1000);
      const started = Date.now();
      const acquired = await db.platform.locks.acquire(db.account, 'orphan', 'survivor', {
        waitMs: 5000,
        leaseMs: 60_000,
      });
      expect(acquired.acquiredAt).toBeGreaterThanOrEqual(lease.expiresAt);
      expect(Date.now() - started).toBeLessThan(2000);
      expect((await db.platform.locks.holder(db.account, 'orphan'))!.owner).toBe('survivor');
    });
  });
}
