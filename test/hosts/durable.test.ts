/**
 * Durable requests and timers, in process (docs/hosts.md, "Durable requests and timers"): a
 * "server" is a ProcessHost over its own store connection with its own lease owner; one dies by
 * losing its store mid-step, another resumes its requests. Timers run on a virtual clock.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProcessHost, ProcessSweeper } from '../../src/hosts/index.js';
import { createPlatform } from '../../src/platform/index.js';
import { parseDefinition } from '../../src/platform/processes/index.js';
import { migrations, openStore, sql, type Migration, type Store } from '../../src/store/index.js';
import { NOW } from '../platform/world.js';
import { availableEngines, describeEachEngine } from '../support/engines.js';
import { hostWorld, ref, stepsOf, type HostWorld } from './support.js';

async function until<T>(probe: () => Promise<T | undefined>, what: string, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A store that fails every statement once `die()` is called (a server process that died). */
function mortal(store: Store): Store & { die(): void } {
  let dead = false;
  const check = () => {
    if (dead) throw new Error('the server died');
  };
  return {
    dialect: store.dialect,
    location: store.location,
    all: async (q) => (check(), store.all(q)),
    get: async (q) => (check(), store.get(q)),
    run: async (q) => (check(), store.run(q)),
    exec: async (t) => (check(), store.exec(t)),
    transaction: async (fn, options) => (check(), store.transaction(fn, options)),
    close: () => store.close(),
    die: () => (dead = true),
  } as Store & { die(): void };
}

/** A second server on the same database: its own connection, platform, host and lease owner. */
async function server<S extends Store>(store: S, owner: string, clock: () => number = () => NOW) {
  const platform = createPlatform(store, { clock: () => NOW });
  const ended: string[] = [];
  const host = new ProcessHost(platform, {
    clock,
    lease: { owner, ttlMs: 1000 },
    observer: (e) => e.type === 'ended' && ended.push(e.requestId),
  });
  const sweeper = new ProcessSweeper(host.runner, { batch: 500 });
  return { store, platform, host, sweeper, ended };
}

const GATED = {
  name: 'Gated',
  steps: [
    { id: 1, name: 'One', script: '${next_value("one")?c}', output: { first: '${P_result?c}' } },
    {
      id: 2,
      name: 'Two',
      input: { tries: '${((tries!0) + 1)?c}', gate: '${R_lock("gate", 20000)}${R_unlock("gate")}' },
      script: '${next_value("two")?c}',
    },
    { id: 3, name: 'Three', script: '{"first": ${first?c}, "tries": ${tries?c}}' },
  ],
};

describeEachEngine('durable requests', (engine) => {
  let w: HostWorld;
  beforeAll(async () => {
    w = await hostWorld(engine.store);
  });

  const runsOf = async (ids: string[]) => Promise.all(ids.map((id) => w.host.view(w.account, id)));

  it('a server that dies mid-step loses its runs; another resumes each from its last committed step, once', async () => {
    const a = await server(mortal(await engine.openStore()), 'server-a');
    const b = await server(engine.store, 'server-b');
    await w.platform.locks.tryAcquire(w.account, 'gate', 'test', NOW, NOW + 3_600_000);
    const starts = Array.from({ length: 6 }, (_, i) =>
      a.host.start(w.account, { definition: GATED, data: { i }, mode: 'TEST' }).then(
        () => 'returned',
        () => 'failed',
      ),
    );
    // Every request has committed step 1 and waits at the gate inside step 2 (its input `tries` written).
    const ids = await until(async () => {
      const rows = await engine.store.all<{ request_id: string }>(sql`
        SELECT request_id FROM request_steps WHERE account_id = ${w.account} AND step_id = 2 AND status = 'running'`);
      return rows.length === 6 ? rows.map((r) => r.request_id) : undefined;
    }, 'six requests at the gate');
    await until(async () => {
      const views = await runsOf(ids);
      return views.every((v) => v.request.data.tries === 1) ? true : undefined;
    }, 'their first attempt at step 2 to write tries');

    // Server A dies: it can commit nothing more (its drives fail and stop).
    a.store.die();
    expect(await Promise.all(starts)).toEqual(Array(6).fill('failed'));
    await w.platform.locks.release(w.account, 'gate', 'test');

    // Nothing is resumed while A's leases last; then B claims all six (in one or more looks).
    expect(await b.sweeper.sweep()).toEqual({ resumed: 0, fired: 0, started: 0, orphans: 0 });
    let resumed = 0;
    await until(async () => {
      resumed += (await b.sweeper.sweep()).resumed;
      return resumed >= 6 ? true : undefined;
    }, 'the leases to expire');
    expect(resumed).toBe(6);
    await b.sweeper.settled();

    const views = await runsOf(ids);
    for (const view of views) {
      expect([view.request.status, view.request.message]).toEqual([201, '']);
      expect(stepsOf(view)).toEqual([
        [1, 0, 'done'],
        [2, 0, 'done'],
        [3, 0, 'done'],
      ]);
      // Step 2 re-ran from its start with the data document of then: `tries` counts one attempt.
      expect(view.steps[2]!.result).toEqual({ first: view.request.data.first, tries: 1 });
    }
    // Step 1 committed before A died and ran once per request; step 2 ran once, on B.
    expect(views.map((v) => v.steps[0]!.result).sort()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(views.map((v) => v.steps[1]!.result).sort()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await w.platform.counters.current(w.account, 'one')).toBe(6);
    expect(await w.platform.counters.current(w.account, 'two')).toBe(6);
    expect(b.ended.sort()).toEqual([...ids].sort());
    const leased = await engine.store.all(
      sql`SELECT request_id FROM process_runs WHERE account_id = ${w.account} AND lease_expires IS NOT NULL`,
    );
    expect(leased).toEqual([]);
  });

  /** Sweeps until `count` runs were resumed, then waits for them. */
  async function resumeAll(sweeper: ProcessSweeper, count: number): Promise<void> {
    let resumed = 0;
    await until(async () => {
      resumed += (await sweeper.sweep()).resumed;
      return resumed >= count ? true : undefined;
    }, 'the leases to expire');
    expect(resumed).toBe(count);
    await sweeper.settled();
  }

  it('a step that stopped its server each time it ran ends its request with 301 after 3 recoveries', async () => {
    const a = await server(mortal(await engine.openStore()), 'server-a-poison');
    const b = await server(engine.store, 'server-b-poison');
    await w.platform.locks.tryAcquire(w.account, 'gate', 'test', NOW, NOW + 3_600_000);
    const starts = [0, 1].map((i) =>
      a.host.start(w.account, { definition: GATED, data: { i }, mode: 'TEST' }).catch(() => 'failed'),
    );
    const ids = await until(async () => {
      const rows = await engine.store.all<{ request_id: string; data: string }>(sql`
        SELECT s.request_id, r.data FROM request_steps s JOIN requests r ON r.account_id = s.account_id AND r.id = s.request_id
        WHERE s.account_id = ${w.account} AND s.step_id = 2 AND s.status = 'running' AND CAST(r.data AS TEXT) LIKE '%"tries"%'`);
      return rows.length === 2 ? rows.map((r) => r.request_id) : undefined;
    }, 'two requests at the gate');
    a.store.die();
    expect(await Promise.all(starts)).toEqual(['failed', 'failed']);
    await w.platform.locks.release(w.account, 'gate', 'test');
    // As if each had already been resumed after a stop: the first twice, the second three times.
    const [twice, thrice] = ids as [string, string];
    await engine.store.run(
      sql`UPDATE process_runs SET recoveries = 2 WHERE account_id = ${w.account} AND request_id = ${twice}`,
    );
    await engine.store.run(
      sql`UPDATE process_runs SET recoveries = 3 WHERE account_id = ${w.account} AND request_id = ${thrice}`,
    );
    await resumeAll(b.sweeper, 2);

    const resumed = await w.host.view(w.account, twice);
    expect(resumed.request.status).toBe(201);
    const failed = await w.host.view(w.account, thrice);
    const message =
      'step 2 (Two): interrupted 4 times (its server or evaluation thread stopped while it ran each time), not run again';
    expect([failed.request.status, failed.request.message]).toEqual([301, message]);
    expect(stepsOf(failed)).toEqual([
      [1, 0, 'done'],
      [2, 0, 'failed'],
    ]);
    const counted = await engine.store.all(
      sql`SELECT recoveries FROM process_runs WHERE account_id = ${w.account} AND request_id = ${twice}`,
    );
    // the step it re-ran committed: the count starts again at the next step
    expect(counted.map((r) => Number(r.recoveries))).toEqual([0]);
  });

  it('a server dying in the output variables of a submitted task: the submission is taken again', async () => {
    const a = await server(mortal(await engine.openStore()), 'server-a');
    const b = await server(engine.store, 'server-b');
    const definition = {
      name: 'Submitted',
      steps: [
        {
          id: 1,
          type: 'manual',
          name: 'Decide',
          output: { n: '${next_value("decided")?c}', gate: '${R_lock("gate", 20000)}${R_unlock("gate")}' },
        },
        { id: 2, script: '{"decision": "${decision}", "n": ${n?c}, "by": "${P_user.login}"}' },
      ],
    };
    const { request } = await a.host.start(w.account, { definition, mode: 'TEST' });
    await w.platform.locks.tryAcquire(w.account, 'gate', 'test', NOW, NOW + 3_600_000);
    const submitting = a.host
      .submitTask(w.account, ref(request.id, 1), { fields: { decision: 'yes' }, actor: w.actor('admin') })
      .then(
        () => 'returned',
        () => 'failed',
      );
    // the output variables are held until the step ends (one write): n has counted, gate waits
    await until(
      async () => ((await w.platform.counters.current(w.account, 'decided')) === 1 ? true : undefined),
      'the output variable n',
    );
    expect((await w.platform.requests.require(w.account, request.id)).data).toEqual({});
    a.store.die();
    expect(await submitting).toBe('failed');
    await w.platform.locks.release(w.account, 'gate', 'test');
    await resumeAll(b.sweeper, 1);
    const view = await w.host.view(w.account, request.id);
    expect(view.request.status).toBe(201);
    expect(stepsOf(view)).toEqual([
      [1, 0, 'done'],
      [2, 0, 'done'],
    ]);
    expect(view.steps[0]!.result).toEqual({ decision: 'yes' });
    // The output variables ran again from the submission: n counts the new run.
    expect(view.steps[1]!.result).toEqual({ decision: 'yes', n: 2, by: 'admin' });
    expect(view.tasks.map((t) => [t.status, t.submittedBy])).toEqual([['SUBMITTED', w.ids.admin]]);
  });

  it('a server dying while the instances of a parallel multi-instance run: each resumed once, the step goes on once', async () => {
    const a = await server(mortal(await engine.openStore()), 'server-a-instances');
    const b = await server(engine.store, 'server-b-instances');
    const definition = {
      name: 'Instances',
      steps: [
        {
          id: 1,
          name: 'Each',
          loop: { count: '3', parallel: true },
          script: '${R_lock("gate", 20000)}${R_unlock("gate")}${P_index}:${next_value("each")?c}',
        },
        { id: 2, name: 'After', script: '${P_result?size}' },
      ],
    };
    await w.platform.locks.tryAcquire(w.account, 'gate', 'test', NOW, NOW + 3_600_000);
    let id = '';
    const starting = a.host
      .start(w.account, { definition, mode: 'TEST', onCreated: (created) => (id = created) })
      .then(
        () => 'returned',
        () => 'failed',
      );
    // the three instances run side by side: each waits at the gate
    await until(async () => {
      if (id === '') return undefined;
      const running = (await w.platform.processes.steps.list(w.account, id)).filter(
        (s) => s.status === 'running',
      );
      return running.length === 3 ? true : undefined;
    }, 'three instances running');
    a.store.die();
    expect(await starting).toBe('failed');
    await w.platform.locks.release(w.account, 'gate', 'test');
    await resumeAll(b.sweeper, 3);
    const view = await w.host.view(w.account, id);
    expect(view.request.status).toBe(201);
    expect(stepsOf(view).sort((x, y) => Number(x[0]) - Number(y[0]) || Number(x[1]) - Number(y[1]))).toEqual([
      [1, 0, 'done'],
      [1, 1, 'done'],
      [1, 2, 'done'],
      [2, 0, 'done'],
    ]);
    expect(view.steps.find((s) => s.stepId === 2)!.result).toBe(3);
    expect(await w.platform.counters.current(w.account, 'each')).toBe(3);
  });

  it('a server dying inside a sub-process: the child is resumed and its waiting parent goes on', async () => {
    const a = await server(mortal(await engine.openStore()), 'server-a');
    const b = await server(engine.store, 'server-b');
    const definition = {
      name: 'Parent',
      steps: [
        {
          id: 1,
          type: 'subprocess',
          process: {
            name: 'Child',
            steps: [{ id: 1, input: { gate: '${R_lock("gate", 20000)}${R_unlock("gate")}' } }],
          },
          output: { childGate: '${P_result.gate!"none"}' },
        },
      ],
    };
    await w.platform.locks.tryAcquire(w.account, 'gate', 'test', NOW, NOW + 3_600_000);
    const starting = a.host.start(w.account, { definition, mode: 'TEST' }).then(
      () => 'returned',
      () => 'failed',
    );
    const childId = await until(async () => {
      const row = await engine.store.get<{ request_id: string }>(sql`
        SELECT request_id FROM request_steps WHERE account_id = ${w.account} AND status = 'running'
          AND request_id IN (SELECT id FROM requests WHERE account_id = ${w.account} AND parent_id IS NOT NULL)`);
      return row?.request_id;
    }, 'the child at the gate');
    a.store.die();
    expect(await starting).toBe('failed');
    await w.platform.locks.release(w.account, 'gate', 'test');
    await resumeAll(b.sweeper, 1);
    const child = await w.host.view(w.account, childId);
    expect(child.request.status).toBe(201);
    const parent = await w.host.view(w.account, child.request.parentId!);
    expect(parent.request.status).toBe(201);
    expect(stepsOf(parent)).toEqual([[1, 0, 'done']]);
    expect(parent.request.data).toEqual({ childGate: 'gategate' });
    expect(b.ended).toEqual([childId, parent.request.id]);
  });

  it('a step longer than the lease keeps it (heartbeat): no other server takes the request over', async () => {
    const a = await server(await engine.openStore(), 'server-a');
    const b = await server(engine.store, 'server-b');
    await w.platform.locks.tryAcquire(w.account, 'gate', 'test', NOW, NOW + 3_600_000);
    const started = a.host.start(w.account, { definition: GATED, data: {}, mode: 'TEST' });
    const until2500 = Date.now() + 2500;
    let claimed = 0;
    while (Date.now() < until2500) {
      claimed += (await b.sweeper.sweep()).resumed;
      await new Promise((r) => setTimeout(r, 100));
    }
    await w.platform.locks.release(w.account, 'gate', 'test');
    const view = await started;
    expect(claimed).toBe(0);
    expect(view.request.status).toBe(201);
    expect(stepsOf(view)).toEqual([
      [1, 0, 'done'],
      [2, 0, 'done'],
      [3, 0, 'done'],
    ]);
  });

  it('two sweepers never claim the same run: each of 30 lost runs is resumed once', async () => {
    const ghost = await server(engine.store, 'ghost');
    const definition = {
      name: 'Counted',
      steps: [
        { id: 1, script: '${next_value("c1")?c}' },
        { id: 2, script: '${next_value("c2")?c}' },
      ],
    };
    const ids: string[] = [];
    for (let i = 0; i < 30; i++)
      ids.push(
        await ghost.host.runner.create(w.account, {
          definition: parseDefinition(definition),
          definitionId: null,
          data: {},
          mode: 'TEST',
          projectId: null,
          initiatorId: null,
          userId: null,
          parentId: null,
          depth: 0,
        }),
      );
    const b = await server(engine.store, 'server-b');
    const c = await server(await engine.openStore(), 'server-c');
    await new Promise((r) => setTimeout(r, 1100));
    const [fromB, fromC] = await Promise.all([b.sweeper.sweep(), c.sweeper.sweep()]);
    expect(fromB.resumed + fromC.resumed).toBe(30);
    await Promise.all([b.sweeper.settled(), c.sweeper.settled()]);
    expect([...b.ended, ...c.ended].sort()).toEqual([...ids].sort());
    for (const view of await runsOf(ids)) {
      expect(view.request.status).toBe(201);
      expect(stepsOf(view)).toEqual([
        [1, 0, 'done'],
        [2, 0, 'done'],
      ]);
    }
    expect(await w.platform.counters.current(w.account, 'c1')).toBe(30);
    expect(await w.platform.counters.current(w.account, 'c2')).toBe(30);
  });
});

describeEachEngine('manual task timers', (engine) => {
  let w: HostWorld;
  let now = NOW;
  beforeAll(async () => {
    w = await hostWorld(engine.store);
  });

  const APPROVAL = {
    name: 'Approval',
    steps: [
      {
        id: 1,
        type: 'manual',
        name: 'Approve',
        deadline: '2h',
        reminder: { after: '${wait}', message: 'Please approve ${item} (${P_task.id})' },
      },
      { id: 2, script: 'approved' },
    ],
  };

  it('a reminder is logged at its time and the deadline ends the request with 401, across a restart', async () => {
    now = NOW;
    const first = await server(await engine.openStore(), 'server-1', () => now);
    const view = await first.host.start(w.account, {
      definition: APPROVAL,
      data: { wait: 'PT1H', item: 'order 7' },
      mode: 'TEST',
    });
    const id = view.request.id;
    expect(view.request.status).toBe(102);
    expect(
      (await w.platform.processes.timers.list(w.account, id)).map((t) => [t.kind, t.dueAt - NOW]),
    ).toEqual([
      ['deadline', 7_200_000],
      ['reminder', 3_600_000],
    ]);
    now = NOW + 3_599_999;
    expect(await first.sweeper.sweep()).toEqual({ resumed: 0, fired: 0, started: 0, orphans: 0 });
    now = NOW + 3_600_000;
    expect(await first.sweeper.sweep()).toEqual({ resumed: 0, fired: 1, started: 0, orphans: 0 });
    expect(await first.sweeper.sweep()).toEqual({ resumed: 0, fired: 0, started: 0, orphans: 0 });
    const logs = await w.platform.logs.list(w.account, { requestId: id });
    expect(logs.map((l) => [l.level, l.message])).toEqual([['INFO', `Please approve order 7 (${id}.1.0)`]]);

    // The server stops; another one (a restart) takes the timer lease and fires the deadline.
    await first.sweeper.stop();
    const second = await server(await engine.openStore(), 'server-2', () => now);
    now = NOW + 7_199_999;
    expect(await second.sweeper.sweep()).toEqual({ resumed: 0, fired: 0, started: 0, orphans: 0 });
    expect((await w.host.view(w.account, id)).request.status).toBe(102);
    now = NOW + 7_200_000;
    expect(await second.sweeper.sweep()).toEqual({ resumed: 0, fired: 1, started: 0, orphans: 0 });
    const ended = await w.host.view(w.account, id);
    expect(ended.request.status).toBe(401);
    expect(ended.request.message).toBe("step 1 (Approve): the task's deadline passed");
    expect(ended.tasks.map((t) => t.status)).toEqual(['CANCELLED']);
    expect(second.ended).toEqual([id]);
    expect(await second.sweeper.sweep()).toEqual({ resumed: 0, fired: 0, started: 0, orphans: 0 });
    await expect(
      w.host.submitTask(w.account, ref(id, 1), { fields: { ok: true }, actor: w.actor('admin') }),
    ).rejects.toThrow('The task was cancelled: its request has ended.');
    await second.sweeper.stop();
  });

  it('a task submitted in time: its timers fire as nothing, the request completes', async () => {
    now = NOW;
    const s = await server(engine.store, 'server-1', () => now);
    const view = await s.host.start(w.account, { definition: APPROVAL, data: { wait: '1h', item: 'x' } });
    await s.host.submitTask(w.account, ref(view.request.id, 1), { fields: {}, actor: w.actor('admin') });
    now = NOW + 7_200_000;
    expect(await s.sweeper.sweep()).toEqual({ resumed: 0, fired: 2, started: 0, orphans: 0 });
    const after = await w.host.view(w.account, view.request.id);
    expect(after.request.status).toBe(201);
    expect(await w.platform.logs.list(w.account, { requestId: view.request.id })).toEqual([]);
    await s.sweeper.stop();
  });

  it('two servers never fire the same timer: one holds the timer lease, and each timer fires once', async () => {
    now = NOW;
    const a = await server(engine.store, 'server-a', () => now);
    const b = await server(await engine.openStore(), 'server-b', () => now);
    const definition = { name: 'Short', steps: [{ id: 1, type: 'manual', deadline: '10m' }] };
    const ids: string[] = [];
    for (let i = 0; i < 30; i++)
      ids.push((await a.host.start(w.account, { definition, mode: 'TEST' })).request.id);
    now = NOW + 600_000;
    // The timer lease: the first to sweep holds it, the other fires nothing.
    const first = await a.sweeper.sweep();
    expect(first.fired).toBe(30);
    expect(await b.sweeper.sweep()).toEqual({ resumed: 0, fired: 0, started: 0, orphans: 0 });
    // Without the lease (both firing the same due timers at once), each timer still fires once.
    const more = [];
    for (let i = 0; i < 20; i++)
      more.push((await a.host.start(w.account, { definition, mode: 'TEST' })).request.id);
    now = NOW + 1_200_000;
    const due = await w.platform.processes.timers.due(now, 100);
    expect(due.length).toBe(20);
    const results = await Promise.all(
      due.flatMap((t) => [a.host.runner.fireTimer(t), b.host.runner.fireTimer(t)]),
    );
    expect(results.filter(Boolean).length).toBe(20);
    expect([...a.ended, ...b.ended].sort()).toEqual([...ids, ...more].sort());
    for (const id of [...ids, ...more]) expect((await w.host.view(w.account, id)).request.status).toBe(401);
    await a.sweeper.stop();
    await b.sweeper.stop();
  });

  it('on_timeout: at the deadline the task step fails and the request goes on at that step', async () => {
    now = NOW;
    const s = await server(engine.store, 'server-1', () => now);
    const definition = {
      name: 'Escalation',
      steps: [
        { id: 1, type: 'manual', name: 'Approve', deadline: '${limit}', on_timeout: 3 },
        { id: 2, name: 'Approved', script: 'approved' },
        { id: 3, name: 'Escalate', script: 'escalated', output: { outcome: '${P_result}' } },
      ],
    };
    const view = await s.host.start(w.account, { definition, data: { limit: 'PT10M' } });
    now = NOW + 599_999;
    expect(await s.sweeper.sweep()).toEqual({ resumed: 0, fired: 0, started: 0, orphans: 0 });
    now = NOW + 600_000;
    expect(await s.sweeper.sweep()).toEqual({ resumed: 0, fired: 1, started: 0, orphans: 0 });
    const after = await w.host.view(w.account, view.request.id);
    expect(after.request.status).toBe(201);
    expect(stepsOf(after)).toEqual([
      [1, 0, 'failed'],
      [3, 0, 'done'],
    ]);
    expect(after.steps[0]!.error).toEqual({ message: "step 1 (Approve): the task's deadline passed" });
    expect(after.request.data).toEqual({ limit: 'PT10M', outcome: 'escalated' });
    expect(after.tasks.map((t) => t.status)).toEqual(['CANCELLED']);
    await s.sweeper.stop();
  });

  it('refuses on_timeout without a deadline, or naming no step of the process', async () => {
    await expect(
      w.host.start(w.account, {
        definition: { name: 'Bad', steps: [{ id: 1, type: 'manual', on_timeout: 1 }] },
      }),
    ).rejects.toThrow('process definition.steps[0].on_timeout: needs a deadline');
    await expect(
      w.host.start(w.account, {
        definition: { name: 'Bad', steps: [{ id: 1, type: 'manual', deadline: '1h', on_timeout: 9 }] },
      }),
    ).rejects.toThrow('process definition.steps[0].on_timeout: step 9 is not a step of this process');
  });

  /** A user task with an interrupting timer boundary event of 1 h: Approve → Done, or Late → Escalate. */
  const ESCALATED = {
    name: 'Escalated',
    steps: [
      { id: 1, type: 'manual', name: 'Approve' },
      { id: 2, name: 'Escalate', script: '${next_value("escalations")?c}' },
      { id: 3, name: 'Done', script: 'done' },
    ],
    graph: {
      nodes: [
        { id: 's', kind: 'start' },
        { id: 't1', kind: 'task', step: 1 },
        { id: 'late', kind: 'boundary-timer', attachedTo: 't1', wait: '1h' },
        { id: 't2', kind: 'task', step: 2 },
        { id: 't3', kind: 'task', step: 3 },
        { id: 'e', kind: 'end' },
      ],
      flows: [
        { id: 'f1', source: 's', target: 't1' },
        { id: 'f2', source: 't1', target: 't3' },
        { id: 'f3', source: 't3', target: 'e' },
        { id: 'f4', source: 'late', target: 't2' },
        { id: 'f5', source: 't2', target: 'e' },
      ],
    },
  };

  it('a timer boundary event fires across a restart, once', async () => {
    now = NOW;
    const first = await server(await engine.openStore(), 'server-1', () => now);
    const view = await first.host.start(w.account, { definition: ESCALATED, mode: 'TEST' });
    const id = view.request.id;
    expect(view.request.status).toBe(102);
    expect(
      (await w.platform.processes.timers.list(w.account, id)).map((t) => [t.kind, t.dueAt - NOW]),
    ).toEqual([['boundary', 3_600_000]]);
    await first.sweeper.stop();
    const second = await server(await engine.openStore(), 'server-2', () => now);
    now = NOW + 3_599_999;
    expect(await second.sweeper.sweep()).toEqual({ resumed: 0, fired: 0, orphans: 0, started: 0 });
    now = NOW + 3_600_000;
    expect(await second.sweeper.sweep()).toEqual({ resumed: 0, fired: 1, orphans: 0, started: 0 });
    expect(await second.sweeper.sweep()).toEqual({ resumed: 0, fired: 0, orphans: 0, started: 0 });
    const ended = await w.host.view(w.account, id);
    expect(ended.request.status).toBe(201);
    expect(stepsOf(ended)).toEqual([
      [1, 0, 'failed'],
      [2, 0, 'done'],
    ]);
    expect(ended.tasks.map((t) => t.status)).toEqual(['CANCELLED']);
    await second.sweeper.stop();
  });

  it('a server dying right after a timer boundary event fired: another resumes the request from the event, once', async () => {
    now = NOW;
    const a = await server(mortal(await engine.openStore()), 'server-a', () => now);
    const b = await server(engine.store, 'server-b', () => now);
    const view = await a.host.start(w.account, { definition: ESCALATED, mode: 'TEST' });
    const id = view.request.id;
    const [timer] = await w.platform.processes.timers.list(w.account, id);
    // A commits the firing (task cancelled, cursor at the event, request running) and dies before going on.
    const commit = a.store.transaction.bind(a.store);
    a.store.transaction = (async (fn, options) => {
      const result = await commit(fn, options);
      a.store.die();
      return result;
    }) as typeof a.store.transaction;
    await expect(a.host.runner.fireTimer(timer!)).rejects.toThrow('the server died');
    expect((await w.host.view(w.account, id)).request.status).toBe(101);
    let resumed = 0;
    await until(async () => {
      resumed += (await b.sweeper.sweep()).resumed;
      return resumed >= 1 ? true : undefined;
    }, 'the lease to expire');
    await b.sweeper.settled();
    expect(resumed).toBe(1);
    const ended = await w.host.view(w.account, id);
    expect(ended.request.status).toBe(201);
    expect(stepsOf(ended)).toEqual([
      [1, 0, 'failed'],
      [2, 0, 'done'],
    ]);
    // The escalation ran once; the timer does not fire again.
    expect(ended.steps[1]!.result).toBe(await w.platform.counters.current(w.account, 'escalations'));
    expect(await b.host.runner.fireTimer(timer!)).toBe(false);
    await b.sweeper.stop();
  });

  it('refuses a deadline that is neither a duration nor a template', async () => {
    await expect(
      w.host.start(w.account, {
        definition: { name: 'Bad', steps: [{ id: 1, type: 'manual', deadline: 'tomorrow' }] },
      }),
    ).rejects.toThrow(
      'process definition.steps[0].deadline: must be a duration (90s, 15m, 2h, 1d, PT1H30M) or a template, not "tomorrow"',
    );
  });
});

for (const name of availableEngines()) {
  describe(`upgrading a store with requests left running [${name}]`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'flowmark-upgrade-'));
    const schema = `upgrade_${process.pid}_${Date.now().toString(36)}`;
    const open = (migrations: readonly Migration[]) =>
      name === 'sqlite'
        ? openStore({ dataDir: dir, databaseUrl: undefined, migrations })
        : openStore({
            databaseUrl: process.env.FLOWMARK_TEST_PG!,
            pgSchema: schema,
            poolSize: 2,
            migrations,
          });

    afterAll(async () => {
      rmSync(dir, { recursive: true, force: true });
      if (name === 'postgres') {
        const client = new pg.Client({ connectionString: process.env.FLOWMARK_TEST_PG });
        await client.connect();
        await client.query(`DROP SCHEMA ${schema} CASCADE`);
        await client.end();
      }
    });

    it('0410 gives runs left ready or running an expired lease: a sweeper resumes them', async () => {
      const before = await open(migrations.filter((m) => m.id < '0410'));
      const definition = JSON.stringify(
        parseDefinition({
          name: 'Old',
          steps: [
            { id: 1, script: 'one' },
            { id: 2, script: 'two' },
          ],
        }),
      );
      await before.run(sql`INSERT INTO accounts (account_id, name, locale, time_zone, base_url, created_at)
        VALUES ('old', 'Old', 'en', 'UTC', 'https://old.example.com', 0)`);
      const cursors = {
        running: { step: 1, iteration: 0, phase: 'running' },
        ready: { step: 0, iteration: 0, phase: 'ready' },
        waiting: { step: 0, iteration: 0, phase: 'paused' },
      };
      for (const [id, cursor] of Object.entries(cursors)) {
        await before.run(sql`INSERT INTO requests (account_id, id, mode, status, data, p_locks, p_message, created_at, updated_at)
          VALUES ('old', ${id}, 'TEST', ${id === 'waiting' ? 102 : 101}, '{}', '[]', '', 0, 0)`);
        await before.run(sql`INSERT INTO process_runs (account_id, request_id, definition, cursor, secret, depth, version)
          VALUES ('old', ${id}, ${definition}, ${JSON.stringify(cursor)}, 'secret', 0, 0)`);
      }
      await before.run(sql`INSERT INTO request_steps (account_id, request_id, step_id, iteration, type, status, started_at)
        VALUES ('old', 'running', 2, 0, 'script', 'running', 0)`);
      await before.close();

      const store = await open(migrations);
      try {
        const s = await server(store, 'upgraded');
        expect(await s.sweeper.sweep()).toEqual({ resumed: 2, fired: 0, started: 0, orphans: 0 });
        await s.sweeper.settled();
        const view = (id: string) => s.host.view('old', id);
        expect(stepsOf(await view('running'))).toEqual([[2, 0, 'done']]);
        expect(stepsOf(await view('ready'))).toEqual([
          [1, 0, 'done'],
          [2, 0, 'done'],
        ]);
        expect((await view('running')).request.status).toBe(201);
        expect((await view('ready')).request.status).toBe(201);
        expect((await view('waiting')).request.status).toBe(102);
      } finally {
        await store.close();
      }
    });
  });
}
