/**
 * The audit log (docs/server.md "Audit log") over REST on both engines: design and administrative
 * changes are recorded with who, when, before and after; secrets are redacted (and absent from the
 * table); a failed change records nothing; an account reads only its own entries; a composite
 * API, a web interface template and a JSON process definition are restored from an entry.
 */
import { expect, it } from 'vitest';
import { createHosts } from '../../src/hosts/index.js';
import { evalHost } from '../../src/hosts/eval-host.js';
import { sql } from '../../src/store/index.js';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from './support.js';

describeEachEngine('server: audit log', (engine) => {
  const server = useServer(engine, (platform) => ({
    hosts: { ...evalHost(platform), ...createHosts(platform, { routeCacheMs: 0 }) },
  }));
  const as = (who: 'admin' | 'user', account: 'acme' | 'globex' = 'acme') => server[account][who].token;
  const send = (method: string, path: string, body?: unknown, token = as('admin')) =>
    call(server.url, method, path, { token, body });

  it('records a composite API saved twice, and restores the first version', async () => {
    const created = await send('POST', '/api/v1/composite-apis', {
      method: 'GET',
      path: 'greeting',
      template: 'one',
      isPublic: true,
    });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    const replaced = await send('PUT', `/api/v1/composite-apis/${id}`, {
      method: 'GET',
      path: 'greeting',
      template: 'two',
      isPublic: true,
    });
    expect(replaced.status).toBe(200);
    // a refused change records nothing
    expect((await send('PUT', `/api/v1/composite-apis/${id}`, { template: 'no path' })).status).toBe(400);

    const log = await send('GET', `/api/v1/audit?kind=composite-apis&target=${id}`);
    expect(log.status).toBe(200);
    const [put, post] = log.body.items;
    expect(log.body.items).toHaveLength(2);
    expect(post).toMatchObject({
      actor: { id: server.acme.admin.id, login: 'admin' },
      method: 'POST',
      path: '/api/v1/composite-apis',
      kind: 'composite-apis',
      target: String(id),
      status: 201,
      before: null,
      after: { id, template: 'one' },
    });
    expect(put).toMatchObject({
      method: 'PUT',
      path: `/api/v1/composite-apis/${id}`,
      status: 200,
      before: { id, template: 'one' },
      after: { id, template: 'two' },
    });
    expect(put.id).toBeGreaterThan(post.id);
    expect(typeof put.at).toBe('number');
    expect((await call(server.url, 'GET', '/live/acme/composite/greeting')).body).toBe('two');

    const restored = await send('POST', `/api/v1/audit/${post.id}/restore`);
    expect([restored.status, restored.body.template]).toEqual([200, 'one']);
    expect((await call(server.url, 'GET', '/live/acme/composite/greeting')).body).toBe('one');
    // the restore is a change of its own
    const after = await send('GET', `/api/v1/audit?kind=composite-apis&target=${id}&limit=1`);
    expect(after.body.items[0]).toMatchObject({
      method: 'PUT',
      before: { template: 'two' },
      after: { template: 'one' },
    });
    expect(after.body.next).toBe(after.body.items[0].id);
    const page2 = await send(
      'GET',
      `/api/v1/audit?kind=composite-apis&target=${id}&limit=1&before=${after.body.next}`,
    );
    expect(page2.body.items[0].id).toBe(put.id);

    // a deletion keeps what was deleted; it cannot be restored
    expect((await send('DELETE', `/api/v1/composite-apis/${id}`)).status).toBe(204);
    const deleted = (await send('GET', `/api/v1/audit?kind=composite-apis&target=${id}&limit=1`)).body
      .items[0];
    expect(deleted).toMatchObject({
      method: 'DELETE',
      status: 204,
      before: { template: 'one' },
      after: null,
    });
    const refused = await send('POST', `/api/v1/audit/${deleted.id}/restore`);
    expect([refused.status, refused.body.message]).toEqual([
      409,
      `Audit entry ${deleted.id} (DELETE /api/v1/composite-apis/${id}) saved nothing that can be restored: ` +
        'restore an entry that created or replaced a composite API, a web interface template or a process definition.',
    ]);
  });

  it('restores a JSON process definition and a web interface template', async () => {
    const stored = await send('POST', '/api/v1/processes', {
      name: 'Audited',
      steps: [{ id: 1, name: 'A', script: 'a' }],
    });
    expect(stored.status).toBe(201);
    const id = stored.body.id as number;
    expect(
      (
        await send('PUT', `/api/v1/processes/${id}`, {
          name: 'Audited',
          steps: [{ id: 1, name: 'B', script: 'b' }],
        })
      ).status,
    ).toBe(200);
    const [, first] = (await send('GET', `/api/v1/audit?kind=processes&target=${id}`)).body.items;
    const restored = await send('POST', `/api/v1/audit/${first.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body.definition.steps[0]).toMatchObject({ name: 'A', script: 'a' });

    const project = (await send('POST', '/api/v1/projects', { title: 'audited' })).body.id as number;
    const wi = (await send('POST', `/api/v1/projects/${project}/web-interfaces`, { title: 'wi' })).body
      .id as number;
    for (const template of ['<p>1</p>', '<p>2</p>'])
      expect((await send('PUT', `/api/v1/web-interfaces/${wi}/template`, { template })).status).toBe(200);
    const [second, firstTemplate] = (
      await send('GET', `/api/v1/audit?kind=web-interfaces&target=${wi}/template`)
    ).body.items;
    expect(second).toMatchObject({ before: { template: '<p>1</p>' }, after: { template: '<p>2</p>' } });
    const back = await send('POST', `/api/v1/audit/${firstTemplate.id}/restore`);
    expect([back.status, back.body]).toEqual([200, { template: '<p>1</p>' }]);
    expect((await send('GET', `/api/v1/web-interfaces/${wi}/template`)).body.template).toBe('<p>1</p>');
  });

  it('redacts secrets: an API token is never stored in the log', async () => {
    const created = await send('POST', '/api/v1/tokens', { name: 'ci' });
    expect(created.status).toBe(201);
    const secret = created.body.token as string;
    const entry = (await send('GET', '/api/v1/audit?kind=tokens&limit=1')).body.items[0];
    expect(entry).toMatchObject({ method: 'POST', after: { token: '[redacted]' } });
    const rows = await engine.store.all<{ n: number | string }>(
      sql`SELECT COUNT(*) AS n FROM audit_log WHERE CAST(after_state AS TEXT) LIKE ${`%${secret}%`} OR CAST(before_state AS TEXT) LIKE ${`%${secret}%`}`,
    );
    expect(Number(rows[0]!.n)).toBe(0);
    // a user created with a password: the password is not in the entry either
    const user = await send('POST', '/api/v1/users', {
      login: 'audited',
      password: 'audited password 1',
      name: 'A',
    });
    expect(user.status).toBe(201);
    const made = (await send('GET', '/api/v1/audit?kind=users&limit=1')).body.items[0];
    expect(made).toMatchObject({ method: 'POST', target: String(user.body.id), after: { login: 'audited' } });
    expect(JSON.stringify(made)).not.toContain('audited password 1');
    const refused = await send('POST', `/api/v1/audit/${made.id}/restore`);
    expect(refused.status).toBe(409);
  });

  it("is for the account's administrators, and each account sees only its own", async () => {
    const plain = await send('GET', '/api/v1/audit', undefined, as('user'));
    expect([plain.status, plain.body.message]).toEqual([
      403,
      'Only an administrator of the account may call GET /api/v1/audit.',
    ]);
    const acmeEntry = (await send('GET', '/api/v1/audit?limit=1')).body.items[0];
    expect(acmeEntry).toBeDefined();
    const foreign = await send('GET', `/api/v1/audit/${acmeEntry.id}`, undefined, as('admin', 'globex'));
    expect(foreign.status).toBe(404);
    const theirs = (await send('GET', '/api/v1/audit?limit=200', undefined, as('admin', 'globex'))).body
      .items;
    expect(theirs.map((e: { id: number }) => e.id)).not.toContain(acmeEntry.id);
    expect(
      (await send('POST', `/api/v1/audit/${acmeEntry.id}/restore`, undefined, as('admin', 'globex'))).status,
    ).toBe(404);
    // request input never becomes a filter operator: a kind is compared as text
    const odd = await send('GET', `/api/v1/audit?kind=${encodeURIComponent("x' OR '1'='1")}`);
    expect([odd.status, odd.body.items]).toEqual([200, []]);
  });
});
