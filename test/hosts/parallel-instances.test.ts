/**
 * A parallel multi-instance step (docs/hosts.md, "Multi-instance"): its instances are tokens run
 * side by side — three user tasks open at once, answered in any order — and the step ends once,
 * when the last instance ends, the next task seeing the instances' results in item order.
 */
import { beforeAll, expect, it } from 'vitest';
import { readBpmn } from '../../src/platform/processes/bpmn/index.js';
import { writeBpmn } from '../../src/platform/processes/bpmn/write.js';
import { parseDefinition } from '../../src/platform/processes/index.js';
import { sql } from '../../src/store/index.js';
import { describeEachEngine } from '../support/engines.js';
import { BPMN_NS } from '../support/bpmn.js';
import { hostWorld, ref, type HostWorld } from './support.js';

const REVIEW = {
  name: 'Reviews',
  steps: [
    {
      id: 1,
      type: 'manual',
      name: 'Review',
      fields: ['pick'],
      loop: { over: '${reviewers}', parallel: true },
      input: { who: '${P_index}:${P_item}' },
      output: { last: '${P_item}:${pick}' },
    },
    { id: 2, name: 'Collect', script: '<#list P_result![] as r>${r.pick}<#sep>,</#list>' },
  ],
};

describeEachEngine('process host: parallel multi-instance', (engine) => {
  let w: HostWorld;
  beforeAll(async () => {
    w = await hostWorld(engine.store);
  });
  const submit = (requestId: string, iteration: number, pick: string) =>
    w.host.submitTask(w.account, ref(requestId, 1, iteration), {
      fields: { pick },
      actor: w.actor('admin'),
    });

  it('opens every instance at once; answered 3, 1, 2 it ends once, the results in item order', async () => {
    const started = await w.host.start(w.account, {
      definition: REVIEW,
      data: { reviewers: ['ann', 'bob', 'cid'] },
      mode: 'TEST',
    });
    const id = started.request.id;
    expect(started.request.status).toBe(102);
    expect(started.tasks.map((t) => [t.iteration, t.status, t.data])).toEqual([
      [0, 'OPEN', { who: '0:ann' }],
      [1, 'OPEN', { who: '1:bob' }],
      [2, 'OPEN', { who: '2:cid' }],
    ]);
    const third = await submit(id, 2, 'z');
    expect(third.request.status).toBe(102);
    const first = await submit(id, 0, 'x');
    expect(first.request.status).toBe(102);
    expect(first.steps.filter((s) => s.stepId === 2)).toEqual([]);
    const second = await submit(id, 1, 'y');
    expect(second.request.status).toBe(201);
    const rows = second.steps.map((s) => [s.stepId, s.iteration, s.status, s.result]);
    expect(rows.filter((r) => r[0] === 1).sort((a, b) => Number(a[1]) - Number(b[1]))).toEqual([
      [1, 0, 'done', { pick: 'x' }],
      [1, 1, 'done', { pick: 'y' }],
      [1, 2, 'done', { pick: 'z' }],
    ]);
    // the step after it ran once, with the results in item order
    expect(rows.filter((r) => r[0] === 2)).toEqual([[2, 0, 'done', 'x,y,z']]);
    // each instance's output variables are written as it ends: the last to end wins
    expect([second.request.data.pick, second.request.data.last]).toEqual(['y', 'bob:y']);
    const tokens = await engine.store.all(
      sql`SELECT id FROM process_tokens WHERE account_id = ${w.account} AND request_id = ${id}`,
    );
    expect(tokens).toEqual([]);
  });

  it('a parallel multi-instance over no item is skipped; a BPMN multi-instance without isSequential is parallel', async () => {
    const none = await w.host.start(w.account, { definition: REVIEW, data: { reviewers: [] }, mode: 'TEST' });
    expect(none.request.status).toBe(201);
    expect(none.steps.map((s) => [s.stepId, s.status, s.result])).toEqual([
      [1, 'skipped', null],
      [2, 'done', ''],
    ]);
    const model = (attributes: string) => `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions ${BPMN_NS} id="D">
  <bpmn:process id="P" name="P" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:userTask id="Work" name="Work"><bpmn:multiInstanceLoopCharacteristics${attributes}><bpmn:loopCardinality>3</bpmn:loopCardinality></bpmn:multiInstanceLoopCharacteristics></bpmn:userTask>
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="Work" />
    <bpmn:sequenceFlow id="f2" sourceRef="Work" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>`;
    const loopOf = async (attributes: string) =>
      ((await readBpmn(model(attributes))).steps as Array<{ loop: unknown }>)[0]!.loop;
    expect(await loopOf('')).toEqual({ count: '3', parallel: true });
    expect(await loopOf(' isSequential="false"')).toEqual({ count: '3', parallel: true });
    expect(await loopOf(' isSequential="true"')).toEqual({ count: '3' });
    // a JSON parallel loop exports as flowmark:loop parallel="true" and reads back the same
    const definition = parseDefinition(REVIEW);
    const xml = await writeBpmn(definition);
    expect(xml).toContain('<flowmark:loop over="${reviewers}" parallel="true" />');
    expect(parseDefinition(await readBpmn(xml)).steps).toEqual(definition.steps);
    expect(() =>
      parseDefinition({ name: 'x', steps: [{ id: 1, loop: { while: 'true', parallel: true } }] }),
    ).toThrow('process definition.steps[0].loop.parallel: is for a loop over count or over only');
  });
});
