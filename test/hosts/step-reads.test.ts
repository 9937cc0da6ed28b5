/**
 * What a process request of three script tasks reads (issue 27: requests/s): each row read once
 * per request, not once a step — the run and the request come back from the writes that move
 * them, the last result from the step record that stored it, and the steps' contexts share the
 * account, the initiator and their delegations. The statements are counted through a store that
 * wraps the suite's.
 */
import { beforeAll, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { describeEachEngine } from '../support/engines.js';
import { watchedStore } from '../support/watched-store.js';
import { hostWorld, type HostWorld } from './support.js';

/** The suite's store, keeping the text of every statement (whitespace folded), and `TRANSACTION` where one begins. */
function recording(store: Store): Store & { statements: string[] } {
  const statements: string[] = [];
  const watched = watchedStore(store, (text) => statements.push(text));
  return Object.assign(watched, {
    statements,
    transaction: ((fn, options) => {
      statements.push('TRANSACTION');
      return store.transaction(fn, options);
    }) as Store['transaction'],
  });
}

/** The bench's process (bench/process-tx.bench.ts). */
const TX = {
  name: 'Tx',
  steps: [
    { id: 1, name: 'One', script: '${(a + 1)?c}', output: { b: '${P_result?c}' } },
    { id: 2, name: 'Two', script: '{"c": ${(b * 2)?c}}' },
    { id: 3, name: 'Three', script: '[1, 2, ${a?c}, ${P_result.c?c}]' },
  ],
};

const count = (statements: string[], pattern: RegExp) => statements.filter((s) => pattern.test(s)).length;

/** A write to the user (their name set again): the reads the account's starts share are read again. */
async function touchUser(w: HostWorld, login: string): Promise<void> {
  const user = await w.platform.directory.users.require(w.account, login);
  await w.platform.directory.users.update(w.account, user.id, { name: user.name });
}

describeEachEngine('process host: what a request of three script tasks reads', (engine) => {
  let w: HostWorld;
  let store: Store & { statements: string[] };
  beforeAll(async () => {
    store = recording(engine.store);
    w = await hostWorld(store);
    await w.platform.processes.definitions.create(w.account, TX);
  });
  /** A request of the bench's process, `a` its data, started by `user`. */
  const startTx = (a: number, user = 'ann') =>
    w.host.started(w.account, { process: 'Tx', data: { a }, user, mode: 'TEST' });

  it('reads the request, its run, the initiator, the account and the delegations once, and writes each step once', async () => {
    // a first request reads the definition's version once for the thread
    await startTx(0);
    // a write to a user: the next start reads the account, the initiator and the delegations again
    await touchUser(w, 'ann');
    store.statements.length = 0;
    const { request } = await startTx(1);
    expect(request.status).toBe(201);
    expect(request.data).toEqual({ a: 1, b: 2 });
    const s = store.statements.filter((t) => t !== 'TRANSACTION');
    const joined = engine.name === 'postgres';
    // On PostgreSQL a task's end is one statement (WITH): the first task's output variable
    // written, its record ended, the request read (the status a script or a cancel may have
    // set), the run moved and, before another task, that task's record begun — with no
    // transaction around it but at the request's end; on SQLite, one statement each.
    const ending =
      /^WITH (written AS \(UPDATE requests SET .*\), )?ended AS \( ?UPDATE request_steps SET .* FROM (requests|written) r WHERE .*\), moved AS \( ?UPDATE process_runs SET cursor .* AND EXISTS \(SELECT 1 FROM ended WHERE .*\)(, begun AS \( ?INSERT INTO request_steps .* FROM moved RETURNING .*\)|, finished AS \(UPDATE requests SET status .* AND EXISTS \(SELECT 1 FROM moved\) RETURNING .*\), released AS \(DELETE FROM locks WHERE .* AND EXISTS \(SELECT 1 FROM moved\)\))? SELECT ended\.\*, moved\.\*(, (begun|finished)\.\*)? FROM ended LEFT JOIN moved ON true( LEFT JOIN (begun|finished) ON true)?$/;
    expect(count(s, ending)).toBe(joined ? 3 : 0);
    // On PostgreSQL the request, its run and its first task's record are created by one
    // statement, after the start's reads, with no transaction around them
    const creating =
      /^WITH created AS \( ?INSERT INTO requests .* ON CONFLICT \(account_id, id\) DO NOTHING RETURNING .*\), moved AS \( ?INSERT INTO process_runs .* FROM created RETURNING .*\), begun AS \( ?INSERT INTO request_steps .* FROM moved RETURNING .*\) SELECT created\.\*, moved\.\*, begun\.\* FROM created JOIN moved ON true LEFT JOIN begun ON true$/;
    expect(count(s, creating)).toBe(joined ? 1 : 0);
    expect(count(s, /, begun AS \( ?INSERT INTO request_steps /)).toBe(joined ? 3 : 0);
    expect(count(s, /, finished AS \(UPDATE requests SET status .*, released AS \(DELETE FROM locks /)).toBe(
      joined ? 1 : 0,
    );
    expect(count(s, /^WITH written AS/)).toBe(joined ? 1 : 0);
    expect(count(s, /^SELECT .* FROM requests WHERE/)).toBe(joined ? 0 : 3);
    expect(count(s, /^UPDATE requests SET updated_at = \S+, data =/)).toBe(joined ? 0 : 1);
    expect(count(s, /^UPDATE request_steps SET status/)).toBe(joined ? 0 : 3);
    // the last move finishes the run: the request's end does not write it again
    expect(count(s, /^UPDATE process_runs SET cursor/)).toBe(joined ? 0 : 3);
    expect(count(s, /^SELECT .* FROM process_runs WHERE/)).toBe(0);
    expect(count(s, /^SELECT .* FROM request_steps WHERE/)).toBe(0);
    expect(count(s, /^SELECT .* FROM users WHERE/)).toBe(1);
    expect(count(s, /^SELECT .* FROM accounts WHERE/)).toBe(1);
    expect(count(s, /FROM user_delegations/)).toBe(1);
    // the request and its run created, with the first step begun
    expect(count(s, /^INSERT INTO requests /)).toBe(joined ? 0 : 1);
    expect(count(s, /^INSERT INTO process_runs /)).toBe(joined ? 0 : 1);
    expect(count(s, /^INSERT INTO request_steps /)).toBe(joined ? 0 : 3);
    // and the start's read of the definition, the request's end (its status and locks: on
    // PostgreSQL in the last task's statement)
    expect(count(s, /^SELECT .* FROM process_definitions WHERE/)).toBe(1);
    expect(count(s, /^UPDATE requests SET status/)).toBe(joined ? 0 : 1);
    expect(count(s, /^DELETE FROM locks/)).toBe(joined ? 0 : 1);
    expect(s.length).toBe(joined ? 8 : 21);
    // on SQLite the start's reads commit with the creation and the first claim, then one
    // transaction per task; on PostgreSQL none: the creation and each task's end are one statement
    expect(store.statements.filter((t) => t === 'TRANSACTION').length).toBe(joined ? 0 : 4);
  });

  it("the account's starts in the same second share the account, the initiator and the delegations", async () => {
    await touchUser(w, 'ann');
    await startTx(1);
    store.statements.length = 0;
    const { request } = await startTx(2);
    expect(request.data).toEqual({ a: 2, b: 3 });
    const s = store.statements.filter((t) => t !== 'TRANSACTION');
    expect(count(s, /^SELECT .* FROM users WHERE/)).toBe(0);
    expect(count(s, /^SELECT .* FROM accounts WHERE/)).toBe(0);
    expect(count(s, /FROM user_delegations/)).toBe(0);
    expect(count(s, /^SELECT .* FROM process_definitions WHERE/)).toBe(1);
    expect(s.length).toBe(engine.name === 'postgres' ? 5 : 18);
  });

  it('a user blocked on this server cannot start a request the next moment, though its starts shared its read', async () => {
    const bob = await w.platform.directory.users.create(w.account, { login: 'bob-reads', name: 'Bob' });
    await startTx(1, 'bob-reads');
    await w.platform.directory.users.update(w.account, bob.id, { status: 'blocked' });
    await expect(startTx(1, 'bob-reads')).rejects.toThrow('user bob-reads is blocked');
  });

  it('a delegation made on this server is seen by the next start', async () => {
    const carl = await w.platform.directory.users.create(w.account, { login: 'carl-reads', name: 'Carl' });
    const dora = await w.platform.directory.users.create(w.account, { login: 'dora-reads', name: 'Dora' });
    const who = {
      name: 'Delegators',
      steps: [{ id: 1, name: 'Who', script: '${P_user.delegators?size}' }],
    };
    await w.platform.processes.definitions.create(w.account, who);
    const run = () =>
      w.host.started(w.account, { process: 'Delegators', data: {}, user: 'dora-reads', mode: 'TEST' });
    expect((await run()).request.status).toBe(201);
    store.statements.length = 0;
    await w.platform.directory.users.delegate(w.account, carl.id, dora.id);
    await run();
    expect(count(store.statements, /FROM user_delegations/)).toBe(1);
  });

  it('a step sees the initiator as a step of a request driven alone would', async () => {
    const { request } = await w.host.started(w.account, {
      definition: {
        name: 'Who',
        steps: [
          { id: 1, script: 'x', output: { one: '${P_user.login} ${P_initiator.name}' } },
          { id: 2, script: 'y', output: { two: '${P_user.login} ${P_initiator.name}' } },
        ],
      },
      data: {},
      user: 'ann',
      mode: 'TEST',
    });
    expect(request.status).toBe(201);
    expect(request.data).toEqual({ one: 'ann Ann Smith', two: 'ann Ann Smith' });
  });
});
