/**
 * The process-flow functions (get_next_url, get_task_url, inject_params, get_parent_params,
 * P_set_request_status) and the host parameters (P_result, P_task, P_task_url, P_index, P_item)
 * in running processes, loops, public task URLs, attach_file and the step's lane, on every engine.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { contextFor } from '../../src/functions/request/index.js';
import { ProcessHost } from '../../src/hosts/index.js';
import { taskToken } from '../../src/platform/processes/index.js';
import { describeEachEngine } from '../support/engines.js';
import { call, errorOf, NOW } from '../platform/world.js';
import { hostWorld, ref, stepsOf, taskUrlOf, type HostWorld } from './support.js';

describeEachEngine('process host: flow functions', (engine) => {
  let w: HostWorld;
  beforeAll(async () => {
    w = await hostWorld(engine.store);
  });
  const start = (steps: unknown[], data: Record<string, unknown> = {}, user: string | null = 'carl') =>
    w.host.start(w.account, { definition: { name: 'flow', steps }, data, user, mode: 'LIVE' });
  const secretOf = async (requestId: string) =>
    (await w.platform.processes.runs.require(w.account, requestId)).secret;

  describe('get_next_url and get_task_url', () => {
    it('give the URL of the next task of a step, the public one with its token, mobile with P_context', async () => {
      const view = await start([
        {
          id: 1,
          input: {
            next: '${get_next_url(2, false)}',
            mobile: '${get_next_url(2, false, "mobile")}',
            public: '${get_next_url("2", "true")}',
          },
        },
        {
          id: 2,
          type: 'manual',
          input: { own: '${get_task_url(false)}', shared: '${get_task_url(true)}', p: '${P_task_url}' },
        },
      ]);
      const id = view.request.id;
      const token = taskToken(await secretOf(id), ref(id, 2));
      expect(view.request.data).toEqual({
        next: taskUrlOf(w, ref(id, 2)),
        mobile: taskUrlOf(w, ref(id, 2), '?P_context=mobile'),
        public: taskUrlOf(w, ref(id, 2), `?token=${token}`),
        own: taskUrlOf(w, ref(id, 2)),
        shared: taskUrlOf(w, ref(id, 2), `?token=${token}`),
        p: taskUrlOf(w, ref(id, 2)),
      });
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    });

    it('in a loop, give the next iteration\u2019s URL once the current task exists', async () => {
      const view = await start(
        [
          {
            id: 3,
            type: 'manual',
            name: 'Review',
            loop: { over: '${reviewers}' },
            input: {
              reviewer: '${P_item}',
              index: '${P_index}',
              following: '${get_next_url(3, false)}',
            },
            output: { ['last_' + 'word']: '${P_result.word}' },
          },
        ],
        { reviewers: ['ann', 'carl'] },
      );
      const id = view.request.id;
      expect(view.request.data).toMatchObject({
        reviewer: 'ann',
        index: 0,
        following: taskUrlOf(w, ref(id, 3, 1)),
      });
      const second = await w.host.submitTask(w.account, ref(id, 3, 0), {
        fields: { word: 'first' },
        actor: w.actor('carl'),
      });
      expect(second.request.status).toBe(102);
      expect(second.request.data).toMatchObject({
        reviewer: 'carl',
        index: 1,
        following: taskUrlOf(w, ref(id, 3, 2)),
        last_word: 'first',
      });
      const done = await w.host.submitTask(w.account, ref(id, 3, 1), {
        fields: { word: 'second' },
        actor: w.actor('carl'),
      });
      expect(done.request.status).toBe(201);
      expect(done.request.data.last_word).toBe('second');
      expect(stepsOf(done)).toEqual([
        [3, 0, 'done'],
        [3, 1, 'done'],
      ]);
      expect(done.tasks.map((t) => [t.id, t.status])).toEqual([
        [`${id}.3.0`, 'SUBMITTED'],
        [`${id}.3.1`, 'SUBMITTED'],
      ]);
    });

    it('let whoever holds the public URL submit, nobody with a wrong token', async () => {
      const view = await start([
        { id: 1, type: 'manual', lane: w.ids.managers, input: { url: '${get_task_url(true)}' } },
      ]);
      const id = view.request.id;
      const token = new URL(view.request.data.url as string).searchParams.get('token')!;
      await expect(
        w.host.task(w.account, ref(id, 1), {
          actor: null,
          token: token.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')),
        }),
      ).rejects.toThrow('The task token is not valid for this task.');
      await expect(w.host.task(w.account, ref(id, 1), { actor: null, token: '' })).rejects.toThrow(
        'The task token is not valid for this task.',
      );
      // the token of iteration 0 is not that of another task
      await expect(
        w.host.submitTask(w.account, ref(id, 1, 1), { fields: {}, actor: null, token }),
      ).rejects.toThrow('Task not found.');
      const done = await w.host.submitTask(w.account, ref(id, 1), {
        fields: { ok: true },
        actor: null,
        token,
      });
      expect(done.request.status).toBe(201);
      expect(done.tasks[0]).toMatchObject({ status: 'SUBMITTED', submittedBy: null });
    });

    it('are refused outside their place', async () => {
      const script = await start([{ id: 1, input: { x: '${get_task_url(false)}' } }]);
      expect(script.request.message).toBe(
        'step 1 input x, line 1, column 3: function get_task_url is only available in the input variables of a manual task',
      );
      const notManual = await start([{ id: 1, input: { x: '${get_next_url(1, false)}' } }]);
      expect(notManual.request.message).toBe(
        'step 1 input x, line 1, column 3: get_next_url: argument 1 (stepId) step 1 is not a manual task of this process',
      );
      const badContext = await start([
        { id: 1, input: { x: '${get_next_url(2, false, "watch")}' } },
        { id: 2, type: 'manual' },
      ]);
      expect(badContext.request.message).toBe(
        'step 1 input x, line 1, column 3: get_next_url: argument 3 (context) must be web, mobile or tablet, not "watch"',
      );
      const outside = await contextFor({ platform: w.platform, account: w.account, user: 'ann' });
      expect(await errorOf(outside, 'get_next_url', 1, false)).toBe(
        'get_next_url: there is no current request',
      );
      const plain = await contextFor({ platform: w.platform, account: w.account, request: w.request });
      expect(await errorOf(plain, 'get_next_url', 1, false)).toBe(
        'get_next_url: the current request does not run a process',
      );
    });
  });

  describe('inject_params and P_result', () => {
    it('inject the last executed step\u2019s result: the previous one from input variables, the step\u2019s own from output ones', async () => {
      const view = await start([
        { id: 1, script: '{"a": 1, "b": "two"}' },
        {
          id: 2,
          input: { before: '${inject_params()?size} ${a}/${b}', prev: '${P_result.b}' },
          script: '{"c": true}',
          output: { after: '${inject_params()?keys?join(",")} ${c?c}' },
        },
        { id: 3, script: 'plain text', output: { none: '${inject_params()?size}', text: '${P_result}' } },
      ]);
      expect(view.request.status).toBe(201);
      expect(view.request.data).toEqual({
        a: 1,
        b: 'two',
        before: '2 1/two',
        prev: 'two',
        c: true,
        after: 'c true',
        none: 0,
        text: 'plain text',
      });
      expect(view.steps.map((s) => s.result)).toEqual([{ a: 1, b: 'two' }, { c: true }, 'plain text']);
    });

    it('a script step without a script has its input variables as result; P_task names the step', async () => {
      const view = await start([
        {
          id: 4,
          name: 'Vars',
          input: { x: '1', y: 'why' },
          output: { task: '${P_task.id}|${P_task.step}|${P_task.name}|${P_task.type}' },
        },
      ]);
      expect(view.steps[0]!.result).toEqual({ x: 1, y: 'why' });
      expect(view.request.data.task).toBe(`${view.request.id}.4.0|4|Vars|script`);
      const outside = await contextFor({ platform: w.platform, account: w.account });
      expect(await errorOf(outside, 'inject_params')).toBe('inject_params: there is no current request');
    });

    it('outside a running step, reads the last step that ended', async () => {
      const view = await start([{ id: 1, script: '{"k": "v"}' }]);
      const ctx = await contextFor({ platform: w.platform, account: w.account, request: view.request.id });
      expect(await call(ctx, 'inject_params')).toEqual({ k: 'v' });
      expect((await w.platform.requests.require(w.account, view.request.id)).data).toEqual({ k: 'v' });
    });
  });

  describe('get_parent_params', () => {
    it('gives the parent\u2019s parameters, injected all, or under a name', async () => {
      const view = await start(
        [
          {
            id: 1,
            type: 'subprocess',
            process: {
              name: 'child',
              steps: [
                { id: 1, input: { all: '${get_parent_params()?size}', seen: '${colour}' } },
                { id: 2, input: { named: '${get_parent_params("p").colour}', again: '${p.size?c}' } },
              ],
            },
          },
        ],
        { colour: 'red', size: 3 },
      );
      expect(view.steps[0]!.result).toEqual({
        colour: 'red',
        size: 3,
        all: 2,
        seen: 'red',
        p: { colour: 'red', size: 3 },
        named: 'red',
        again: 3,
      });
    });

    it('is refused without a parent, and with a name that is not a variable name', async () => {
      const top = await start([{ id: 1, input: { x: '${get_parent_params()?size}' } }]);
      expect(top.request.message).toBe(
        'step 1 input x, line 1, column 3: get_parent_params: the current request has no parent request',
      );
      const bad = await start([
        {
          id: 1,
          type: 'subprocess',
          process: { name: 'c', steps: [{ id: 1, input: { x: '${get_parent_params("P_x")?size}' } }] },
        },
      ]);
      expect(bad.request.message).toContain(
        'get_parent_params: argument 1 (name) "P_x" is not a variable name',
      );
    });
  });

  describe('P_set_request_status', () => {
    const withStatus = (code: number) =>
      start([
        { id: 1, input: { set: '${P_set_request_status(' + code + ')}done' } },
        { id: 2, input: { after: 'ran' } },
      ]);

    it('102 pauses the request after the step until it is resumed', async () => {
      const paused = await withStatus(102);
      expect(paused.request).toMatchObject({ status: 102, data: { set: 'done' } });
      expect(stepsOf(paused)).toEqual([[1, 0, 'done']]);
      const resumed = await w.host.resume(w.account, paused.request.id);
      expect(resumed.request).toMatchObject({ status: 201, data: { set: 'done', after: 'ran' } });
      await expect(w.host.resume(w.account, paused.request.id)).rejects.toThrow('The request is not paused.');
    });

    it('201 completes the request after the step, skipping the others', async () => {
      const done = await withStatus(201);
      expect(done.request).toMatchObject({ status: 201, data: { set: 'done' } });
      expect(stepsOf(done)).toEqual([[1, 0, 'done']]);
    });

    it.each([301, 302, 400, 401])('%i ends the request after the step with that status', async (code) => {
      const ended = await withStatus(code);
      expect(ended.request).toMatchObject({ status: code, data: { set: 'done' } });
      expect(stepsOf(ended)).toEqual([[1, 0, 'done']]);
    });

    it('ends a waiting manual task with its request, and a failure afterwards still gives 301', async () => {
      const manual = await start([{ id: 1, type: 'manual', input: { s: '${P_set_request_status(302)}' } }]);
      expect(manual.request.status).toBe(302);
      expect(manual.tasks[0]!.status).toBe('CANCELLED');
      const failing = await start([{ id: 1, input: { s: '${P_set_request_status(201)}', t: '${nope}' } }]);
      expect(failing.request.status).toBe(301);
    });

    it('refuses other codes, and requests that have ended', async () => {
      const bad = await withStatus(200);
      expect(bad.request.message).toBe(
        'step 1 input set, line 1, column 3: P_set_request_status: argument 1 (statusCode) must be 102, 201, 301, 302, 400 or 401, not 200',
      );
      const ended = await withStatus(201);
      const ctx = await contextFor({
        platform: w.platform,
        account: w.account,
        request: ended.request.id,
        clock: () => NOW,
      });
      expect(await errorOf(ctx, 'P_set_request_status', 400)).toBe(
        'P_set_request_status: the request has ended (status 201 COMPLETED)',
      );
    });
  });

  describe('loops', () => {
    it('repeat a step a number of times, over items, or while a condition holds', async () => {
      const view = await start(
        [
          { id: 1, loop: { count: '${n}' }, input: { c: '${(c!0) + P_index + 1}' } },
          { id: 2, loop: { over: '["a","b","c"]' }, input: { s: '${s!""}${P_item}${P_index}' } },
          { id: 3, loop: { while: '${((w!0) < 4)?c}' }, input: { w: '${(w!0) + 2}' } },
          { id: 4, loop: { count: '0' }, input: { never: 'x' } },
        ],
        { n: 3 },
      );
      expect(view.request.status).toBe(201);
      expect(view.request.data).toEqual({ n: 3, c: 6, s: 'a0b1c2', w: 4 });
      expect(stepsOf(view)).toEqual([
        [1, 0, 'done'],
        [1, 1, 'done'],
        [1, 2, 'done'],
        [2, 0, 'done'],
        [2, 1, 'done'],
        [2, 2, 'done'],
        [3, 0, 'done'],
        [3, 1, 'done'],
        [4, 0, 'skipped'],
      ]);
    });

    it('refuse a bound that is not one', async () => {
      const count = await start([{ id: 1, loop: { count: 'many' } }]);
      expect(count.request.message).toBe(
        'step 1: the loop count must be a whole number from 0 to 1000, not "many"',
      );
      const over = await start([{ id: 1, loop: { over: '{"a":1}' } }]);
      expect(over.request.message).toBe('step 1: the loop must iterate over an array (JSON), not {"a":1}');
      const cond = await start([{ id: 1, loop: { while: 'yes' } }]);
      expect(cond.request.message).toBe('step 1: the loop condition must print true or false, not "yes"');
      // (the limit is 1000 iterations; a host may lower it)
      const short = new ProcessHost(w.platform, { maxIterations: 20 });
      const endless = await short.start(w.account, {
        definition: { name: 'endless', steps: [{ id: 1, loop: { while: 'true' } }] },
      });
      expect(endless.request.message).toBe('step 1: the loop ran 20 iterations, its maximum');
      expect(endless.steps).toHaveLength(21);
    });
  });

  describe('manual tasks', () => {
    it('attach_file works in their input variables; the step\u2019s lane is the default lane of the file functions', async () => {
      const principal = { userId: w.ids.carl, isAdmin: false, mode: 'LIVE' as const };
      const file = await w.platform.files.create(w.account, principal, {
        name: 'a.txt',
        content: Buffer.from('hello'),
      });
      const view = await start(
        [
          {
            id: 1,
            lane: w.ids.clerks,
            input: { rights: '${R_read_file_add_lane(upload)}' },
          },
          {
            id: 2,
            type: 'manual',
            widgets: ['docs'],
            input: { attached: '${attach_file(upload)?size}' },
          },
        ],
        { upload: file.id },
      );
      expect(view.request.data).toMatchObject({
        attached: 1,
        rights: { [file.id]: { user: { READ: [], WRITE: [] }, lane: { READ: [w.ids.clerks], WRITE: [] } } },
      });
      const task = await w.platform.processes.tasks.find(w.account, ref(view.request.id, 2));
      const attachments = await w.platform.applications.attachments(w.account, principal, task!.instanceId!);
      expect(attachments.map((a) => [a.file.id, a.widgetId])).toEqual([[file.id, 'docs']]);
      const refused = await start([{ id: 1, input: { a: '${attach_file(upload)?size}' } }], {
        upload: file.id,
      });
      expect(refused.request.message).toBe(
        'step 1 input a, line 1, column 3: function attach_file is only available in the input variables of a manual task',
      );
    });

    it('P_user is whoever submitted the last task (missing after a public submission)', async () => {
      const view = await start([
        { id: 1, type: 'manual', lane: w.ids.clerks },
        { id: 2, input: { by: '${P_user.login}', initiator: '${P_initiator.login}' } },
        { id: 3, type: 'manual', input: { url: '${get_task_url(true)}' } },
        { id: 4, input: { anonymous: '${(!P_user??)?c}' } },
      ]);
      const id = view.request.id;
      const next = await w.host.submitTask(w.account, ref(id, 1), { fields: {}, actor: w.actor('ann') });
      expect(next.request.data).toMatchObject({ by: 'ann', initiator: 'carl' });
      const token = new URL(next.request.data.url as string).searchParams.get('token')!;
      const done = await w.host.submitTask(w.account, ref(id, 3), { fields: {}, actor: null, token });
      expect(done.request).toMatchObject({ status: 201, data: { anonymous: true } });
    });
  });

  describe('internal parameters real scripts read in steps', () => {
    it('P_language, P_connected_user and has_right compared with a string; P_result of the step', async () => {
      const view = await start([
        {
          id: 1,
          input: {
            language: '${P_language}',
            who: '${P_connected_user.login}',
            clerk: `\${(has_right(P_connected_user.login, "${w.ids.clerks}") == 'true')?c}`,
            manager: `displayme_\${has_right('${w.ids.managers}')=='true'}`,
          },
          script: '{"total": 3}',
          output: { total: '${P_result.total}' },
        },
      ]);
      expect(view.request.data).toMatchObject({
        language: 'en',
        who: 'carl',
        clerk: true,
        manager: 'displayme_false',
        total: 3,
      });
    });
  });
});
