/**
 * The graph's execution (docs/hosts.md, "The process graph"), BPMN models through the host API on
 * every engine: exclusive gateways (conditions, default flow), parallel fork and join (tokens in
 * the run's cursor, P_branch, P_branch_<name>, the data merge), error end events, error boundary
 * events (any failure, or by code from a call activity), terminate end events, retry policies.
 */
import { beforeAll, expect, it } from 'vitest';
import { readBpmn } from '../../src/platform/processes/bpmn/index.js';
import { bpmnModel, scriptTask, sequenceFlow as flow, startModel } from '../support/bpmn.js';
import { describeEachEngine } from '../support/engines.js';
import { NOW } from '../platform/world.js';
import { hostWorld, ref, stepsOf, type HostWorld } from './support.js';

/** A BPMN document of one process (its elements given), with the errors E1 and E2 declared. */
const model = (name: string, body: string) =>
  bpmnModel(name, body, '  <bpmn:error id="E1" errorCode="E1" />\n  <bpmn:error id="E2" errorCode="E2" />\n');
const script = (id: string, template: string, extra = '') =>
  scriptTask(id, template, { format: 'freemarker', extra });

const ROUTE = model(
  'Route',
  [
    '<bpmn:startEvent id="start" />',
    '<bpmn:exclusiveGateway id="size" name="Size?" default="small" />',
    script('Big', 'big'),
    script('Medium', 'medium'),
    script('Small', 'small'),
    '<bpmn:endEvent id="end" />',
    flow('f0', 'start', 'size'),
    flow('big', 'size', 'Big', '${(amount &gt; 100)?c}'),
    flow('medium', 'size', 'Medium', '${(amount &gt; 10)?c}'),
    flow('small', 'size', 'Small'),
    flow('f1', 'Big', 'end'),
    flow('f2', 'Medium', 'end'),
    flow('f3', 'Small', 'end'),
  ].join('\n'),
);

describeEachEngine('process graph: execution', (engine) => {
  let w: HostWorld;
  beforeAll(async () => {
    w = await hostWorld(engine.store);
  });
  const start = (xml: string, data?: Record<string, unknown>) => startModel(w, xml, data);
  const results = (view: { steps: { result: unknown }[] }) => view.steps.map((s) => s.result);

  it('takes the first exclusive-gateway flow whose condition is true, else the default flow', async () => {
    expect(results(await start(ROUTE, { amount: 500 }))).toEqual(['big']);
    expect(results(await start(ROUTE, { amount: 50 }))).toEqual(['medium']);
    const small = await start(ROUTE, { amount: 5 });
    expect(small.request.status).toBe(201);
    expect(results(small)).toEqual(['small']);
  });

  it('fails the request when no condition holds without a default flow, or a condition is not a boolean', async () => {
    const noDefault = await start(
      ROUTE.replace(' default="small"', '').replace(flow('small', 'size', 'Small'), ''),
      {
        amount: 5,
      },
    );
    expect(noDefault.request.status).toBe(301);
    expect(noDefault.request.message).toBe(
      'exclusiveGateway size (Size?): no condition of its outgoing flows is true and it has no default flow',
    );
    const notBoolean = await start(ROUTE.replace('${(amount &gt; 100)?c}', 'maybe'), { amount: 5 });
    expect(notBoolean.request.status).toBe(301);
    expect(notBoolean.request.message).toBe(
      'exclusiveGateway size (Size?): the condition of sequence flow big printed "maybe", not true or false',
    );
    const broken = await start(ROUTE.replace('${(amount &gt; 100)?c}', '${nothing}'), { amount: 5 });
    expect(broken.request.status).toBe(301);
    expect(broken.request.message).toMatch(
      /^exclusiveGateway size \(Size\?\) condition of big, line 1, column 3: The following has evaluated to null or missing/,
    );
  });

  const PARALLEL = model(
    'Parallel',
    [
      '<bpmn:startEvent id="start" />',
      '<bpmn:parallelGateway id="fork" />',
      script(
        'A1',
        '${P_branch}',
        '<bpmn:extensionElements><flowmark:output name="who">a</flowmark:output><flowmark:output name="a1">${P_result}</flowmark:output></bpmn:extensionElements>',
      ),
      script('A2', '{"from": "${P_branch}", "n": 2}'),
      script(
        'B1',
        '${P_branch}',
        '<bpmn:extensionElements><flowmark:output name="who">b</flowmark:output></bpmn:extensionElements>',
      ),
      '<bpmn:parallelGateway id="join" />',
      script(
        'After',
        '{"a": ${P_branch_left.n}, "b": "${P_branch_right}", "who": "${who}", "branch": ${(P_branch??)?c}}',
      ),
      '<bpmn:endEvent id="end" />',
      flow('f0', 'start', 'fork'),
      flow('fa', 'fork', 'A1', undefined, 'left'),
      flow('fb', 'fork', 'B1', undefined, 'right'),
      flow('fa2', 'A1', 'A2'),
      flow('fa3', 'A2', 'join'),
      flow('fb2', 'B1', 'join'),
      flow('f9', 'join', 'After'),
      flow('f10', 'After', 'end'),
    ].join('\n'),
  );

  it('forks parallel branches and joins them when every incoming flow arrived', async () => {
    const view = await start(PARALLEL);
    expect(view.request.status).toBe(201);
    // The branches run at the same time: their records interleave; the join's task comes last.
    const byStep = [...view.steps].sort((a, b) => a.stepId - b.stepId);
    const who = view.request.data.who;
    expect(byStep.map((s) => [s.stepId, s.status, s.result])).toEqual([
      [1, 'done', 'left'],
      [2, 'done', { from: 'left', n: 2 }],
      [3, 'done', 'right'],
      [4, 'done', { a: 2, b: 'right', who, branch: false }],
    ]);
    expect(view.steps[3]!.stepId).toBe(4);
    // One data document: the branch whose task wrote a variable last (in time) wins.
    expect(['a', 'b']).toContain(who);
    expect(view.request.data).toEqual({ who, a1: 'left' });
    // Nothing is left of the branches once the request ended: no token row, no arrival.
    expect(
      await w.platform.processes.runs.tokens.list(
        await w.platform.processes.runs.require(w.account, view.request.id),
      ),
    ).toEqual([]);
    expect(await w.platform.processes.runs.tokens.arrivals(w.account, view.request.id)).toEqual([]);
  });

  it('keeps the variables a branch wrote while another branch was running: each merges its own into the document', async () => {
    const output = (name: string) =>
      `<bpmn:extensionElements><flowmark:output name="${name}">\${P_result}</flowmark:output></bpmn:extensionElements>`;
    // a task that waits for the gate the test holds, then prints its name
    const gated = (id: string, gate: string) =>
      script(id, `&lt;#assign held = R_lock("${gate}", 20000) + R_unlock("${gate}")&gt;${id}`, output(id));
    const xml = model(
      'Overlap',
      [
        '<bpmn:startEvent id="start" />',
        '<bpmn:parallelGateway id="fork" />',
        gated('first', 'gate1'),
        gated('second', 'gate2'),
        '<bpmn:parallelGateway id="join" />',
        '<bpmn:endEvent id="end" />',
        flow('f0', 'start', 'fork'),
        flow('fa', 'fork', 'first', undefined, 'a'),
        flow('fb', 'fork', 'second', undefined, 'b'),
        flow('fa2', 'first', 'join'),
        flow('fb2', 'second', 'join'),
        flow('f9', 'join', 'end'),
      ].join('\n'),
    );
    const until = async (what: string, probe: () => Promise<boolean>) => {
      for (let i = 0; i < 400; i++) {
        if (await probe()) return;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`timed out waiting for ${what}`);
    };
    const hold = (gate: string) =>
      w.platform.locks.tryAcquire(w.account, gate, 'test', Date.now(), Date.now() + 60_000);
    expect([await hold('gate1'), await hold('gate2')]).toEqual([true, true]);
    const started = start(xml, { overlap: true });
    const request = async () =>
      (await w.platform.requests.list(w.account, { limit: 1000 })).find((r) => r.data.overlap === true);
    // Both branches' steps began (each holds the document as it was then) and wait at their gates.
    await until('both branches to begin', async () => {
      const r = await request();
      return r !== undefined && (await w.platform.processes.steps.list(w.account, r.id)).length === 2;
    });
    await w.platform.locks.release(w.account, 'gate1', 'test');
    await until('the first branch to write', async () => (await request())?.data.first === 'first');
    await w.platform.locks.release(w.account, 'gate2', 'test');
    const view = await started;
    expect(view.request.status).toBe(201);
    const both = { overlap: true, first: 'first', second: 'second' };
    expect(view.request.data).toEqual(both);
    expect((await w.platform.requests.require(w.account, view.request.id)).data).toEqual(both);
  });

  it('runs each branch on a token of its own: two user tasks wait at once, the join fires at the last arrival', async () => {
    const xml = PARALLEL.replace(
      script(
        'B1',
        '${P_branch}',
        '<bpmn:extensionElements><flowmark:output name="who">b</flowmark:output></bpmn:extensionElements>',
      ),
      '<bpmn:userTask id="B1" name="B1"><bpmn:extensionElements><flowmark:field name="who" /></bpmn:extensionElements></bpmn:userTask>',
    )
      .replace(script('A2', '{"from": "${P_branch}", "n": 2}'), '<bpmn:userTask id="A2" name="A2" />')
      .replace(
        '{"a": ${P_branch_left.n}, "b": "${P_branch_right}", "who": "${who}", "branch": ${(P_branch??)?c}}',
        '{"a": ${P_branch_left.n}, "b": "${P_branch_right.who}"}',
      );
    const view = await start(xml);
    // Both branches wait at once: the left one's user task does not hold the right one.
    expect(view.request.status).toBe(102);
    const sorted = (steps: ReturnType<typeof stepsOf>) =>
      [...steps].sort((a, b) => Number(a[0]) - Number(b[0]));
    expect(sorted(stepsOf(view))).toEqual([
      [1, 0, 'done'],
      [2, 0, 'waiting'],
      [3, 0, 'waiting'],
    ]);
    const id = view.request.id;
    const recordOf = (stepId: number) => view.steps.find((s) => s.stepId === stepId)!.id;
    const run = await w.platform.processes.runs.require(w.account, id);
    expect(run.cursor).toEqual({
      step: 1,
      iteration: 0,
      phase: 'task',
      record: recordOf(2),
      branch: 'left',
      forked: true,
    });
    const [right] = await w.platform.processes.runs.tokens.list(run);
    expect(right!.cursor).toEqual({
      step: 2,
      iteration: 0,
      phase: 'task',
      record: recordOf(3),
      branch: 'right',
    });
    // The right branch arrives first: its arrival waits at the join, its token is gone.
    const first = await w.host.submitTask(w.account, ref(id, 3), {
      fields: { who: 'z' },
      actor: w.actor('admin'),
    });
    expect(first.request.status).toBe(102);
    expect(sorted(stepsOf(first))).toEqual([
      [1, 0, 'done'],
      [2, 0, 'waiting'],
      [3, 0, 'done'],
    ]);
    expect(await w.platform.processes.runs.tokens.list(run)).toEqual([]);
    expect(await w.platform.processes.runs.tokens.arrivals(w.account, id)).toEqual([
      { node: 'join', arrival: 'fb2', branch: 'right', result: { who: 'z' } },
    ]);
    const done = await w.host.submitTask(w.account, ref(id, 2), {
      fields: { n: 7 },
      actor: w.actor('admin'),
    });
    expect(done.request.status).toBe(201);
    expect(done.request.data).toEqual({ who: 'z', a1: 'left', n: 7 });
    expect(done.steps[3]!.stepId).toBe(4);
    expect(done.steps[3]!.result).toEqual({ a: 7, b: 'z' });
    expect(await w.platform.processes.runs.tokens.arrivals(w.account, id)).toEqual([]);
  });

  it('ends the request at an error end event with its code', async () => {
    const view = await start(
      model(
        'Failing',
        [
          '<bpmn:startEvent id="start" />',
          script('Work', 'ok'),
          '<bpmn:endEvent id="bad" name="Bad"><bpmn:errorEventDefinition errorRef="E1" /></bpmn:endEvent>',
          flow('f1', 'start', 'Work'),
          flow('f2', 'Work', 'bad'),
        ].join('\n'),
      ),
    );
    expect(view.request.status).toBe(301);
    expect(view.request.message).toBe('endEvent bad (Bad): error "E1"');
    expect(stepsOf(view)).toEqual([[1, 0, 'done']]);
  });

  it('goes on from an error boundary event when its task fails, with P_error', async () => {
    const view = await start(
      model(
        'Caught',
        [
          '<bpmn:startEvent id="start" />',
          script('Risky', '${missing}'),
          '<bpmn:boundaryEvent id="catch" attachedToRef="Risky"><bpmn:errorEventDefinition /></bpmn:boundaryEvent>',
          script('Recover', 'recovered from ${P_error.message?keep_before(":")} at line ${P_error.line}'),
          script('Next', 'not run'),
          '<bpmn:endEvent id="end" />',
          flow('f1', 'start', 'Risky'),
          flow('f2', 'Risky', 'Next'),
          flow('f3', 'Next', 'end'),
          flow('f4', 'catch', 'Recover'),
          flow('f5', 'Recover', 'end'),
        ].join('\n'),
      ),
    );
    expect(view.request.status).toBe(201);
    expect(view.request.message).toBe('');
    expect(stepsOf(view)).toEqual([
      [1, 0, 'failed'],
      [2, 0, 'done'],
    ]);
    expect(view.steps[1]!.result).toBe(
      'recovered from The following has evaluated to null or missing at line 1',
    );
  });

  it("catches a call activity's error end event by its code, and only that code", async () => {
    const child = model(
      'Child',
      [
        '<bpmn:startEvent id="s" />',
        '<bpmn:endEvent id="boom"><bpmn:errorEventDefinition errorRef="E2" /></bpmn:endEvent>',
        flow('f', 's', 'boom'),
      ].join('\n'),
    );
    await w.platform.processes.definitions.create(w.account, await readBpmn(child));
    const parent = (code: string) =>
      model(
        `Parent${code}`,
        [
          '<bpmn:startEvent id="start" />',
          '<bpmn:callActivity id="Call" name="Call" calledElement="Child" />',
          `<bpmn:boundaryEvent id="catch" attachedToRef="Call"><bpmn:errorEventDefinition errorRef="${code}" /></bpmn:boundaryEvent>`,
          script('Handled', 'handled ${P_error.code}'),
          '<bpmn:endEvent id="end" />',
          flow('f1', 'start', 'Call'),
          flow('f2', 'Call', 'end'),
          flow('f3', 'catch', 'Handled'),
          flow('f4', 'Handled', 'end'),
        ].join('\n'),
      );
    const caught = await start(parent('E2'));
    expect(caught.request.status).toBe(201);
    expect(caught.steps.map((s) => [s.stepId, s.status, s.result])).toEqual([
      [1, 'failed', null],
      [2, 'done', 'handled E2'],
    ]);
    const missed = await start(parent('E1'));
    expect(missed.request.status).toBe(301);
    expect(missed.request.message).toMatch(
      /^step 1 \(Call\): sub-process request \S+ ended with status 301 ABORTED: endEvent boom: error "E2"$/,
    );
  });

  it('ends every branch at a terminate end event', async () => {
    // The second branch waits at a timer, so it is still live when the first terminates (branches
    // run at once: without the wait, which one ends first is a race).
    const view = await start(
      model(
        'Stop',
        [
          '<bpmn:startEvent id="start" />',
          '<bpmn:parallelGateway id="fork" />',
          script('First', 'first'),
          '<bpmn:intermediateCatchEvent id="later" name="later"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>',
          script('Second', 'second'),
          '<bpmn:endEvent id="stop"><bpmn:terminateEventDefinition /></bpmn:endEvent>',
          '<bpmn:endEvent id="end" />',
          flow('f0', 'start', 'fork'),
          flow('f1', 'fork', 'First'),
          flow('f2', 'fork', 'later'),
          flow('f2b', 'later', 'Second'),
          flow('f3', 'First', 'stop'),
          flow('f4', 'Second', 'end'),
        ].join('\n'),
      ),
    );
    expect(view.request.status).toBe(201);
    expect(results(view)).toEqual(['first']);
    // the terminated branch's timer, if still stored, fires as nothing: no step runs after the end
    const timers = await w.platform.processes.timers.list(w.account, view.request.id);
    for (const t of timers.filter((t) => t.firedAt === null)) await w.host.runner.fireTimer(t);
    const after = await w.host.view(w.account, view.request.id);
    expect(after.request.status).toBe(201);
    expect(results(after)).toEqual(['first']);
  });

  it('runs a failed task again by its retry policy, waiting its backoff', async () => {
    const retried = (attempts: number) =>
      model(
        `Retry${attempts}`,
        [
          '<bpmn:startEvent id="start" />',
          script(
            'Flaky',
            '<![CDATA[<#if (tries < 3)>${fail_here}</#if>ok after ${tries}]]>',
            `<bpmn:extensionElements><flowmark:input name="tries">\${(tries!0) + 1}</flowmark:input><flowmark:retry attempts="${attempts}" backoff="PT0.1S" /></bpmn:extensionElements>`,
          ),
          '<bpmn:endEvent id="end" />',
          flow('f1', 'start', 'Flaky'),
          flow('f2', 'Flaky', 'end'),
        ].join('\n'),
      );
    const started = Date.now();
    const view = await start(retried(3));
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    expect(view.request.status).toBe(201);
    expect(view.steps.map((s) => [s.stepId, s.iteration, s.status, s.result])).toEqual([
      [1, 0, 'failed', null],
      [1, 0, 'failed', null],
      [1, 0, 'done', 'ok after 3'],
    ]);
    const exhausted = await start(retried(2));
    expect(exhausted.request.status).toBe(301);
    expect(stepsOf(exhausted)).toEqual([
      [1, 0, 'failed'],
      [1, 0, 'failed'],
    ]);
    expect(exhausted.request.data).toEqual({ tries: 2 });
  });

  const timer = (id: string, wait: string) =>
    `<bpmn:intermediateCatchEvent id="${id}" name="${id}"><bpmn:timerEventDefinition><bpmn:timeDuration>${wait}</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>`;
  const fire = async (requestId: string) => {
    const timers = await w.platform.processes.timers.list(w.account, requestId);
    const open = timers.filter((t) => t.firedAt === null);
    expect(open).toHaveLength(1);
    expect(await w.host.runner.fireTimer(open[0]!)).toBe(true);
    expect(await w.host.runner.fireTimer(open[0]!)).toBe(false);
    return w.host.view(w.account, requestId);
  };

  it('waits at an intermediate timer catch event until the timer fires', async () => {
    const view = await start(
      model(
        'Timed',
        [
          '<bpmn:startEvent id="start" />',
          script('Before', 'before'),
          timer('Pause', '${pause}'),
          script('After', 'after'),
          '<bpmn:endEvent id="end" />',
          flow('f1', 'start', 'Before'),
          flow('f2', 'Before', 'Pause'),
          flow('f3', 'Pause', 'After'),
          flow('f4', 'After', 'end'),
        ].join('\n'),
      ),
      { pause: 'PT90S' },
    );
    expect(view.request.status).toBe(102);
    expect(results(view)).toEqual(['before']);
    const [waiting] = await w.platform.processes.timers.list(w.account, view.request.id);
    expect(waiting).toMatchObject({ kind: 'wait', message: 'Pause', dueAt: NOW + 90_000, firedAt: null });
    const run = await w.platform.processes.runs.require(w.account, view.request.id);
    expect(run.cursor).toEqual({ step: 0, iteration: 0, phase: 'timer', at: 'Pause' });
    const done = await fire(view.request.id);
    expect(done.request.status).toBe(201);
    expect(results(done)).toEqual(['before', 'after']);
  });

  it('joins a branch with a timer and a branch whose failed task an error boundary event caught', async () => {
    const view = await start(
      model(
        'TimerAndError',
        [
          '<bpmn:startEvent id="start" />',
          '<bpmn:parallelGateway id="fork" />',
          timer('Later', 'PT1M'),
          script('Slow', 'slow'),
          script('Risky', '${missing}'),
          '<bpmn:boundaryEvent id="catch" attachedToRef="Risky"><bpmn:errorEventDefinition /></bpmn:boundaryEvent>',
          script('Recover', 'recovered'),
          '<bpmn:exclusiveGateway id="merge" />',
          '<bpmn:parallelGateway id="join" />',
          script('Both', '${P_branch_timed} + ${P_branch_risky}'),
          '<bpmn:endEvent id="end" />',
          flow('f0', 'start', 'fork'),
          flow('f1', 'fork', 'Later', undefined, 'timed'),
          flow('f2', 'Later', 'Slow'),
          flow('f3', 'Slow', 'join'),
          flow('f4', 'fork', 'Risky', undefined, 'risky'),
          flow('f5', 'Risky', 'merge'),
          flow('f6', 'catch', 'Recover'),
          flow('f7', 'Recover', 'merge'),
          flow('f7b', 'merge', 'join'),
          flow('f8', 'join', 'Both'),
          flow('f9', 'Both', 'end'),
        ].join('\n'),
      ),
    );
    // The timed branch waits; the other one does not wait for it: its task fails, the error
    // boundary event catches it and its branch reaches the join meanwhile.
    expect(view.request.status).toBe(102);
    expect(view.steps.map((s) => [s.stepId, s.status, s.result])).toEqual([
      [2, 'failed', null],
      [3, 'done', 'recovered'],
    ]);
    expect(await w.platform.processes.runs.tokens.arrivals(w.account, view.request.id)).toEqual([
      { node: 'join', arrival: 'f7b', branch: 'risky', result: 'recovered' },
    ]);
    const done = await fire(view.request.id);
    expect(done.request.message).toBe('');
    expect(done.request.status).toBe(201);
    expect(done.steps.map((s) => [s.stepId, s.status, s.result])).toEqual([
      [2, 'failed', null],
      [3, 'done', 'recovered'],
      [1, 'done', 'slow'],
      [4, 'done', 'slow + recovered'],
    ]);
  });
});
