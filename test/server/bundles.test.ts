/**
 * The project bundle routes over HTTP on both engines: GET /projects/:id/bundle needs the design
 * right on the project (a plain user is refused, a designer is not) and answers the same bytes
 * each time; POST /projects/bundle is for administrators, lists the changes on a dry run and
 * applies them otherwise; a damaged body is refused.
 */
import { expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from './support.js';

describeEachEngine('server: project bundles', (engine) => {
  const server = useServer(engine);
  const admin = () => server.acme.admin.token;
  const user = () => server.acme.user.token;

  async function download(
    token: string,
    path: string,
  ): Promise<{ status: number; type: string | null; body: Buffer }> {
    const r = await fetch(`${server.url}/api/v1${path}`, { headers: { authorization: `Bearer ${token}` } });
    return {
      status: r.status,
      type: r.headers.get('content-type'),
      body: Buffer.from(await r.arrayBuffer()),
    };
  }

  async function upload(token: string, query: string, body: Buffer) {
    const r = await fetch(`${server.url}/api/v1/projects/bundle${query}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/zip' },
      body,
    });
    return { status: r.status, body: (await r.json()) as any };
  }

  it('exports for the project’s designers only, the same bytes each time', async () => {
    const { platform } = server;
    const project = await platform.projects.create('acme', { title: 'Billing' });
    await platform.customLists.create('acme', {
      id: 'terms',
      name: 'Terms',
      projectId: project.id,
      content: [30, 60],
    });
    await platform.compositeApis.create('acme', { path: 'invoices', template: 'ok', projectId: project.id });

    const refused = await call(server.url, 'GET', `/api/v1/projects/${project.id}/bundle`, { token: user() });
    expect(refused).toMatchObject({
      status: 403,
      body: {
        status: 403,
        code: 'forbidden',
        message: `Exporting project ${project.id} needs the design right on it or the account's administrator right.`,
      },
    });
    const byAdmin = await download(admin(), `/projects/${project.id}/bundle`);
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.type).toBe('application/zip');
    expect(byAdmin.body.subarray(0, 2).toString()).toBe('PK');

    await platform.rights.grantDesign('acme', project.id, server.acme.user.id);
    const byDesigner = await download(user(), `/projects/${project.id}/bundle`);
    expect(byDesigner.status).toBe(200);
    expect(byDesigner.body.equals(byAdmin.body)).toBe(true);
    await platform.rights.revokeDesign('acme', project.id, server.acme.user.id);

    const unknown = await call(server.url, 'GET', '/api/v1/projects/9999/bundle', { token: admin() });
    expect(unknown).toMatchObject({ status: 404, body: { message: 'Project not found.' } });
  });

  it('imports for administrators: a dry run lists the changes, then they are applied', async () => {
    const { platform } = server;
    const project = (await platform.projects.list('acme')).find((p) => p.title === 'Billing')!;
    const bundle = (await download(admin(), `/projects/${project.id}/bundle`)).body;

    const refused = await upload(user(), '', bundle);
    expect(refused).toEqual({
      status: 403,
      body: {
        status: 403,
        code: 'forbidden',
        message: 'Only an administrator of the account may call POST /api/v1/projects/bundle.',
      },
    });

    // Into the other account: a new project.
    const dry = await upload(server.globex.admin.token, '?dryRun=true', bundle);
    expect(dry).toEqual({
      status: 200,
      body: {
        projectId: null,
        title: 'Billing',
        applied: false,
        changes: [
          { action: 'create', path: 'composite-apis/GET invoices.ftl' },
          { action: 'create', path: 'composite-apis/GET invoices.json' },
          { action: 'create', path: 'custom-lists/terms.json' },
          { action: 'create', path: 'project.json' },
          { action: 'create', path: 'versions.json' },
        ],
      },
    });
    expect(await platform.projects.list('globex')).toEqual([]);
    const done = await upload(server.globex.admin.token, '', bundle);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ title: 'Billing', applied: true });
    const [copy] = await platform.projects.list('globex');
    expect(done.body.projectId).toBe(copy!.id);
    expect((await platform.customLists.require('globex', 'terms')).content).toEqual([30, 60]);
    const served = await download(server.globex.admin.token, `/projects/${copy!.id}/bundle`);
    expect(served.body.equals(bundle)).toBe(true);

    const again = await upload(server.globex.admin.token, '', bundle);
    expect(again.body).toEqual({ projectId: copy!.id, title: 'Billing', applied: false, changes: [] });

    // Into another project of the first account: its custom list id is taken, so nothing is applied.
    const empty = await platform.projects.create('acme', { title: 'Empty' });
    const failed = await upload(admin(), `?projectId=${empty.id}`, bundle);
    expect(failed).toEqual({
      status: 409,
      body: { status: 409, code: 'conflict', message: 'custom list terms already exists' },
    });
    expect((await platform.projects.require('acme', empty.id)).title).toBe('Empty');

    const damaged = await upload(admin(), '', bundle.subarray(0, 100));
    expect(damaged.status).toBe(400);
    expect(damaged.body.message).toMatch(
      /^the bundle: damaged bundle: the file is not a valid zip archive: /,
    );
  });
});
