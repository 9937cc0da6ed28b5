/**
 * History and rollback (docs/deploy.md) over REST on both engines: every save of a composite API,
 * a process definition (JSON and BPMN), a web interface template and a custom list keeps a
 * version; versions are listed newest first and paged; a restore saves a version again (the
 * caller's save, audited); a request keeps the definition version it started with, and its run
 * row references that version instead of copying the definition.
 */
import { expect, it } from 'vitest';
import { createHosts } from '../../src/hosts/index.js';
import { evalHost } from '../../src/hosts/eval-host.js';
import { sql } from '../../src/store/index.js';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from './support.js';

describeEachEngine('server: versions of designed artefacts', (engine) => {
  const server = useServer(engine, (platform) => ({
    hosts: { ...evalHost(platform), ...createHosts(platform, { routeCacheMs: 0 }) },
  }));
  const as = (who: 'admin' | 'user', account: 'acme' | 'globex' = 'acme') => server[account][who].token;
  const send = (method: string, path: string, body?: unknown, token = as('admin')) =>
    call(server.url, method, path, { token, body });
  const api = (template: string) => ({ method: 'GET', path: 'versioned', template, isPublic: true });

  it('restores a previous composite API version, which the API then answers', async () => {
    const created = await send('POST', '/api/v1/composite-apis', api('first answer'));
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    expect((await send('PUT', `/api/v1/composite-apis/${id}`, api('second answer'))).status).toBe(200);
    // a save of the same body keeps no new version
    expect((await send('PUT', `/api/v1/composite-apis/${id}`, api('second answer'))).status).toBe(200);
    expect((await call(server.url, 'GET', '/live/acme/composite/versioned')).body).toBe('second answer');

    const listed = await send('GET', `/api/v1/composite-apis/${id}/versions`);
    expect(listed.status).toBe(200);
    const author = { id: server.acme.admin.id, login: 'admin' };
    expect(listed.body.items.map((v: { version: number; author: unknown }) => [v.version, v.author])).toEqual(
      [
        [2, author],
        [1, author],
      ],
    );
    expect(typeof listed.body.items[0].createdAt).toBe('number');
    expect(listed.body.next).toBeUndefined();

    const first = await send('GET', `/api/v1/composite-apis/${id}/versions/1`);
    expect(first.body).toMatchObject({
      version: 1,
      author,
      body: {
        method: 'GET',
        path: 'versioned',
        template: 'first answer',
        process: null,
        projectId: null,
        mode: 'LIVE',
        isPublic: true,
        description: '',
      },
    });

    const restored = await send('POST', `/api/v1/composite-apis/${id}/versions/1/restore`);
    expect([restored.status, restored.body.id, restored.body.template]).toEqual([200, id, 'first answer']);
    expect((await call(server.url, 'GET', '/live/acme/composite/versioned')).body).toBe('first answer');
    const after = await send('GET', `/api/v1/composite-apis/${id}/versions?limit=1`);
    expect(after.body).toEqual({
      items: [{ version: 3, author, createdAt: after.body.items[0].createdAt }],
      next: 3,
    });
    // the restore is recorded in the audit log as the save it made, once
    const audit = await send('GET', `/api/v1/audit?kind=composite-apis&target=${id}&limit=1`);
    expect(audit.body.items[0]).toMatchObject({
      method: 'PUT',
      path: `/api/v1/composite-apis/${id}`,
      before: { template: 'second answer' },
      after: { template: 'first answer' },
    });
    expect((await send('GET', `/api/v1/audit?kind=composite-apis&target=${id}`)).body.items).toHaveLength(4);

    const missing = await send('GET', `/api/v1/composite-apis/${id}/versions/9`);
    expect([missing.status, missing.body.message]).toEqual([
      404,
      `Version 9 of composite API ${id} not found.`,
    ]);
    const none = await send('GET', '/api/v1/composite-apis/999999/versions');
    expect([none.status, none.body.message]).toEqual([404, 'Composite API 999999 has no versions.']);
    // another account sees none of it
    const foreign = await send(
      'GET',
      `/api/v1/composite-apis/${id}/versions/1`,
      undefined,
      as('admin', 'globex'),
    );
    expect(foreign.status).toBe(404);
  });

  it('pages versions newest first by `before`', async () => {
    const id = (await send('POST', '/api/v1/composite-apis', { ...api('v1'), path: 'paged' })).body
      .id as number;
    for (const n of [2, 3, 4, 5])
      expect(
        (await send('PUT', `/api/v1/composite-apis/${id}`, { ...api(`v${n}`), path: 'paged' })).status,
      ).toBe(200);
    const numbers = (body: { items: Array<{ version: number }> }) => body.items.map((v) => v.version);
    const page1 = (await send('GET', `/api/v1/composite-apis/${id}/versions?limit=2`)).body;
    expect([numbers(page1), page1.next]).toEqual([[5, 4], 4]);
    const page2 = (await send('GET', `/api/v1/composite-apis/${id}/versions?limit=2&before=${page1.next}`))
      .body;
    expect([numbers(page2), page2.next]).toEqual([[3, 2], 2]);
    const page3 = (await send('GET', `/api/v1/composite-apis/${id}/versions?limit=2&before=${page2.next}`))
      .body;
    expect([numbers(page3), page3.next]).toEqual([[1], undefined]);
    const tooMany = await send('GET', `/api/v1/composite-apis/${id}/versions?limit=201`);
    expect(tooMany.status).toBe(400);
  });

  it('refuses a plain user with the exact message of the artefact routes', async () => {
    const id = (await send('POST', '/api/v1/composite-apis', { ...api('x'), path: 'guarded' })).body
      .id as number;
    const list = await send('GET', `/api/v1/composite-apis/${id}/versions`, undefined, as('user'));
    expect([list.status, list.body.message]).toEqual([
      403,
      'Only an administrator of the account may call GET /api/v1/composite-apis/:id/versions.',
    ]);
    const restore = await send(
      'POST',
      `/api/v1/composite-apis/${id}/versions/1/restore`,
      undefined,
      as('user'),
    );
    expect([restore.status, restore.body.message]).toEqual([
      403,
      'Only an administrator of the account may call POST /api/v1/composite-apis/:id/versions/:version/restore.',
    ]);
    const process = await send('GET', '/api/v1/processes/1/versions', undefined, as('user'));
    expect([process.status, process.body.message]).toEqual([
      403,
      'Only an administrator of the account may call GET /api/v1/processes/:id/versions.',
    ]);

    // a custom list: everyone reads its versions; restoring it is saving it, which a plain user may not
    const list2 = await send('POST', '/api/v1/custom-lists', {
      id: 'colours',
      name: 'Colours',
      content: ['red'],
    });
    expect(list2.status).toBe(201);
    expect((await send('PUT', '/api/v1/custom-lists/colours/content', ['red', 'green'])).status).toBe(200);
    const read = await send('GET', '/api/v1/custom-lists/colours/versions', undefined, as('user'));
    expect(read.body.items.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    expect(
      (await send('GET', '/api/v1/custom-lists/colours/versions/1', undefined, as('user'))).body.body,
    ).toEqual(['red']);
    const refused = await send(
      'POST',
      '/api/v1/custom-lists/colours/versions/1/restore',
      undefined,
      as('user'),
    );
    expect([refused.status, refused.body.message]).toEqual([
      403,
      'Only an administrator of the account or a designer of the project of custom list colours may change it.',
    ]);
    const back = await send('POST', '/api/v1/custom-lists/colours/versions/1/restore');
    expect([back.status, back.body]).toEqual([200, { content: ['red'] }]);
  });

  it('versions a web interface template and restores it', async () => {
    const project = (await send('POST', '/api/v1/projects', { title: 'versioned' })).body.id as number;
    const wi = (await send('POST', `/api/v1/projects/${project}/web-interfaces`, { title: 'wi' })).body
      .id as number;
    for (const template of ['<p>1</p>', '<p>2</p>'])
      expect((await send('PUT', `/api/v1/web-interfaces/${wi}/template`, { template })).status).toBe(200);
    const listed = await send('GET', `/api/v1/web-interfaces/${wi}/template/versions`);
    expect(listed.body.items.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    const back = await send('POST', `/api/v1/web-interfaces/${wi}/template/versions/1/restore`);
    expect([back.status, back.body]).toEqual([200, { template: '<p>1</p>' }]);
    expect((await send('GET', `/api/v1/web-interfaces/${wi}/template`)).body.template).toBe('<p>1</p>');
  });

  it('a request started before a definition change finishes on its version; one started after runs the new', async () => {
    const definition = (label: string) => ({
      name: 'versioned-order',
      steps: [
        { id: 1, type: 'manual', name: 'Approve', fields: ['decision'] },
        { id: 2, type: 'script', name: 'Label', input: { label: `${label} \${P_result.decision!"none"}` } },
      ],
    });
    const stored = await send('POST', '/api/v1/processes', definition('old'));
    expect(stored.status).toBe(201);
    const id = stored.body.id as number;
    const start = async () => {
      const started = await send('POST', '/api/v1/requests', { process: 'versioned-order' }, as('user'));
      expect(started.status).toBe(201);
      return started.body.id as string;
    };
    const before = await start();
    expect((await send('PUT', `/api/v1/processes/${id}`, definition('new'))).status).toBe(200);
    const afterChange = await start();
    const submit = async (requestId: string) => {
      const submitted = await call(server.url, 'POST', `/live/acme/task/${requestId}/1/0`, {
        token: as('user'),
        body: { decision: 'yes' },
      });
      expect(submitted.status).toBe(200);
      return (await send('GET', `/api/v1/requests/${requestId}`, undefined, as('user'))).body;
    };
    expect(await submit(before)).toMatchObject({ status: 201, data: { decision: 'yes', label: 'old yes' } });
    expect(await submit(afterChange)).toMatchObject({
      status: 201,
      data: { decision: 'yes', label: 'new yes' },
    });

    // the run rows reference the versions: no copy of the definition in them
    const rows = await engine.store.all<Record<string, unknown>>(
      sql`SELECT * FROM process_runs WHERE account_id = ${'acme'} AND request_id IN (${before}, ${afterChange}) ORDER BY request_id`,
    );
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(Object.keys(row)).not.toContain('definition');
      expect(JSON.stringify(row)).not.toContain('versioned-order');
    }
    const versionOf = await engine.store.all<{ request_id: string; version: number | string }>(sql`
      SELECT r.request_id, v.version FROM process_runs r JOIN artefact_versions v ON v.id = r.definition_version_id
      WHERE r.account_id = ${'acme'} AND r.request_id IN (${before}, ${afterChange})`);
    const versions = new Map(versionOf.map((r) => [r.request_id, Number(r.version)]));
    expect([versions.get(before), versions.get(afterChange)]).toEqual([1, 2]);

    // the request list still names the process of each request
    const run = await send('GET', `/api/v1/requests/${before}/run`, undefined, as('user'));
    expect(run.body.process).toBe('versioned-order');

    // and the definition's history restores the first
    const restored = await send('POST', `/api/v1/processes/${id}/versions/1/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body.definition).toEqual(stored.body.definition);
    expect(JSON.stringify(restored.body.definition)).toContain('old ${P_result.decision');
  });

  it('an inline definition is kept once per content, and restores of a BPMN definition keep its document', async () => {
    // a stored parent whose sub-process is given inline: each request's child runs the inline definition
    const parent = {
      name: 'inline-parent',
      steps: [
        {
          id: 1,
          type: 'subprocess',
          wait: true,
          process: { name: 'inline-once', steps: [{ id: 1, type: 'manual' }] },
        },
      ],
    };
    expect((await send('POST', '/api/v1/processes', parent)).status).toBe(201);
    for (let i = 0; i < 3; i++)
      expect((await send('POST', '/api/v1/requests', { process: 'inline-parent' }, as('user'))).status).toBe(
        201,
      );
    const kept = await engine.store.all<{ n: number | string }>(sql`
      SELECT COUNT(DISTINCT r.definition_version_id) AS n FROM process_runs r
      JOIN artefact_versions v ON v.id = r.definition_version_id
      WHERE r.account_id = ${'acme'} AND v.kind = ${'request-definition'}`);
    expect(Number(kept[0]!.n)).toBe(1);
    const children = await engine.store.all<{ n: number | string }>(sql`
      SELECT COUNT(*) AS n FROM process_runs WHERE account_id = ${'acme'} AND depth = ${1}`);
    expect(Number(children[0]!.n)).toBe(3);

    const bpmn = (name: string) => `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="http://flowmark.dev/test">
  <bpmn:process id="${name}" name="${name}" isExecutable="true">
    <bpmn:startEvent id="start"/>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="end"/>
    <bpmn:endEvent id="end"/>
  </bpmn:process>
</bpmn:definitions>`;
    const post = await call(server.url, 'POST', '/api/v1/processes', {
      token: as('admin'),
      body: bpmn('drawn'),
      headers: { 'content-type': 'application/xml' },
    });
    expect(post.status).toBe(201);
    const id = post.body.id as number;
    const put = await call(server.url, 'PUT', `/api/v1/processes/${id}`, {
      token: as('admin'),
      body: bpmn('redrawn'),
      headers: { 'content-type': 'application/xml' },
    });
    expect(put.status).toBe(200);
    const restored = await send('POST', `/api/v1/processes/${id}/versions/1/restore`);
    expect([restored.status, restored.body.name, restored.body.format]).toEqual([200, 'drawn', 'bpmn']);
  });
});
