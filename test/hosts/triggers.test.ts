/**
 * Timer start events of stored definitions (docs/hosts.md, "Triggers"), in process: two "servers"
 * (each a ProcessHost and sweeper over its own store connection, with its own lease owner) on one
 * database and one virtual clock. A tick starts one request across them; missed ticks fire once.
 */
import { beforeAll, expect, it } from 'vitest';
import { ProcessHost, ProcessSweeper } from '../../src/hosts/index.js';
import { fireSchedule } from '../../src/hosts/processes/triggers.js';
import { createPlatform } from '../../src/platform/index.js';
import { sql, type Store } from '../../src/store/index.js';
import { NOW } from '../platform/world.js';
import { describeEachEngine } from '../support/engines.js';
import { hostWorld, type HostWorld } from './support.js';

const MIN = 60_000;

function timed(name: string, timer: Record<string, string> | undefined, start: Record<string, unknown> = {}) {
  return {
    name,
    steps: [{ id: 1, name: 'Tick', script: 'tick' }],
    graph: {
      nodes: [
        { id: 'Every', kind: 'start', ...(timer ? { timer } : {}), ...start },
        { id: 't', kind: 'task', step: 1 },
        { id: 'e', kind: 'end' },
      ],
      flows: [
        { id: 'f1', source: 'Every', target: 't' },
        { id: 'f2', source: 't', target: 'e' },
      ],
    },
  };
}

describeEachEngine('timer start events', (engine) => {
  let w: HostWorld;
  let now = NOW;
  const clock = () => now;
  let a: Awaited<ReturnType<typeof server>>;
  let b: Awaited<ReturnType<typeof server>>;

  async function server(store: Store, owner: string) {
    const platform = createPlatform(store, { clock });
    const host = new ProcessHost(platform, { clock, lease: { owner, ttlMs: 1000 } });
    return { platform, host, sweeper: new ProcessSweeper(host.runner, { batch: 100 }) };
  }

  beforeAll(async () => {
    w = await hostWorld(engine.store);
    a = await server(engine.store, 'server-a');
    b = await server(await engine.openStore(), 'server-b');
  });

  const requestsOf = async (definitionId: number) =>
    (
      await engine.store.all<{ request_id: string }>(
        sql`SELECT request_id FROM process_runs WHERE definition_id = ${definitionId} ORDER BY request_id`,
      )
    ).map((r) => r.request_id);
  const trigger = (id: number) => w.platform.processes.triggers.find(id);
  const save = (value: unknown) => a.platform.processes.definitions.create(w.account, value);
  const sweepBoth = async () => {
    const results = await Promise.all([a.sweeper.sweep(), b.sweeper.sweep()]);
    return results.reduce((n, r) => n + r.started, 0);
  };

  it('a cycle R/PT10M: one request per tick across two sweeping servers, LIVE, without initiator', async () => {
    now = NOW;
    const stored = await save(timed('Every ten', { cycle: 'R/PT10M' }));
    expect(await trigger(stored.id)).toMatchObject({
      kind: 'timer',
      nodeId: 'Every',
      timer: { cycle: 'R/PT10M' },
      anchor: NOW,
      nextAt: NOW + 10 * MIN,
      firedCount: 0,
    });
    expect(await sweepBoth()).toBe(0);
    now = NOW + 10 * MIN;
    expect(await sweepBoth()).toBe(1);
    expect(await sweepBoth()).toBe(0);
    now = NOW + 20 * MIN + 1;
    expect(await sweepBoth()).toBe(1);
    const ids = await requestsOf(stored.id);
    expect(ids.length).toBe(2);
    for (const id of ids) {
      const view = await w.host.view(w.account, id);
      expect(view.request).toMatchObject({ status: 201, mode: 'LIVE', initiatorId: null });
      expect(view.steps.map((s) => s.result)).toEqual(['tick']);
    }
    expect(await trigger(stored.id)).toMatchObject({ nextAt: NOW + 30 * MIN, firedCount: 2 });
    expect(ids).toContain((await trigger(stored.id))!.lastRequestId);
    await a.platform.processes.definitions.delete(w.account, stored.id);
  });

  it('the same due tick fired by both servers at once (no timer lease between them): one request', async () => {
    now = NOW;
    const stored = await save(timed('Raced', { cycle: 'R/PT5M' }));
    now = NOW + 5 * MIN;
    const [due] = (await w.platform.processes.triggers.due(now, 100)).filter(
      (t) => t.definitionId === stored.id,
    );
    const results = await Promise.all(
      Array.from({ length: 4 }, () => [
        fireSchedule(a.host.runner, due!),
        fireSchedule(b.host.runner, due!),
      ]).flat(),
    );
    expect(results.filter(Boolean).length).toBe(1);
    expect((await requestsOf(stored.id)).length).toBe(1);
    expect(await trigger(stored.id)).toMatchObject({ nextAt: NOW + 10 * MIN, firedCount: 1 });
    await a.platform.processes.definitions.delete(w.account, stored.id);
  });

  it('ticks missed while every server was down fire once; the schedule goes on from the next tick after now', async () => {
    now = NOW;
    const stored = await save(timed('Missed', { cycle: 'R/PT10M' }));
    now = NOW + 65 * MIN;
    expect(await sweepBoth()).toBe(1);
    expect(await sweepBoth()).toBe(0);
    expect((await requestsOf(stored.id)).length).toBe(1);
    expect(await trigger(stored.id)).toMatchObject({
      nextAt: NOW + 70 * MIN,
      firedCount: 1,
      lastFiredAt: now,
    });
    await a.platform.processes.definitions.delete(w.account, stored.id);
  });

  it('R3 with a start: three ticks from the start, then none; a cron expression ticks in UTC', async () => {
    now = NOW;
    const start = '2023-11-14T23:00:00Z';
    const three = await save(timed('Three', { cycle: `R3/${start}/PT1H` }));
    const cron = await save(timed('Quarterly', { cycle: '*/15 * * * *' }));
    const at = Date.parse(start);
    expect((await trigger(three.id))!.nextAt).toBe(at);
    // NOW is 2023-11-14T22:13:20Z: the next quarter hour is 22:15.
    expect((await trigger(cron.id))!.nextAt).toBe(Date.parse('2023-11-14T22:15:00Z'));
    for (const hour of [0, 1, 2]) {
      now = at + hour * 60 * MIN;
      // The cron's quarters since the last sweep fire once.
      expect(await sweepBoth()).toBe(2);
    }
    expect(await trigger(three.id)).toMatchObject({ nextAt: null, firedCount: 3 });
    expect(await trigger(cron.id)).toMatchObject({
      nextAt: Date.parse('2023-11-15T01:15:00Z'),
      firedCount: 3,
    });
    now = at + 10 * 60 * MIN;
    await sweepBoth();
    expect((await requestsOf(three.id)).length).toBe(3);
    expect((await requestsOf(cron.id)).length).toBe(4);
    await a.platform.processes.definitions.delete(w.account, three.id);
    await a.platform.processes.definitions.delete(w.account, cron.id);
  });

  it('a date fires once (at once when already past), a duration once after the save', async () => {
    now = NOW;
    const past = await save(timed('Past date', { date: '2020-01-01T00:00:00Z' }));
    const later = await save(timed('Later', { duration: 'PT2H' }));
    expect((await trigger(past.id))!.nextAt).toBe(NOW);
    expect((await trigger(later.id))!.nextAt).toBe(NOW + 120 * MIN);
    expect(await sweepBoth()).toBe(1);
    now = NOW + 120 * MIN;
    expect(await sweepBoth()).toBe(1);
    now = NOW + 1000 * MIN;
    expect(await sweepBoth()).toBe(0);
    expect(await trigger(past.id)).toMatchObject({ nextAt: null, firedCount: 1 });
    expect(await trigger(later.id)).toMatchObject({ nextAt: null, firedCount: 1 });
    await a.platform.processes.definitions.delete(w.account, past.id);
    await a.platform.processes.definitions.delete(w.account, later.id);
  });

  it('replacing the definition updates the schedule; disabling, removing the timer or deleting ends it', async () => {
    now = NOW;
    const { definitions } = a.platform.processes;
    const stored = await save(timed('Changing', { cycle: 'R/PT10M' }));
    now = NOW + 3 * MIN;
    // The same timer (another script): the schedule is kept.
    const same = timed('Changing', { cycle: 'R/PT10M' });
    same.steps[0]!.script = 'tock';
    await definitions.replace(w.account, stored.id, same);
    expect(await trigger(stored.id)).toMatchObject({ anchor: NOW, nextAt: NOW + 10 * MIN });
    // Another timer: it starts again from the save.
    await definitions.replace(w.account, stored.id, timed('Changing', { cycle: 'R/PT30M' }));
    expect(await trigger(stored.id)).toMatchObject({ anchor: now, nextAt: now + 30 * MIN, firedCount: 0 });
    await definitions.replace(
      w.account,
      stored.id,
      timed('Changing', { cycle: 'R/PT30M' }, { enabled: false }),
    );
    expect(await trigger(stored.id)).toBeUndefined();
    await definitions.replace(w.account, stored.id, timed('Changing', { cycle: 'R/PT30M' }));
    expect(await trigger(stored.id)).toMatchObject({ nextAt: now + 30 * MIN });
    await definitions.replace(w.account, stored.id, timed('Changing', undefined));
    expect(await trigger(stored.id)).toBeUndefined();
    await definitions.replace(w.account, stored.id, timed('Changing', { cycle: 'R/PT30M' }));
    expect(await definitions.delete(w.account, stored.id)).toBe(true);
    expect(await trigger(stored.id)).toBeUndefined();
    now = NOW + 1000 * MIN;
    expect(await sweepBoth()).toBe(0);
    expect(await requestsOf(stored.id)).toEqual([]);
  });

  it('a cycle faster than once a minute, a bad repetition or cron is refused naming the start event and its text', async () => {
    const refused = (timer: Record<string, string>) =>
      save(timed('Bad', timer)).then(
        () => 'saved',
        (e: Error) => e.message,
      );
    const at = 'process definition.graph.nodes[0].timer';
    expect(await refused({ cycle: 'R/PT1S' })).toBe(
      `${at}.cycle: the timeCycle "R/PT1S" of start event "Every" repeats every 1 s, more often than once a minute`,
    );
    expect(await refused({ cycle: '* * * * * *' })).toBe(
      `${at}.cycle: the timeCycle "* * * * * *" of start event "Every" is not an ISO 8601 repetition (R/PT1H) nor a cron expression of five fields (minute hour day month weekday): CronPattern: mode '5-part' requires exactly 5 parts, but pattern '* * * * * *' has 6 parts.`,
    );
    expect(await refused({ cycle: '61 * * * *' })).toBe(
      `${at}.cycle: the timeCycle "61 * * * *" of start event "Every" is not an ISO 8601 repetition (R/PT1H) nor a cron expression of five fields (minute hour day month weekday): CronPattern: Invalid value for minute: 61`,
    );
    expect(await refused({ cycle: '0 0 30 2 *' })).toBe(
      `${at}.cycle: the timeCycle "0 0 30 2 *" of start event "Every" never fires`,
    );
    expect(await refused({ cycle: 'R2/P1M' })).toBe(
      `${at}.cycle: the timeCycle "R2/P1M" of start event "Every" has a period "P1M" that is not an ISO 8601 duration of fixed length (PT15M, P1D, P1W)`,
    );
    expect(await refused({ cycle: 'R/tomorrow/PT1H' })).toBe(
      `${at}.cycle: the timeCycle "R/tomorrow/PT1H" of start event "Every" has a start "tomorrow" that is not an ISO 8601 date-time with its offset (2026-01-01T09:00:00Z)`,
    );
    expect(await refused({ date: '2026-01-01' })).toBe(
      `${at}.date: the timeDate "2026-01-01" of start event "Every" is not an ISO 8601 date-time with its offset (2026-01-01T09:00:00Z)`,
    );
    expect(await refused({ duration: 'soon' })).toBe(
      `${at}.duration: the timeDuration "soon" of start event "Every" is not an ISO 8601 duration of fixed length (PT15M, P1D, P1W)`,
    );
    expect(await a.platform.processes.definitions.find(w.account, 'Bad')).toBeUndefined();
  });
});
