/**
 * Timer boundary events (docs/hosts.md, "The process graph") through the host API on every
 * engine: interrupting on a user task and on a call activity (the task abandoned, the flow leaves
 * by the event), non-interrupting (a token leaves by the event, the task goes on), a timer whose
 * task no longer waits firing as nothing, each timer firing once; and the models refused or
 * flagged when saved.
 */
import { beforeAll, expect, it } from 'vitest';
import { readBpmn } from '../../src/platform/processes/bpmn/index.js';
import {
  bpmnModel as model,
  scriptTask as script,
  sequenceFlow as flow,
  startModel,
  stepResults,
  timerBoundary as boundary,
} from '../support/bpmn.js';
import { describeEachEngine } from '../support/engines.js';
import { NOW } from '../platform/world.js';
import { ProcessHost } from '../../src/hosts/index.js';
import { hostWorld, ref, type HostWorld } from './support.js';

/** start → Approve (user task, a timer on it) → Done → end; the timer → Escalate → end2. */
const approval = (wait: string, interrupting = true) =>
  model(
    'Approval',
    [
      '<bpmn:startEvent id="start" />',
      '<bpmn:userTask id="Approve" name="Approve"><bpmn:extensionElements><flowmark:field name="ok" /></bpmn:extensionElements></bpmn:userTask>',
      boundary('Late', 'Approve', wait, interrupting),
      script('Done', 'done'),
      script('Escalate', 'escalated ${P_branch!"-"}'),
      '<bpmn:endEvent id="end" />',
      '<bpmn:endEvent id="end2" />',
      flow('f1', 'start', 'Approve'),
      flow('f2', 'Approve', 'Done'),
      flow('f3', 'Done', 'end'),
      flow('f4', 'Late', 'Escalate'),
      flow('f5', 'Escalate', 'end2'),
    ].join('\n'),
  );

describeEachEngine('process graph: timer boundary events', (engine) => {
  let w: HostWorld;
  beforeAll(async () => {
    w = await hostWorld(engine.store);
  });
  const start = (xml: string, data?: Record<string, unknown>) => startModel(w, xml, data);
  const rows = stepResults;
  const timersOf = async (requestId: string) =>
    (await w.platform.processes.timers.list(w.account, requestId)).filter((t) => t.kind === 'boundary');
  /** Fires the request's one boundary timer: true the first time, false the second. */
  const fire = async (requestId: string) => {
    const [timer] = await timersOf(requestId);
    expect(await w.host.runner.fireTimer(timer!)).toBe(true);
    expect(await w.host.runner.fireTimer(timer!)).toBe(false);
    return w.host.view(w.account, requestId);
  };

  it('interrupting, on a user task: the task is abandoned and the flow leaves by the event', async () => {
    const view = await start(approval('${wait}'), { wait: 'PT1M' });
    expect(view.request.status).toBe(102);
    const id = view.request.id;
    const timers = await timersOf(id);
    expect(timers).toEqual([
      expect.objectContaining({
        kind: 'boundary',
        stepId: 1,
        iteration: 0,
        dueAt: NOW + 60_000,
        message: `${view.steps[0]!.id}:Late`,
        firedAt: null,
      }),
    ]);
    const done = await fire(id);
    expect(done.request.status).toBe(201);
    expect(done.request.message).toBe('');
    expect(rows(done)).toEqual([
      [1, 'failed', null],
      [3, 'done', 'escalated -'],
    ]);
    expect(done.steps[0]!.error).toEqual({
      message: 'boundaryEvent Late (Late): its timer fired; the task was interrupted',
    });
    expect(done.tasks.map((t) => t.status)).toEqual(['CANCELLED']);
    // The abandoned task cannot be submitted any more.
    await expect(
      w.host.submitTask(w.account, ref(id, 1), { fields: { ok: 'yes' }, actor: w.actor('admin') }),
    ).rejects.toThrow('The task was cancelled: its request has ended.');
  });

  it('non-interrupting: a token leaves by the event while the task goes on', async () => {
    const view = await start(approval('PT5M', false));
    const id = view.request.id;
    const fired = await fire(id);
    // The task still waits; the event's token runs at once, on a token of its own, to its end.
    expect(fired.request.status).toBe(102);
    expect(fired.tasks.map((t) => t.status)).toEqual(['OPEN']);
    expect(rows(fired)).toEqual([
      [1, 'waiting', null],
      [3, 'done', 'escalated -'],
    ]);
    const run = await w.platform.processes.runs.require(w.account, id);
    expect(run.cursor).toEqual({
      step: 0,
      iteration: 0,
      phase: 'task',
      record: view.steps[0]!.id,
      forked: true,
    });
    expect(await w.platform.processes.runs.tokens.list(run)).toEqual([]);
    const done = await w.host.submitTask(w.account, ref(id, 1), {
      fields: { ok: 'yes' },
      actor: w.actor('admin'),
    });
    expect(done.request.status).toBe(201);
    expect(rows(done)).toEqual([
      [1, 'done', { ok: 'yes' }],
      [3, 'done', 'escalated -'],
      [2, 'done', 'done'],
    ]);
  });

  it('a timer whose task was submitted fires as nothing', async () => {
    const view = await start(approval('PT1M'));
    const id = view.request.id;
    const submitted = await w.host.submitTask(w.account, ref(id, 1), {
      fields: { ok: 'yes' },
      actor: w.actor('admin'),
    });
    expect(submitted.request.status).toBe(201);
    const after = await fire(id);
    expect(after.request.status).toBe(201);
    expect(rows(after)).toEqual(rows(submitted));
    expect(after.tasks.map((t) => t.status)).toEqual(['SUBMITTED']);
  });

  it('interrupting, on a call activity: its child request is cancelled and the flow leaves by the event', async () => {
    const child = JSON.stringify({ name: 'Child', steps: [{ id: 1, type: 'manual', name: 'Sign' }] });
    const view = await start(
      model(
        'Caller',
        [
          '<bpmn:startEvent id="start" />',
          `<bpmn:callActivity id="Call" name="Call"><bpmn:extensionElements><flowmark:definition>${child}</flowmark:definition></bpmn:extensionElements></bpmn:callActivity>`,
          boundary('TooLong', 'Call', '2h'),
          script('Next', 'next'),
          script('Gave_up', 'gave up'),
          '<bpmn:endEvent id="end" />',
          flow('f1', 'start', 'Call'),
          flow('f2', 'Call', 'Next'),
          flow('f3', 'Next', 'end'),
          flow('f4', 'TooLong', 'Gave_up'),
          flow('f5', 'Gave_up', 'end'),
        ].join('\n'),
      ),
    );
    expect(view.request.status).toBe(102);
    const childId = view.steps[0]!.childRequestId!;
    expect((await w.host.view(w.account, childId)).request.status).toBe(102);
    expect((await timersOf(view.request.id))[0]!.dueAt).toBe(NOW + 7_200_000);
    const done = await fire(view.request.id);
    expect(done.request.status).toBe(201);
    expect(rows(done)).toEqual([
      [1, 'failed', null],
      [3, 'done', 'gave up'],
    ]);
    const cancelled = await w.host.view(w.account, childId);
    expect(cancelled.request.status).toBe(400);
    expect(cancelled.tasks.map((t) => t.status)).toEqual(['CANCELLED']);
  });

  it('two servers firing the same timer at once: it fires once, the flow leaves by the event once', async () => {
    const other = new ProcessHost(w.platform, { clock: () => NOW, lease: { owner: 'other', ttlMs: 30_000 } });
    const view = await start(approval('PT1M'));
    const [timer] = await timersOf(view.request.id);
    const fired = await Promise.all([w.host.runner.fireTimer(timer!), other.runner.fireTimer(timer!)]);
    expect(fired.filter(Boolean)).toHaveLength(1);
    const done = await w.host.view(w.account, view.request.id);
    expect(done.request.status).toBe(201);
    expect(rows(done)).toEqual([
      [1, 'failed', null],
      [3, 'done', 'escalated -'],
    ]);
  });

  it('on a user task of a parallel branch: the interrupted branch reaches the join by the event, the other branch runs on', async () => {
    const view = await start(
      model(
        'Branches',
        [
          '<bpmn:startEvent id="start" />',
          '<bpmn:parallelGateway id="fork" />',
          '<bpmn:userTask id="Ask" name="Ask" />',
          boundary('Late', 'Ask', 'PT10M'),
          script('Default', 'no answer'),
          '<bpmn:exclusiveGateway id="merge" />',
          script('Other', 'other'),
          '<bpmn:parallelGateway id="join" />',
          script('Both', '${P_branch_asked} + ${P_branch_other}'),
          '<bpmn:endEvent id="end" />',
          flow('f0', 'start', 'fork'),
          '<bpmn:sequenceFlow id="f1" name="asked" sourceRef="fork" targetRef="Ask" />',
          '<bpmn:sequenceFlow id="f2" name="other" sourceRef="fork" targetRef="Other" />',
          flow('f3', 'Ask', 'merge'),
          flow('f4', 'Late', 'Default'),
          flow('f5', 'Default', 'merge'),
          flow('f6', 'merge', 'join'),
          flow('f7', 'Other', 'join'),
          flow('f8', 'join', 'Both'),
          flow('f9', 'Both', 'end'),
        ].join('\n'),
      ),
    );
    // The other branch does not wait for the user task: it reaches the join at once.
    expect(view.request.status).toBe(102);
    expect(rows(view)).toEqual([
      [1, 'waiting', null],
      [3, 'done', 'other'],
    ]);
    const done = await fire(view.request.id);
    expect(done.request.status).toBe(201);
    expect(rows(done)).toEqual([
      [1, 'failed', null],
      [3, 'done', 'other'],
      [2, 'done', 'no answer'],
      [4, 'done', 'no answer + other'],
    ]);
  });

  it('a timer computed by a template that prints no time fails the request naming the event', async () => {
    const view = await start(approval('${wait}'), { wait: 'soon' });
    expect(view.request.status).toBe(301);
    expect(view.request.message).toBe(
      'boundaryEvent Late (Late): the timer must be a duration (90s, 15m, 2h, 1d, PT1H30M), a time in epoch milliseconds or an ISO-8601 date-time, not "soon"',
    );
  });

  it('refuses a bad duration when the model is saved, naming the event and its line; flags one on a script task', async () => {
    await expect(readBpmn(approval('soon'))).rejects.toThrow(
      'BPMN document: boundaryEvent "Late" (line 6): its timer "soon" is not a duration (90s, 15m, 2h, 1d, PT1H30M), an ISO-8601 date-time nor a template',
    );
    const onScript = await readBpmn(
      approval('PT1M').replace('attachedToRef="Approve"', 'attachedToRef="Done"'),
    );
    expect(onScript.unsupported).toEqual([
      {
        type: 'bpmn:BoundaryEvent (bpmn:TimerEventDefinition on a bpmn:ScriptTask, which never waits)',
        id: 'Late',
        line: 6,
      },
    ]);
    await expect(
      w.host.start(w.account, { definition: onScript, data: {}, user: null, mode: 'TEST' }),
    ).rejects.toThrow(
      'process "Approval" cannot run: outside the executable subset: bpmn:BoundaryEvent (bpmn:TimerEventDefinition on a bpmn:ScriptTask, which never waits) "Late" (line 6)',
    );
  });
});
