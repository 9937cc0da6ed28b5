/**
 * The companion classes in real Chromium: User, Lane, Pool, CustomList, WebInterface and
 * ProjectList on the same base class; the library's settings (API token, base URL, default
 * failure handler).
 */
import fc from 'fast-check';
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { atomToXml } from '../../src/atom/format.js';
import type * as Client from '../../src/client/index.js';
import { readAtomXml } from '../../src/server/atom/xml.js';
import { PASSWORD, useServer } from '../server/support.js';
import { describeEachEngine } from '../support/engines.js';
import { atomEntry } from './support/arbitraries.js';
import { describeWithBrowser, libraryPage, type Once } from './support/browser.js';

declare const flowmark: typeof Client;
declare const once: Once;

describeWithBrowser('companion classes in Chromium', (browser) => {
  describeEachEngine('companions', (engine) => {
    const server = useServer(engine);
    let page: Page;
    let poolId: number;
    let laneIds: number[];
    let projectId: number;

    beforeAll(async () => {
      const { directory, projects } = server.platform;
      const pool = await directory.lanes.createPool('acme', { name: 'Finance', isOrganization: true });
      const lanes = [
        await directory.lanes.createLane('acme', pool.id, { name: 'Accounting' }),
        await directory.lanes.createLane('acme', pool.id, { name: 'Treasury' }),
      ];
      await directory.lanes.addMember('acme', lanes[1]!.id, 'LIVE', server.acme.admin.id);
      poolId = pool.id;
      laneIds = lanes.map((l) => l.id);
      projectId = (await projects.create('acme', { title: 'Host project' })).id;
      page = await libraryPage(browser.context, server.url, 'acme', 'admin', PASSWORD);
    });

    it('User: loads by login or id; the Atom resources do not change users', async () => {
      const result = await page.evaluate(async () => {
        const byLogin = new flowmark.User({ login: 'ann' });
        const { calls } = await once((cb) => byLogin.load(cb));
        const byId = await new flowmark.User({ id: byLogin.id }).load();
        const update = await once((cb) => byId.update(cb));
        const create = await once((cb) => new flowmark.User({ login: 'new' }).create(cb));
        return {
          calls: calls.map((c) => c.kind),
          byLogin: [
            byLogin.id,
            byLogin.login,
            byLogin.email,
            byLogin.status,
            byLogin.isAdmin,
            byLogin.preferences,
          ],
          byId: [byId.login, byId.language],
          update: update.calls.map((c) => c.error),
          create: create.calls.map((c) => c.error),
        };
      });
      const notSupported = (method: string) => ({
        status: 0,
        code: 'not-supported',
        message: `User.${method}: not offered by the Atom resources (see docs/client.md)`,
        isClientError: true,
      });
      expect(result).toEqual({
        calls: ['success'],
        byLogin: [server.acme.user.id, 'ann', 'ann@acme.example', 'active', false, {}],
        byId: ['ann', 'en'],
        update: [notSupported('update')],
        create: [notSupported('create')],
      });
    });

    it('Pool and Lane: load, and a pool loads its lanes with membership', async () => {
      const result = await page.evaluate(
        async ({ poolId, laneId }) => {
          const pool = new flowmark.Pool({ id: poolId });
          const loaded = await once((cb) => pool.load(cb));
          const lanes = await once((cb) =>
            pool.loadLanes({ ...cb, pagination: { orderby: 'name', order: 'DESC' } }),
          );
          const lane = await new flowmark.Lane({ id: laneId }).load();
          return {
            calls: [...loaded.calls, ...lanes.calls].map((c) => c.kind),
            pool: [pool.name, pool.isOrganization],
            lanes: pool.lanes.map((l) => [l.name, l.poolId === poolId, l.isMember]),
            lane: [lane.name, lane.poolId === poolId, lane.parentId, lane.isMember],
          };
        },
        { poolId, laneId: laneIds[1]! },
      );
      expect(result).toEqual({
        calls: ['success', 'success'],
        pool: ['Finance', true],
        lanes: [
          ['Treasury', true, true],
          ['Accounting', true, false],
        ],
        lane: ['Treasury', true, null, true],
      });
    });

    it('CustomList: create, update its items, load; its XML and URL', async () => {
      const result = await page.evaluate(async (projectId) => {
        const list = new flowmark.CustomList({ id: 'priorities' });
        list.name = 'Priorities';
        list.projectId = projectId;
        list.content = [{ label: 'High', value: 1 }];
        const created = await once((cb) => list.create(cb));
        list.content = [...list.content, { label: 'Low', value: 3 }];
        await list.update();
        const again = await new flowmark.CustomList({ id: 'priorities' }).load();
        return {
          calls: created.calls.map((c) => c.kind),
          again: [again.id, again.name, again.projectId, again.content],
          url: await again.generateUrl(),
          xml: await again.generate_xml(),
        };
      }, projectId);
      expect(result.calls).toEqual(['success']);
      expect(result.again).toEqual([
        'priorities',
        'Priorities',
        projectId,
        [
          { label: 'High', value: 1 },
          { label: 'Low', value: 3 },
        ],
      ]);
      expect(result.url).toBe(`${server.url}/config/acme/customlist/priorities`);
      expect(result.xml).toContain(
        ['  <id>urn:flowmark:acme:customlist:priorities</id>', '  <title>Priorities</title>'].join('\n'),
      );
      expect(result.xml).toContain(
        `<link href="${server.url}/config/acme/project/${projectId}" rel="project"/>`,
      );
      expect((await server.platform.customLists.require('acme', 'priorities')).content).toHaveLength(2);
    });

    it('WebInterface: created under its project, then loaded', async () => {
      const result = await page.evaluate(async (projectId) => {
        const wi = new flowmark.WebInterface();
        wi.projectId = projectId;
        wi.title = 'Expense form';
        wi.description = 'claim expenses';
        wi.contexts = ['web', 'tablet'];
        wi.tags = ['finance'];
        const created = await once((cb) => wi.create(cb));
        const loaded = await new flowmark.WebInterface({ id: wi.id }).load();
        const noProject = await once((cb) => new flowmark.WebInterface().create(cb));
        return {
          calls: created.calls.map((c) => c.kind),
          loaded: [loaded.title, loaded.description, loaded.contexts, loaded.tags, loaded.projectId],
          noProject: noProject.calls.map((c) => c.error?.message),
        };
      }, projectId);
      expect(result).toEqual({
        calls: ['success'],
        loaded: ['Expense form', 'claim expenses', ['web', 'tablet'], ['finance'], projectId],
        noProject: ['WebInterface.create: set projectId first'],
      });
    });

    it('ProjectList: pages and filters the account’s projects', async () => {
      for (const title of ['Alpha', 'Beta', 'Gamma'])
        await server.platform.projects.create('acme', { title });
      const result = await page.evaluate(async () => {
        const list = new flowmark.ProjectList();
        list.pagination = { nb: 2, orderby: 'title', order: 'ASC' };
        const { calls } = await once((cb) => list.load(cb));
        const first = list.projects.map((p) => p.title);
        const total = list.total;
        await list.load({ pagination: { nb: 2, first: 2, orderby: 'title' } });
        const second = list.projects.map((p) => p.title);
        const url = await list.generateUrl({
          filters: [{ filter: 'title', operator: 'CONTAINS', value: 'a' }],
        });
        return { calls: calls.map((c) => c.kind), first, total, second, url };
      });
      expect(result).toEqual({
        calls: ['success'],
        first: ['Alpha', 'Beta'],
        total: 4,
        second: ['Gamma', 'Host project'],
        url: `${server.url}/config/acme/project?nb=2&orderby=title&order=ASC&filter=title&operator=CONTAINS&value=a`,
      });
    });

    it('the browser reads any Atom XML exactly as the server does', async () => {
      const entries = fc.sample(atomEntry, { numRuns: 150, seed: 42 });
      const documents = entries.map((entry) => atomToXml({ entry }));
      const read = await page.evaluate((docs) => docs.map((xml) => flowmark.entryOf(xml)), documents);
      expect(read).toEqual(documents.map((xml) => (readAtomXml(xml) as { entry: unknown }).entry));
      expect(read).toEqual(entries);
    });

    it('settings: an API token, an explicit base URL, the default failure handler', async () => {
      const result = await page.evaluate(
        async ({ token, url, projectId }) => {
          await fetch('/api/v1/auth/logout', { method: 'POST' });
          flowmark.configure({ token, baseUrl: url });
          const p = await new flowmark.Project({ id: projectId }).load();
          const reported: unknown[] = [];
          flowmark.configure({ token: undefined, onFailure: (e) => reported.push(e.toJSON()) });
          let succeeded = false;
          await new flowmark.Project({ id: projectId }).load({
            onSuccess: () => (succeeded = true),
            baseUrl: url,
          });
          return { title: p.title, customer: p.customer, reported, succeeded };
        },
        { token: server.acme.user.token, url: server.url, projectId },
      );
      expect(result).toEqual({
        title: 'Host project',
        customer: 'acme',
        reported: [
          {
            status: 401,
            code: 'unauthenticated',
            message: 'Authentication required: log in or send an API token.',
          },
        ],
        succeeded: false,
      });
    });
  });
});
