/**
 * An i18n dictionary over REST on both engines (routes/projects/i18n.ts): read and replaced whole,
 * each replace a version (docs/deploy.md, "History and rollback"); a restore puts a version back,
 * and the i18n function reads it at once. Administrators only.
 */
import { expect, it } from 'vitest';
import { createHosts } from '../../src/hosts/index.js';
import { evalHost } from '../../src/hosts/eval-host.js';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from './support.js';

describeEachEngine('server: i18n dictionaries and their history', (engine) => {
  const server = useServer(engine, (platform) => ({
    hosts: { ...evalHost(platform), ...createHosts(platform, { routeCacheMs: 0 }) },
  }));
  const send = (method: string, path: string, body?: unknown, token = server.acme.admin.token) =>
    call(server.url, method, path, { token, body });
  /** What the i18n function answers in the project, over POST /api/v1/eval. */
  const translated = async (project: number) => {
    const r = await send('POST', '/api/v1/eval', {
      template: '${get_i18n("greeting", "-", "fr")}|${get_i18n("farewell", "-", "fr")}',
      projectId: project,
    });
    expect([r.status, r.body.error]).toEqual([200, undefined]);
    return r.body.output as string;
  };

  it('replaces a dictionary whole, keeps each replace as a version, and restores one', async () => {
    const project = (await send('POST', '/api/v1/projects', { title: 'translated' })).body.id as number;
    const path = `/api/v1/projects/${project}/i18n`;
    expect((await send('GET', path)).body).toEqual({});

    const first = { fr: { greeting: 'Bonjour', farewell: 'Au revoir' }, en: { greeting: 'Hello' } };
    const put = await send('PUT', path, first);
    expect([put.status, put.body]).toEqual([200, { en: { greeting: 'Hello' }, fr: first.fr }]);
    expect(await translated(project)).toBe('Bonjour|Au revoir');

    // a replace removes what its body does not list
    expect((await send('PUT', path, { fr: { greeting: 'Salut' } })).body).toEqual({
      fr: { greeting: 'Salut' },
    });
    expect(await translated(project)).toBe('Salut|-');

    const versions = await send('GET', `${path}/versions`);
    expect(versions.body.items.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    expect((await send('GET', `${path}/versions/1`)).body.body).toEqual({
      en: { greeting: 'Hello' },
      fr: { farewell: 'Au revoir', greeting: 'Bonjour' },
    });

    const restored = await send('POST', `${path}/versions/1/restore`);
    expect([restored.status, restored.body]).toEqual([200, { en: { greeting: 'Hello' }, fr: first.fr }]);
    expect(await translated(project)).toBe('Bonjour|Au revoir');
    expect((await send('GET', `${path}/versions?limit=1`)).body.items[0].version).toBe(3);
  });

  it('has the account-wide dictionary at project 0, and refuses unknown projects and plain users', async () => {
    expect(
      (await send('PUT', '/api/v1/projects/0/i18n', { fr: { greeting: 'Bonjour à tous' } })).status,
    ).toBe(200);
    expect((await send('GET', '/api/v1/projects/0/i18n')).body).toEqual({
      fr: { greeting: 'Bonjour à tous' },
    });
    const missing = await send('GET', '/api/v1/projects/999999/i18n');
    expect(missing.status).toBe(404);
    const user = await send('GET', '/api/v1/projects/0/i18n', undefined, server.acme.user.token);
    expect([user.status, user.body.message]).toEqual([
      403,
      'Only an administrator of the account may call GET /api/v1/projects/:id/i18n.',
    ]);
    const bad = await send('PUT', '/api/v1/projects/0/i18n', { 'french!': { greeting: 'Bonjour' } });
    expect([bad.status, bad.body.message]).toEqual([
      400,
      'invalid language "french!": expected a two-letter code (fr, fr_FR)',
    ]);
    expect((await send('GET', '/api/v1/projects/0/i18n')).body).toEqual({
      fr: { greeting: 'Bonjour à tous' },
    });
  });
});
