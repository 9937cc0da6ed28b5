/**
 * The RMPRequest methods that only mean something inside a running host, run by scripts in real
 * hosts and compared with the template functions in the same place: getNextUrl, getTaskUrl,
 * injectParams, setRequestStatus and getParentParams (and RMPCollection.injectObjects) in process
 * requests (the
 * process host), setStatus and customHeader in composite APIs (the composite host), on every
 * engine. Each pair runs in two requests (or routes) built alike: same data, same results, same
 * statuses, the same reason when refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompositeHost, type Exchange } from '../../src/hosts/index.js';
import { closeScripts } from '../../src/script/index.js';
import { taskToken } from '../../src/platform/processes/index.js';
import { describeEachEngine } from '../support/engines.js';
import { NOW } from '../platform/world.js';
import { anonymousExchange, hostWorld, ref, stepsOf, taskUrlOf, type HostWorld } from '../hosts/support.js';
import { scriptTag } from './support.js';

afterAll(() => closeScripts());

/** A script whose output is `expr`'s value (text as it is, other values as JSON). */
const js = (expr: string) => scriptTag(`RMPData.setOutput(${expr});`);

describeEachEngine('RMPRequest inside the hosts, against the template functions', (engine) => {
  let w: HostWorld;
  beforeAll(async () => {
    w = await hostWorld(engine.store);
  });
  const start = (steps: unknown[], data: Record<string, unknown> = {}, user: string | null = 'carl') =>
    w.host.start(w.account, { definition: { name: 'flow', steps }, data, user, mode: 'LIVE' });

  describe('process requests', () => {
    it('getNextUrl and getTaskUrl give the URLs get_next_url and get_task_url give', async () => {
      const view = await start([
        {
          id: 1,
          input: {
            t_next: '${get_next_url(2, false)}',
            s_next: js('RMPRequest.getNextUrl(2, false)'),
            t_public: '${get_next_url(2, true)}',
            s_public: js('RMPRequest.getNextUrl(2, true)'),
            t_mobile: '${get_next_url(2, false, "mobile")}',
            s_mobile: js('RMPRequest.getNextUrl(2, false, "mobile")'),
          },
        },
        {
          id: 2,
          type: 'manual',
          input: {
            t_own: '${get_task_url(false)}',
            s_own: js('RMPRequest.getTaskUrl(false)'),
            t_shared: '${get_task_url(true)}',
            s_shared: js('RMPRequest.getTaskUrl(true)'),
          },
        },
      ]);
      const id = view.request.id;
      const token = taskToken((await w.platform.processes.runs.require(w.account, id)).secret, ref(id, 2));
      const expected = {
        next: taskUrlOf(w, ref(id, 2)),
        public: taskUrlOf(w, ref(id, 2), `?token=${token}`),
        mobile: taskUrlOf(w, ref(id, 2), '?P_context=mobile'),
        own: taskUrlOf(w, ref(id, 2)),
        shared: taskUrlOf(w, ref(id, 2), `?token=${token}`),
      };
      expect(view.request.data).toEqual(
        Object.fromEntries(
          Object.entries(expected).flatMap(([k, v]) => [
            [`t_${k}`, v],
            [`s_${k}`, v],
          ]),
        ),
      );
    });

    it('getNextUrl and getTaskUrl are refused where get_next_url and get_task_url are', async () => {
      const cases: Array<[string, string, string]> = [
        ['${get_task_url(false)}', js('RMPRequest.getTaskUrl(false)'), 'RMPRequest.getTaskUrl'],
        ['${get_next_url(1, false)}', js('RMPRequest.getNextUrl(1, false)'), 'RMPRequest.getNextUrl'],
        [
          '${get_next_url(2, false, "watch")}',
          js('RMPRequest.getNextUrl(2, false, "watch")'),
          'RMPRequest.getNextUrl',
        ],
      ];
      for (const [template, script, method] of cases) {
        const run = (x: string) =>
          start([
            { id: 1, input: { x } },
            { id: 2, type: 'manual' },
          ]);
        const t = (await run(template)).request;
        const s = (await run(script)).request;
        expect([t.status, s.status]).toEqual([301, 301]);
        // `step 1 input x, line 1, column 3: get_next_url: reason` / `…: RMPRequest.getNextUrl: reason (script line …)`
        const reason = /^step 1 input x, line 1, column 3: (?:function )?[a-z_]+:? (.*)$/.exec(
          t.message,
        )![1]!;
        expect(s.message).toMatch(/^step 1 input x, line 1, column 1: /);
        expect(s.message.replace(/^step 1 input x, line 1, column 1: /, '')).toMatch(
          new RegExp(`^${method}: .*${escape(reason)} \\(script line 1, column \\d+\\)$`),
        );
      }
    });

    it('injectParams injects the last executed step’s result as inject_params does', async () => {
      const steps = (before: string, after: string) => [
        { id: 1, script: '{"a": 1, "b": "two"}' },
        { id: 2, input: { before }, script: '{"c": true}', output: { after } },
        { id: 3, script: 'plain text', output: { none: '${inject_params()?size}' } },
      ];
      const t = await start(
        steps('${inject_params()?size} ${a}/${b}', '${inject_params()?keys?join(",")} ${c?c}'),
      );
      const s = await start(
        steps(
          js(
            'Object.keys(RMPRequest.injectParams()).length + " " + RMPData.getVariable("a") + "/" + RMPData.getVariable("b")',
          ),
          js('Object.keys(RMPRequest.injectParams()).join(",") + " " + RMPData.getVariable("c")'),
        ),
      );
      expect(t.request.data).toEqual({
        a: 1,
        b: 'two',
        before: '2 1/two',
        c: true,
        after: 'c true',
        none: 0,
      });
      expect(s.request.status).toBe(201);
      expect(s.request.data).toEqual(t.request.data);
      expect(s.steps.map((x) => x.result)).toEqual(t.steps.map((x) => x.result));
      // The script receives the injected object itself.
      const object = await start([
        { id: 1, script: '{"k": [1, 2]}' },
        { id: 2, input: { got: js('RMPRequest.injectParams()') } },
      ]);
      expect(object.request.data).toEqual({ k: [1, 2], got: { k: [1, 2] } });
    });

    it('RMPCollection.injectObjects keeps a template variable’s objects in the data document as inject_objects does', async () => {
      const objects = '<#assign orders = [{"ref": "A", "qty": 2, "note": "x"}, {"ref": "B", "qty": 5}]>';
      const t = await start([
        { id: 1, input: { n: objects + '${inject_objects("orders", "ref,qty")?size}' } },
      ]);
      const s = await start([
        { id: 1, input: { n: objects + js('RMPCollection.injectObjects("orders", "ref,qty").length') } },
      ]);
      expect(t.request.data).toEqual({
        orders: [
          { ref: 'A', qty: 2 },
          { ref: 'B', qty: 5 },
        ],
        n: 2,
      });
      expect(s.request.data).toEqual(t.request.data);
    });

    it('setRequestStatus sets the request’s status as P_set_request_status does', async () => {
      const withStatus = (set: string) =>
        start([
          { id: 1, input: { set } },
          { id: 2, input: { after: 'ran' } },
        ]);
      for (const code of [102, 201, 302, 400]) {
        const t = await withStatus('${P_set_request_status(' + code + ')}done');
        const s = await withStatus(
          scriptTag(`RMPRequest.setRequestStatus(${code}); RMPData.setOutput("done");`),
        );
        expect(s.request).toMatchObject({ status: code, data: { set: 'done' } });
        expect([s.request.status, s.request.data, stepsOf(s)]).toEqual([
          t.request.status,
          t.request.data,
          stepsOf(t),
        ]);
        if (code === 102) {
          const resumed = await w.host.resume(w.account, s.request.id);
          expect(resumed.request).toMatchObject({ status: 201, data: { set: 'done', after: 'ran' } });
        }
      }
      const bad = await withStatus(scriptTag('RMPRequest.setRequestStatus(200);'));
      expect(bad.request).toMatchObject({
        status: 301,
        message:
          'step 1 input set, line 1, column 1: RMPRequest.setRequestStatus: argument 1 (statusCode) must be 102, 201, 301, 302, 400 or 401, not 200 (script line 1, column 28)',
      });
    });

    it('getParentParams reads (and injects) the parent’s parameters as get_parent_params does', async () => {
      const parent = (steps: unknown[]) =>
        start([{ id: 1, type: 'subprocess', process: { name: 'child', steps } }], { colour: 'red', size: 3 });
      const t = await parent([
        { id: 1, input: { all: '${get_parent_params()?size}', seen: '${colour}' } },
        { id: 2, input: { named: '${get_parent_params("p").colour}', again: '${p.size?c}' } },
      ]);
      const s = await parent([
        {
          id: 1,
          input: {
            all: js('Object.keys(RMPRequest.getParentParams()).length'),
            seen: js('RMPData.getVariable("colour")'),
          },
        },
        {
          id: 2,
          input: {
            named: js('RMPRequest.getParentParams("p").colour'),
            again: js('RMPData.getVariable("p").size'),
          },
        },
      ]);
      expect(t.steps[0]!.result).toEqual({
        colour: 'red',
        size: 3,
        all: 2,
        seen: 'red',
        p: { colour: 'red', size: 3 },
        named: 'red',
        again: 3,
      });
      expect(s.steps[0]!.result).toEqual(t.steps[0]!.result);
      const orphan = await start([{ id: 1, input: { x: js('RMPRequest.getParentParams()') } }]);
      expect(orphan.request.message).toBe(
        'step 1 input x, line 1, column 1: RMPRequest.getParentParams: the current request has no parent request (script line 1, column 45)',
      );
    });
  });

  describe('composite APIs', () => {
    let host: CompositeHost;
    const exchange = (method: string, path: string, extra: Partial<Exchange> = {}): Exchange =>
      anonymousExchange(w.account, method, path, extra);
    beforeAll(async () => {
      host = new CompositeHost(w.platform, { clock: () => NOW });
      const routes: Array<[string, string, string]> = [
        [
          'made',
          '${set_status(201, "Made")}${P_custom_header("Location", "/orders/" + P_params.ref)}${P_custom_header("X-Count", "2")}{"ref": "${P_params.ref}"}',
          'RMPRequest.setStatus(201, "Made"); RMPRequest.customHeader("Location", "/orders/" + RMPData.getVariable("P_params").ref); ' +
            'RMPRequest.customHeader("X-Count", 2); RMPData.setOutput(`{"ref": "${RMPData.getVariable("P_params").ref}"}`);',
        ],
        [
          'gone',
          '${set_status(404, "Gone", "No order " + P_params.ref)}',
          'RMPRequest.setStatus(404, "Gone", "No order " + RMPData.getVariable("P_params").ref);',
        ],
        [
          'typed',
          '${P_custom_header("Content-Type", "application/xml")}${P_custom_header("content-type", "text/csv")}a;b',
          'RMPRequest.customHeader("Content-Type", "application/xml"); RMPRequest.customHeader("content-type", "text/csv"); RMPData.setOutput("a;b");',
        ],
        [
          'cookie',
          '${P_custom_header("Set-Cookie", "a=b")}x',
          'RMPRequest.customHeader("Set-Cookie", "a=b");',
        ],
        ['status', '${set_status(99)}x', 'RMPRequest.setStatus(99);'],
      ];
      for (const [name, template, script] of routes) {
        await w.platform.compositeApis.create(w.account, {
          method: 'GET',
          path: `t/${name}/:ref`,
          isPublic: true,
          mode: 'TEST',
          template,
        });
        await w.platform.compositeApis.create(w.account, {
          method: 'GET',
          path: `s/${name}/:ref`,
          isPublic: true,
          mode: 'TEST',
          template: scriptTag(script),
        });
      }
    });

    it('setStatus and customHeader shape the response as set_status and P_custom_header do', async () => {
      for (const name of ['made', 'gone', 'typed']) {
        const t = await host.handle(exchange('GET', `t/${name}/A-1`));
        const s = await host.handle(exchange('GET', `s/${name}/A-1`));
        expect(s, name).toEqual(t);
      }
      expect(await host.handle(exchange('GET', 's/made/A-1'))).toEqual({
        status: 201,
        statusMessage: 'Made',
        headers: {
          Location: '/orders/A-1',
          'X-Count': '2',
          'content-type': 'application/json; charset=utf-8',
        },
        body: '{"ref": "A-1"}',
      });
      expect(await host.handle(exchange('GET', 's/gone/7'))).toEqual({
        status: 404,
        statusMessage: 'Gone',
        headers: {},
        body: { status: 404, name: 'Gone', description: 'No order 7' },
      });
    });

    it('refuses what set_status and P_custom_header refuse, with the same reason', async () => {
      for (const [name, method] of [
        ['cookie', 'RMPRequest.customHeader'],
        ['status', 'RMPRequest.setStatus'],
      ] as const) {
        const t = await host.handle(exchange('GET', `t/${name}/1`));
        const s = await host.handle(exchange('GET', `s/${name}/1`));
        expect([t.status, s.status]).toEqual([500, 500]);
        const tMessage = (t.body as { message: string }).message;
        const sMessage = (s.body as { message: string }).message;
        const reason = /^(?:P_custom_header|set_status): (.*)$/.exec(tMessage)![1]!;
        expect(sMessage).toContain(`${method}: ${reason} (script line 1, column `);
      }
    });
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
