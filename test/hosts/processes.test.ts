/**
 * Process requests through the host API (ProcessHost) on every engine: script, manual and
 * sub-process steps, the typing rule in the data document, task rights, step records, failures,
 * the data-document limit, cancelling, locks released at the end.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { PlatformError } from '../../src/platform/index.js';
import { describeEachEngine } from '../support/engines.js';
import { hostWorld, ref, stepsOf, taskUrlOf, type HostWorld } from './support.js';

const APPROVAL = {
  name: 'Purchase approval',
  steps: [
    {
      id: 1,
      name: 'Prepare',
      input: {
        total: '${(amount * quantity)?c}',
        label: 'Order of ${quantity} × ${item}',
        lines: '[<#list 1..quantity as i>{"n": ${i}}<#sep>, </#list>]',
      },
      script: '{"checked": true, "total": ${total?c}}',
      output: { checked: '${P_result.checked?c}' },
    },
    {
      id: 2,
      type: 'manual',
      name: 'Approve',
      lane: 0, // replaced by the clerks lane
      fields: ['decision', 'comment'],
      input: { summary: '${label}: ${total?c}' },
      output: { approved: '${(P_result.decision == "yes")?c}' },
    },
    {
      id: 3,
      type: 'subprocess',
      name: 'Book',
      process: {
        name: 'Booking',
        steps: [
          {
            id: 1,
            input: {
              booked: '${get_parent_params("parent").total?c}',
              reference: 'B-${parent.item}',
            },
          },
        ],
      },
      output: { reference: '${P_result.reference}' },
    },
    { id: 4, name: 'Close', input: { closed: 'true' } },
  ],
};

describeEachEngine('process host: requests', (engine) => {
  let w: HostWorld;
  let definition: typeof APPROVAL;
  beforeAll(async () => {
    w = await hostWorld(engine.store);
    definition = structuredClone(APPROVAL);
    definition.steps[1]!.lane = w.ids.clerks;
  });

  it('runs script, manual and sub-process steps to the end', async () => {
    const started = await w.host.start(w.account, {
      definition,
      data: { amount: 12.5, quantity: 3, item: 'pens' },
      user: 'carl',
      mode: 'LIVE',
    });
    const id = started.request.id;
    expect(started.request.status).toBe(102);
    expect(started.request.data).toEqual({
      amount: 12.5,
      quantity: 3,
      item: 'pens',
      total: 37.5,
      label: 'Order of 3 × pens',
      lines: [{ n: 1 }, { n: 2 }, { n: 3 }],
      checked: true,
      summary: 'Order of 3 × pens: 37.5',
    });
    expect(stepsOf(started)).toEqual([
      [1, 0, 'done'],
      [2, 0, 'waiting'],
    ]);
    expect(started.steps[0]!.result).toEqual({ checked: true, total: 37.5 });
    expect(started.tasks).toEqual([
      expect.objectContaining({
        id: `${id}.2.0`,
        name: 'Approve',
        status: 'OPEN',
        laneId: w.ids.clerks,
        fields: ['decision', 'comment'],
        data: { summary: 'Order of 3 × pens: 37.5' },
        url: taskUrlOf(w, ref(id, 2)),
      }),
    ]);

    // dora is not a clerk; ann is (LIVE)
    await expect(
      w.host.submitTask(w.account, ref(id, 2), { fields: { decision: 'yes' }, actor: w.actor('dora') }),
    ).rejects.toThrow(`Only a user of lane ${w.ids.clerks} may open this task.`);
    await expect(
      w.host.submitTask(w.account, ref(id, 2), {
        fields: { decision: 'yes', total: 1 },
        actor: w.actor('ann'),
      }),
    ).rejects.toThrow('the submission\'s field "total" is not a field of this task (decision, comment)');

    const ended = await w.host.submitTask(w.account, ref(id, 2), {
      fields: { decision: 'yes', comment: 'fine' },
      actor: w.actor('ann'),
    });
    expect(ended.request.status).toBe(201);
    expect(ended.request.message).toBe('');
    expect(stepsOf(ended)).toEqual([
      [1, 0, 'done'],
      [2, 0, 'done'],
      [3, 0, 'done'],
      [4, 0, 'done'],
    ]);
    expect(ended.request.data).toMatchObject({
      decision: 'yes',
      comment: 'fine',
      approved: true,
      reference: 'B-pens',
      closed: true,
    });
    expect(ended.tasks[0]).toMatchObject({
      status: 'SUBMITTED',
      result: { decision: 'yes', comment: 'fine' },
      submittedBy: w.ids.ann,
    });

    // the child: parent's parameters under "parent", its data document the step's result
    const childId = ended.steps[2]!.childRequestId!;
    const child = await w.host.view(w.account, childId);
    expect(child.request).toMatchObject({ status: 201, parentId: id, initiatorId: w.ids.carl, mode: 'LIVE' });
    expect(child.request.data).toEqual({
      parent: {
        amount: 12.5,
        quantity: 3,
        item: 'pens',
        total: 37.5,
        label: 'Order of 3 × pens',
        lines: [{ n: 1 }, { n: 2 }, { n: 3 }],
        checked: true,
        summary: 'Order of 3 × pens: 37.5',
        decision: 'yes',
        comment: 'fine',
        approved: true,
      },
      booked: 37.5,
      reference: 'B-pens',
    });
    expect(ended.steps[2]!.result).toEqual(child.request.data);

    await expect(
      w.host.submitTask(w.account, ref(id, 2), { fields: { decision: 'no' }, actor: w.actor('ann') }),
    ).rejects.toThrow('The task has already been submitted.');
    expect(
      w.events.filter((e) => e.type === 'ended').map((e) => [e.requestId, e.type === 'ended' && e.status]),
    ).toEqual([
      [childId, 201],
      [id, 201],
    ]);
  });

  it('lets the initiator (steps without a lane) and administrators open tasks; others of the account not', async () => {
    const { request } = await w.host.start(w.account, {
      definition: { name: 'ask', steps: [{ id: 1, type: 'manual' }] },
      user: 'carl',
      mode: 'LIVE',
    });
    const task = ref(request.id, 1);
    expect((await w.host.task(w.account, task, { actor: w.actor('carl') })).status).toBe('OPEN');
    expect((await w.host.task(w.account, task, { actor: w.actor('admin') })).status).toBe('OPEN');
    await expect(w.host.task(w.account, task, { actor: w.actor('ann') })).rejects.toThrow(
      'Only the user who started the request may open this task.',
    );
    await expect(w.host.task(w.account, task, { actor: null })).rejects.toThrow(
      'The task needs a user of the account, or its public URL.',
    );
    await expect(w.host.task(w.account, ref(request.id, 1, 1), { actor: w.actor('admin') })).rejects.toThrow(
      'Task not found.',
    );
    await expect(w.host.task('elsewhere', task, { actor: w.actor('admin') })).rejects.toThrow(
      'Task not found.',
    );
  });

  it('records a failing step: status 301, its error with line and column, P_message', async () => {
    const { request, steps } = await w.host.start(w.account, {
      definition: {
        name: 'fails',
        steps: [
          { id: 1, input: { a: '1' } },
          { id: 2, name: 'Break', input: { b: 'x\n${missing.field}' } },
          { id: 3, input: { c: 'never' } },
        ],
      },
    });
    expect(request.status).toBe(301);
    expect(stepsOf({ steps })).toEqual([
      [1, 0, 'done'],
      [2, 0, 'failed'],
    ]);
    expect(steps[1]!.error).toEqual({
      message:
        'The following has evaluated to null or missing:\n==> missing  [in template "step 2 (Break) input b" at line 2, column 3]',
      template: 'step 2 (Break) input b',
      line: 2,
      column: 3,
    });
    expect(request.message).toBe(
      'step 2 (Break) input b, line 2, column 3: The following has evaluated to null or missing:\n==> missing  [in template "step 2 (Break) input b" at line 2, column 3]',
    );
    expect(request.data).toEqual({ a: 1 });
  });

  it('keeps a failure recovered by attempt/recover inside the script, and throw() ends the request', async () => {
    const recovered = await w.host.start(w.account, {
      definition: {
        name: 'recovers',
        steps: [
          {
            id: 1,
            input: {
              r: '<#attempt>${throw("boom")}<#recover>recovered: ${.error?keep_before("\n")}</#attempt>',
            },
          },
        ],
      },
    });
    expect(recovered.request).toMatchObject({ status: 201, data: { r: 'recovered: boom' } });
    const thrown = await w.host.start(w.account, {
      definition: { name: 'throws', steps: [{ id: 7, script: '${throw("no stock")}' }] },
    });
    expect(thrown.request).toMatchObject({
      status: 301,
      message: 'step 7 script, line 1, column 3: no stock',
    });
    expect(thrown.steps[0]!.error).toEqual({
      message: 'no stock',
      template: 'step 7 script',
      line: 1,
      column: 3,
    });
  });

  it('fails the parent step when its sub-process fails', async () => {
    const { request, steps } = await w.host.start(w.account, {
      definition: {
        name: 'parent',
        steps: [
          {
            id: 1,
            type: 'subprocess',
            process: { name: 'child', steps: [{ id: 1, script: '${throw("child broke")}' }] },
          },
        ],
      },
    });
    const childId = steps[0]!.childRequestId!;
    expect(request.status).toBe(301);
    expect(request.message).toBe(
      `step 1: sub-process request ${childId} ended with status 301 ABORTED: step 1 script, line 1, column 3: child broke`,
    );
    expect((await w.host.view(w.account, childId)).request.status).toBe(301);
  });

  it('starts stored definitions by name, also as sub-processes; refuses unknown ones', async () => {
    await w.platform.processes.definitions.create(w.account, {
      name: 'stored child',
      steps: [{ id: 1, input: { fromChild: '${get_parent_params().x + 1}' } }],
    });
    const { request, steps } = await w.host.start(w.account, {
      definition: {
        name: 'uses stored',
        steps: [
          { id: 1, type: 'subprocess', process: 'stored child', output: { y: '${P_result.fromChild}' } },
        ],
      },
      data: { x: 41 },
    });
    expect(request).toMatchObject({ status: 201, data: { x: 41, y: 42 } });
    // get_parent_params() without a name injects the parent's parameters into the child too
    expect(steps[0]!.result).toEqual({ x: 41, fromChild: 42 });
    await expect(w.host.start(w.account, { process: 'nope' })).rejects.toThrow(
      'Process definition "nope" not found.',
    );
    const missing = await w.host.start(w.account, {
      definition: { name: 'x', steps: [{ id: 5, type: 'subprocess', process: 'nope' }] },
    });
    expect(missing.request.message).toBe('step 5: no process definition is named "nope"');
  });

  it('stops the process past the data document limit', async () => {
    const small = await hostWorld(engine.store, { dataDocumentBytes: 120 });
    const { request, steps } = await small.host.start(small.account, {
      definition: {
        name: 'grows',
        steps: [
          { id: 1, name: 'Fill', input: { a: '${"x"?left_pad(40, "x")}', b: '${"y"?left_pad(70, "y")}' } },
        ],
      },
    });
    expect(request.status).toBe(301);
    expect(request.message).toBe(
      'step 1 (Fill), input variable b: the data document would reach 125 bytes, over its maximum of 120 bytes: the process is stopped',
    );
    expect(request.data).toEqual({ a: 'x'.repeat(40) });
    expect(steps[0]!.error?.message).toBe(request.message);
    await expect(
      small.host.start(small.account, {
        definition: { name: 'x', steps: [{ id: 1 }] },
        data: { big: 'z'.repeat(200) },
      }),
    ).rejects.toThrow('the data document has 210 bytes, over its maximum of 120 bytes');
    // a function writing past the limit stops it too
    const injected = await small.host.start(small.account, {
      definition: {
        name: 'injects',
        steps: [
          { id: 1, script: '{"big": "${"q"?left_pad(100, "q")}"}' },
          { id: 2, input: { n: '${inject_params()?size}' } },
        ],
      },
      data: { pad: 'p'.repeat(20) },
    });
    expect(injected.request.status).toBe(301);
    expect(injected.request.message).toBe(
      'step 2 input n, line 1, column 3: inject_params: the data document would reach 139 bytes, over its maximum of 120 bytes: the process is stopped',
    );
  });

  it('cancels a waiting request: its task is cancelled, a late submission refused', async () => {
    const { request } = await w.host.start(w.account, {
      definition: { name: 'cancel me', steps: [{ id: 1, type: 'manual' }] },
      user: 'carl',
    });
    const cancelled = await w.host.stop(w.account, request.id);
    expect(cancelled.request.status).toBe(400);
    expect(cancelled.tasks[0]!.status).toBe('CANCELLED');
    await expect(
      w.host.submitTask(w.account, ref(request.id, 1), { fields: {}, actor: w.actor('carl') }),
    ).rejects.toThrow('The task was cancelled: its request has ended.');
    await expect(w.host.stop(w.account, request.id)).rejects.toThrow('The request has already ended.');
    await expect(w.host.resume(w.account, request.id)).rejects.toThrow('The request is not paused.');
  });

  it('releases the locks a request still holds when it ends', async () => {
    const { request } = await w.host.start(w.account, {
      definition: {
        name: 'locks',
        steps: [
          { id: 1, input: { l: '${R_lock("stock", 0)}' } },
          { id: 2, input: { held: '${P_locks?size}' } },
          // the last task writes no variable: on PostgreSQL its end, the request's and the
          // release are one statement
          { id: 3, script: '${R_lock("shelf", 0)}' },
        ],
      },
    });
    expect(request).toMatchObject({ status: 201, data: { l: 'stock', held: 1 } });
    expect(request.locks).toEqual([
      { name: 'stock', start: expect.any(Number) },
      { name: 'shelf', start: expect.any(Number) },
    ]);
    expect(await w.platform.locks.holder(w.account, 'stock')).toBeUndefined();
    expect(await w.platform.locks.holder(w.account, 'shelf')).toBeUndefined();
  });

  it('refuses malformed definitions with the path of the fault', async () => {
    const bad = (definition: unknown) => w.host.start(w.account, { definition });
    await expect(bad({ name: 'x', steps: [] })).rejects.toThrow(
      'process definition.steps: must be a non-empty array of steps',
    );
    await expect(bad({ name: 'x', steps: [{ id: 1, type: 'email' }] })).rejects.toThrow(
      'process definition.steps[0].type: must be script, manual or subprocess, not "email"',
    );
    await expect(bad({ name: 'x', steps: [{ id: 1 }, { id: 1 }] })).rejects.toThrow(
      'process definition.steps[1].id: step id 1 is used twice',
    );
    await expect(bad({ name: 'x', steps: [{ id: 1, input: { P_user: 'x' } }] })).rejects.toThrow(
      'process definition.steps[0].input.P_user: "P_user" is not a variable name (letters, digits and _, not starting with a digit or P_)',
    );
    await expect(bad({ name: 'x', steps: [{ id: 1, scirpt: 'x' }] })).rejects.toThrow(
      'process definition.steps[0]: unknown field "scirpt" (known: id, type, name, lane, input, output, loop, retry, script)',
    );
    await expect(bad({ name: 'x', steps: [{ id: 1, loop: { count: '2', over: '[]' } }] })).rejects.toThrow(
      'process definition.steps[0].loop: must have exactly one of count, over, while, doWhile',
    );
    await expect(
      bad({
        name: 'x',
        steps: [{ id: 1, type: 'subprocess', process: { name: 'c', steps: [{ id: 4, lane: 999999 }] } }],
      }),
    ).rejects.toThrow('step 4 of "c": lane 999999 not found');
    const error = await bad({ name: 'x', steps: [{ id: 0 }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect((error as PlatformError).code).toBe('invalid');
  });
});

describe('process host: the platform', () => {
  it('keeps the statuses the hosts use', async () => {
    const { REQUEST_STATUSES } = await import('../../src/platform/index.js');
    expect(Object.entries(REQUEST_STATUSES).map(([code, s]) => `${code} ${s.name}`)).toEqual([
      '101 ACTIVE',
      '102 WAITING',
      '201 COMPLETED',
      '301 ABORTED',
      '302 KILLED',
      '400 CANCELLED',
      '401 OUTDATED',
    ]);
  });
});
