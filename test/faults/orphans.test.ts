/**
 * No orphaned request (docs/deploy.md, "Faults"): a request and its run, and a sub-process child
 * and its parent's step record, are each written in one transaction. A failure injected between
 * the two writes (RunnerOptions.inject, not chance) leaves neither; the sweeper ends a running
 * request an older version left without a run, with a message saying so.
 */
import { beforeAll, expect, it } from 'vitest';
import { ProcessHost, ProcessSweeper } from '../../src/hosts/index.js';
import { ORPHAN_MESSAGE } from '../../src/hosts/processes/sweeper.js';
import { createPlatform, type Platform } from '../../src/platform/index.js';
import { sql } from '../../src/store/index.js';
import { describeEachEngine } from '../support/engines.js';

const ACCOUNT = 'orphans';

const crash = (at: string) => (point: string) => {
  if (point === at) throw new Error(`crashed at ${point}`);
};

describeEachEngine('request creation under an injected crash', (engine) => {
  let platform: Platform;
  beforeAll(async () => {
    platform = createPlatform(engine.store);
    await platform.accounts.create({ id: ACCOUNT, name: 'Orphans' });
  });

  const count = async (query: ReturnType<typeof sql>) =>
    Number((await engine.store.get<{ n: number }>(query))!.n);

  it('a crash between the request row and its run leaves neither', async () => {
    const host = new ProcessHost(platform, { inject: crash('request-stored') });
    await expect(
      host.start(ACCOUNT, { definition: { name: 'one', steps: [{ id: 1, script: '1' }] }, mode: 'TEST' }),
    ).rejects.toThrow('crashed at request-stored');
    expect(await count(sql`SELECT COUNT(*) AS n FROM requests WHERE account_id = ${ACCOUNT}`)).toBe(0);
    expect(await count(sql`SELECT COUNT(*) AS n FROM process_runs WHERE account_id = ${ACCOUNT}`)).toBe(0);
    // Without the fault the same start stores both.
    const view = await new ProcessHost(platform).start(ACCOUNT, {
      definition: { name: 'one', steps: [{ id: 1, script: '1' }] },
      mode: 'TEST',
    });
    expect(view.request.status).toBe(201);
  });

  it('a crash between a sub-process child and its parent step record leaves no child', async () => {
    const host = new ProcessHost(platform, { inject: crash('child-created') });
    const view = await host.start(ACCOUNT, {
      definition: {
        name: 'parent',
        steps: [
          {
            id: 1,
            type: 'subprocess',
            wait: true,
            process: { name: 'child', steps: [{ id: 1, script: '2' }] },
          },
        ],
      },
      mode: 'TEST',
    });
    // The step failed (the parent ends as a failing step ends it); no child was stored.
    expect(view.request.status).toBe(301);
    expect(view.request.message).toContain('crashed at child-created');
    expect(
      await count(
        sql`SELECT COUNT(*) AS n FROM requests WHERE account_id = ${ACCOUNT} AND parent_id = ${view.request.id}`,
      ),
    ).toBe(0);
    expect(view.steps.map((s) => s.childRequestId ?? null)).toEqual([null]);
  });

  it('the sweeper ends a running request an older version left without a run', async () => {
    const now = Date.now();
    const old = await platform.requests.create(ACCOUNT, { mode: 'TEST', data: {}, id: 'left-behind' });
    await engine.store.run(sql`UPDATE requests SET created_at = ${now - 60_000} WHERE id = ${old.id}`);
    const recent = await platform.requests.create(ACCOUNT, { mode: 'TEST', data: {}, id: 'being-created' });
    const sweeper = new ProcessSweeper(
      new ProcessHost(platform, { lease: { owner: 'sweeper', ttlMs: 5000 } }).runner,
    );
    expect(await sweeper.sweep()).toEqual({ resumed: 0, fired: 0, started: 0, orphans: 1 });
    const ended = await platform.requests.require(ACCOUNT, old.id);
    expect({ status: ended.status, message: ended.message }).toEqual({
      status: 301,
      message: ORPHAN_MESSAGE,
    });
    expect(ORPHAN_MESSAGE).toBe(
      'ended by the process sweeper: the server that created this request stopped before storing its run (an older flowmark version), so no step ever ran',
    );
    // One younger than a lease may still be getting its run (an older server's two writes): left alone.
    expect((await platform.requests.require(ACCOUNT, recent.id)).status).toBe(101);
    // The look happens at most once a lease period.
    await engine.store.run(sql`UPDATE requests SET created_at = ${now - 60_000} WHERE id = ${recent.id}`);
    expect((await sweeper.sweep()).orphans).toBe(0);
  });
});
