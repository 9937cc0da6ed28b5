/**
 * The Project class in real Chromium against a real server: every method round-trips, each
 * callback is called exactly once, and failures (401, 403, 404, bad XML, bad arguments) reach
 * onFailure as {status, code, message}.
 */
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import type * as Client from '../../src/client/index.js';
import { PASSWORD, useServer } from '../server/support.js';
import { describeEachEngine } from '../support/engines.js';
import { describeWithBrowser, libraryPage, logIn, type Once } from './support/browser.js';

// Globals of the library page (see support/browser.ts), for the functions run in the page.
declare const flowmark: typeof Client;
declare const once: Once;

describeWithBrowser('Project in Chromium', (browser) => {
  describeEachEngine('Project', (engine) => {
    const server = useServer(engine);
    let page: Page;
    let adminName: string;

    beforeAll(async () => {
      const { directory } = server.platform;
      await directory.users.update('acme', server.acme.admin.id, {
        name: 'Ada Admin',
        email: 'ada@acme.example',
      });
      adminName = 'Ada Admin';
      page = await libraryPage(browser.context, server.url, 'acme', 'admin', PASSWORD);
    });

    /** Creates a project through the class and returns its id. */
    async function createProject(title: string, extra: Record<string, unknown> = {}): Promise<number> {
      return page.evaluate(
        async ({ title, extra }) => {
          const p = new flowmark.Project({ title });
          Object.assign(p, extra);
          await p.create();
          return p.id!;
        },
        { title, extra },
      );
    }

    it('create: the entry comes back with its id, author and dates; onSuccess is called once', async () => {
      const result = await page.evaluate(async () => {
        const p = new flowmark.Project({ title: 'Orders' });
        p.type = 'PROCESS';
        p.summary = { text: 'order handling' };
        p.content = { steps: ['receive', 'ship'] };
        p.metadata = { owner: 'sales' };
        p.logLevel = 'INFO';
        const { calls, returned } = await once((cb) => p.create(cb));
        return {
          calls: calls.map((c) => [c.kind, c.value === p]),
          returned: returned === undefined,
          id: p.id,
          customer: p.customer,
          author: p.author && { id: p.author.id, name: p.author.name, email: p.author.email },
          updated: p.updated instanceof Date,
          title: p.title,
        };
      });
      expect(result.calls).toEqual([['success', true]]);
      expect(result.returned).toBe(true);
      expect(result.customer).toBe('acme');
      expect(result.author).toEqual({ id: server.acme.admin.id, name: adminName, email: 'ada@acme.example' });
      expect(result.updated).toBe(true);
      const stored = await server.platform.projects.require('acme', result.id!);
      expect(stored).toMatchObject({
        title: 'Orders',
        type: 'PROCESS',
        authorId: server.acme.admin.id,
        summary: { text: 'order handling' },
        content: { steps: ['receive', 'ship'] },
        metadata: { owner: 'sales' },
        logLevel: 'INFO',
        parentId: null,
      });
    });

    it('load: the callback form and the Promise form read what the server holds', async () => {
      const id = (
        await server.platform.projects.create('acme', {
          title: 'Invoices',
          type: 'APPLICATION',
          authorId: server.acme.admin.id,
          summary: { a: 1 },
          content: { b: [true, null] },
        })
      ).id;
      const result = await page.evaluate(async (id) => {
        const p = new flowmark.Project({ id });
        const { calls } = await once((cb) => p.load(cb));
        const q = await new flowmark.Project({ id }).load();
        const view = (x: Client.Project) => ({
          title: x.title,
          type: x.type,
          summary: x.summary,
          content: x.content,
          author: x.author?.name,
          logLevel: x.logLevel,
          parentId: x.parentId,
          isLoadedChild: x.isLoadedChild,
        });
        return { calls: calls.map((c) => c.kind), callback: view(p), promise: view(q) };
      }, id);
      const expected = {
        title: 'Invoices',
        type: 'APPLICATION',
        summary: { a: 1 },
        content: { b: [true, null] },
        author: adminName,
        logLevel: null,
        parentId: null,
        isLoadedChild: false,
      };
      expect(result).toEqual({ calls: ['success'], callback: expected, promise: expected });
    });

    it('update: title, type, P_log, summary, content and metadata are saved', async () => {
      const id = await createProject('Draft', { logLevel: 'FINE' });
      const result = await page.evaluate(async (id) => {
        const p = await new flowmark.Project({ id }).load();
        const before = p.updated!.getTime();
        await new Promise((r) => setTimeout(r, 5));
        p.title = 'Final';
        p.type = 'SUBPROCESS';
        p.logLevel = null;
        p.summary = { s: 'x' };
        p.content = { c: 1 };
        p.metadata = { m: 2 };
        const { calls } = await once((cb) => p.update(cb));
        return { calls: calls.map((c) => c.kind), later: p.updated!.getTime() > before, title: p.title };
      }, id);
      expect(result).toEqual({ calls: ['success'], later: true, title: 'Final' });
      expect(await server.platform.projects.require('acme', id)).toMatchObject({
        title: 'Final',
        type: 'SUBPROCESS',
        logLevel: null,
        summary: { s: 'x' },
        content: { c: 1 },
        metadata: { m: 2 },
      });
    });

    it('save creates, then updates', async () => {
      const result = await page.evaluate(async () => {
        const p = new flowmark.Project({ title: 'Saved' });
        await p.save();
        const id = p.id;
        p.title = 'Saved twice';
        await p.save();
        return { id, same: p.id === id };
      });
      expect(result.same).toBe(true);
      expect((await server.platform.projects.require('acme', result.id!)).title).toBe('Saved twice');
    });

    it('generateUrl and generate_xml give the exact URL and XML; loadSet reads them back', async () => {
      const id = await createProject('Tom & "Jerry" <co>', { content: { k: '<v>' }, logLevel: 'SEVERE' });
      const stored = await server.platform.projects.require('acme', id);
      const result = await page.evaluate(async (id) => {
        const p = await new flowmark.Project({ id }).load();
        const url = await p.generateUrl();
        const callbackUrl = await once((cb) => p.generateUrl(cb));
        const xml = await p.generate_xml();
        const copy = await new flowmark.Project().loadSet(xml);
        const fromJson = await new flowmark.Project().loadSet(await p.saveSet());
        const view = (x: Client.Project) => [
          x.id,
          x.customer,
          x.title,
          x.type,
          x.logLevel,
          x.content,
          x.author?.id,
          x.updated?.toISOString(),
        ];
        return {
          url,
          callbackUrl: callbackUrl.calls.map((c) => c.value),
          xml,
          copy: view(copy),
          json: view(fromJson),
          original: view(p),
        };
      }, id);
      const base = `${server.url}/config/acme`;
      expect(result.url).toBe(`${base}/project/${id}`);
      expect(result.callbackUrl).toEqual([`${base}/project/${id}`]);
      expect(result.xml).toBe(
        [
          '<?xml version="1.0" encoding="UTF-8"?>',
          '<entry xmlns="http://www.w3.org/2005/Atom" xmlns:fm="urn:flowmark:atom">',
          `  <id>urn:flowmark:acme:project:${id}</id>`,
          '  <title>Tom &amp; &quot;Jerry&quot; &lt;co&gt;</title>',
          `  <updated>${new Date(stored.updatedAt).toISOString()}</updated>`,
          `  <published>${new Date(stored.createdAt).toISOString()}</published>`,
          `  <author><name>Ada Admin</name><email>ada@acme.example</email><uri>${base}/user/${server.acme.admin.id}</uri></author>`,
          '  <category term="PROCESS" label="type"/>',
          '  <category term="SEVERE" label="P_log"/>',
          `  <link href="${base}/project/${id}" rel="self"/>`,
          '  <summary type="application/json">{}</summary>',
          '  <content type="application/json">{&quot;k&quot;:&quot;&lt;v&gt;&quot;}</content>',
          '  <fm:metadata>{}</fm:metadata>',
          '</entry>',
          '',
        ].join('\n'),
      );
      expect(result.copy).toEqual(result.original);
      expect(result.json).toEqual(result.original);
    });

    it('loadVersions pages and filters; updateMode saves the modes of the versions', async () => {
      const id = await createProject('Versioned');
      const { projects } = server.platform;
      const v1 = await projects.addVersion('acme', id, { name: 'v1', mode: 'TEST' });
      const v2 = await projects.addVersion('acme', id, { name: 'v2', mode: 'TEST' });
      const v3 = await projects.addVersion('acme', id, { name: 'v3', mode: 'ACCEPTANCE' });
      const result = await page.evaluate(async (id) => {
        const p = new flowmark.Project({ id });
        const page2 = await p.loadVersions({ pagination: { nb: 2, first: 1 } });
        const total = p.totals.versions;
        const { calls } = await once((cb) =>
          p.loadVersions({ ...cb, filters: [{ filter: 'mode', operator: 'EE', value: 'TEST' }] }),
        );
        const filtered = p.versions.map((v) => v.name);
        await p.loadVersions();
        p.versions[0]!.mode = 'LIVE';
        p.versions[2]!.mode = 'TEST';
        const mode = await once((cb) => p.updateMode(cb));
        return {
          page2: page2.map((v) => [v.name, v.mode]),
          total,
          calls: calls.map((c) => c.kind),
          filtered,
          mode: mode.calls.map((c) => [c.kind, c.value === p]),
          after: p.versions.map((v) => [v.name, v.mode]),
        };
      }, id);
      expect(result).toEqual({
        page2: [
          ['v2', 'TEST'],
          ['v3', 'ACCEPTANCE'],
        ],
        total: 3,
        calls: ['success'],
        filtered: ['v1', 'v2'],
        mode: [['success', true]],
        after: [
          ['v1', 'LIVE'],
          ['v2', 'TEST'],
          ['v3', 'TEST'],
        ],
      });
      expect((await projects.versions('acme', id)).map((v) => [v.id, v.mode])).toEqual([
        [v1.id, 'LIVE'],
        [v2.id, 'TEST'],
        [v3.id, 'TEST'],
      ]);
    });

    it('loadChildren: children created with parentId, loaded as children', async () => {
      const parent = await createProject('Parent');
      await createProject('Child B', { parentId: parent });
      await createProject('Child A', { parentId: parent });
      const result = await page.evaluate(async (id) => {
        const p = new flowmark.Project({ id });
        const { calls } = await once((cb) =>
          p.loadChildren({ ...cb, pagination: { orderby: 'title', order: 'ASC' } }),
        );
        const contains = await p.loadChildren({
          filters: [{ filter: 'title', operator: 'CONTAINS', value: 'B' }],
        });
        return {
          calls: calls.map((c) => c.kind),
          childs: (calls[0]!.value as Client.Project[]).map((c) => [
            c.title,
            c.parentId === id,
            c.isLoadedChild,
          ]),
          sameAsProperty: calls[0]!.value === undefined,
          contains: contains.map((c) => c.title),
        };
      }, parent);
      expect(result).toEqual({
        calls: ['success'],
        childs: [
          ['Child A', true, true],
          ['Child B', true, true],
        ],
        sameAsProperty: false,
        contains: ['Child B'],
      });
    });

    it('loadCustomLists and loadWebInterfaces', async () => {
      const id = await createProject('With lists');
      const { customLists, webInterfaces } = server.platform;
      await customLists.create('acme', {
        id: 'colors',
        name: 'Colors',
        projectId: id,
        content: [{ label: 'Red', value: 'r' }],
      });
      await customLists.create('acme', { id: 'sizes', name: 'Sizes', projectId: id, content: ['S', 'M'] });
      await webInterfaces.create('acme', id, {
        title: 'Order form',
        tags: ['sales'],
        contexts: ['web', 'mobile'],
      });
      const result = await page.evaluate(async (id) => {
        const p = new flowmark.Project({ id });
        const lists = await once((cb) => p.loadCustomLists(cb));
        const wis = await once((cb) => p.loadWebInterfaces(cb));
        const all = p.customLists.map((l) => [l.id, l.name, l.projectId, l.content]);
        const nb1 = await p.loadCustomLists({ pagination: { nb: 1 } });
        return {
          calls: [...lists.calls, ...wis.calls].map((c) => c.kind),
          lists: all,
          wis: p.webInterfaces.map((w) => [w.title, w.tags, w.contexts, w.projectId, typeof w.id]),
          nb1: nb1.map((l) => l.id),
          total: p.totals.customLists,
        };
      }, id);
      expect(result).toEqual({
        calls: ['success', 'success'],
        lists: [
          ['colors', 'Colors', id, [{ label: 'Red', value: 'r' }]],
          ['sizes', 'Sizes', id, ['S', 'M']],
        ],
        wis: [['Order form', ['sales'], ['web', 'mobile'], id, 'number']],
        nb1: ['colors'],
        total: 2,
      });
    });

    it("loadLanes and loadLanesAndPools: the project's lanes, usersLanes the caller's", async () => {
      const id = await createProject('With lanes');
      const { lanes } = server.platform.directory;
      const pool = await lanes.createPool('acme', { name: 'Sales' });
      const north = await lanes.createLane('acme', pool.id, { name: 'North' });
      const south = await lanes.createLane('acme', pool.id, { name: 'South' });
      await lanes.addMember('acme', south.id, 'LIVE', server.acme.admin.id);
      await server.platform.projects.attachPool('acme', id, pool.id);
      const result = await page.evaluate(async (id) => {
        const p = new flowmark.Project({ id });
        const l = await once((cb) => p.loadLanes(cb));
        const lanes = p.lanes.map((x) => [x.name, x.isMember]);
        const users = p.usersLanes.map((x) => x.name);
        const both = await once((cb) => p.loadLanesAndPools(cb));
        const pools = p.pools.map((x) => [x.name, x.lanes.map((y) => y.name)]);
        const lanesAfter = p.lanes.map((x) => x.name);
        const filtered = await p.loadLanes({
          filters: [{ filter: 'name', operator: 'IN', value: ['North', 'West'] }],
        });
        return {
          calls: [...l.calls, ...both.calls].map((c) => c.kind),
          lanes,
          users,
          pools,
          lanesAfter,
          filtered: filtered.map((x) => x.name),
        };
      }, id);
      expect(result).toEqual({
        calls: ['success', 'success'],
        lanes: [
          ['North', false],
          ['South', true],
        ],
        users: ['South'],
        pools: [['Sales', ['North', 'South']]],
        lanesAfter: ['North', 'South'],
        filtered: ['North'],
      });
      expect(north.id).toBeLessThan(south.id);
    });

    it('loadWFReports and loadWIReports: requests and application instances of the project', async () => {
      const id = await createProject('With reports');
      const { requests, applications, webInterfaces } = server.platform;
      await requests.create('acme', {
        id: 'req-1',
        projectId: id,
        mode: 'TEST',
        status: 200,
        data: { n: 1 },
        initiatorId: server.acme.admin.id,
      });
      await requests.create('acme', {
        id: 'req-2',
        projectId: id,
        mode: 'LIVE',
        data: { n: 2 },
        initiatorId: server.acme.user.id,
      });
      await requests.create('acme', { id: 'req-other', mode: 'LIVE' });
      const wi = await webInterfaces.create('acme', id, { title: 'Form' });
      await applications.create(
        'acme',
        { userId: server.acme.admin.id, login: 'admin' },
        {
          id: 'app-1',
          projectId: id,
          webInterfaceId: wi.id,
          mode: 'LIVE',
          title: 'First',
          data: { field: 'x' },
        },
      );
      const result = await page.evaluate(async (id) => {
        const p = new flowmark.Project({ id });
        const wf = await once((cb) => p.loadWFReports(cb));
        const wi = await once((cb) => p.loadWIReports(cb));
        const live = await p.loadWFReports({ filters: [{ filter: 'mode', operator: 'EE', value: 'LIVE' }] });
        return {
          calls: [...wf.calls, ...wi.calls].map((c) => c.kind),
          wf: (wf.calls[0]!.value as Client.WorkflowReport[])
            .map((r) => [r.id, r.mode, r.status, r.data])
            .sort(),
          wi: p.wiReports.map((r) => [r.id, r.title, r.status, r.data, r.webInterfaceId !== null]),
          live: live.map((r) => r.id),
        };
      }, id);
      expect(result).toEqual({
        calls: ['success', 'success'],
        wf: [
          ['req-1', 'TEST', 200, { n: 1 }],
          ['req-2', 'LIVE', 101, { n: 2 }],
        ],
        wi: [['app-1', 'First', 'OPEN', { field: 'x' }, true]],
        live: ['req-2'],
      });
    });

    it('loadPreset restores the defaults and keeps the identity', async () => {
      const id = await createProject('Preset', { content: { x: 1 } });
      const result = await page.evaluate(async (id) => {
        const p = await new flowmark.Project({ id }).load();
        await p.loadVersions();
        const { calls } = await once((cb) => p.loadPreset(cb));
        return {
          calls: calls.map((c) => c.kind),
          id: p.id,
          customer: p.customer,
          title: p.title,
          content: p.content,
          type: p.type,
          versions: p.versions,
          author: p.author,
        };
      }, id);
      expect(result).toEqual({
        calls: ['success'],
        id,
        customer: 'acme',
        title: '',
        content: {},
        type: 'PROCESS',
        versions: [],
        author: null,
      });
    });

    it('the JSON form: the same resources when the project asks for JSON', async () => {
      const id = await createProject('As JSON', { content: { j: true } });
      const result = await page.evaluate(async (id) => {
        const p = new flowmark.Project({ id, format: 'json' });
        await p.load();
        const versions = await p.loadVersions();
        p.title = 'As JSON, saved';
        await p.update();
        return { title: p.title, content: p.content, versions: versions.length };
      }, id);
      expect(result).toEqual({ title: 'As JSON, saved', content: { j: true }, versions: 0 });
    });

    it('every method of the callback form calls onSuccess exactly once, with its result', async () => {
      const id = await createProject('Every method');
      await server.platform.projects.addVersion('acme', id, { name: 'v1', mode: 'TEST' });
      const result = await page.evaluate(async (id) => {
        const p = new flowmark.Project({ id });
        const xml = await p.load().then(() => p.generate_xml());
        const runs: Record<string, unknown> = {};
        const methods: Array<[string, (cb: any) => Promise<unknown>]> = [
          ['load', (cb) => p.load(cb)],
          ['loadVersions', (cb) => p.loadVersions(cb)],
          ['updateMode', (cb) => p.updateMode(cb)],
          ['update', (cb) => p.update(cb)],
          ['save', (cb) => p.save(cb)],
          ['loadChildren', (cb) => p.loadChildren(cb)],
          ['loadCustomLists', (cb) => p.loadCustomLists(cb)],
          ['loadLanes', (cb) => p.loadLanes(cb)],
          ['loadLanesAndPools', (cb) => p.loadLanesAndPools(cb)],
          ['loadWebInterfaces', (cb) => p.loadWebInterfaces(cb)],
          ['loadWFReports', (cb) => p.loadWFReports(cb)],
          ['loadWIReports', (cb) => p.loadWIReports(cb)],
          ['generateUrl', (cb) => p.generateUrl(cb)],
          ['generate_xml', (cb) => p.generate_xml(cb)],
          ['saveSet', (cb) => p.saveSet(cb)],
          ['loadSet', (cb) => new flowmark.Project().loadSet(xml, cb)],
          ['loadPreset', (cb) => new flowmark.Project({ id }).loadPreset(cb)],
          ['create', (cb) => new flowmark.Project({ title: 'Created in the loop' }).create(cb)],
        ];
        for (const [name, start] of methods) {
          const { calls, returned } = await once(start);
          const value = calls[0]?.value;
          runs[name] = [
            calls.map((c) => c.kind).join(','),
            returned === undefined,
            value === p
              ? 'the project'
              : Array.isArray(value)
                ? 'an array'
                : value instanceof flowmark.Project
                  ? 'a project'
                  : typeof value,
          ];
        }
        return runs;
      }, id);
      expect(result).toEqual({
        load: ['success', true, 'the project'],
        loadVersions: ['success', true, 'an array'],
        updateMode: ['success', true, 'the project'],
        update: ['success', true, 'the project'],
        save: ['success', true, 'the project'],
        loadChildren: ['success', true, 'an array'],
        loadCustomLists: ['success', true, 'an array'],
        loadLanes: ['success', true, 'an array'],
        loadLanesAndPools: ['success', true, 'object'],
        loadWebInterfaces: ['success', true, 'an array'],
        loadWFReports: ['success', true, 'an array'],
        loadWIReports: ['success', true, 'an array'],
        generateUrl: ['success', true, 'string'],
        generate_xml: ['success', true, 'string'],
        saveSet: ['success', true, 'object'],
        loadSet: ['success', true, 'a project'],
        loadPreset: ['success', true, 'a project'],
        create: ['success', true, 'a project'],
      });
    });

    it('failures reach onFailure once, as {status, code, message}', async () => {
      const id = await createProject('Guarded');
      const result = await page.evaluate(async (id) => {
        const failures: Record<string, unknown> = {};
        const record = async (name: string, start: Parameters<typeof once>[0]) => {
          const { calls } = await once(start);
          failures[name] = calls.map((c) => (c.kind === 'failure' ? c.error : 'success'));
        };
        await record('404', (cb) => new flowmark.Project({ id: 999999 }).load(cb));
        await record('bad XML', (cb) => new flowmark.Project().loadSet('<entry><title>x</entry>', cb));
        await record('not Atom', (cb) => new flowmark.Project().loadSet('<html/>', cb));
        await record('wrong kind', (cb) =>
          new flowmark.Project().loadSet({ entry: { id: 'urn:flowmark:acme:lane:1', title: 'x' } }, cb),
        );
        await record('bad filter', (cb) =>
          new flowmark.Project({ id }).loadVersions({
            ...cb,
            filters: [{ filter: 'name', operator: 'EE', value: 'a b' }],
          }),
        );
        await record('bad operator', (cb) =>
          new flowmark.Project({ id }).loadVersions({
            ...cb,
            filters: [{ filter: 'name', operator: 'LIKE' as 'EE', value: 'a' }],
          }),
        );
        await record('unknown field', (cb) =>
          new flowmark.Project({ id }).loadVersions({
            ...cb,
            filters: [{ filter: 'colour', operator: 'EE', value: 'a' }],
          }),
        );
        await record('no id', (cb) => new flowmark.Project().load(cb));
        let rejected: unknown;
        await new flowmark.Project({ id: 999999 }).load().catch((e: Client.ClientError) => {
          rejected = [e instanceof flowmark.ClientError, e.status, e.code, e.message];
        });
        // A callback that throws is reported, not turned into onFailure.
        const errors: string[] = [];
        window.addEventListener('error', (e) => errors.push(e.message), { once: true });
        await record('throwing onSuccess', (cb) =>
          new flowmark.Project({ id }).load({
            ...cb,
            onSuccess: () => {
              cb.onSuccess('reached');
              throw new Error('bug in the page');
            },
          }),
        );
        await fetch('/api/v1/auth/logout', { method: 'POST' });
        flowmark.configure({});
        await record('401', (cb) => new flowmark.Project({ id }).load(cb));
        await record('401 creating', (cb) =>
          new flowmark.Project({ title: 'x', customer: 'acme' }).create(cb),
        );
        return { failures, rejected, errors };
      }, id);
      await logIn(page, 'acme', 'admin', PASSWORD);
      const error = (status: number, code: string, message: string) => ({
        status,
        code,
        message,
        isClientError: true,
      });
      expect(result.failures).toEqual({
        '404': [error(404, 'not-found', 'Project not found.')],
        'bad XML': [
          expect.objectContaining({
            status: 0,
            code: 'invalid-xml',
            isClientError: true,
            message: expect.stringMatching(/^Invalid XML: /),
          }),
        ],
        'not Atom': [
          error(0, 'invalid-xml', 'Invalid Atom document: expected an Atom <entry> or <feed>, not <html>'),
        ],
        'wrong kind': [error(0, 'invalid-argument', 'Project.loadSet: the entry is a lane, not a project')],
        'bad filter': [
          error(
            0,
            'invalid-argument',
            'filters[0].value: the list parameters cannot carry an empty value or spaces ("a b")',
          ),
        ],
        'bad operator': [
          error(
            0,
            'invalid-argument',
            'filters[0].operator: one of EE, NE, CONTAINS, IN, IS, GT, LT, GE, LE, not "LIKE"',
          ),
        ],
        'unknown field': [
          error(400, 'invalid', 'filter: unknown field "colour" (one of id, name, mode, createdAt)'),
        ],
        'no id': [error(0, 'invalid-argument', 'Project: no id (load or create it first)')],
        'throwing onSuccess': ['success'],
        '401': [error(401, 'unauthenticated', 'Authentication required: log in or send an API token.')],
        '401 creating': [
          error(401, 'unauthenticated', 'Authentication required: log in or send an API token.'),
        ],
      });
      expect(result.rejected).toEqual([true, 404, 'not-found', 'Project not found.']);
      expect(result.errors).toEqual(['Uncaught Error: bug in the page']);
    });

    it('a user who is not an administrator reads projects but may not change them (403)', async () => {
      const id = await createProject('Read only for ann');
      const annPage = await libraryPage(browser.context, server.url, 'acme', 'ann', PASSWORD);
      try {
        const result = await annPage.evaluate(async (id) => {
          const p = new flowmark.Project({ id });
          await p.load();
          p.title = 'changed by ann';
          const update = await once((cb) => p.update(cb));
          const create = await once((cb) => new flowmark.Project({ title: 'new' }).create(cb));
          return { title: p.title, update: update.calls, create: create.calls };
        }, id);
        const forbidden = (route: string) => [
          {
            kind: 'failure',
            error: {
              status: 403,
              code: 'forbidden',
              message: `Only an administrator of the account may call ${route}.`,
              isClientError: true,
            },
          },
        ];
        expect(result.update).toEqual(forbidden('PUT /config/:account/project/:id'));
        expect(result.create).toEqual(forbidden('POST /config/:account/project'));
      } finally {
        await annPage.close();
        // The context shares one cookie jar: the admin's page logs in again.
        await logIn(page, 'acme', 'admin', PASSWORD);
      }
    });
  });
});
