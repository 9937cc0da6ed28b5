/**
 * Issue 25, family 4: request *strings* never act as field paths or variables. A text from
 * P_body / P_query that starts with `$` used inside `$expr`, `$project`, `$addFields`, `$group` …
 * is read literally; when the query also holds the same text (the script's own path, as in a login
 * check comparing `"$password"` with the posted value) the query is refused. The texts are known
 * by value, so copies made in JavaScript (`JSON.parse(JSON.stringify(P_body))`) or Python and `?eval_json`
 * of request text keep being data. Anonymous composite API calls on a real server, both engines.
 */
import { beforeAll, expect, it } from 'vitest';
import { createHosts } from '../../src/hosts/index.js';
import { evalHost } from '../../src/hosts/eval-host.js';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from '../server/support.js';

const REFUSED = (fn: string, index: number, name: string, text: string) =>
  `error: ${fn}: argument ${index} (${name}) reads the text "${text}" from the request's input where a field path or variable is read, and the query uses the same text more than once: refused, a request value is never a field path (write the path in the script, or compare with {"$literal": …})`;

describeEachEngine('security: request strings in collection expressions', (engine) => {
  const server = useServer(engine, (platform) => ({
    hosts: { ...evalHost(platform), ...createHosts(platform, { routeCacheMs: 0 }) },
  }));
  const admin = () => server.acme.admin.token;
  const api = async (method: string, path: string, template: string) => {
    const r = await call(server.url, 'POST', '/api/v1/composite-apis', {
      token: admin(),
      body: {
        method,
        path,
        template: `<#attempt>${template}<#recover>error: \${.error?keep_before("\n")}</#attempt>`,
        isPublic: true,
      },
    });
    expect(r.status).toBe(201);
  };
  const post = async (path: string, body: unknown) =>
    (await call(server.url, 'POST', `/live/acme/composite/${path}`, { body })).body;
  const get = async (path: string) => (await call(server.url, 'GET', `/live/acme/composite/${path}`)).body;

  beforeAll(async () => {
    const c = '/api/v1/collections';
    expect(
      (await call(server.url, 'POST', c, { token: admin(), body: { name: 'accounts', isPublic: true } }))
        .status,
    ).toBe(201);
    expect(
      (
        await call(server.url, 'POST', `${c}/accounts/documents`, {
          token: admin(),
          body: [
            { login: 'ann', password: 's3cret', secret: 'ann-token', dept: 'a' },
            { login: 'bob', password: 'hunter2', secret: 'bob-token', dept: 'b' },
          ],
        })
      ).status,
    ).toBe(201);
    // a login check: the stored password compared with the posted one inside $expr
    await api(
      'POST',
      'login',
      '${count_objects({"login": P_body.login, "$expr": {"$eq": ["$password", P_body.password]}}, "accounts")}',
    );
    // the same through a copy made in JavaScript
    await api(
      'POST',
      'login-js',
      '<@script env="js"><#noparse>const b = JSON.parse(JSON.stringify(RMPData.getVariable("P_body")));' +
        'RMPData.setOutput(String(RMPCollection.count({login: b.login, $expr: {$eq: ["$password", b.password]}}, "accounts")));' +
        '</#noparse></@script>',
    );
    // the same through a copy made in Python
    await api(
      'POST',
      'login-py',
      '<@script env="python"><#noparse>import json\n' +
        'b = json.loads(json.dumps(RMPData.getVariable("P_body")))\n' +
        'RMPData.setOutput(str(RMPCollection.count({"login": b["login"], "$expr": {"$eq": ["$password", b["password"]]}}, "accounts")))\n' +
        '</#noparse></@script>',
    );
    // a label taken from the query string
    await api(
      'GET',
      'label',
      '${P_json_stringify(aggregate_collection("accounts", {"$match": {"login": "ann"}}, {"$project": {"_id": 0, "login": 1, "label": P_query.label}}))}',
    );
    // a filter given as JSON text in the query string, read with ?eval_json
    await api(
      'GET',
      'group',
      '<#assign f = P_query.f?eval_json>${P_json_stringify(aggregate_collection("accounts", {"$group": {"_id": f.by, "n": {"$sum": 1}}}, {"$sort": {"_id": 1}}))}',
    );
  });

  it('the login check is not passed by posting the field’s own path; it still works', async () => {
    expect(await post('login', { login: 'ann', password: 's3cret' })).toBe('1');
    expect(await post('login', { login: 'ann', password: 'wrong' })).toBe('0');
    expect(await post('login', { login: 'ann', password: '$password' })).toBe(
      REFUSED('count_objects', 1, 'where', '$password'),
    );
    expect(await post('login', { login: 'ann', password: '$$ROOT.password' })).toBe('0');
  });

  it('a copy made in JavaScript keeps the posted text data', async () => {
    expect(await post('login-js', { login: 'ann', password: 's3cret' })).toBe('1');
    expect(await post('login-js', { login: 'ann', password: '$password' })).toMatch(
      /^error: RMPCollection\.count: argument 1 \(where\) reads the text "\$password" from the request's input/,
    );
  });

  it('a copy made in Python keeps the posted text data', async () => {
    expect(await post('login-py', { login: 'ann', password: 's3cret' })).toBe('1');
    expect(await post('login-py', { login: 'ann', password: '$password' })).toMatch(
      /^error: RMPCollection\.count: argument 1 \(where\) reads the text "\$password" from the request's input/,
    );
  }, 60_000);

  it('a label from the query string is the literal text, never a field or the document', async () => {
    const label = async (text: string) => await get(`label?label=${encodeURIComponent(text)}`);
    expect(await label('Customer')).toEqual([{ login: 'ann', label: 'Customer' }]);
    expect(await label('$secret')).toEqual([{ login: 'ann', label: '$secret' }]);
    expect(await label('$$ROOT')).toEqual([{ login: 'ann', label: '$$ROOT' }]);
  });

  it('?eval_json of request text keeps its $ texts data', async () => {
    const group = async (by: unknown) => await get(`group?f=${encodeURIComponent(JSON.stringify({ by }))}`);
    expect(await group('all')).toEqual([{ _id: 'all', n: 2 }]);
    expect(await group('$password')).toEqual([{ _id: '$password', n: 2 }]);
  });

  it("a process request's data (its starter's, its task submissions) is data in its steps' queries", async () => {
    const defined = await call(server.url, 'POST', '/api/v1/processes', {
      token: admin(),
      body: {
        name: 'Check',
        steps: [
          {
            id: 1,
            name: 'Count',
            script:
              '${count_objects({"login": login, "$expr": {"$eq": ["$password", password]}}, "accounts")}',
          },
        ],
      },
    });
    expect(defined.status).toBe(201);
    const start = async (password: string) =>
      (
        await call(server.url, 'POST', '/api/v1/requests', {
          token: admin(),
          body: { process: 'Check', mode: 'TEST', data: { login: 'ann', password } },
        })
      ).body as { status: number; message: string };
    expect((await start('s3cret')).status).toBe(201);
    const injected = await start('$password');
    expect(injected.status).toBe(301);
    expect(injected.message).toContain(
      'count_objects: argument 1 (where) reads the text "$password" from the request\'s input where a field path or variable is read',
    );
  });
});
