/**
 * Loop markers (docs/hosts.md, "BPMN") through the host API on every engine: a multi-instance
 * task (sequential, or parallel: its instances side by side, test/hosts/parallel-instances.test.ts) over `loopCardinality` or `flowmark:collection` with
 * P_index and P_item, a standard loop (its condition tested after each iteration, or before with
 * testBefore), a multi-instance user task (one task per instance), and the markers outside the
 * subset (completionCondition, loopMaximum, no bound) listed and refused.
 */
import { beforeAll, expect, it } from 'vitest';
import { readBpmn } from '../../src/platform/processes/bpmn/index.js';
import { writeBpmn } from '../../src/platform/processes/bpmn/write.js';
import { parseDefinition } from '../../src/platform/processes/index.js';
import { BPMN_NS, startModel } from '../support/bpmn.js';
import { describeEachEngine } from '../support/engines.js';
import { hostWorld, ref, type HostWorld } from './support.js';

/** start → Work (its marker and script given) → end. */
const looped = (marker: string, script: string, task = 'scriptTask') =>
  `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions ${BPMN_NS} id="D">
  <bpmn:process id="Loop" name="Loop" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:${task} id="Work" name="Work">${marker}${task === 'scriptTask' ? `<bpmn:script>${script}</bpmn:script>` : ''}</bpmn:${task}>
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="Work" />
    <bpmn:sequenceFlow id="f2" sourceRef="Work" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>`;
const multi = (inner: string, attributes = '') =>
  `<bpmn:multiInstanceLoopCharacteristics${attributes}>${inner}</bpmn:multiInstanceLoopCharacteristics>`;

describeEachEngine('process graph: loop markers', (engine) => {
  let w: HostWorld;
  beforeAll(async () => {
    w = await hostWorld(engine.store);
  });
  const start = (xml: string, data?: Record<string, unknown>) => startModel(w, xml, data);
  const rows = (view: { steps: { iteration: number; status: string; result: unknown }[] }) =>
    view.steps.map((s) => [s.iteration, s.status, s.result]);

  it('a sequential multi-instance over loopCardinality runs its task that many times, with P_index', async () => {
    const xml = looped(
      multi('<bpmn:loopCardinality>${n}</bpmn:loopCardinality>', ' isSequential="true"'),
      '#${P_index}',
    );
    expect((await readBpmn(xml)).steps).toEqual([
      { id: 1, name: 'Work', type: 'script', loop: { count: '${n}' }, script: '#${P_index}' },
    ]);
    const view = await start(xml, { n: 3 });
    expect(view.request.status).toBe(201);
    expect(rows(view)).toEqual([
      [0, 'done', '#0'],
      [1, 'done', '#1'],
      [2, 'done', '#2'],
    ]);
    const none = await start(xml, { n: 0 });
    expect(rows(none)).toEqual([[0, 'skipped', null]]);
    const bad = await start(xml, { n: 'x' });
    expect(bad.request.status).toBe(301);
    expect(bad.request.message).toBe(
      'step 1 (Work): the loop count must be a whole number from 0 to 1000, not "x"',
    );
  });

  it('a parallel multi-instance over flowmark:collection runs its instances side by side, with P_item', async () => {
    const xml = looped(multi('', ' flowmark:collection="${items}"'), '${P_index}:${P_item.name}');
    expect(((await readBpmn(xml)).steps as Array<{ loop: unknown }>)[0]!.loop).toEqual({
      over: '${items}',
      parallel: true,
    });
    const view = await start(xml, { items: [{ name: 'a' }, { name: 'b' }] });
    expect(view.request.status).toBe(201);
    // each instance a token of its own: their records in the order they began
    expect(rows(view).sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual([
      [0, 'done', '0:a'],
      [1, 'done', '1:b'],
    ]);
    const notArray = await start(xml, { items: 'abc' });
    expect(notArray.request.message).toBe(
      'step 1 (Work): the loop must iterate over an array (JSON), not "abc"',
    );
  });

  it('a sequential multi-instance user task opens one task per instance, one after the other', async () => {
    const view = await start(
      looped(multi('<bpmn:loopCardinality>2</bpmn:loopCardinality>', ' isSequential="true"'), '', 'userTask'),
    );
    expect(view.request.status).toBe(102);
    const first = await w.host.submitTask(w.account, ref(view.request.id, 1, 0), {
      fields: { ok: 1 },
      actor: w.actor('admin'),
    });
    expect(first.request.status).toBe(102);
    const second = await w.host.submitTask(w.account, ref(view.request.id, 1, 1), {
      fields: { ok: 2 },
      actor: w.actor('admin'),
    });
    expect(second.request.status).toBe(201);
    expect(rows(second)).toEqual([
      [0, 'done', { ok: 1 }],
      [1, 'done', { ok: 2 }],
    ]);
  });

  it('a standard loop tests its condition after each iteration (the first always runs), or before with testBefore', async () => {
    const after = looped(
      '<bpmn:standardLoopCharacteristics><bpmn:loopCondition>${(P_index &lt; stop)?c}</bpmn:loopCondition></bpmn:standardLoopCharacteristics>',
      'run ${P_index}',
    );
    expect(((await readBpmn(after)).steps as Array<{ loop: unknown }>)[0]!.loop).toEqual({
      doWhile: '${(P_index < stop)?c}',
    });
    expect(rows(await start(after, { stop: 0 }))).toEqual([[0, 'done', 'run 0']]);
    // Tested before the next iteration: P_index is the index of the iteration about to run.
    expect(rows(await start(after, { stop: 2 }))).toEqual([
      [0, 'done', 'run 0'],
      [1, 'done', 'run 1'],
    ]);
    const before = after.replace(
      '<bpmn:standardLoopCharacteristics>',
      '<bpmn:standardLoopCharacteristics testBefore="true">',
    );
    expect(rows(await start(before, { stop: 0 }))).toEqual([[0, 'skipped', null]]);
    expect(rows(await start(before, { stop: 2 }))).toEqual([
      [0, 'done', 'run 0'],
      [1, 'done', 'run 1'],
    ]);
    const broken = await start(after.replace('${(P_index &lt; stop)?c}', 'perhaps'), {});
    expect(broken.request.message).toBe(
      'step 1 (Work): the loop condition must print true or false, not "perhaps"',
    );
  });

  it('exports a JSON doWhile loop as a standard loop marker and reads it back', async () => {
    const definition = parseDefinition({
      name: 'Again',
      steps: [{ id: 1, script: 'x', loop: { doWhile: '${more?c}' } }],
    });
    const xml = await writeBpmn(definition);
    expect(xml).toContain(
      '<bpmn:standardLoopCharacteristics>\n        <bpmn:loopCondition xsi:type="bpmn:tFormalExpression">${more?c}</bpmn:loopCondition>',
    );
    expect(parseDefinition(await readBpmn(xml)).steps).toEqual(definition.steps);
  });

  it('lists the markers it cannot run and refuses to run them', async () => {
    const cases: Array<[string, string]> = [
      [
        multi(
          '<bpmn:loopCardinality>2</bpmn:loopCardinality><bpmn:completionCondition>${done?c}</bpmn:completionCondition>',
        ),
        'bpmn:MultiInstanceLoopCharacteristics (completionCondition)',
      ],
      [
        multi('<bpmn:loopCardinality>2</bpmn:loopCardinality>', ' flowmark:collection="${items}"'),
        'bpmn:MultiInstanceLoopCharacteristics (both loopCardinality and flowmark:collection)',
      ],
      [
        '<bpmn:standardLoopCharacteristics loopMaximum="3"><bpmn:loopCondition>${true?c}</bpmn:loopCondition></bpmn:standardLoopCharacteristics>',
        'bpmn:StandardLoopCharacteristics (loopMaximum)',
      ],
      [
        multi('<bpmn:loopCardinality>2</bpmn:loopCardinality>') +
          '<bpmn:extensionElements><flowmark:loop count="3" /></bpmn:extensionElements>',
        'bpmn:MultiInstanceLoopCharacteristics (and a flowmark:loop on the same task)',
      ],
    ];
    for (const [marker, type] of cases) {
      const definition = await readBpmn(looped(marker, 'x'));
      expect(definition.unsupported).toEqual([{ type, id: 'Work', line: 5 }]);
      await expect(
        w.host.start(w.account, { definition, data: {}, user: null, mode: 'TEST' }),
      ).rejects.toThrow(`process "Loop" cannot run: outside the executable subset: ${type} "Work" (line 5)`);
    }
  });
});
