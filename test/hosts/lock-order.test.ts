/**
 * The rows a request's process transactions lock, in one order — the request's, then its run's —
 * so two branches of one request never wait on each other in a circle. Before, a token that
 * parked (its run locked, then its request's status set) beside a branch whose step ended (its
 * document locked and written, then its token moved) could deadlock, and PostgreSQL rolled one of
 * them back. Likewise a branch that ended the request at a terminate end event (its run moved,
 * then its request's status set) beside a token that parked. Here the two transactions are held
 * at the point where they crossed.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, expect, it } from 'vitest';
import { STATUS_RUNNING, STATUS_WAITING } from '../../src/platform/index.js';
import { describeEachEngine } from '../support/engines.js';
import { hostWorld, type HostWorld } from './support.js';

/**
 * `holder` runs until it calls `pause`, where it waits while `other` starts and meets it (300 ms:
 * long enough for `other` to wait where the two would cross); then both go on. Their results.
 */
async function crossed<A, B>(
  holder: (pause: () => Promise<void>) => Promise<A>,
  other: () => Promise<B>,
): Promise<[A, B]> {
  let paused!: () => void;
  const reached = new Promise<void>((r) => (paused = r));
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const first = holder(() => {
    paused();
    return held;
  });
  await reached;
  const second = other();
  await sleep(300);
  release();
  return Promise.all([first, second]);
}

describeEachEngine('process transactions: one lock order', (engine) => {
  let w: HostWorld;
  /** A new request waiting at its manual task (102). */
  const waiting = async () => {
    const { request } = await w.host.started(w.account, {
      definition: { name: 'Waits', steps: [{ id: 1, type: 'manual', name: 'Sign' }] },
      data: {},
      user: 'ann',
      mode: 'TEST',
    });
    expect(request.status).toBe(STATUS_WAITING);
    return request.id;
  };
  beforeAll(async () => {
    w = await hostWorld(engine.store);
  });

  it("a token's wait and a branch's step end on the same request both commit", async () => {
    const { processes, requests } = w.platform;
    const requestId = await waiting();
    const [parked, ended] = await crossed(
      // as park: the request's tokens locked, then (held here) its status set
      (pause) =>
        processes.transaction(async () => {
          await processes.runs.lockTokens(w.account, requestId);
          await pause();
          return requests.transition(w.account, requestId, [STATUS_WAITING], STATUS_RUNNING);
        }),
      // as a forked step's end: the document read locked and written, then the tokens locked to move one
      () =>
        processes.transaction(async () => {
          const data = await requests.lockedData(w.account, requestId);
          await requests.writeStepData(w.account, requestId, JSON.stringify({ ...data, ended: true }));
          await processes.runs.lockTokens(w.account, requestId);
          return 'ended';
        }),
    );
    expect(parked).toMatchObject({ id: requestId, status: STATUS_RUNNING });
    expect(ended).toBe('ended');
    const request = await requests.require(w.account, requestId);
    expect(request.status).toBe(STATUS_RUNNING);
    expect(request.data).toEqual({ ended: true });
  });

  it("a token's wait and a forked branch's end (its run moved, then its request's status set) both commit", async () => {
    const { processes, requests } = w.platform;
    const requestId = await waiting();
    const run = await processes.runs.require(w.account, requestId);
    const forked = await processes.runs.move(run, { ...run.cursor, forked: true });
    expect(forked?.cursor.forked).toBe(true);
    const [parked, ended] = await crossed(
      // as park: the request's row locked, then (held here, between lockTokens' two statements) its run
      (pause) =>
        processes.transaction(async () => {
          await processes.runs.lockRequest(w.account, requestId);
          await pause();
          await processes.runs.lockTokens(w.account, requestId);
          return requests.transition(w.account, requestId, [STATUS_WAITING], STATUS_RUNNING);
        }),
      // as a branch that reached a terminate end event: its run moved, then the request's status set
      () =>
        processes.transaction(async () => {
          const moved = await processes.runs.move(forked!, { ...forked!.cursor, phase: 'ended' });
          const ended = await requests.transition(w.account, requestId, [STATUS_RUNNING], 201);
          return [moved?.cursor.phase, ended?.status];
        }),
    );
    expect(parked).toMatchObject({ id: requestId, status: STATUS_RUNNING });
    expect(ended).toEqual(['ended', 201]);
    expect((await requests.require(w.account, requestId)).status).toBe(201);
  });
});
