/**
 * A manual task's URL opened by a browser (`Accept: text/html`): a standalone HTML page with the
 * task's data and a form of its fields, escaped and under a CSP without script; the form posts
 * form fields back and is answered with a redirect to the page confirming it. JSON clients keep
 * JSON. A user outside the task's lane gets 403 in both forms; values carrying markup stay text.
 */
import { beforeAll, expect, it } from 'vitest';
import { createHosts } from '../../src/hosts/index.js';
import { TASK_PAGE_CSP } from '../../src/hosts/task-page.js';
import { evalHost } from '../../src/hosts/eval-host.js';
import { describeEachEngine } from '../support/engines.js';
import { call, login, useServer } from './support.js';

const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const FORM = { ...HTML, 'content-type': 'application/x-www-form-urlencoded' };

describeEachEngine('server: the task page', (engine) => {
  const server = useServer(engine, (platform) => ({
    hosts: { ...evalHost(platform), ...createHosts(platform, { routeCacheMs: 0 }) },
  }));
  const admin = () => server.acme.admin.token;
  let laneId = 0;

  beforeAll(async () => {
    const { lanes } = server.platform.directory;
    const pool = await lanes.createPool('acme', { name: 'Approvers' });
    laneId = (await lanes.createLane('acme', pool.id, { name: 'Managers' })).id;
    await lanes.addMember('acme', laneId, 'LIVE', server.acme.admin.id);
    const definition = {
      name: 'approval',
      steps: [
        {
          id: 1,
          type: 'manual',
          name: 'Approve <b>now</b>',
          lane: laneId,
          fields: ['decision', 'comment'],
          input: { comment: '${note}', amount: '${amount?c}' },
          output: { approved: '${(P_result.decision == "yes")?c}' },
        },
      ],
    };
    const created = await call(server.url, 'POST', '/api/v1/processes', { token: admin(), body: definition });
    expect(created.status).toBe(201);
  });

  async function start(note: string): Promise<string> {
    const started = await call(server.url, 'POST', '/api/v1/requests', {
      token: admin(),
      body: { process: 'approval', mode: 'LIVE', data: { note, amount: 12 } },
    });
    expect(started.body.status).toBe(102);
    return started.body.id as string;
  }

  it('serves the task as an escaped HTML form without script, and keeps JSON for JSON clients', async () => {
    const id = await start('<script>alert(1)</script>"\'&');
    const path = `/live/acme/task/${id}/1/0`;
    const page = await call(server.url, 'GET', path, { token: admin(), headers: HTML });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(TASK_PAGE_CSP);
    expect(TASK_PAGE_CSP).toContain("default-src 'none'");
    expect(TASK_PAGE_CSP).not.toContain('script-src');
    const html = page.body as string;
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<b>');
    expect(html).toContain('<title>Approve &#60;b&#62;now&#60;/b&#62; · flowmark</title>');
    expect(html).toContain('<dt>amount</dt><dd>12</dd>');
    expect(html).toContain('<form method="post" class="task-form"');
    expect(html).toContain(
      '<label for="f0">decision</label><input id="f0" name="decision" type="text"></div>',
    );
    expect(html).toContain(
      '<input id="f1" name="comment" type="text" value="&#60;script&#62;alert(1)&#60;/script&#62;&#34;&#39;&#38;">',
    );

    const json = await call(server.url, 'GET', path, {
      token: admin(),
      headers: { accept: 'application/json' },
    });
    expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(json.body).toMatchObject({
      stepId: 1,
      status: 'OPEN',
      fields: ['decision', 'comment'],
      data: { comment: '<script>alert(1)</script>"\'&', amount: 12 },
    });
    const any = await call(server.url, 'GET', path, { token: admin() });
    expect(any.body).toMatchObject({ stepId: 1, status: 'OPEN' });
  });

  it('tells after a submission that the request then ended in error, with its message', async () => {
    const definition = {
      name: 'approval then failure',
      steps: [
        { id: 1, type: 'manual', name: 'Approve', lane: laneId, fields: ['decision'] },
        { id: 2, name: 'Fail', script: '${missing_variable}' },
      ],
    };
    expect(
      (await call(server.url, 'POST', '/api/v1/processes', { token: admin(), body: definition })).status,
    ).toBe(201);
    const started = await call(server.url, 'POST', '/api/v1/requests', {
      token: admin(),
      body: { process: 'approval then failure', mode: 'LIVE' },
    });
    expect(started.body.status).toBe(102);
    const path = `/live/acme/task/${started.body.id}/1/0`;
    const cookie = await login(server.url, 'acme', 'admin');
    const posted = await call(server.url, 'POST', path, {
      cookie,
      headers: { ...FORM, origin: server.url },
      body: 'decision=yes',
    });
    expect(posted.status).toBe(303);
    const html = (await call(server.url, 'GET', posted.headers.get('location')!, { cookie, headers: HTML }))
      .body as string;
    expect(html).toContain(
      '<p class="message error" role="alert">Thank you: the task was submitted, but the request then ended in error (301): step 2 (Fail)',
    );
    expect(html).not.toContain('message ok');
  });

  it('takes a form submission, redirects to the page and confirms it there', async () => {
    const id = await start('ok');
    const path = `/live/acme/task/${id}/1/0`;
    const cookie = await login(server.url, 'acme', 'admin');
    const posted = await call(server.url, 'POST', path, {
      cookie,
      headers: { ...FORM, origin: server.url },
      body: 'decision=yes&comment=%3Ci%3Efine%3C%2Fi%3E',
    });
    expect(posted.status).toBe(303);
    expect(posted.headers.get('location')).toBe(`/live/acme/task/${id}/1/0?submitted=1`);
    const confirmation = await call(server.url, 'GET', posted.headers.get('location')!, {
      cookie,
      headers: HTML,
    });
    expect(confirmation.status).toBe(200);
    const html = confirmation.body as string;
    // the page tells what the submission led to: here, the request's end
    expect(html).toContain(
      '<p class="message ok" role="status">Thank you: the task was submitted, and the request completed.</p>',
    );
    expect(html).toContain('<dt>comment</dt><dd>&#60;i&#62;fine&#60;/i&#62;</dd>');
    expect(html).not.toContain('<form');
    const request = await call(server.url, 'GET', `/api/v1/requests/${id}`, { token: admin() });
    expect(request.body).toMatchObject({
      status: 201,
      data: { decision: 'yes', comment: '<i>fine</i>', approved: true },
    });

    const again = await call(server.url, 'POST', path, { cookie, headers: FORM, body: 'decision=no' });
    expect(again.status).toBe(409);
    expect(again.body).toContain(
      '<p class="message error" role="alert">The task has already been submitted.</p>',
    );
    const refused = await call(server.url, 'POST', path, {
      cookie,
      headers: { ...FORM, origin: 'https://evil.example' },
      body: 'decision=no',
    });
    expect(refused.status).toBe(403);
  });

  it('refuses a user outside the lane with 403, as a page and as JSON', async () => {
    const id = await start('x');
    const path = `/live/acme/task/${id}/1/0`;
    const message = `Only a user of lane ${laneId} may open this task.`;
    const page = await call(server.url, 'GET', path, { token: server.acme.user.token, headers: HTML });
    expect(page.status).toBe(403);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.body).toContain(`<p class="message error" role="alert">${message}</p>`);
    expect(page.body).not.toContain('<form');
    const posted = await call(server.url, 'POST', path, {
      token: server.acme.user.token,
      headers: FORM,
      body: 'decision=yes',
    });
    expect(posted.status).toBe(403);
    const json = await call(server.url, 'GET', path, { token: server.acme.user.token });
    expect(json.body).toEqual({ status: 403, code: 'not-allowed', message });
    const anonymous = await call(server.url, 'GET', path, { headers: HTML });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toContain(
      'Authentication required: log in, send an API token, or use the public URL.',
    );
    const wrongToken = await call(server.url, 'GET', `${path}?token=nope`, { headers: HTML });
    expect(wrongToken.status).toBe(403);
    expect(wrongToken.body).toContain('The task token is not valid for this task.');
    const request = await call(server.url, 'GET', `/api/v1/requests/${id}`, { token: admin() });
    expect(request.body.status).toBe(102);
  });

  it('lists requests with their total and serves the statuses of the filter', async () => {
    const list = await call(server.url, 'GET', '/api/v1/requests?status=102&nb=1', { token: admin() });
    expect(list.body.items).toHaveLength(1);
    expect(list.body.total).toBe(2);
    const statuses = await call(server.url, 'GET', '/api/v1/request-statuses', { token: admin() });
    expect(statuses.body.items.map((s: { code: number; name: string }) => `${s.code} ${s.name}`)).toEqual([
      '101 ACTIVE',
      '102 WAITING',
      '201 COMPLETED',
      '301 ABORTED',
      '302 KILLED',
      '400 CANCELLED',
      '401 OUTDATED',
    ]);
  });

  it('offers an anonymous visitor a login link that comes back to the task', async () => {
    const id = await start('log in first');
    const path = `/live/acme/task/${id}/1/0?P_context=mail`;
    const anonymous = await call(server.url, 'GET', path, { headers: HTML });
    expect(anonymous.status).toBe(401);
    const back = encodeURIComponent(path);
    expect(anonymous.body).toContain(
      '<p class="message error" role="alert">Authentication required: log in, send an API token, or use the public URL.</p>' +
        `<p><a class="button" href="/console/?account=acme&#38;return=${back}">Log in to open this task</a></p>`,
    );
    // a JSON client keeps its 401 body; a POST is not sent to log in
    expect((await call(server.url, 'GET', path)).body).toMatchObject({
      status: 401,
      code: 'unauthenticated',
    });
    const posted = await call(server.url, 'POST', path, { headers: FORM, body: 'decision=yes' });
    expect(posted.status).toBe(401);
    expect(posted.body).not.toContain('Log in to open this task');
    // the console's login gives a session cookie, with which the task opens
    const cookie = await login(server.url, 'acme', 'admin');
    const page = await call(server.url, 'GET', path, { cookie, headers: HTML });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<form');
  });
});
