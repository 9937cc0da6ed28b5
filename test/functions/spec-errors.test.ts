/**
 * The errors of the spec's part 7 read exactly as the spec writes them wherever a script or its
 * caller sees them: `${.error}` in #recover (its first line; the rest is the error report, which
 * names the function: `==> count_objects(…)`), a composite API's 500 body, the P_message of a
 * failed request. On every engine (the state: collections, requests, lists, users, locks).
 * The contention wording (next_value, P_add_user_to_lane) is tested in test/platform/contention.test.ts.
 */
import { beforeAll, expect, it } from 'vitest';
import { isSpecWording, SPEC_WORDINGS } from '../../src/functions/errors.js';
import { CompositeHost, WebInterfaceHost, type Exchange } from '../../src/hosts/index.js';
import { evaluate } from '../../src/hosts/evaluate.js';
import { MESSAGES } from '../../src/platform/index.js';
import { describeEachEngine } from '../support/engines.js';
import { contextIn, NOW } from '../platform/world.js';
import { hostWorld, type HostWorld } from '../hosts/support.js';

interface Case {
  /** The template expression that fails. */
  expr: string;
  /** The function named in the error report. */
  fn: string;
  message: string;
  /** Who runs it (default the administrator). */
  as?: 'admin' | 'ann';
}

const CASES: Case[] = [
  {
    fn: 'aggregate_collection',
    expr: 'aggregate_collection("c", "{not json")',
    message: 'Invalid pipeline at position 1.',
  },
  {
    fn: 'count_objects',
    expr: 'count_objects({}, "c")',
    message: 'Cannot count objects with an empty condition.',
  },
  { fn: 'import_objects', expr: 'import_objects("nope", "c")', message: "Uploaded file nope doesn't exist." },
  {
    fn: 'list_objects',
    expr: 'list_objects({"a": 1}, "c", -1)',
    message: 'Unable to parse skip index or limit value.',
  },
  {
    fn: 'list_objects',
    expr: 'list_objects({}, "c")',
    message: 'Cannot list objects with an empty condition.',
  },
  {
    fn: 'load_object',
    expr: 'load_object({}, "c")',
    message: 'Cannot load an object with an empty condition.',
  },
  {
    fn: 'remove_objects',
    expr: 'remove_objects({}, "c")',
    message: 'Cannot remove objects with an empty condition.',
  },
  {
    fn: 'update_field',
    expr: 'update_field({}, {"a": 1}, "c")',
    message: 'Cannot update objects fields with an empty condition.',
  },
  {
    fn: 'update_objects',
    expr: 'update_objects({}, {"a": 1}, "c")',
    message: 'Cannot update objects with an empty condition.',
  },
  {
    fn: 'update_objects',
    expr: 'update_objects({"a": 1}, "undefinedVariable", "c")',
    message: 'Cannot update objects with a null object.',
  },
  { fn: 'get_project_metadata', expr: 'get_project_metadata(987654)', message: 'Project not found.' },
  { fn: 'get_request_info', expr: 'get_request_info("nope")', message: 'Request not found.' },
  { fn: 'R_lock', expr: 'R_lock("held", 0)', message: 'Timeout exception' },
  { fn: 'save_custom_list', expr: 'save_custom_list("nope", [])', message: 'Custom list not found.' },
  { fn: 'throw', expr: 'throw("Order 42 is invalid.")', message: 'Order 42 is invalid.' },
  { fn: 'get_manager', expr: 'get_manager("admin")', message: 'No manager found.' },
  {
    fn: 'impersonate',
    expr: 'impersonate("carl")',
    message: 'Impersonification is not allowed for user.',
    as: 'ann',
  },
  { fn: 'P_change_metadata', expr: 'P_change_metadata("carl", "a", "{bad")', message: 'Malformed Object' },
  { fn: 'P_change_metadata', expr: 'P_change_metadata("carl", "", "")', message: 'Expected value' },
  {
    fn: 'P_change_preferences',
    expr: 'P_change_preferences("carl", "a.b", "1")',
    message: 'CastClassException',
  },
  { fn: 'unblock_user', expr: 'unblock_user("nobody")', message: 'Unable to retrieve user.' },
];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

it('lists every wording of the spec part 7 and the platform uses the same text', () => {
  for (const c of CASES.filter((c) => c.fn !== 'throw'))
    expect(isSpecWording(c.message), c.message).toBe(true);
  const tested = new Set(CASES.map((c) => c.message));
  const untested = SPEC_WORDINGS.filter((m) => !tested.has(m));
  // contention: test/platform/contention.test.ts
  expect(untested).toEqual([MESSAGES.contention]);
  for (const m of Object.values(MESSAGES).filter((m) => SPEC_WORDINGS.includes(m)))
    expect(isSpecWording(m)).toBe(true);
  // A message beyond the spec keeps the function's name, and so does an argument error.
  expect(isSpecWording('Lane not found.')).toBe(false);
  expect(isSpecWording('Invalid pipeline at position x.')).toBe(false);
});

describeEachEngine('the spec part 7 errors as scripts and callers read them', (engine) => {
  let w: HostWorld;
  let composite: CompositeHost;
  beforeAll(async () => {
    w = await hostWorld(engine.store);
    composite = new CompositeHost(w.platform, { clock: () => NOW });
    // A change of P_change_preferences at a.b goes through a number: CastClassException.
    await w.platform.directory.users.update(w.account, w.ids.carl, { preferences: { a: 1 } });
    // R_lock("held") waits for a lock another evaluation holds.
    const holder = await contextIn(w, { user: 'admin' });
    expect((await evaluate("${R_lock('held')}", holder)).output).toBe('held');
    for (const [i, c] of CASES.entries())
      await w.platform.compositeApis.create(w.account, {
        method: 'GET',
        path: `fails/${i}`,
        isPublic: true,
        mode: 'TEST',
        template: `first line\n\${${c.expr}}`,
      });
  });
  const caller = (name: 'admin' | 'ann') => ({
    accountId: w.account,
    user: { id: w.ids[name], login: name, isAdmin: name === 'admin' },
  });

  it('in ${.error} of #recover: the wording is the message, the report names the function', async () => {
    for (const c of CASES) {
      const ctx = await contextIn(w, { user: c.as ?? 'admin' });
      const source = `<#attempt>\${${c.expr}}<#recover>\${.error}</#attempt>`;
      const error = (await evaluate(source, ctx)).output;
      expect(error.split('\n')[0], c.expr).toBe(c.message);
      expect(error, c.expr).toContain(`\n==> ${c.fn}(`);
      expect(error, c.expr).toContain(`Failed at: \${${c.fn}(`);
    }
  });

  it('in the 500 body of a composite API', async () => {
    for (const [i, c] of CASES.entries()) {
      const exchange: Exchange = {
        accountId: w.account,
        caller: caller(c.as ?? 'admin'),
        method: 'GET',
        path: `fails/${i}`,
        headers: {},
        query: {},
        body: undefined,
      };
      const answer = await composite.handle(exchange);
      expect(answer.status, c.expr).toBe(500);
      expect(answer.body, c.expr).toMatchObject({ code: 'script-error', message: c.message, line: 2 });
    }
    // The account's log keeps the function's name before the wording.
    const logged = await w.platform.logs.list(w.account, {});
    expect(logged.map((e) => e.message)).toContain(
      'composite API GET /fails/1, line 2, column 3: count_objects: Cannot count objects with an empty condition.',
    );
  });

  it('in the 500 body of a web interface', async () => {
    const host = new WebInterfaceHost(w.platform, { clock: () => NOW });
    await w.platform.webInterfaceTemplates.set(w.account, w.ids.reports, '<p>\n${get_lanes("nobody")}</p>');
    const answer = await host.render({
      accountId: w.account,
      caller: caller('admin'),
      method: 'GET',
      path: `webinterface/${w.ids.reports}`,
      headers: {},
      query: {},
      body: undefined,
      webInterfaceId: w.ids.reports,
    });
    expect({ status: answer.status, body: answer.body }).toMatchObject({
      status: 500,
      body: {
        code: 'script-error',
        message: 'Unable to retrieve user.',
        line: 2,
      },
    });
    // The account's log says which user.
    const logged = await w.platform.logs.list(w.account, {});
    expect(logged.map((e) => e.message)).toContain(
      `web interface ${w.ids.reports}, line 2, column 3: get_lanes: Unable to retrieve user. (user "nobody")`,
    );
  });

  it('in the P_message of a failed request', async () => {
    for (const c of CASES) {
      const view = await w.host.start(w.account, {
        definition: { name: 'fails', steps: [{ id: 1, script: `\${${c.expr}}` }] },
        data: {},
        user: c.as ?? 'admin',
        mode: 'LIVE',
      });
      expect(view.request.status, c.expr).toBe(301);
      expect(view.request.message, c.expr).toMatch(new RegExp(`, line 1, column 3: ${escape(c.message)}$`));
      // the request's log says why it was aborted
      const logged = await w.platform.logs.list(w.account, { requestId: view.request.id });
      expect(
        logged.map((e) => [e.level, e.message]),
        c.expr,
      ).toContainEqual(['SEVERE', `request aborted (301 ABORTED): ${view.request.message}`]);
    }
  });
});
