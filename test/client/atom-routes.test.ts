/**
 * The Atom resources under /config/:account over plain HTTP, on every engine: content
 * negotiation (XML, JSON), writes in either form, paging links, rights, tenant isolation, and the
 * errors of bad documents.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, useServer } from '../server/support.js';
import { describeEachEngine } from '../support/engines.js';

const ATOM = 'application/atom+xml';

describeEachEngine('Atom resources', (engine) => {
  const server = useServer(engine);
  let admin: string;
  let ann: string;
  let projectId: number;

  const xmlCall = (method: string, path: string, body?: string, token = admin, accept = ATOM) =>
    call(server.url, method, path, {
      token,
      body,
      headers: { accept, ...(body !== undefined ? { 'content-type': ATOM } : {}) },
    });

  beforeAll(async () => {
    admin = server.acme.admin.token;
    ann = server.acme.user.token;
    const { projects } = server.platform;
    projectId = (await projects.create('acme', { title: 'Base', authorId: server.acme.admin.id })).id;
    for (const name of ['v1', 'v2', 'v3'])
      await projects.addVersion('acme', projectId, { name, mode: 'TEST' });
  });

  describe('reading', () => {
    it('answers Atom XML by default and the JSON form when asked', async () => {
      const xml = await xmlCall('GET', `/config/acme/project/${projectId}`, undefined, admin, '*/*');
      expect(xml.status).toBe(200);
      expect(xml.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8');
      expect(xml.body).toContain(`<id>urn:flowmark:acme:project:${projectId}</id>\n  <title>Base</title>`);
      const json = await call(server.url, 'GET', `/config/acme/project/${projectId}`, {
        token: admin,
        headers: { accept: 'application/json' },
      });
      const alt = await call(server.url, 'GET', `/config/acme/project/${projectId}?alt=json`, {
        token: admin,
      });
      expect(json.body).toEqual(alt.body);
      expect(json.body.entry).toMatchObject({
        id: `urn:flowmark:acme:project:${projectId}`,
        title: 'Base',
        category: [{ term: 'PROCESS', label: 'type' }],
        author: { name: 'admin', uri: `${server.url}/config/acme/user/${server.acme.admin.id}` },
        summary: {},
        content: {},
        metadata: {},
      });
    });

    it('pages feeds with OpenSearch counts and first/previous/next links', async () => {
      const r = await call(
        server.url,
        'GET',
        `/config/acme/project/${projectId}/version?alt=json&nb=1&first=1`,
        {
          token: admin,
        },
      );
      const self = `${server.url}/config/acme/project/${projectId}/version?alt=json&nb=1`;
      expect(r.body.feed).toMatchObject({
        totalResults: 3,
        startIndex: 1,
        itemsPerPage: 1,
        link: [
          { rel: 'self', href: `${self}&first=1` },
          { rel: 'first', href: `${self}&first=0` },
          { rel: 'previous', href: `${self}&first=0` },
          { rel: 'next', href: `${self}&first=2` },
        ],
      });
      expect(r.body.feed.entry.map((e: { title: string }) => e.title)).toEqual(['v2']);
    });

    it('filters with the list parameters, and names the fields a feed accepts', async () => {
      const r = await call(
        server.url,
        'GET',
        `/config/acme/project/${projectId}/version?alt=json&filter=name%20mode&operator=IN%20EE&value=v1|v3%20TEST`,
        { token: admin },
      );
      expect(r.body.feed.entry.map((e: { title: string }) => e.title)).toEqual(['v1', 'v3']);
      const bad = await call(
        server.url,
        'GET',
        `/config/acme/project/${projectId}/version?filter=colour&operator=EE&value=x`,
        {
          token: admin,
        },
      );
      expect(bad.body).toEqual({
        status: 400,
        code: 'invalid',
        message: 'filter: unknown field "colour" (one of id, name, mode, createdAt)',
      });
    });

    it('reads users by login or id, lanes and pools', async () => {
      const { lanes } = server.platform.directory;
      const pool = await lanes.createPool('acme', { name: 'Support' });
      const lane = await lanes.createLane('acme', pool.id, { name: 'Level 1' });
      await lanes.addMember('acme', lane.id, 'ACCEPTANCE', server.acme.admin.id);
      const user = await call(server.url, 'GET', '/config/acme/user/ann?alt=json', { token: admin });
      expect(user.body.entry).toMatchObject({
        id: `urn:flowmark:acme:user:${server.acme.user.id}`,
        category: [
          { term: 'active', label: 'status' },
          { term: 'en', label: 'language' },
          { term: 'USER', label: 'profile' },
        ],
        content: { login: 'ann', email: 'ann@acme.example', preferences: {} },
      });
      // Another user's preferences are not shown to a user who is not an administrator.
      const asAnn = await call(server.url, 'GET', `/config/acme/user/${server.acme.admin.id}?alt=json`, {
        token: ann,
      });
      expect(asAnn.body.entry.content.preferences).toBeUndefined();
      const live = await call(server.url, 'GET', `/config/acme/pool/${pool.id}/lane?alt=json`, {
        token: admin,
      });
      const acceptance = await call(
        server.url,
        'GET',
        `/config/acme/pool/${pool.id}/lane?alt=json&P_mode=ACCEPTANCE`,
        {
          token: admin,
        },
      );
      const member = (r: typeof live) =>
        r.body.feed.entry[0].category.find((c: { label: string }) => c.label === 'member').term;
      expect([member(live), member(acceptance)]).toEqual(['false', 'true']);
      const poolEntry = await call(server.url, 'GET', `/config/acme/pool/${pool.id}?alt=json`, {
        token: admin,
      });
      expect(poolEntry.body.entry.title).toBe('Support');
      const laneEntry = await call(server.url, 'GET', `/config/acme/lane/${lane.id}?alt=json`, {
        token: admin,
      });
      expect(laneEntry.body.entry.content).toMatchObject({ id: lane.id, poolId: pool.id, name: 'Level 1' });
    });
  });

  describe('writing', () => {
    it('creates a project from Atom XML (201, Location) and changes it with PUT', async () => {
      const created = await xmlCall(
        'POST',
        '/config/acme/project',
        `<entry xmlns="http://www.w3.org/2005/Atom"><title>From XML</title><category term="APP" label="type"/>
         <category term="INFO" label="P_log"/><link rel="parent" href="${server.url}/config/acme/project/${projectId}"/>
         <content type="application/json">{"a":[1,2]}</content></entry>`,
      );
      expect(created.status).toBe(201);
      const id = Number(/project:(\d+)</.exec(created.body)![1]);
      expect(created.headers.get('location')).toBe(`${server.url}/config/acme/project/${id}`);
      expect(await server.platform.projects.require('acme', id)).toMatchObject({
        title: 'From XML',
        type: 'APP',
        logLevel: 'INFO',
        parentId: projectId,
        content: { a: [1, 2] },
        authorId: server.acme.admin.id,
      });
      // Only the members an entry carries change; an empty P_log term clears it.
      const changed = await call(server.url, 'PUT', `/config/acme/project/${id}?alt=json`, {
        token: admin,
        body: { entry: { title: 'Renamed', category: [{ term: '', label: 'P_log' }] } },
      });
      expect(changed.status).toBe(200);
      expect(await server.platform.projects.require('acme', id)).toMatchObject({
        title: 'Renamed',
        type: 'APP',
        logLevel: null,
        content: { a: [1, 2] },
      });
      const reparent = await call(server.url, 'PUT', `/config/acme/project/${id}`, {
        token: admin,
        body: { entry: { link: [{ rel: 'parent', href: `${server.url}/config/acme/project/${id}` }] } },
      });
      expect(reparent.body).toEqual({
        status: 400,
        code: 'invalid',
        message: 'link rel="parent": a project\'s parent cannot change',
      });
    });

    it('changes version modes all or nothing', async () => {
      const versions = await server.platform.projects.versions('acme', projectId);
      const other = await server.platform.projects.create('acme', { title: 'Other' });
      const foreign = await server.platform.projects.addVersion('acme', other.id, {
        name: 'x',
        mode: 'TEST',
      });
      const feed = (ids: number[], mode: string) => ({
        feed: {
          entry: ids.map((id) => ({
            id: `urn:flowmark:acme:version:${id}`,
            category: [{ term: mode, label: 'mode' }],
          })),
        },
      });
      const refused = await call(server.url, 'PUT', `/config/acme/project/${projectId}/mode`, {
        token: admin,
        body: feed([versions[0]!.id, foreign.id], 'LIVE'),
      });
      expect(refused.body).toEqual({ status: 404, code: 'not-found', message: 'Version not found.' });
      const badMode = await call(server.url, 'PUT', `/config/acme/project/${projectId}/mode`, {
        token: admin,
        body: feed([versions[0]!.id], 'PROD'),
      });
      expect(badMode.body).toEqual({
        status: 400,
        code: 'invalid',
        message: 'entry 1: mode must be LIVE, ACCEPTANCE or TEST, not "PROD"',
      });
      expect((await server.platform.projects.versions('acme', projectId)).map((v) => v.mode)).toEqual([
        'TEST',
        'TEST',
        'TEST',
      ]);
      const ok = await call(server.url, 'PUT', `/config/acme/project/${projectId}/mode?alt=json`, {
        token: admin,
        body: feed([versions[1]!.id], 'ACCEPTANCE'),
      });
      expect(
        ok.body.feed.entry.map((e: { category: Array<{ term: string }> }) => e.category[0]!.term),
      ).toEqual(['TEST', 'ACCEPTANCE', 'TEST']);
    });

    it('creates and fills custom lists, adds web interfaces', async () => {
      const list = await call(server.url, 'POST', '/config/acme/customlist?alt=json', {
        token: admin,
        body: {
          entry: {
            id: 'urn:flowmark:acme:customlist:countries',
            title: 'Countries',
            link: [{ rel: 'project', href: `${server.url}/config/acme/project/${projectId}` }],
            content: [{ label: 'France', value: 'FR' }],
          },
        },
      });
      expect(list.status).toBe(201);
      const put = await xmlCall(
        'PUT',
        '/config/acme/customlist/countries',
        '<entry xmlns="http://www.w3.org/2005/Atom"><content type="application/json">["FR","DE"]</content></entry>',
      );
      expect(put.status).toBe(200);
      expect(await server.platform.customLists.require('acme', 'countries')).toMatchObject({
        name: 'Countries',
        projectId,
        content: ['FR', 'DE'],
      });
      const wi = await call(server.url, 'POST', `/config/acme/project/${projectId}/webinterface?alt=json`, {
        token: admin,
        body: {
          entry: {
            title: 'Claims',
            summary: 'file a claim',
            category: [
              { term: 'mobile', label: 'context' },
              { term: 'hr', label: 'tag' },
            ],
            content: { lanes: [] },
          },
        },
      });
      expect(wi.status).toBe(201);
      expect(wi.body.entry.content).toMatchObject({
        title: 'Claims',
        description: 'file a claim',
        contexts: ['mobile'],
        tags: ['hr'],
        projectId,
      });
    });
  });

  describe('refusals', () => {
    it('refuses bad documents with 400 invalid-xml', async () => {
      const cases = [
        [
          '<entry><title>x</entry>',
          "Invalid XML at line 1, column 16: Expected closing tag 'title' (opened in line 1, col 8) instead of closing tag 'entry'.",
        ],
        ['<!DOCTYPE x><entry/>', 'Invalid XML: document type declarations are not accepted.'],
        [
          '<feed xmlns="http://www.w3.org/2005/Atom"/>',
          'Invalid Atom document: expected an <entry>, not a <feed>.',
        ],
      ];
      for (const [body, message] of cases) {
        const r = await xmlCall('POST', '/config/acme/project', body);
        expect(r.body).toEqual({ status: 400, code: 'invalid-xml', message });
      }
      const json = await call(server.url, 'POST', '/config/acme/project', {
        token: admin,
        body: { title: 'bare' },
      });
      expect(json.body).toEqual({
        status: 400,
        code: 'invalid-xml',
        message: 'Invalid Atom document: expected {"entry": {…}} or {"feed": {…}}',
      });
      const untitled = await call(server.url, 'POST', '/config/acme/project', {
        token: admin,
        body: { entry: {} },
      });
      expect(untitled.body).toEqual({
        status: 400,
        code: 'invalid',
        message: 'title: a project needs a <title>',
      });
    });

    it('keeps accounts apart, needs a caller, and leaves writes to administrators', async () => {
      const otherAccount = await xmlCall('GET', `/config/globex/project/${projectId}`);
      expect(otherAccount.body).toEqual({ status: 404, code: 'not-found', message: 'Account not found.' });
      const globexCaller = await xmlCall(
        'GET',
        `/config/acme/project/${projectId}`,
        undefined,
        server.globex.admin.token,
      );
      expect(globexCaller.body).toEqual({ status: 404, code: 'not-found', message: 'Account not found.' });
      const ownGlobex = await xmlCall(
        'GET',
        `/config/globex/project/${projectId}`,
        undefined,
        server.globex.admin.token,
      );
      expect(ownGlobex.body).toEqual({ status: 404, code: 'not-found', message: 'Project not found.' });
      const anonymous = await call(server.url, 'GET', `/config/acme/project/${projectId}`);
      expect(anonymous.status).toBe(401);
      const asAnn = await xmlCall('POST', '/config/acme/project', '<entry><title>x</title></entry>', ann);
      expect(asAnn.body).toEqual({
        status: 403,
        code: 'forbidden',
        message: 'Only an administrator of the account may call POST /config/:account/project.',
      });
      // Workflow reports: a user sees their own requests only.
      await server.platform.requests.create('acme', {
        id: 'atom-r1',
        projectId,
        mode: 'TEST',
        initiatorId: server.acme.admin.id,
      });
      await server.platform.requests.create('acme', {
        id: 'atom-r2',
        projectId,
        mode: 'TEST',
        initiatorId: server.acme.user.id,
      });
      const titles = async (token: string) =>
        (
          await call(server.url, 'GET', `/config/acme/project/${projectId}/wfreport?alt=json`, { token })
        ).body.feed.entry
          .map((e: { title: string }) => e.title)
          .sort();
      expect(await titles(admin)).toEqual(['atom-r1', 'atom-r2']);
      expect(await titles(ann)).toEqual(['atom-r2']);
    });
  });
});
