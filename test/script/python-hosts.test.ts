/**
 * `<@script env="python">` where `env="js"` works: a process request's input variables, a
 * composite API's response, the collections and the refusals of a surface, and `flowmark render`
 * (the built CLI, spawned).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompositeHost, WebInterfaceHost, type Exchange } from '../../src/hosts/index.js';
import { closeScripts } from '../../src/script/index.js';
import { describeEachEngine } from '../support/engines.js';
import { buildWorld, contextIn, NOW, type World } from '../platform/world.js';
import { anonymousExchange, hostWorld, type HostWorld } from '../hosts/support.js';
import { errorOf } from './support.js';

afterAll(() => closeScripts());

const py = (body: string) => `<@script env="python"><#noparse>${body}</#noparse></@script>`;

describeEachEngine('Python scripts in the hosts', (engine) => {
  let w: HostWorld;
  beforeAll(async () => {
    w = await hostWorld(engine.store);
  }, 60_000);

  it('computes a process step’s input variables, reading the request’s data', async () => {
    const view = await w.host.start(w.account, {
      definition: {
        name: 'flow',
        steps: [
          {
            id: 1,
            input: {
              total: py(
                'lines = RMPData.getVariable("lines")\nRMPData.setOutput(sum(l["qty"] * l["price"] for l in lines))',
              ),
              who: py('RMPData.setOutput(RMPData.getCurrentUser()["login"])'),
              request: py(
                'RMPData.setOutput(RMPData.getRequestId() == RMPData.getInternalParameter("P_request")["id"])',
              ),
            },
          },
        ],
      },
      data: {
        lines: [
          { qty: 2, price: 3.5 },
          { qty: 1, price: 10 },
        ],
      },
      user: 'carl',
      mode: 'LIVE',
    });
    expect(view.request.data).toEqual({
      lines: [
        { qty: 2, price: 3.5 },
        { qty: 1, price: 10 },
      ],
      total: 17,
      who: 'carl',
      request: true,
    });
  }, 60_000);

  it('shapes a composite API’s response with RMPRequest.setStatus and customHeader', async () => {
    const host = new CompositeHost(w.platform, { clock: () => NOW });
    await w.platform.compositeApis.create(w.account, {
      method: 'GET',
      path: 'py/orders/:ref',
      isPublic: true,
      mode: 'TEST',
      template: py(
        'ref = RMPData.getVariable("P_params")["ref"]\n' +
          'RMPRequest.setStatus(201, "Made")\n' +
          'RMPRequest.customHeader("Location", "/orders/" + ref)\n' +
          'RMPData.setOutput({"ref": ref})',
      ),
    });
    expect(await host.handle(anonymousExchange(w.account, 'GET', 'py/orders/A-1'))).toEqual({
      status: 201,
      statusMessage: 'Made',
      headers: { Location: '/orders/A-1', 'content-type': 'application/json; charset=utf-8' },
      body: '{"ref":"A-1"}',
    });
  }, 60_000);

  it('saves and finds documents; a function refused on this surface is refused to the script', async () => {
    const ctx = await contextIn(w, { user: 'carl' });
    const { evaluate } = await import('../../src/hosts/evaluate.js');
    const { output } = await evaluate(
      py(
        'RMPCollection.save({"sku": "p1", "qty": 3}, "stock_py")\n' +
          'RMPCollection.save({"sku": "p2", "qty": 0}, "stock_py")\n' +
          'found = RMPCollection.find({"qty": {"$gt": 0}}, "stock_py")\n' +
          'RMPData.setOutput([[d["sku"] for d in found], RMPCollection.count({"sku": {"$exists": True}}, "stock_py")])',
      ),
      ctx,
    );
    expect(output).toBe('[["p1"],2]');
    expect(await errorOf(ctx, py('RMPApplication.attachFile("x")'))).toBe(
      'RMPApplication.attachFile: function attach_file is only available in the input variables of a manual task (script line 1)',
    );
  }, 60_000);
});

describeEachEngine('Python scripts in a web interface', (engine) => {
  let w: World;
  let host: WebInterfaceHost;
  beforeAll(async () => {
    w = await buildWorld(engine.store);
    host = new WebInterfaceHost(w.platform, { clock: () => NOW, random: () => 0.25 });
  }, 60_000);
  const render = async (template: string) => {
    await w.platform.webInterfaceTemplates.set(w.account, w.ids.reports, template);
    const exchange: Exchange & { webInterfaceId: number } = {
      accountId: w.account,
      caller: { accountId: w.account, user: { id: w.ids.admin, login: 'admin', isAdmin: true } },
      method: 'GET',
      path: `webinterface/${w.ids.reports}`,
      headers: {},
      query: {},
      body: undefined,
      webInterfaceId: w.ids.reports,
    };
    return host.render(exchange);
  };

  it('runs within the web interface’s restricted set of functions', async () => {
    const ok = await render(
      '<p>${get_date(0, "yyyy")} ${i18n("greeting", "Hi")}|' +
        py(
          'RMPData.setOutput(RMPUtilities.getDate(0, "yyyy") + " " + RMPApplication.i18n("greeting", "Hi"))',
        ) +
        '</p>',
    );
    expect([ok.status, ok.body]).toEqual([200, '<p>1970 Hello from Orders|1970 Hello from Orders</p>']);
    const refused = await render(py('RMPCollection.find({"a": 1}, "orders")'));
    expect(refused.status).toBe(500);
    expect(JSON.stringify(refused.body)).toContain(
      'RMPCollection.find: function list_objects is not available in a web interface (script line 1)',
    );
  }, 60_000);
});

describe('flowmark render (the built CLI)', () => {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  it('renders a template with a Python script', () => {
    if (!existsSync(`${root}dist/cli/main.js`))
      throw new Error('dist/ is missing: run `npm run build` (npm test does)');
    const template = [
      '<@script env="python">',
      '    import datetime',
      '    order = RMPData.getVariable("order")',
      '    RMPData.setOutput(RMPUtilities.jsonPut(order, "at", datetime.datetime(2024, 1, 15, 12, 0)))',
      '</@script>',
      '',
    ].join('\n');
    const r = spawnSync(
      process.execPath,
      [`${root}bin/flowmark.js`, 'render', '-', '--data', '{"order": {"id": "A7"}}'],
      { input: template, encoding: 'utf8', cwd: root, timeout: 120_000 },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('{"id":"A7","at":"2024-01-15T12:00:00.000Z"}');
  }, 130_000);
});
