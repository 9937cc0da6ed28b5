/**
 * Issue 14's examples, each tried again on the demo account (`flowmark seed --demo`) through a
 * real server: ann (a plain user) and dora (designer of the demo project) try through
 * POST /api/v1/eval what the REST routes refuse them, and an anonymous caller tries through a
 * public composite API. Every attempt fails to escalate, and the REST route and the function
 * give the same answer.
 */
import { beforeAll, expect, it } from 'vitest';
import { createHosts } from '../../src/hosts/index.js';
import { seedDemo, type DemoSummary } from '../../src/platform/demo.js';
import { RIGHTS_MESSAGES } from '../../src/platform/index.js';
import { evalHost } from '../../src/hosts/eval-host.js';
import { describeEachEngine } from '../support/engines.js';
import { call, login, PASSWORD, useServer } from '../server/support.js';

describeEachEngine('no escalation through templates', (engine) => {
  const server = useServer(engine, (platform) => ({
    hosts: { ...evalHost(platform), ...createHosts(platform, { routeCacheMs: 0, contextCacheMs: 0 }) },
  }));
  let demo: DemoSummary;
  const tokens: Record<'admin' | 'ann' | 'dora', string> = { admin: '', ann: '', dora: '' };
  let board = 0;
  let clerks = 0;
  let project = 0;

  beforeAll(async () => {
    demo = await seedDemo(server.platform, { accountId: 'demo', password: PASSWORD });
    for (const who of ['admin', 'ann', 'dora'] as const) {
      const cookie = await login(server.url, 'demo', who);
      tokens[who] = (
        await call(server.url, 'POST', '/api/v1/tokens', { cookie, body: { name: 't' } })
      ).body.token;
    }
    board = demo.lanes.Board!;
    clerks = demo.lanes.Clerks!;
    project = demo.projectId;
  });

  const rest = (who: keyof typeof tokens, method: string, path: string, body?: unknown) =>
    call(server.url, method, `/api/v1${path}`, {
      token: tokens[who],
      ...(body !== undefined ? { body } : {}),
    });
  const evaluate = (who: keyof typeof tokens, template: string, extra: Record<string, unknown> = {}) =>
    rest(who, 'POST', '/eval', { template, mode: 'LIVE', projectId: project, ...extra });
  /** The first line of a template error (the function's message), or the output. */
  const outcome = (r: { body: { output: string; error?: { message: string } } }) =>
    r.body.error ? r.body.error.message.split('\n')[0] : r.body.output;
  const forbidden = (message: string) => ({ status: 403, code: 'forbidden', message });

  it('ann cannot put herself in the Board lane, so the file shared with it stays closed', async () => {
    const data = new FormData();
    data.append('file', new Blob(['minutes'], { type: 'text/plain' }), 'board.txt');
    const file = (await call(server.url, 'POST', '/api/v1/files', { token: tokens.admin, body: data })).body;
    await rest('admin', 'POST', `/files/${file.id}/rights`, {
      op: 'add',
      kind: 'lane',
      access: 'READ',
      principals: [board],
    });
    const download = () => rest('ann', 'GET', `/files/${file.id}/content`);
    expect((await download()).status).toBe(403);

    expect((await evaluate('ann', `\${P_add_user_to_lane(${board}, 'ann')}`)).body).toEqual(
      forbidden(RIGHTS_MESSAGES.evaluate(project)),
    );
    expect(
      (await evaluate('ann', `\${P_add_user_to_lane(${board}, 'ann')}`, { projectId: undefined })).body,
    ).toEqual(forbidden(RIGHTS_MESSAGES.evaluateWithoutProject));
    expect((await rest('ann', 'PUT', `/lanes/${board}/users/${demo.users.ann}`)).body).toEqual(
      forbidden(
        `Only an administrator of the account or a designer of a project using the pool of lane ${board} may change its users.`,
      ),
    );
    // A designer evaluates, but Board is no runtime lane: the platform's error, for her as for an administrator.
    expect(outcome(await evaluate('dora', `\${P_add_user_to_lane(${board}, 'ann')}`))).toBe(
      `P_add_user_to_lane: Lane ${board} is not a runtime lane.`,
    );
    expect(outcome(await evaluate('admin', `\${P_add_user_to_lane(${board}, 'ann')}`))).toBe(
      `P_add_user_to_lane: Lane ${board} is not a runtime lane.`,
    );
    expect(
      (await rest('ann', 'GET', `/users/${demo.users.ann}/lanes`)).body.items.map(
        (l: { id: number }) => l.id,
      ),
    ).not.toContain(board);
    expect((await download()).status).toBe(403);
  });

  it('unblock_user: administrators only, by REST as by template', async () => {
    expect((await evaluate('ann', "${unblock_user('bob')}")).body).toEqual(
      forbidden(RIGHTS_MESSAGES.evaluate(project)),
    );
    expect(outcome(await evaluate('dora', "${unblock_user('bob')}"))).toBe(
      'unblock_user: only an administrator of the account may call this function',
    );
    expect((await rest('dora', 'POST', '/users/bob/unblock')).body).toEqual(
      forbidden('Only an administrator of the account may call POST /api/v1/users/:ref/unblock.'),
    );
    expect((await rest('admin', 'GET', '/users/bob')).body.status).toBe('blocked');
  });

  it('P_remove_user_from_lane: only runtime lanes, by their designers or administrators', async () => {
    expect(
      (await evaluate('ann', `\${P_remove_user_from_lane(${clerks}, ${demo.users.carl})}`)).body,
    ).toEqual(forbidden(RIGHTS_MESSAGES.evaluate(project)));
    expect(
      outcome(await evaluate('dora', `\${P_remove_user_from_lane(${clerks}, ${demo.users.carl})}`)),
    ).toBe(`P_remove_user_from_lane: Lane ${clerks} is not a runtime lane.`);
    expect((await rest('dora', 'DELETE', `/lanes/${clerks}/users/${demo.users.carl}`)).body).toEqual(
      forbidden(
        `Only an administrator of the account or a designer of a project using the pool of lane ${clerks} may change its users.`,
      ),
    );
    // On the runtime lane of her project's pool, REST and template agree that she may.
    const onCall = demo.lanes['On call']!;
    expect((await rest('dora', 'PUT', `/lanes/${onCall}/users/${demo.users.carl}`)).body).toEqual({
      userIds: [demo.users.carl],
    });
    expect(outcome(await evaluate('dora', `\${P_remove_user_from_lane(${onCall}, 'carl')?size}`))).toBe('0');
    expect((await rest('ann', 'PUT', `/lanes/${onCall}/users/${demo.users.ann}`)).status).toBe(403);
    const members = await rest('admin', 'GET', `/lanes/${clerks}/users`);
    expect(members.body.items.map((u: { login: string }) => u.login)).toEqual(['ann', 'carl']);
  });

  it("save_custom_list: the list's designers and administrators, by REST as by template", async () => {
    expect((await evaluate('ann', "${save_custom_list('countries', [])?size}")).body).toEqual(
      forbidden(RIGHTS_MESSAGES.evaluate(project)),
    );
    expect((await rest('ann', 'PUT', '/custom-lists/countries/content', [])).body).toEqual(
      forbidden(
        'Only an administrator of the account or a designer of the project of custom list countries may change it.',
      ),
    );
    const atom = await call(server.url, 'PUT', '/config/demo/customlist/countries', {
      token: tokens.ann,
      body: '<entry xmlns="http://www.w3.org/2005/Atom"><id>countries</id></entry>',
      headers: { 'content-type': 'application/atom+xml' },
    });
    expect(atom.body).toEqual(
      forbidden(
        'Only an administrator of the account or a designer of the project of custom list countries may change it.',
      ),
    );
    expect((await rest('ann', 'GET', '/custom-lists/countries')).body.content).toHaveLength(3);
    // dora designs the list's project: both ways agree that she may.
    expect(outcome(await evaluate('dora', "${save_custom_list('countries', [{'value': 'FR'}])?size}"))).toBe(
      '1',
    );
    expect((await rest('dora', 'PUT', '/custom-lists/countries/content', [{ value: 'JP' }])).body).toEqual({
      content: [{ value: 'JP' }],
    });
  });

  it("another user's metadata and preferences: administrators only", async () => {
    for (const template of [
      "${P_change_metadata('admin', 'k', 'v')?size}",
      "${P_change_preferences('admin', 'theme', 'x')?size}",
      "${get_preferences('admin')?size}",
    ])
      expect((await evaluate('ann', template)).body).toEqual(forbidden(RIGHTS_MESSAGES.evaluate(project)));
    expect(outcome(await evaluate('dora', "${P_change_metadata('admin', 'k', 'v')?size}"))).toBe(
      'P_change_metadata: only an administrator of the account may call this function',
    );
    expect(outcome(await evaluate('dora', "${P_change_preferences('admin', 'theme', 'x')?size}"))).toBe(
      "P_change_preferences: only an administrator of the account may read or change another user's preferences",
    );
    expect(outcome(await evaluate('dora', "${get_preferences('admin')?size}"))).toBe(
      "get_preferences: only an administrator of the account may read or change another user's preferences",
    );
    expect(
      (await rest('dora', 'PATCH', `/users/${demo.users.admin}`, { metadata: { k: 'v' } })).body,
    ).toEqual(forbidden('Only an administrator of the account may change another user.'));
    expect(
      (await rest('dora', 'PATCH', `/users/${demo.users.admin}`, { preferences: { theme: 'x' } })).body,
    ).toEqual(forbidden('Only an administrator of the account may change another user.'));
    expect((await rest('dora', 'GET', '/users/admin')).body).not.toHaveProperty('preferences');
    // Her own preferences are hers; the metadata lane rules read is not.
    expect(outcome(await evaluate('dora', "${P_change_preferences('dora', 'theme', 'x').theme}"))).toBe('x');
    expect(outcome(await evaluate('dora', "${P_change_metadata('dora', 'k', 'v')?size}"))).toBe(
      'P_change_metadata: only an administrator of the account may call this function',
    );
    const admin = (await rest('admin', 'GET', '/users/admin')).body;
    expect(admin.metadata).toEqual({});
    expect(admin.preferences).toEqual({});
  });

  it('vaults: read and written only in a project one designs', async () => {
    const payroll = (await rest('admin', 'POST', '/projects', { title: 'Payroll' })).body.id as number;
    await server.platform.vaults.save('demo', payroll, 'LIVE', { apiKey: 'payroll-secret' });
    for (const projectId of [project, payroll])
      expect((await evaluate('ann', '${P_load_project_vault().apiKey}', { projectId })).body).toEqual(
        forbidden(RIGHTS_MESSAGES.evaluate(projectId)),
      );
    expect(
      (await evaluate('dora', "${P_save_project_vault({'apiKey': 'stolen'})?size}", { projectId: payroll }))
        .body,
    ).toEqual(forbidden(RIGHTS_MESSAGES.evaluate(payroll)));
    expect(await server.platform.vaults.load('demo', payroll, 'LIVE')).toEqual({ apiKey: 'payroll-secret' });
    // In the project she designs, dora manages the vault.
    expect(outcome(await evaluate('dora', '${P_load_project_vault().apiKey}'))).toBe('demo-live-key');
    expect(outcome(await evaluate('dora', "${P_save_project_vault({'apiKey': 'rotated'}).apiKey}"))).toBe(
      'rotated',
    );
  });

  it('evaluating as another user, or in a request of another project, is refused', async () => {
    expect((await evaluate('dora', '${P_user.login}', { user: 'admin' })).body).toEqual(
      forbidden(RIGHTS_MESSAGES.evaluateAs),
    );
    const payroll = (await rest('admin', 'POST', '/projects', { title: 'Payroll 2' })).body.id as number;
    const other = await server.platform.requests.create('demo', { projectId: payroll, mode: 'LIVE' });
    expect((await evaluate('dora', '${P_request.id}', { requestId: other.id })).body).toEqual(
      forbidden(RIGHTS_MESSAGES.evaluateInRequest(other.id)),
    );
    expect(outcome(await evaluate('dora', '${P_request.id}', { requestId: demo.requestId }))).toBe(
      demo.requestId,
    );
  });

  it("anonymous callers of a public composite API: no user, no rights of their own; has_right is false; the API's project authority over its runtime lanes stays its own", async () => {
    const created = await rest('admin', 'POST', '/composite-apis', {
      method: 'GET',
      path: 'open',
      isPublic: true,
      projectId: project,
      template:
        `<#attempt>\${unblock_user('bob')}<#recover>\${.error?keep_before("\\n")}</#attempt>;` +
        `<#attempt>\${P_add_user_to_lane(${demo.lanes['On call']}, 'ann')?size}<#recover>\${.error?keep_before("\\n")}</#attempt>;` +
        `\${has_right('carl', ${clerks})?c}`,
    });
    expect(created.status).toBe(201);
    const anonymous = await call(server.url, 'GET', '/live/demo/composite/open');
    // The composite API is stored in the project, whose pool has the runtime lane: it adds to it
    // whoever calls it (docs/platform.md, "Designed code acts with its project's authority"); an
    // administrator-only function stays refused.
    expect(anonymous.body).toBe(`unblock_user: ${RIGHTS_MESSAGES.anonymous};1;false`);
    const asAnn = await call(server.url, 'GET', '/live/demo/composite/open', { token: tokens.ann });
    expect(asAnn.body).toBe(
      'unblock_user: only an administrator of the account may call this function;1;true',
    );
    expect((await rest('admin', 'GET', '/users/bob')).body.status).toBe('blocked');
  });

  it('administrators grant and revoke the design right; only then may ann evaluate', async () => {
    const path = `/projects/${project}/designers`;
    expect((await rest('admin', 'GET', path)).body).toEqual({ userIds: [demo.users.dora] });
    expect((await rest('ann', 'GET', path)).status).toBe(403);
    expect((await rest('dora', 'PUT', `${path}/${demo.users.ann}`)).status).toBe(403);
    expect((await rest('admin', 'PUT', `${path}/${demo.users.ann}`)).body).toEqual({
      userIds: [demo.users.ann, demo.users.dora].sort((a, b) => a - b),
    });
    expect(outcome(await evaluate('ann', '${P_user.login}'))).toBe('ann');
    expect((await rest('admin', 'DELETE', `${path}/${demo.users.ann}`)).body).toEqual({
      userIds: [demo.users.dora],
    });
    expect((await evaluate('ann', '${P_user.login}')).body).toEqual(
      forbidden(RIGHTS_MESSAGES.evaluate(project)),
    );
    expect((await rest('admin', 'PUT', `/projects/987654/designers/${demo.users.ann}`)).body).toEqual({
      status: 404,
      code: 'not-found',
      message: 'Project not found.',
    });
  });
});
