/**
 * POST /api/v1/eval with the real evaluation (evalHost: contextFor + hosts/eval + the library):
 * output, variables, P_log entries, internal parameters of the caller, errors with their position.
 * ann (no administrator) designs one project of acme and evaluates in it; the refusals of the
 * design right are in test/security/eval-rights.test.ts.
 */
import { beforeAll, expect, it } from 'vitest';
import { evalHost } from '../../src/hosts/eval-host.js';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from './support.js';

describeEachEngine('server: eval endpoint', (engine) => {
  const server = useServer(engine, (platform) => ({ hosts: evalHost(platform) }));
  let designed = 0;
  beforeAll(async () => {
    const admin = server.acme.admin.token;
    const project = await call(server.url, 'POST', '/api/v1/projects', {
      token: admin,
      body: { title: 'Ann’s' },
    });
    designed = project.body.id as number;
    const granted = await call(
      server.url,
      'PUT',
      `/api/v1/projects/${designed}/designers/${server.acme.user.id}`,
      {
        token: admin,
      },
    );
    expect(granted.body).toEqual({ userIds: [server.acme.user.id] });
  });
  /** ann evaluates in the project she designs; the administrator anywhere. */
  const evaluate = (body: Record<string, unknown>, who: 'admin' | 'user' = 'user') =>
    call(server.url, 'POST', '/api/v1/eval', {
      token: server.acme[who].token,
      body: who === 'user' ? { projectId: designed, ...body } : body,
    });

  it('renders with data, reports the variables set and what P_log wrote', async () => {
    const r = await evaluate({
      template:
        '<#assign total = items?size * 10>${P_log("INFO", "counted " + items?size)}Hello ${name}: ${total}',
      data: { name: 'Ann', items: [1, 2, 3] },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      output: 'counted 3Hello Ann: 30',
      variables: { total: 30 },
      logs: [{ level: 'INFO', message: 'counted 3' }],
      response: { headers: {} },
    });
    const stored = await call(server.url, 'GET', '/api/v1/logs?limit=1', { token: server.acme.admin.token });
    expect(stored.body.items[0]).toMatchObject({
      level: 'INFO',
      message: 'counted 3',
      userId: server.acme.user.id,
    });
  });

  it('runs as the caller, in the mode asked; an administrator may run as another user', async () => {
    const mine = await evaluate({ template: '${P_user.login} ${P_mode} ${P_customer}', mode: 'LIVE' });
    expect(mine.body.output).toBe('ann LIVE acme');
    const asAnn = await evaluate({ template: '${P_user.login}', user: 'ann' }, 'admin');
    expect(asAnn.body.output).toBe('ann');
    const unknown = await evaluate({ template: 'x', user: 'nobody' }, 'admin');
    expect(unknown.body).toEqual({
      status: 404,
      code: 'not-found',
      message: 'user nobody not found in account acme',
    });
  });

  it('reports a template error with its line and column', async () => {
    const parse = await evaluate({ template: 'line one\n<#if>' });
    expect(parse.status).toBe(200);
    expect(parse.body.output).toBe('');
    // As FreeMarker 2.3.31: "Syntax error in template … in line 2, column 2".
    expect(parse.body.error).toMatchObject({
      kind: 'ParseException',
      line: 2,
      column: 2,
      templateName: 'template',
    });
    const missing = await evaluate({ template: 'a\nb ${nope}' });
    expect(missing.body.error).toMatchObject({ kind: 'InvalidReferenceException', line: 2, column: 5 });
    expect(missing.body.error.message).toContain('nope');
    const failing = await evaluate({ template: '${throw("stop here")}' });
    expect(failing.body.error).toMatchObject({ line: 1, column: 3 });
    expect(failing.body.error.message).toContain('stop here');
  });

  it('keeps the account apart: project and request of another account are not found', async () => {
    const project = await call(server.url, 'POST', '/api/v1/projects', {
      token: server.globex.admin.token,
      body: { title: 'globex only' },
    });
    const r = await evaluate({ template: 'x', projectId: project.body.id }, 'admin');
    expect(r.body).toEqual({ status: 404, code: 'not-found', message: 'Project not found.' });
  });
});
