/**
 * The manual task's HTML page (src/hosts/task-page.ts) against hostile input: the public URL's
 * token and the query reaching the redirect's Location only encoded; a data document with markup
 * in its names and values, huge values and many variables, bounded and escaped; nothing of the
 * request ever parsed as markup, and the page's CSP allowing no script.
 */
import { expect, it } from 'vitest';
import { createHosts } from '../../src/hosts/index.js';
import { evalHost } from '../../src/hosts/eval-host.js';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from '../server/support.js';

const HTML = { accept: 'text/html' };

describeEachEngine('the task page under hostile input', (engine) => {
  const server = useServer(engine, (platform) => ({
    hosts: { ...evalHost(platform), ...createHosts(platform, { routeCacheMs: 0 }) },
  }));
  const admin = () => server.acme.admin.token;

  async function start(name: string, steps: unknown[], data: Record<string, unknown> = {}): Promise<string> {
    const created = await call(server.url, 'POST', '/api/v1/processes', {
      token: admin(),
      body: { name, steps },
    });
    expect(created.status).toBe(201);
    const started = await call(server.url, 'POST', '/api/v1/requests', {
      token: admin(),
      body: { process: name, mode: 'TEST', data },
    });
    expect(started.body.status).toBe(102);
    return started.body.id as string;
  }

  it('keeps the public token in the redirect, and encodes what the query carries', async () => {
    const id = await start('public', [
      { id: 1, type: 'manual', fields: ['ok'], input: { link: '${get_task_url(true)}' } },
    ]);
    const task = await call(server.url, 'GET', `/live/acme/task/${id}/1/0`, { token: admin() });
    const token = new URL(task.body.data.link as string).searchParams.get('token')!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    const path = `/live/acme/task/${id}/1/0?token=${token}&P_context=${encodeURIComponent('x\r\nSet-Cookie: a=b"<')}`;
    const page = await call(server.url, 'GET', path, { headers: HTML });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<input id="f0" name="ok" type="text"></div>');
    const posted = await call(server.url, 'POST', path, {
      headers: { ...HTML, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'ok=%3Csvg%20onload%3Dalert(1)%3E',
    });
    expect(posted.status).toBe(303);
    expect(posted.headers.get('set-cookie')).toBeNull();
    expect(posted.headers.get('location')).toBe(
      `/live/acme/task/${id}/1/0?token=${token}&P_context=x%0D%0ASet-Cookie%3A+a%3Db%22%3C&submitted=1`,
    );
    const confirmation = await call(server.url, 'GET', posted.headers.get('location')!, { headers: HTML });
    expect(confirmation.body).toContain('<dt>ok</dt><dd>&#60;svg onload=alert(1)&#62;</dd>');
    expect(confirmation.body).not.toContain('<svg');
  });

  it('bounds and escapes a hostile data document', async () => {
    // The form's data are the step's input variables: markup, a 50,000-character value, 300 of them.
    const input: Record<string, string> = {
      big: '${big}',
      nested: '{"<b>": "</dd><script>"}',
    };
    for (let i = 0; i < 300; i++) input[`v${i}`] = `<i>${i}</i>`;
    const id = await start(
      'hostile',
      [{ id: 1, type: 'manual', name: '"><script>alert(1)</script>', input }],
      { big: 'x'.repeat(50_000) },
    );
    const page = await call(server.url, 'GET', `/live/acme/task/${id}/1/0`, {
      token: admin(),
      headers: HTML,
    });
    const html = page.body as string;
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(html).not.toMatch(/<script|<i>|<b>/);
    expect(html).toContain('<h1>&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;</h1>');
    expect(html).toContain(`<dd>${'x'.repeat(10_000)}…</dd>`);
    expect(html).not.toContain('x'.repeat(10_001));
    expect(html).toContain(
      '<dt>nested</dt><dd>{&#34;&#60;b&#62;&#34;:&#34;&#60;/dd&#62;&#60;script&#62;&#34;}</dd>',
    );
    // Any field allowed: a text box per variable of the data, at most 200.
    expect(html.match(/<input /g)).toHaveLength(200);
    expect(html.match(/<dt>/g)).toHaveLength(200);
    expect(html.length).toBeLessThan(60_000);
  });
});
