/**
 * The web-interface host on every engine: the template rendered with only the functions of spec
 * 2.1 (plus P_quoted and i18n), modes, contexts and lanes.
 */
import { beforeAll, expect, it } from 'vitest';
import { WebInterfaceHost, type Exchange } from '../../src/hosts/index.js';
import { defaultRegistry } from '../../src/functions/registry.js';
import { describeEachEngine } from '../support/engines.js';
import { SPEC_2_1_WEB_INTERFACE, WEB_INTERFACE_EXTRAS } from '../support/spec.js';
import { buildWorld, NOW, type World } from '../platform/world.js';

/** Spec 2.1, plus P_quoted and i18n (the platform's web-interface code uses them). */
const WEB_INTERFACE_FUNCTIONS = [...SPEC_2_1_WEB_INTERFACE, ...WEB_INTERFACE_EXTRAS];

describeEachEngine('web interface host', (engine) => {
  let w: World;
  let host: WebInterfaceHost;
  beforeAll(async () => {
    w = await buildWorld(engine.store);
    host = new WebInterfaceHost(w.platform, { clock: () => NOW, random: () => 0.25 });
    await w.platform.webInterfaceTemplates.set(
      w.account,
      w.ids.orders,
      '<h1>${P_webinterface.title}</h1><p>${P_user.login} ${P_mode} ${P_context}</p>' +
        '<script>var hi = ${P_quoted(i18n("greeting", "Hi"))}; var d = "${get_date(0, "yyyy")}";' +
        ' var n = ${get_lanes()?size}; var id = "${P_query.id!}";</script>',
    );
  });
  const user = (name: 'ann' | 'admin' | 'dora') => ({
    accountId: w.account,
    user: { id: w.ids[name], login: name, isAdmin: name === 'admin' },
  });
  const open = (id: number, query: Record<string, string> = {}, caller = user('ann')) => {
    const exchange: Exchange & { webInterfaceId: number } = {
      accountId: w.account,
      caller,
      method: 'GET',
      path: `webinterface/${id}`,
      headers: {},
      query,
      body: undefined,
      webInterfaceId: id,
    };
    return host.render(exchange);
  };
  const withTemplate = async (template: string) => {
    await w.platform.webInterfaceTemplates.set(w.account, w.ids.reports, template);
    return open(w.ids.reports, {}, user('admin'));
  };

  it('renders the template server-side as the user, with P_context and the query', async () => {
    expect(await open(w.ids.orders, { id: '7' })).toEqual({
      status: 200,
      headers: {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      },
      body:
        '<h1>Orders</h1><p>ann LIVE web</p><script>var hi = \'Bonjour\'; var d = "1970";' +
        ' var n = 1; var id = "7";</script>',
    });
    const mobile = await open(w.ids.orders, { P_mode: 'ACCEPTANCE', P_context: 'mobile' });
    expect(mobile.body).toContain('<p>ann ACCEPTANCE mobile</p>');
  });

  it('refuses every function outside spec 2.1, P_quoted and i18n', async () => {
    const offered = defaultRegistry()
      .list()
      .filter((f) => f.flags?.webInterface)
      .map((f) => f.name)
      .sort();
    expect(offered).toEqual([...WEB_INTERFACE_FUNCTIONS].sort());
    for (const [call, name] of [
      ['list_objects({"a": 1}, "orders")', 'list_objects'],
      ['P_log("x")', 'P_log'],
      ['get_user_data("ann")', 'get_user_data'],
      ['set_status(500)', 'set_status'],
      ['uuid()', 'uuid'],
      ['get_next_url(1, false)', 'get_next_url'],
    ]) {
      const r = await withTemplate(`ok \${${call}}`);
      expect(r.status).toBe(500);
      expect(r.body).toEqual({
        status: 500,
        code: 'script-error',
        message: `function ${name} is not available in a web interface`,
        line: 1,
        column: 6,
      });
    }
    const allowed = await withTemplate('${encrypt("MD5", "a")} ${transpose([{"a": 1}])?size} ${now("yyyy")}');
    expect(allowed.body).toBe('0cc175b9c0f1b6a831c399e269772661 1 2023');
  });

  it('hides a failing template\u2019s details from users in LIVE, and logs them', async () => {
    await w.platform.webInterfaceTemplates.set(w.account, w.ids.orders, 'x ${uuid()}');
    expect(await open(w.ids.orders)).toEqual({
      status: 500,
      headers: {},
      body: {
        status: 500,
        code: 'script-error',
        message: "The web interface's script failed (see the account's log).",
      },
    });
    const [entry] = await w.platform.logs.list(w.account, { limit: 1 });
    expect(entry).toMatchObject({
      level: 'SEVERE',
      message: `web interface ${w.ids.orders}, line 1, column 5: function uuid is not available in a web interface`,
    });
  });

  it('checks the caller, the mode, the context and the lanes', async () => {
    const status = async (
      id: number,
      query: Record<string, string> = {},
      caller: ReturnType<typeof user> | null = user('ann'),
    ) => {
      const r = await open(id, query, caller as ReturnType<typeof user>);
      return [r.status, (r.body as { message?: string }).message];
    };
    expect(await status(w.ids.orders, {}, null)).toEqual([
      401,
      'Authentication required: log in or send an API token.',
    ]);
    expect(await status(999_999)).toEqual([404, 'Web interface not found.']);
    expect(await status(w.ids.mobileOnly)).toEqual([404, 'The web interface has no "web" context.']);
    expect(await status(w.ids.orders, { P_context: 'tablet' })).toEqual([
      404,
      'The web interface has no "tablet" context.',
    ]);
    expect(await status(w.ids.orders, { P_mode: 'SOMETIMES' })).toEqual([
      400,
      'P_mode must be LIVE, ACCEPTANCE or TEST, not "SOMETIMES"',
    ]);
    expect(await status(w.ids.orders, { P_mode: 'TEST' })).toEqual([
      403,
      'Only an administrator may open a web interface in TEST mode.',
    ]);
    expect(await status(w.ids.preview)).toEqual([404, 'The web interface is not published in LIVE mode.']);
    expect((await status(w.ids.preview, { P_mode: 'ACCEPTANCE' }))[0]).toBe(200);
    expect(await status(w.ids.restricted)).toEqual([
      403,
      'Only the users of its lanes may open this web interface.',
    ]);
    expect((await status(w.ids.restricted, {}, user('dora')))[0]).toBe(200);
    expect((await status(w.ids.restricted, {}, user('admin')))[0]).toBe(200);
  });

  it('defines P_language and P_connected_user: the connected user', async () => {
    const page = await withTemplate('${P_language} ${P_connected_user.login} ${P_urls.live} ${P_urls.host}');
    expect(page.body).toBe('en admin https://flow.example.com flow.example.com');
    await w.platform.webInterfaceTemplates.set(
      w.account,
      w.ids.orders,
      '${P_language}/${P_connected_user.name}',
    );
    expect((await open(w.ids.orders)).body).toBe('fr/Ann Smith');
    // The links real scripts build pass the language on: …/appli/395400?P_mode=${P_mode}&P_language=${P_language}
    expect((await open(w.ids.orders, { P_language: 'DE' })).body).toBe('de/Ann Smith');
    expect((await open(w.ids.orders, { P_language: '<x>' })).body).toBe('fr/Ann Smith');
  });

  it("translates i18n into the ?P_language= of the page, else the user's language", async () => {
    await w.platform.i18n.set(w.account, null, 'fr', { hello: 'Bonjour' });
    await w.platform.i18n.set(w.account, null, 'de', { hello: 'Hallo' });
    await w.platform.webInterfaceTemplates.set(w.account, w.ids.orders, '${i18n("hello", "Hello")}');
    expect((await open(w.ids.orders)).body).toBe('Bonjour');
    expect((await open(w.ids.orders, { P_language: 'DE' })).body).toBe('Hallo');
    expect((await open(w.ids.orders, { P_language: 'it' })).body).toBe('Hello');
    expect((await open(w.ids.orders, { P_language: '<x>' })).body).toBe('Bonjour');
  });
});
