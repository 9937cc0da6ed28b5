/**
 * A late heartbeat (docs/hosts.md, "Durable requests and timers"): a loaded machine or a long pause
 * can let the lease of a step this process is still running lapse in the store. The process's
 * own sweeper must not claim it and run the step a second time; another server's sweeper may
 * (its owner could be dead), which is the at-least-once rule the docs state.
 */
import { describe, expect, it } from 'vitest';
import { ProcessHost, ProcessSweeper } from '../../src/hosts/index.js';
import { Heartbeat } from '../../src/platform/processes/index.js';
import { notDriving } from '../../src/platform/processes/leases.js';
import { sql } from '../../src/store/index.js';
import { NOW } from '../platform/world.js';
import { describeEachEngine } from '../support/engines.js';
import { hostWorld } from './support.js';

const GATED = {
  name: 'Gated',
  steps: [
    {
      id: 1,
      name: 'Wait',
      script: '${R_lock("gate", 20000)}${R_unlock("gate")}${next_value("wait")?c}',
    },
  ],
};

async function until(probe: () => Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describeEachEngine('a late heartbeat', (engine) => {
  it('does not let the process that drives a step claim it again when its lease lapses', async () => {
    const w = await hostWorld(engine.store);
    // holds what the runner drives, but never renews: every lease lapses after its first second
    const silent = new Heartbeat(async () => undefined, 3_600_000);
    const host = new ProcessHost(w.platform, {
      clock: () => NOW,
      lease: { owner: 'the-only-server', ttlMs: 1000 },
      leases: silent,
    });
    const sweeper = new ProcessSweeper(host.runner, { batch: 100 });
    await w.platform.locks.tryAcquire(w.account, 'gate', 'test', NOW, NOW + 3_600_000);
    const started = host.start(w.account, { definition: GATED, data: {}, mode: 'TEST' });
    await until(async () => silent.driving().length === 1, 'the step to run');
    const [requestId] = silent.driving();
    await until(async () => {
      const row = await engine.store.get<{ lease_expires: number | string }>(
        sql`SELECT lease_expires FROM process_runs WHERE request_id = ${requestId}`,
      );
      return row !== undefined && Number(row.lease_expires) < Date.now();
    }, 'the lease to lapse');

    expect(await sweeper.sweep()).toEqual({ resumed: 0, fired: 0, started: 0, orphans: 0 });

    await w.platform.locks.release(w.account, 'gate', 'test');
    const answer = await started;
    expect(answer.request.status).toBe(201); // ended
    await sweeper.settled();
    expect(await w.platform.counters.current(w.account, 'wait')).toBe(1);
  });
});

describe('notDriving', () => {
  it('leaves out every row of the owner rather than list more than 5,000 requests', () => {
    const lease = { owner: 'a', expires: 0 };
    expect(notDriving(lease, []).render('postgres').text).toBe('');
    expect(notDriving(lease, ['r1', 'r2']).render('postgres').text).toBe(
      ' AND NOT (lease_owner = $1 AND request_id IN ($2, $3))',
    );
    const many = Array.from({ length: 5001 }, (_, i) => `r${i}`);
    expect(notDriving(lease, many).render('postgres').text).toBe(' AND lease_owner <> $1');
  });
});
