/**
 * Collection triggers (docs/hosts.md, "Collection triggers"), in process on both engines: a stored
 * definition's start event watches a collection; a document inserted or updated that matches its
 * filter starts one request (data `{collection, document}`), one that does not match starts none;
 * the outbox row is written by the write's own transaction and taken once across two servers.
 */
import { beforeAll, expect, it } from 'vitest';
import { ProcessHost, ProcessSweeper } from '../../src/hosts/index.js';
import { fireCollectionEvent } from '../../src/hosts/processes/triggers.js';
import { readBpmn, writeBpmn } from '../../src/platform/processes/bpmn/index.js';
import { createPlatform } from '../../src/platform/index.js';
import { sql, type Store } from '../../src/store/index.js';
import { bpmnModel, scriptTask, sequenceFlow } from '../support/bpmn.js';
import { describeEachEngine } from '../support/engines.js';
import { hostWorld, type HostWorld } from './support.js';

/** A process started by documents of `collection` matching `filter`: one task reading the document. */
function watching(name: string, collection: string, filter: unknown) {
  return {
    name,
    steps: [{ id: 1, name: 'Seen', script: '${document._id} ${document.status} in ${collection}' }],
    graph: {
      nodes: [
        { id: 'NewOrder', kind: 'start', collection: { name: collection, filter } },
        { id: 't', kind: 'task', step: 1 },
        { id: 'e', kind: 'end' },
      ],
      flows: [
        { id: 'f1', source: 'NewOrder', target: 't' },
        { id: 'f2', source: 't', target: 'e' },
      ],
    },
  };
}

describeEachEngine('collection triggers', (engine) => {
  let w: HostWorld;
  let a: Awaited<ReturnType<typeof server>>;
  let b: Awaited<ReturnType<typeof server>>;

  async function server(store: Store, owner: string) {
    const platform = createPlatform(store);
    const host = new ProcessHost(platform, { lease: { owner, ttlMs: 1000 } });
    return { platform, host, sweeper: new ProcessSweeper(host.runner, { batch: 100 }) };
  }

  beforeAll(async () => {
    w = await hostWorld(engine.store);
    a = await server(engine.store, 'server-a');
    b = await server(await engine.openStore(), 'server-b');
  });

  const admin = () => ({
    accountId: w.account,
    user: { id: w.actor('admin').id, login: 'admin', isAdmin: true },
  });
  const save = (value: unknown) => a.platform.processes.definitions.create(w.account, value);
  const pending = async () =>
    Number((await engine.store.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM process_trigger_events`))!.n);
  /** The requests of a definition: their data and status, oldest first. */
  const requestsOf = async (definitionId: number) => {
    const ids = (
      await engine.store.all<{ request_id: string }>(
        sql`SELECT request_id FROM process_runs WHERE definition_id = ${definitionId} ORDER BY request_id`,
      )
    ).map((r) => r.request_id);
    return Promise.all(
      ids.map(async (id) => {
        const request = await w.platform.requests.require(w.account, id);
        return {
          data: request.data,
          status: request.status,
          initiator: request.initiatorId,
          mode: request.mode,
        };
      }),
    );
  };
  const sweepBoth = async () => {
    const results = await Promise.all([a.sweeper.sweep(), b.sweeper.sweep()]);
    return results.reduce((n, r) => n + r.started, 0);
  };

  it('an insert that matches starts one request; one that does not starts none; an update that matches starts one', async () => {
    const stored = await save(watching('On new order', 'orders', { status: 'new' }));
    expect(await w.platform.processes.triggers.find(stored.id)).toMatchObject({
      kind: 'collection',
      nodeId: 'NewOrder',
      collection: { name: 'orders', filter: { status: 'new' } },
      firedCount: 0,
    });
    await a.platform.collections.save(admin(), 'orders', [{ _id: 'o1', status: 'new', qty: 2 }]);
    await a.platform.collections.save(admin(), 'orders', [{ _id: 'o2', status: 'draft' }]);
    expect(await pending()).toBe(2);
    expect(await sweepBoth()).toBe(1);
    expect(await pending()).toBe(0);
    expect(await requestsOf(stored.id)).toEqual([
      {
        data: { collection: 'orders', document: { _id: 'o1', status: 'new', qty: 2 } },
        status: 201,
        initiator: null,
        mode: 'LIVE',
      },
    ]);
    expect(await sweepBoth()).toBe(0);

    // an update that makes o2 match (update_objects' path, batched for a watched collection)
    expect(
      await a.platform.collections.update(
        admin(),
        'orders',
        { _id: 'o2' },
        { $set: { status: 'new' } },
        { multi: true },
      ),
    ).toBe(1);
    // an update that does not match
    await a.platform.collections.update(
      admin(),
      'orders',
      { _id: 'o1' },
      { $set: { status: 'paid' } },
      { multi: false },
    );
    expect(await sweepBoth()).toBe(1);
    const requests = await requestsOf(stored.id);
    expect(requests.map((r) => r.data)).toContainEqual({
      collection: 'orders',
      document: { _id: 'o2', status: 'new' },
    });
    expect(requests).toHaveLength(2);
    expect(await w.platform.processes.triggers.find(stored.id)).toMatchObject({ firedCount: 2 });

    // another collection, and a collection nobody watches, leave no event
    await a.platform.collections.save(admin(), 'invoices', [{ _id: 'i1', status: 'new' }]);
    expect(await pending()).toBe(0);
  });

  it('an event is taken once by two servers draining it at the same time', async () => {
    const stored = await save(watching('On urgent', 'tickets', { urgent: true }));
    await a.platform.collections.save(admin(), 'tickets', [
      { _id: 't1', urgent: true, status: 'open' },
      { _id: 't2', urgent: true, status: 'open' },
    ]);
    const events = await w.platform.processes.triggers.events(100);
    expect(events.map((e) => JSON.parse(e.doc)._id)).toEqual(['t1', 't2']);
    const taken = await Promise.all(
      events.flatMap((event) => [
        fireCollectionEvent(a.host.runner, event),
        fireCollectionEvent(b.host.runner, event),
      ]),
    );
    expect(taken.filter(Boolean)).toHaveLength(2);
    const ids = (await requestsOf(stored.id)).map((r) => (r.data.document as { _id: string })._id);
    expect(ids.sort()).toEqual(['t1', 't2']);
    expect(await pending()).toBe(0);
  });

  it('refuses a filter that is not a query when the definition is saved; reads and writes the BPMN extension', async () => {
    await expect(save(watching('Bad', 'orders', { $where: 'this.a' }))).rejects.toThrow(
      'process definition.graph.nodes[0].collection.filter: ',
    );
    await expect(save(watching('Bad', 'orders', 'status = new'))).rejects.toThrow(
      'process definition.graph.nodes[0].collection.filter: must be a query object ({"status": "new"})',
    );
    const xml = bpmnModel(
      'FromBpmn',
      `    <bpmn:startEvent id="Paid">
      <bpmn:extensionElements>
        <flowmark:collectionTrigger collection="payments">{"amount": {"$gt": 100}}</flowmark:collectionTrigger>
      </bpmn:extensionElements>
    </bpmn:startEvent>
    ${scriptTask('Note', 'paid ${document.amount}')}
    <bpmn:endEvent id="End" />
    ${sequenceFlow('s1', 'Paid', 'Note')}
    ${sequenceFlow('s2', 'Note', 'End')}`,
    );
    const read = (await readBpmn(xml)) as { graph: { nodes: unknown[] } };
    expect(read.graph.nodes[0]).toEqual({
      id: 'Paid',
      kind: 'start',
      collection: { name: 'payments', filter: { amount: { $gt: 100 } } },
    });
    const stored = await save(read);
    // a JSON definition's trigger exported as BPMN reads back the same
    const exported = await writeBpmn(
      (await save(watching('Exported', 'audits', { level: { $gte: 3 } }))).definition,
    );
    expect(exported).toContain(
      '<flowmark:collectionTrigger collection="audits">{"level":{"$gte":3}}</flowmark:collectionTrigger>',
    );
    const again = (await readBpmn(exported)) as { graph: { nodes: unknown[] } };
    expect(again.graph.nodes[0]).toEqual({
      id: 'NewOrder',
      kind: 'start',
      collection: { name: 'audits', filter: { level: { $gte: 3 } } },
    });
    await a.platform.collections.save(admin(), 'payments', [
      { _id: 'p1', amount: 50 },
      { _id: 'p2', amount: 150 },
    ]);
    expect(await sweepBoth()).toBe(1);
    expect((await requestsOf(stored.id)).map((r) => r.data.document)).toEqual([{ _id: 'p2', amount: 150 }]);
    await expect(readBpmn(xml.replace('{"amount": {"$gt": 100}}', 'amount > 100'))).rejects.toThrow(
      'startEvent Paid: the filter of flowmark:collectionTrigger must be a JSON object ({"status": "new"}), not "amount > 100"',
    );
  });
});
