/**
 * The rights matrix of docs/platform.md ("Rights"): every function of the registry has a row
 * here, whose rule must be the one its declaration gives (a function added without a row, or
 * with another rule, fails the first test). The functions that read or change another user's,
 * a lane's, a project's or the account's data carry a probe; the probes run as the account's
 * administrator, a designer of the project, a plain user and an anonymous caller, through the
 * four surfaces of a real server — POST /api/v1/eval, a process step, a web interface and a
 * public composite API — and each outcome is compared with what the rule allows. The rights that
 * are (or depend on) the project's design right are held by the project's stored scripts — a
 * process step, a web interface, a composite API — whoever runs them (`designed`), never by eval.
 */
import { beforeAll, expect, it } from 'vitest';
import { createHosts } from '../../src/hosts/index.js';
import { isSpecWording } from '../../src/functions/errors.js';
import { defaultRegistry, type FunctionRights } from '../../src/functions/registry.js';
import { RIGHTS_MESSAGES } from '../../src/platform/index.js';
import { evalHost } from '../../src/hosts/eval-host.js';
import { describeEachEngine } from '../support/engines.js';
import { call, login, PASSWORD, useServer } from '../server/support.js';

type Role = 'admin' | 'designer' | 'user' | 'anonymous';
const ROLES: readonly Role[] = ['admin', 'designer', 'user', 'anonymous'];
type Surface = 'eval' | 'process' | 'web-interface' | 'composite';

/** Ids the probes name, known once the account is set up. */
interface Ids {
  lane: number;
  runtimeLane: number;
  pool: number;
  request: string;
}

interface Row {
  rule: FunctionRights;
  /** A template expression calling the function; none for computation and the evaluation's own state. */
  probe?: (ids: Ids) => string;
  /** `argument` rules, and rules whose probe names another user: the roles allowed. */
  allowed?: readonly Role[];
  /** What a refused connected user gets (after `name: `), when the rule does not say it alone. */
  refusal?: string | ((ids: Ids) => string);
  /** What an anonymous caller gets, when it is not the refusal of a function needing a user. */
  anonymous?: string;
  /** The outcome of an allowed call, when it is not `ok` (the probe's own, non-rights error). */
  outcome?: (role: Role, surface: Surface) => string;
  /** The probe gives text to show after `ok` (a boolean as in/out). */
  show?: boolean;
  /**
   * The right is the project's design right (or depends on it): a script stored in the project —
   * a process step, a web interface, a composite API — holds it whoever runs it; eval does not.
   */
  designed?: true;
}

const ALL: readonly Role[] = ROLES;
const CONNECTED: readonly Role[] = ['admin', 'designer', 'user'];
const DESIGNERS: readonly Role[] = ['admin', 'designer'];
const ADMIN: readonly Role[] = ['admin'];

/** Computation only, or the evaluation's own state (its request, response, flow): anyone. */
const NONE: Row = { rule: 'none' };
/** The file and collection services check the user as for REST (their own suites test it). */
const SERVICE: Row = { rule: 'service' };

const ROWS: Record<string, Row> = {
  // Utilities: computation only.
  ...Object.fromEntries(
    defaultRegistry()
      .list()
      .filter((s) => s.group === 'Utilities')
      .map((s) => [s.name, NONE]),
  ),
  // Request
  get_access_url: { rule: 'none', probe: () => 'get_access_url(true)' },
  get_project_metadata: { rule: 'none', probe: () => 'get_project_metadata()' },
  get_request_info: {
    rule: 'argument',
    probe: (ids) => `get_request_info("${ids.request}")`,
    allowed: ADMIN,
    refusal: RIGHTS_MESSAGES.otherRequest,
    anonymous: RIGHTS_MESSAGES.otherRequest,
  },
  get_custom_list: { rule: 'none', probe: () => 'get_custom_list("matrix")' },
  save_custom_list: {
    rule: 'argument',
    probe: () => 'save_custom_list("matrix", [])',
    allowed: DESIGNERS,
    designed: true,
    refusal: RIGHTS_MESSAGES.customList('matrix'),
  },
  get_i18n: { rule: 'none', probe: () => 'get_i18n("k", "d")' },
  i18n: { rule: 'none', probe: () => 'i18n("k", "d")' },
  next_value: { rule: 'none', probe: () => 'next_value("matrix")' },
  P_add_user_to_lane: {
    rule: 'argument',
    probe: (ids) => `P_add_user_to_lane(${ids.runtimeLane}, "carl")`,
    allowed: DESIGNERS,
    designed: true,
    refusal: (ids) => RIGHTS_MESSAGES.laneMembership(ids.runtimeLane),
  },
  P_remove_user_from_lane: {
    rule: 'argument',
    probe: (ids) => `P_remove_user_from_lane(${ids.runtimeLane}, "carl")`,
    allowed: DESIGNERS,
    designed: true,
    refusal: (ids) => RIGHTS_MESSAGES.laneMembership(ids.runtimeLane),
  },
  P_load_project_vault: { rule: 'none', probe: () => 'P_load_project_vault()' },
  P_save_project_vault: {
    rule: 'design',
    probe: () => 'P_save_project_vault({"key": "v"})',
    designed: true,
  },
  P_delete_project_vault: { rule: 'design', probe: () => 'P_delete_project_vault()', designed: true },
  P_get_oauth2_token: { rule: 'none', probe: () => 'P_get_oauth2_token("svc")' },
  P_save_oauth2_token: { rule: 'user', probe: () => 'P_save_oauth2_token("svc", {"access_token": "t"})' },
  P_log: { rule: 'none', probe: () => 'P_log("matrix")' },
  send_process_message: {
    rule: 'user',
    probe: () => 'send_process_message("matrix")',
    outcome: () =>
      'send_process_message: No process starts on message "matrix": no stored process of the account has an enabled message start event of that name.',
  },
  R_lock: { rule: 'none', probe: () => 'R_lock("matrix", 0)' },
  R_unlock: { rule: 'none', probe: () => 'R_unlock("matrix")' },
  throw: NONE,
  get_next_url: NONE,
  get_task_url: NONE,
  inject_params: NONE,
  get_parent_params: NONE,
  P_set_request_status: NONE,
  // User
  get_applications: { rule: 'user', probe: () => 'get_applications()' },
  get_lanes: { rule: 'user', probe: () => 'get_lanes("carl")' },
  get_lane_users: { rule: 'user', probe: (ids) => `get_lane_users(${ids.pool}, ${ids.lane})` },
  get_lane_job_number: { rule: 'user', probe: (ids) => `get_lane_job_number(${ids.lane})` },
  has_right: {
    rule: 'none',
    probe: (ids) => `has_right("carl", ${ids.lane})?string("in", "out")`,
    show: true,
    outcome: (role) => (role === 'anonymous' ? 'ok out' : 'ok in'),
  },
  is_user_in_lane: {
    rule: 'none',
    probe: (ids) => `is_user_in_lane([${ids.lane}])?string("in", "out")`,
    show: true,
    outcome: () => 'ok out',
  },
  get_manager: {
    rule: 'user',
    probe: () => 'get_manager("carl")',
    outcome: () => 'No manager found.',
  },
  get_user_data: { rule: 'user', probe: () => 'get_user_data("carl")' },
  get_preferences: {
    rule: 'self-or-admin',
    probe: () => 'get_preferences("carl")',
    allowed: ADMIN,
    refusal: RIGHTS_MESSAGES.otherPreferences,
  },
  save_preferences: { rule: 'user', probe: () => 'save_preferences({"matrix": 1})' },
  get_user_metadata: { rule: 'user', probe: () => 'get_user_metadata("carl")' },
  save_user_metadata: { rule: 'admin', probe: () => 'save_user_metadata("carl", {"k": "v"})' },
  P_change_metadata: { rule: 'admin', probe: () => 'P_change_metadata("carl", "k", "v")' },
  P_change_preferences: {
    rule: 'self-or-admin',
    probe: () => 'P_change_preferences("carl", "k", "v")',
    allowed: ADMIN,
    refusal: RIGHTS_MESSAGES.otherPreferences,
  },
  unblock_user: { rule: 'admin', probe: () => 'unblock_user("bob")' },
  // Last: it changes the user the rest of the script runs as.
  impersonate: {
    rule: 'admin',
    probe: () => 'impersonate("carl")',
    refusal: 'Impersonification is not allowed for user.',
  },
  // File, and the file rights of Request
  ...Object.fromEntries(
    defaultRegistry()
      .list()
      .filter((s) => s.group === 'File' || /^R_(read|update)_file_/.test(s.name))
      .map((s) => [s.name, SERVICE]),
  ),
  // Application
  attach_file: SERVICE,
  detach_file: SERVICE,
  list_attached_file: SERVICE,
  get_history: {
    rule: 'user',
    probe: () => 'get_history()',
    outcome: (_role, surface) =>
      surface === 'process' ? 'ok' : 'get_history: there is no current request or application instance',
  },
  get_instance_info: {
    rule: 'user',
    probe: () => 'get_instance_info("nope")',
    outcome: () => 'get_instance_info: Application instance nope not found.',
  },
  // Collections: their service checks (test/functions/collections, docs/collections.md).
  ...Object.fromEntries(
    defaultRegistry()
      .list()
      .filter((s) => s.group === 'Collections')
      .map((s) => [s.name, SERVICE]),
  ),
  // Composite API: the evaluation's own response.
  set_status: NONE,
  P_custom_header: NONE,
};

/** What a role gets from a probe: `ok` (and the probe's text), or the error's first line. */
function expected(name: string, row: Row, role: Role, surface: Surface, ids: Ids): string {
  const allowedRoles =
    row.allowed ??
    {
      none: ALL,
      user: CONNECTED,
      'self-or-admin': CONNECTED,
      design: DESIGNERS,
      admin: ADMIN,
      argument: [],
      service: [],
    }[row.rule];
  if (allowedRoles.includes(role) || (row.designed && surface !== 'eval'))
    return row.outcome?.(role, surface) ?? 'ok';
  if (role === 'anonymous') return `${name}: ${row.anonymous ?? RIGHTS_MESSAGES.anonymous}`;
  const refusal =
    typeof row.refusal === 'function'
      ? row.refusal(ids)
      : (row.refusal ??
        (row.rule === 'design' ? RIGHTS_MESSAGES.design(designedProject) : RIGHTS_MESSAGES.admin));
  // A refusal in the spec's part-7 wording reads without the function's name (docs/functions.md, "Errors").
  return isSpecWording(refusal) ? refusal : `${name}: ${refusal}`;
}

let designedProject = 0;

/** One template running every probe; each writes `name|outcome` on its own line. */
function probeTemplate(names: string[], ids: Ids): string {
  return names
    .map((name) => {
      const row = ROWS[name]!;
      return (
        `<#attempt><#assign r = (${row.probe!(ids)})!"">${name}|ok${row.show ? ' ${r}' : ''}\n` +
        `<#recover>${name}|\${.error?keep_before("\\n")}\n</#attempt>`
      );
    })
    .join('');
}

function outcomes(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .filter((l) => l.includes('|'))
      .map((l) => [l.slice(0, l.indexOf('|')), l.slice(l.indexOf('|') + 1)]),
  );
}

it('has one row per function of the registry, with the rule its declaration gives', () => {
  const registry = defaultRegistry().list();
  for (const spec of registry) {
    expect(ROWS[spec.name], `${spec.name} has no row in the rights matrix`).toBeDefined();
    expect(ROWS[spec.name]!.rule, spec.name).toBe(spec.rights);
  }
  expect(Object.keys(ROWS).sort()).toEqual(registry.map((s) => s.name).sort());
  // Every rule that protects data has a probe.
  for (const [name, row] of Object.entries(ROWS))
    if (row.rule !== 'none' && row.rule !== 'service') expect(row.probe, name).toBeDefined();
  // The design right is held by the project's stored scripts: every design row says so.
  for (const [name, row] of Object.entries(ROWS))
    if (row.rule === 'design')
      expect(row.designed, `${name}: a design row has the stored-script column`).toBe(true);
});

describeEachEngine('rights matrix', (engine) => {
  const server = useServer(engine, (platform) => ({
    hosts: { ...evalHost(platform), ...createHosts(platform, { routeCacheMs: 0, contextCacheMs: 0 }) },
  }));
  const tokens = {} as Record<Exclude<Role, 'anonymous'>, string>;
  let ids: Ids;
  let webInterface = 0;
  const probed = Object.keys(ROWS).filter((n) => ROWS[n]!.probe);
  // impersonate last: it changes the user of what follows.
  const ordered = [...probed.filter((n) => n !== 'impersonate'), 'impersonate'];
  const inWebInterface = ordered.filter((n) => defaultRegistry().get(n)!.flags?.webInterface);

  beforeAll(async () => {
    const { platform } = server;
    const account = 'acme';
    const { users, lanes } = platform.directory;
    const dana = await users.create(account, { login: 'dana', password: PASSWORD });
    const carl = await users.create(account, { login: 'carl' });
    await users.create(account, { login: 'bob', status: 'blocked' });
    const pool = await lanes.createPool(account, { name: 'Matrix' });
    const lane = await lanes.createLane(account, pool.id, { name: 'Members' });
    const runtimeLane = await lanes.createLane(account, pool.id, { name: 'On call', runtime: true });
    await lanes.addMember(account, lane.id, 'LIVE', carl.id);
    const project = await platform.projects.create(account, { title: 'Matrix' });
    designedProject = project.id;
    await platform.projects.attachPool(account, project.id, pool.id);
    await platform.projects.addVersion(account, project.id, { name: '1', mode: 'LIVE' });
    await platform.rights.grantDesign(account, project.id, dana.id);
    await platform.customLists.create(account, { id: 'matrix', name: 'Matrix', projectId: project.id });
    const request = await platform.requests.create(account, {
      projectId: project.id,
      mode: 'LIVE',
      initiatorId: server.acme.admin.id,
    });
    ids = { lane: lane.id, runtimeLane: runtimeLane.id, pool: pool.id, request: request.id };
    tokens.admin = server.acme.admin.token;
    tokens.user = server.acme.user.token;
    const cookie = await login(server.url, account, 'dana');
    tokens.designer = (
      await call(server.url, 'POST', '/api/v1/tokens', { cookie, body: { name: 'm' } })
    ).body.token;

    const admin = tokens.admin;
    const template = probeTemplate(ordered, ids);
    const created = await call(server.url, 'POST', '/api/v1/composite-apis', {
      token: admin,
      body: { method: 'GET', path: 'matrix', template, isPublic: true, projectId: project.id, mode: 'LIVE' },
    });
    expect(created.status).toBe(201);
    const definition = await call(server.url, 'POST', '/api/v1/processes', {
      token: admin,
      body: { name: 'matrix', project: project.id, steps: [{ id: 1, input: { out: template } }] },
    });
    expect(definition.status).toBe(201);
    webInterface = (await platform.webInterfaces.create(account, project.id, { title: 'Matrix' })).id;
    const page = await call(server.url, 'PUT', `/api/v1/web-interfaces/${webInterface}/template`, {
      token: admin,
      body: { template: probeTemplate(inWebInterface, ids) },
    });
    expect(page.status).toBe(200);
  });

  /** The probes' outcomes for a role on a surface, or the HTTP refusal of the surface itself. */
  async function run(surface: Surface, role: Role): Promise<Record<string, string> | { status: number }> {
    const token = role === 'anonymous' ? undefined : tokens[role];
    if (surface === 'eval') {
      const r = await call(server.url, 'POST', '/api/v1/eval', {
        token,
        body: { template: probeTemplate(ordered, ids), mode: 'LIVE', projectId: designedProject },
      });
      if (r.status !== 200) return { status: r.status, ...r.body };
      expect(r.body.error).toBeUndefined();
      return outcomes(r.body.output);
    }
    if (surface === 'process') {
      const r = await call(server.url, 'POST', '/api/v1/requests', {
        token,
        body: { process: 'matrix', mode: 'LIVE' },
      });
      if (r.status !== 201) return { status: r.status };
      expect(r.body.status).toBe(201);
      return outcomes(String(r.body.data.out));
    }
    const path =
      surface === 'composite' ? '/live/acme/composite/matrix' : `/live/acme/webinterface/${webInterface}`;
    const r = await call(server.url, 'GET', path, { token });
    if (r.status !== 200) return { status: r.status };
    return outcomes(String(r.body));
  }

  const SURFACES: readonly Surface[] = ['eval', 'process', 'web-interface', 'composite'];
  for (const surface of SURFACES) {
    for (const role of ROLES) {
      it(`${surface} as ${role === 'user' ? 'a plain user' : role === 'anonymous' ? 'an anonymous caller' : `the ${role}`}`, async () => {
        const got = await run(surface, role);
        // The surfaces' own gates: eval needs the design right; only composite APIs are public.
        if (surface === 'eval' && role === 'user') {
          expect(got).toEqual({
            status: 403,
            code: 'forbidden',
            message: RIGHTS_MESSAGES.evaluate(designedProject),
          });
          return;
        }
        if (role === 'anonymous' && surface !== 'composite') {
          expect(got).toEqual({
            status: 401,
            ...(surface === 'eval' ? { code: 'unauthenticated', message: expect.any(String) } : {}),
          });
          return;
        }
        const names = surface === 'web-interface' ? inWebInterface : ordered;
        const want = Object.fromEntries(names.map((n) => [n, expected(n, ROWS[n]!, role, surface, ids)]));
        expect(got).toEqual(want);
      });
    }
  }
});
