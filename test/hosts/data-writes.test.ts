/**
 * One write of the data document per process step (issue 29): the statements the platform sends
 * are counted through a store that wraps the suite's — an UPDATE of `requests.data`, and a copy of
 * the document into its run (`step_data`), are each a write of the document.
 */
import { beforeAll, expect, it } from 'vitest';
import { sql, type Store } from '../../src/store/index.js';
import { describeEachEngine } from '../support/engines.js';
import { watchedStore } from '../support/watched-store.js';
import { hostWorld, ref, stepsOf, type HostWorld } from './support.js';

/** The suite's store, counting the statements that write a request's data document. */
function counting(store: Store): Store & { writes: string[] } {
  const writes: string[] = [];
  const seen = (text: string) => {
    if (/UPDATE requests SET .*\bdata = /.test(text)) writes.push('data');
    if (/step_data = \(SELECT data/.test(text)) writes.push('copy');
  };
  return Object.assign(watchedStore(store, seen), { writes });
}

const THREE = {
  name: 'Three',
  steps: [
    { id: 1, name: 'One', script: '${(n + 1)?c}', output: { n: '${P_result?c}', first: 'done' } },
    { id: 2, name: 'Two', script: '{"c": ${(n * 2)?c}}', output: { c: '${P_result.c?c}' } },
    { id: 3, name: 'Three', script: '[1, 2, ${n?c}, ${c?c}]', output: { list: '${P_result?size?c}' } },
  ],
};

describeEachEngine('process host: one data-document write per step', (engine) => {
  let w: HostWorld;
  let store: Store & { writes: string[] };
  beforeAll(async () => {
    store = counting(engine.store);
    w = await hostWorld(store);
  });

  it('a request of three script tasks, each setting output variables, writes its document three times', async () => {
    const big = 'x'.repeat(100_000);
    store.writes.length = 0;
    const view = await w.host.start(w.account, { definition: THREE, data: { n: 1, big }, mode: 'TEST' });
    expect(view.request.status).toBe(201);
    expect(stepsOf(view)).toEqual([
      [1, 0, 'done'],
      [2, 0, 'done'],
      [3, 0, 'done'],
    ]);
    expect(view.request.data).toEqual({ n: 2, big, first: 'done', c: 4, list: 4 });
    expect(store.writes).toEqual(['data', 'data', 'data']);
    // nothing of a step was committed before its end: its run keeps no copy of the document
    const row = await engine.store.get<{ step_data: string | null }>(
      sql`SELECT step_data FROM process_runs WHERE account_id = ${w.account} AND request_id = ${view.request.id}`,
    );
    expect(row?.step_data).toBeNull();
  });

  it('a step that sets no variable does not write the document', async () => {
    store.writes.length = 0;
    const view = await w.host.start(w.account, {
      definition: {
        name: 'Plain',
        steps: [
          { id: 1, script: '${n?c}' },
          { id: 2, script: 'ok' },
        ],
      },
      data: { n: 7 },
      mode: 'TEST',
    });
    expect(view.request.status).toBe(201);
    expect(view.request.data).toEqual({ n: 7 });
    expect(store.writes).toEqual([]);
  });

  it('a function that writes the document within a step: the output variables go on from what it wrote', async () => {
    store.writes.length = 0;
    const view = await w.host.start(w.account, {
      definition: {
        name: 'Injecting',
        steps: [
          {
            id: 1,
            script: '{"a": 1, "n": 5}',
            output: { k: '${inject_params()?size?c}', b: '${(a + n)?c}', c: '${(b * 2)?c}' },
          },
          { id: 2, script: '${c?c}', output: { d: '${P_result?c}' } },
        ],
      },
      data: { n: 1 },
      mode: 'TEST',
    });
    expect(view.request.status).toBe(201);
    expect(view.request.data).toEqual({ n: 5, a: 1, k: 2, b: 6, c: 12, d: 12 });
    // the function's own write (and the copy kept before it, for a re-run), then one per step
    expect(store.writes).toEqual(['copy', 'data', 'data', 'data']);
  });

  it("a user task's submission and its output variables: one write, with the step's end and its move", async () => {
    const started = await w.host.start(w.account, {
      definition: {
        name: 'Ask',
        steps: [
          {
            id: 1,
            type: 'manual',
            fields: ['a', 'note'],
            output: { b: '${(a * 2)?c}', c: '${note}!', d: '${(b + 1)?c}' },
          },
          { id: 2, script: '${d?c}' },
        ],
      },
      data: { n: 1 },
      mode: 'TEST',
    });
    expect(started.request.status).toBe(102);
    store.writes.length = 0;
    const view = await w.host.submitTask(w.account, ref(started.request.id, 1), {
      fields: { a: 3, note: 'hi' },
      actor: w.actor('admin'),
    });
    expect(view.request.status).toBe(201);
    expect(view.request.data).toEqual({ n: 1, a: 3, note: 'hi', b: 6, c: 'hi!', d: 7 });
    expect(store.writes).toEqual(['data']);
  });

  it("a user task whose walk runs a gateway condition: one write, and the run's copy of the document for a re-run", async () => {
    const started = await w.host.start(w.account, {
      definition: {
        name: 'Ask and route',
        steps: [
          { id: 1, type: 'manual', fields: ['a'], output: { b: '${(a * 2)?c}', c: 'set' } },
          { id: 2, script: 'big' },
          { id: 3, script: 'small' },
        ],
        graph: {
          nodes: [
            { id: 'start', kind: 'start' },
            { id: 'Ask', kind: 'task', step: 1 },
            { id: 'Size', kind: 'exclusive', default: 'f4' },
            { id: 'Big', kind: 'task', step: 2 },
            { id: 'Small', kind: 'task', step: 3 },
            { id: 'end', kind: 'end' },
          ],
          flows: [
            { id: 'f1', source: 'start', target: 'Ask' },
            { id: 'f2', source: 'Ask', target: 'Size' },
            { id: 'f3', source: 'Size', target: 'Big', condition: '${(b > 5)?c}' },
            { id: 'f4', source: 'Size', target: 'Small' },
            { id: 'f5', source: 'Big', target: 'end' },
            { id: 'f6', source: 'Small', target: 'end' },
          ],
        },
      },
      mode: 'TEST',
    });
    expect(started.request.status).toBe(102);
    store.writes.length = 0;
    const view = await w.host.submitTask(w.account, ref(started.request.id, 1), {
      fields: { a: 3 },
      actor: w.actor('admin'),
    });
    expect(view.request.status).toBe(201);
    expect(view.request.data).toEqual({ a: 3, b: 6, c: 'set' });
    expect(stepsOf(view)).toEqual([
      [1, 0, 'done'],
      [2, 0, 'done'],
    ]);
    expect(store.writes).toEqual(['copy', 'data']);
  });

  it("a call activity's output variables: one write when its sub-process ends (and one of the child's step)", async () => {
    const child = { name: 'Child', steps: [{ id: 1, script: '7', output: { v: '${P_result?c}' } }] };
    store.writes.length = 0;
    const view = await w.host.start(w.account, {
      definition: {
        name: 'Calls',
        steps: [
          {
            id: 1,
            type: 'subprocess',
            process: child,
            output: { got: '${P_result.v?c}', twice: '${(got * 2)?c}', label: 'v=${got?c}' },
          },
          { id: 2, script: '${twice?c}' },
        ],
      },
      data: { n: 1 },
      mode: 'TEST',
    });
    expect(view.request.status).toBe(201);
    expect(view.request.data).toEqual({ n: 1, got: 7, twice: 14, label: 'v=7' });
    expect(store.writes).toEqual(['data', 'data']);
  });
});
