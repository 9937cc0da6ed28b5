/**
 * The rows a request's process transactions lock, in one order — the request's, then its run's —
 * so two branches of one request never wait on each other in a circle. Before, a token that
 * parked (its run locked, then its request's status set) beside a branch whose step ended (its
 * document locked and written, then its token moved) could deadlock, and PostgreSQL rolled one of
 * them back. Likewise a branch that ended the request at a terminate end event (its run moved,
 * then its request's status set) beside a token that parked. Here the two transactions are held
 * at the point where they crossed.
 */
import { beforeAll, expect, it } from 'vitest';
import { STATUS_RUNNING, STATUS_WAITING } from '../../src/platform/index.js';
import { describeEachEngine } from '../support/engines.js';
import { hostWorld, type HostWorld } from './support.js';

describeEachEngine('process transactions: one lock order', (engine) => {
  let w: HostWorld;
  let requestId = '';
  beforeAll(async () => {
    w = await hostWorld(engine.store);
    const { request } = await w.host.started(w.account, {
      definition: { name: 'Waits', steps: [{ id: 1, type: 'manual', name: 'Sign' }] },
      data: {},
      user: 'ann',
      mode: 'TEST',
    });
    expect(request.status).toBe(STATUS_WAITING);
    requestId = request.id;
  });

  it("a token's wait and a branch's step end on the same request both commit", async () => {
    const { processes, requests } = w.platform;
    let locked!: () => void;
    const tokensLocked = new Promise<void>((r) => (locked = r));
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    // as park: the request's tokens locked, then (held here) its status set
    const parking = processes.transaction(async () => {
      await processes.runs.lockTokens(w.account, requestId);
      locked();
      await held;
      return requests.transition(w.account, requestId, [STATUS_WAITING], STATUS_RUNNING);
    });
    await tokensLocked;
    // as a forked step's end: the document read locked and written, then the tokens locked to move one
    const ending = processes.transaction(async () => {
      const data = await requests.lockedData(w.account, requestId);
      await requests.writeStepData(w.account, requestId, JSON.stringify({ ...data, ended: true }));
      await processes.runs.lockTokens(w.account, requestId);
      return 'ended';
    });
    // long enough for the step's end to wait where it would have crossed the wait
    await new Promise((r) => setTimeout(r, 300));
    release();
    const [parked, ended] = await Promise.all([parking, ending]);
    expect(parked).toMatchObject({ id: requestId, status: STATUS_RUNNING });
    expect(ended).toBe('ended');
    const request = await requests.require(w.account, requestId);
    expect(request.status).toBe(STATUS_RUNNING);
    expect(request.data).toEqual({ ended: true });
  });

  it("a token's wait and a forked branch's end (its run moved, then its request's status set) both commit", async () => {
    const { processes, requests } = w.platform;
    const { request } = await w.host.started(w.account, {
      definition: { name: 'Waits', steps: [{ id: 1, type: 'manual', name: 'Sign' }] },
      data: {},
      user: 'ann',
      mode: 'TEST',
    });
    const waiting = await processes.runs.require(w.account, request.id);
    const forked = await processes.runs.move(waiting, { ...waiting.cursor, forked: true });
    expect(forked?.cursor.forked).toBe(true);
    let locked!: () => void;
    const requestLocked = new Promise<void>((r) => (locked = r));
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    // as park: the request's row locked, then (held here, between lockTokens' two statements) its run
    const parking = processes.transaction(async () => {
      await processes.runs.lockRequest(w.account, request.id);
      locked();
      await held;
      await processes.runs.lockTokens(w.account, request.id);
      return requests.transition(w.account, request.id, [STATUS_WAITING], STATUS_RUNNING);
    });
    await requestLocked;
    // as a branch that reached a terminate end event: its run moved, then the request's status set
    const ending = processes.transaction(async () => {
      const moved = await processes.runs.move(forked!, { ...forked!.cursor, phase: 'ended' });
      const ended = await requests.transition(w.account, request.id, [STATUS_RUNNING], 201);
      return [moved?.cursor.phase, ended?.status];
    });
    await new Promise((r) => setTimeout(r, 300));
    release();
    const [parked, ended] = await Promise.all([parking, ending]);
    expect(parked).toMatchObject({ id: request.id, status: STATUS_RUNNING });
    expect(ended).toEqual(['ended', 201]);
    expect((await requests.require(w.account, request.id)).status).toBe(201);
  });
});
