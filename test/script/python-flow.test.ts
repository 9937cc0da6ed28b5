/**
 * Python twins of hosts.test.ts: the RMPRequest methods that mean something only inside a running
 * host — getNextUrl, getTaskUrl, injectParams, setRequestStatus, getParentParams and
 * RMPCollection.injectObjects in process requests,
 * setStatus and customHeader in composite APIs — run from `env="python"` beside the template
 * functions, in requests (routes) built alike: same data, statuses, responses, refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompositeHost, type Exchange } from '../../src/hosts/index.js';
import { closeScripts, configurePythonScripts } from '../../src/script/index.js';
import { describeEachEngine } from '../support/engines.js';
import { NOW } from '../platform/world.js';
import { taskToken } from '../../src/platform/processes/index.js';
import { anonymousExchange, hostWorld, ref, stepsOf, taskUrlOf, type HostWorld } from '../hosts/support.js';

afterAll(() => closeScripts());
beforeAll(() => configurePythonScripts({ workers: 1 }));

const py = (body: string) => `<@script env="python"><#noparse>${body}</#noparse></@script>`;
/** A Python script whose output is `expr`'s value (text as it is, other values as JSON). */
const out = (expr: string) => py(`RMPData.setOutput(${expr})`);

describeEachEngine('RMPRequest inside the hosts, from Python', (engine) => {
  let w: HostWorld;
  beforeAll(async () => {
    w = await hostWorld(engine.store);
  }, 60_000);
  const start = (steps: unknown[], data: Record<string, unknown> = {}, user: string | null = 'carl') =>
    w.host.start(w.account, { definition: { name: 'flow', steps }, data, user, mode: 'LIVE' });

  describe('process requests', () => {
    it('getNextUrl and getTaskUrl give the URLs get_next_url and get_task_url give', async () => {
      const view = await start([
        {
          id: 1,
          input: {
            t_next: '${get_next_url(2, false)}',
            s_next: out('RMPRequest.getNextUrl(2, False)'),
            t_mobile: '${get_next_url(2, false, "mobile")}',
            s_mobile: out('RMPRequest.getNextUrl(2, False, "mobile")'),
          },
        },
        {
          id: 2,
          type: 'manual',
          input: {
            t_own: '${get_task_url(false)}',
            s_own: out('RMPRequest.getTaskUrl(False)'),
            t_shared: '${get_task_url(true)}',
            s_shared: out('RMPRequest.getTaskUrl(True)'),
          },
        },
      ]);
      const id = view.request.id;
      const token = taskToken((await w.platform.processes.runs.require(w.account, id)).secret, ref(id, 2));
      const expected = {
        next: taskUrlOf(w, ref(id, 2)),
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
    }, 60_000);

    it('RMPCollection.injectObjects keeps a template variable’s objects in the data document as inject_objects does', async () => {
      const objects = '<#assign orders = [{"ref": "A", "qty": 2, "note": "x"}, {"ref": "B", "qty": 5}]>';
      const t = await start([
        { id: 1, input: { n: objects + '${inject_objects("orders", "ref,qty")?size}' } },
      ]);
      const s = await start([
        { id: 1, input: { n: objects + out('len(RMPCollection.injectObjects("orders", "ref,qty"))') } },
      ]);
      expect(t.request.data).toEqual({
        orders: [
          { ref: 'A', qty: 2 },
          { ref: 'B', qty: 5 },
        ],
        n: 2,
      });
      expect(s.request.data).toEqual(t.request.data);
    }, 60_000);

    it('injectParams injects the last executed step’s result as inject_params does', async () => {
      const steps = (before: string, after: string) => [
        { id: 1, script: '{"a": 1, "b": "two"}' },
        { id: 2, input: { before }, script: '{"c": true}', output: { after } },
      ];
      const t = await start(
        steps('${inject_params()?size} ${a}/${b}', '${inject_params()?keys?join(",")} ${c?c}'),
      );
      const s = await start(
        steps(
          out('f\'{len(RMPRequest.injectParams())} {RMPData.getVariable("a")}/{RMPData.getVariable("b")}\''),
          out('",".join(RMPRequest.injectParams()) + " " + str(RMPData.getVariable("c")).lower()'),
        ),
      );
      expect(t.request.data).toEqual({ a: 1, b: 'two', before: '2 1/two', c: true, after: 'c true' });
      expect(s.request.status).toBe(201);
      expect(s.request.data).toEqual(t.request.data);
    }, 60_000);

    it('setRequestStatus sets the request’s status as P_set_request_status does; a refused code ends the request', async () => {
      const withStatus = (set: string) =>
        start([
          { id: 1, input: { set } },
          { id: 2, input: { after: 'ran' } },
        ]);
      for (const code of [102, 302, 400]) {
        const t = await withStatus('${P_set_request_status(' + code + ')}done');
        const s = await withStatus(py(`RMPRequest.setRequestStatus(${code})\nRMPData.setOutput("done")`));
        expect(s.request).toMatchObject({ status: code, data: { set: 'done' } });
        expect([s.request.status, s.request.data, stepsOf(s)]).toEqual([
          t.request.status,
          t.request.data,
          stepsOf(t),
        ]);
      }
      const bad = await withStatus(py('RMPRequest.setRequestStatus(200)'));
      expect(bad.request).toMatchObject({
        status: 301,
        message:
          'step 1 input set, line 1, column 1: RMPRequest.setRequestStatus: argument 1 (statusCode) must be 102, 201, 301, 302, 400 or 401, not 200 (script line 1)',
      });
    }, 60_000);

    it('getParentParams reads the parent’s parameters as get_parent_params does', async () => {
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
            all: out('len(RMPRequest.getParentParams())'),
            seen: out('RMPData.getVariable("colour")'),
          },
        },
        {
          id: 2,
          input: {
            named: out('RMPRequest.getParentParams("p")["colour"]'),
            again: out('RMPData.getVariable("p")["size"]'),
          },
        },
      ]);
      expect(s.steps[0]!.result).toEqual(t.steps[0]!.result);
      expect(t.steps[0]!.result).toMatchObject({ all: 2, seen: 'red', named: 'red', again: 3 });
      const orphan = await start([{ id: 1, input: { x: out('RMPRequest.getParentParams()') } }]);
      expect(orphan.request.message).toBe(
        'step 1 input x, line 1, column 1: RMPRequest.getParentParams: the current request has no parent request (script line 1)',
      );
    }, 60_000);
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
          [
            'ref = RMPData.getVariable("P_params")["ref"]',
            'RMPRequest.setStatus(201, "Made")',
            'RMPRequest.customHeader("Location", "/orders/" + ref)',
            'RMPRequest.customHeader("X-Count", 2)',
            'RMPData.setOutput(\'{"ref": "\' + ref + \'"}\')',
          ].join('\n'),
        ],
        [
          'gone',
          '${set_status(404, "Gone", "No order " + P_params.ref)}',
          'RMPRequest.setStatus(404, "Gone", "No order " + RMPData.getVariable("P_params")["ref"])',
        ],
        [
          'typed',
          '${P_custom_header("Content-Type", "application/xml")}${P_custom_header("content-type", "text/csv")}a;b',
          'RMPRequest.customHeader("Content-Type", "application/xml")\nRMPRequest.customHeader("content-type", "text/csv")\nRMPData.setOutput("a;b")',
        ],
        [
          'cookie',
          '${P_custom_header("Set-Cookie", "a=b")}x',
          'RMPRequest.customHeader("Set-Cookie", "a=b")',
        ],
        ['status', '${set_status(99)}x', 'RMPRequest.setStatus(99)'],
      ];
      for (const [name, template, script] of routes) {
        for (const [prefix, source] of [
          ['t', template],
          ['p', py(script)],
        ])
          await w.platform.compositeApis.create(w.account, {
            method: 'GET',
            path: `${prefix}/${name}/:ref`,
            isPublic: true,
            mode: 'TEST',
            template: source,
          });
      }
    }, 60_000);

    it('setStatus and customHeader shape the response as set_status and P_custom_header do', async () => {
      for (const name of ['made', 'gone', 'typed']) {
        const t = await host.handle(exchange('GET', `t/${name}/A-1`));
        const p = await host.handle(exchange('GET', `p/${name}/A-1`));
        expect(p, name).toEqual(t);
      }
      expect(await host.handle(exchange('GET', 'p/made/A-1'))).toEqual({
        status: 201,
        statusMessage: 'Made',
        headers: {
          Location: '/orders/A-1',
          'X-Count': '2',
          'content-type': 'application/json; charset=utf-8',
        },
        body: '{"ref": "A-1"}',
      });
      expect(await host.handle(exchange('GET', 'p/gone/7'))).toEqual({
        status: 404,
        statusMessage: 'Gone',
        headers: {},
        body: { status: 404, name: 'Gone', description: 'No order 7' },
      });
    }, 60_000);

    it('refuses what set_status and P_custom_header refuse, with the same reason', async () => {
      for (const [name, method] of [
        ['cookie', 'RMPRequest.customHeader'],
        ['status', 'RMPRequest.setStatus'],
      ] as const) {
        const t = await host.handle(exchange('GET', `t/${name}/1`));
        const p = await host.handle(exchange('GET', `p/${name}/1`));
        expect([t.status, p.status]).toEqual([500, 500]);
        const reason = /^(?:P_custom_header|set_status): (.*)$/.exec(
          (t.body as { message: string }).message,
        )![1]!;
        expect((p.body as { message: string }).message.split('\n')[0]).toBe(
          `${method}: ${reason} (script line 1)`,
        );
      }
    }, 60_000);
  });
});
