/**
 * The inclusive gateway (docs/hosts.md, "The process graph") through the host API on every
 * engine: a fork on every flow whose condition holds (the default flow when none does, a failure
 * naming the gateway without one), a join that waits for the branches actually started — and not
 * for one that left for an end event elsewhere — with P_branch_<name> of each arrived branch.
 */
import { beforeAll, expect, it } from 'vitest';
import {
  bpmnModel as model,
  scriptTask as script,
  sequenceFlow as flow,
  startModel,
  stepResults,
} from '../support/bpmn.js';
import { describeEachEngine } from '../support/engines.js';
import { hostWorld, ref, type HostWorld } from './support.js';

/** start → or (a? b? c?, default d) → A | B | C | D → join → After → end. */
const ROUTES = model(
  'Routes',
  [
    '<bpmn:startEvent id="start" />',
    '<bpmn:inclusiveGateway id="or" name="Which?" default="d" />',
    script('A', '${P_branch}'),
    script('B', '${P_branch}'),
    script('C', '${P_branch}'),
    script('D', 'default'),
    '<bpmn:inclusiveGateway id="join" />',
    script(
      'After',
      '${P_branch_a!"-"} ${P_branch_b!"-"} ${P_branch_c!"-"} ${P_branch_d!"-"} ${(P_branch??)?c}',
    ),
    '<bpmn:endEvent id="end" />',
    flow('f0', 'start', 'or'),
    flow('a', 'or', 'A', '${a?c}'),
    flow('b', 'or', 'B', '${b?c}'),
    flow('c', 'or', 'C', '${c?c}'),
    flow('d', 'or', 'D'),
    flow('fa', 'A', 'join'),
    flow('fb', 'B', 'join'),
    flow('fc', 'C', 'join'),
    flow('fd', 'D', 'join'),
    flow('f9', 'join', 'After'),
    flow('f10', 'After', 'end'),
  ].join('\n'),
);

describeEachEngine('process graph: inclusive gateway', (engine) => {
  let w: HostWorld;
  beforeAll(async () => {
    w = await hostWorld(engine.store);
  });
  const start = (xml: string, data?: Record<string, unknown>) => startModel(w, xml, data);
  const rows = stepResults;

  it('forks on every flow whose condition holds and joins exactly those branches', async () => {
    const view = await start(ROUTES, { a: true, b: false, c: true });
    expect(view.request.status).toBe(201);
    expect(rows(view)).toEqual([
      [1, 'done', 'a'],
      [3, 'done', 'c'],
      [5, 'done', 'a - c - false'],
    ]);
    const one = await start(ROUTES, { a: false, b: true, c: false });
    expect(rows(one)).toEqual([
      [2, 'done', 'b'],
      [5, 'done', '- b - - false'],
    ]);
  });

  it('takes the default flow alone when no condition holds, and fails naming the gateway without one', async () => {
    const none = await start(ROUTES, { a: false, b: false, c: false });
    expect(rows(none)).toEqual([
      [4, 'done', 'default'],
      [5, 'done', '- - - default false'],
    ]);
    const noDefault = await start(ROUTES.replace(' default="d"', '').replace(flow('d', 'or', 'D'), ''), {
      a: false,
      b: false,
      c: false,
    });
    expect(noDefault.request.status).toBe(301);
    expect(noDefault.request.message).toBe(
      'inclusiveGateway or (Which?): no condition of its outgoing flows is true and it has no default flow',
    );
    expect(noDefault.steps).toEqual([]);
    const notBoolean = await start(ROUTES.replace('${a?c}', 'yes'), { a: false, b: false, c: false });
    expect(notBoolean.request.status).toBe(301);
    expect(notBoolean.request.message).toBe(
      'inclusiveGateway or (Which?): the condition of sequence flow a printed "yes", not true or false',
    );
  });

  it('does not wait for a started branch that leaves for an end event elsewhere', async () => {
    const xml = ROUTES.replace(flow('fa', 'A', 'join'), flow('fa', 'A', 'quit')).replace(
      '<bpmn:endEvent id="end" />',
      '<bpmn:endEvent id="end" /><bpmn:endEvent id="quit" />',
    );
    const view = await start(xml, { a: true, b: true, c: false });
    expect(view.request.status).toBe(201);
    expect(rows(view)).toEqual([
      [1, 'done', 'a'],
      [2, 'done', 'b'],
      [5, 'done', '- b - - false'],
    ]);
  });

  it('keeps its arrivals while a started branch waits at a user task; the other branch runs meanwhile', async () => {
    const xml = ROUTES.replace(script('A', '${P_branch}'), '<bpmn:userTask id="A" name="A" />').replace(
      '${P_branch_a!"-"} ${P_branch_b!"-"}',
      '${P_branch_a.n} ${P_branch_b!"-"}',
    );
    const view = await start(xml, { a: true, b: false, c: true });
    expect(view.request.status).toBe(102);
    const id = view.request.id;
    const run = await w.platform.processes.runs.require(w.account, id);
    expect(run.cursor).toEqual({
      step: 0,
      iteration: 0,
      phase: 'task',
      record: view.steps[0]!.id,
      branch: 'a',
      forked: true,
    });
    expect(rows(view)).toEqual([
      [1, 'waiting', null],
      [3, 'done', 'c'],
    ]);
    expect(await w.platform.processes.runs.tokens.arrivals(w.account, id)).toEqual([
      { node: 'join', arrival: 'c', branch: 'c', result: 'c' },
    ]);
    const done = await w.host.submitTask(w.account, ref(id, 1), {
      fields: { n: 1 },
      actor: w.actor('admin'),
    });
    expect(done.request.status).toBe(201);
    expect(rows(done)).toEqual([
      [1, 'done', { n: 1 }],
      [3, 'done', 'c'],
      [5, 'done', '1 - c - false'],
    ]);
  });
});
