/**
 * Request input never becomes a query operator (docs/hosts.md, "Request input in queries"): a
 * public login-style composite API that looks a member up by `{"login": P_body.login, "pin":
 * P_body.pin}` is not bypassed by operators in the body, on a real server over both engines; the
 * script's own operators keep working, around request values too.
 */
import { beforeAll, expect, it } from 'vitest';
import { createHosts } from '../../src/hosts/index.js';
import { evalHost } from '../../src/hosts/eval-host.js';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from '../server/support.js';

const LOGIN =
  '<#assign m = load_object({"login": P_body.login, "pin": P_body.pin}, "members")>' +
  '<#if m.name??>welcome ${m.name}<#else>refused</#if>';

describeEachEngine('security: request input in collection queries', (engine) => {
  const server = useServer(engine, (platform) => ({
    hosts: { ...evalHost(platform), ...createHosts(platform, { routeCacheMs: 0 }) },
  }));
  const admin = () => server.acme.admin.token;

  // a failed call prints its error (an anonymous caller would only see "see the account's log")
  const api = async (method: string, path: string, template: string) => {
    const r = await call(server.url, 'POST', '/api/v1/composite-apis', {
      token: admin(),
      body: {
        method,
        path,
        template: `<#attempt>${template}<#recover>error: \${.error}</#attempt>`,
        isPublic: true,
      },
    });
    expect(r.status).toBe(201);
  };
  const post = (path: string, body: unknown) =>
    call(server.url, 'POST', `/live/acme/composite/${path}`, { body });

  beforeAll(async () => {
    const c = '/api/v1/collections';
    expect(
      (await call(server.url, 'POST', c, { token: admin(), body: { name: 'members', isPublic: true } }))
        .status,
    ).toBe(201);
    const saved = await call(server.url, 'POST', `${c}/members/documents`, {
      token: admin(),
      body: [
        { login: 'ann', pin: '4711', name: 'Ann', age: 34, tags: ['a', 'b'] },
        { login: 'bob', pin: '1234', name: 'Bob', age: 17, tags: ['c'] },
      ],
    });
    expect(saved.status).toBe(201);
    await api('POST', 'login', LOGIN);
    await api('GET', 'byquery', '${count_objects(P_query, "members")}');
    await api(
      'POST',
      'count',
      '${count_objects({"login": P_body.login}, "members")}/' +
        '${count_objects({"age": {"$gt": P_body.min}}, "members")}',
    );
    await api('POST', 'find', '${list_objects(P_body, "members")?size}');
    await api(
      'POST',
      'change',
      '${update_field({"login": P_body.login, "pin": P_body.pin}, {"$set": {"name": "Mallory"}}, "members", true)}' +
        '${remove_objects({"login": P_body.login, "pin": P_body.pin}, "members")}' +
        '${count_objects({"name": {"$in": ["Ann", "Bob"]}}, "members")}',
    );
    await api('POST', 'or', '${count_objects({"$or": P_body.any}, "members")}');
    await api('POST', 'set', '${update_field({"login": "bob"}, P_body, "members")}');
    await api(
      'POST',
      'replace',
      '<#assign change = P_body>${update_objects({"login": "bob"}, "change", "members")}',
    );
    await api('POST', 'merged', '${count_objects(P_body + {"age": {"$gt": 18}}, "members")}');
    await api('POST', 'expr', '${count_objects({"$expr": {"$eq": ["$pin", P_body.pin]}}, "members")}');
    await api('POST', 'elem', '${count_objects({"tags": {"$elemMatch": P_body.t}}, "members")}');
    await api('POST', 'all', '${count_objects({"tags": {"$all": P_body.t}}, "members")}');
    await api(
      'POST',
      'aggregate',
      '<#list aggregate_collection("members", {"$match": {"pin": P_body.pin}}, {"$project": {"_id": 0, "name": 1}}) as m>${m.name}</#list>',
    );
    await api(
      'POST',
      'js',
      '<@script env="js">' +
        'var body = RMPData.getVariable("P_body");' +
        'var m = RMPCollection.findOne({ login: body.login, pin: body.pin }, "members");' +
        'RMPData.setOutput(m.name ? "welcome " + m.name : "refused");' +
        '</@script>',
    );
    await api(
      'POST',
      'py',
      '<@script env="python">\n' +
        'body = RMPData.getVariable("P_body")\n' +
        'm = RMPCollection.findOne({"login": body["login"], "pin": body["pin"]}, "members")\n' +
        'RMPData.setOutput("welcome " + m["name"] if m.get("name") else "refused")\n' +
        '</@script>',
    );
    await api(
      'POST',
      'text',
      '<#assign m = load_object(\'{"login": "\' + P_body.login?json_string + \'", "pin": "\' + P_body.pin?json_string + \'"}\', "members")>' +
        '<#if m.name??>welcome ${m.name}<#else>refused</#if>',
    );
  });

  it('is not bypassed by operators in the query string (a flat query, as headers, goes through the same check)', async () => {
    const get = async (query: string) =>
      String((await call(server.url, 'GET', `/live/acme/composite/byquery?${query}`)).body).split('\n')[0];
    const refused = (operator: string) =>
      `error: count_objects: argument 1 (where) holds the operator ${operator} from the request's input: a query's operators must be written in the script`;
    expect(await get('login=ann')).toBe('1');
    expect(await get('login=ann&pin=4711')).toBe('1');
    expect(await get('login=ann&pin=1234')).toBe('0');
    expect(await get('%24where=true')).toBe(refused('$where'));
    expect(await get('login=ann&%24ne=')).toBe(refused('$ne'));
    expect(await get('%24or=1&%24ne=')).toBe(refused('$or'));
    expect(await get('login=ann&login=bob')).toBe('0');
  });

  it('logs the real members in', async () => {
    expect((await post('login', { login: 'ann', pin: '4711' })).body).toBe('welcome Ann');
    expect((await post('login', { login: 'bob', pin: '1234' })).body).toBe('welcome Bob');
    expect((await post('login', { login: 'ann', pin: '1234' })).body).toBe('refused');
    expect((await post('text', { login: 'ann', pin: '4711' })).body).toBe('welcome Ann');
    expect((await post('aggregate', { pin: '4711' })).body).toBe('Ann');
    expect((await post('js', { login: 'ann', pin: '4711' })).body).toBe('welcome Ann');
    expect((await post('py', { login: 'ann', pin: '4711' })).body).toBe('welcome Ann');
  });

  it.each([
    ['$ne', { $ne: '' }],
    ['$ne null', { $ne: null }],
    ['$gt', { $gt: '' }],
    ['$regex', { $regex: '.*' }],
    ['$exists', { $exists: true }],
    ['$in', { $in: ['4711', '1234'] }],
    ['$not', { $not: { $eq: 'x' } }],
    ['an array of operators', [{ $ne: '' }]],
  ])('is not bypassed by %s in the body', async (_, pin) => {
    expect((await post('login', { login: 'ann', pin })).body).toBe('refused');
    expect((await post('aggregate', { pin })).body).toBe('');
    expect((await post('js', { login: 'ann', pin })).body).toBe('refused');
    expect((await post('py', { login: 'ann', pin })).body).toBe('refused');
  });

  // updated, removed, then the members still named Ann and Bob
  it('updates and removes nothing for operators in the body', async () => {
    expect((await post('change', { login: { $ne: '' }, pin: { $ne: '' } })).body).toBe('002');
    expect((await post('change', { login: 'bob', pin: { $gt: '' } })).body).toBe('002');
  });

  it('is not bypassed by $where, which the query engine refuses anyway', async () => {
    const r = await post('login', { login: 'ann', pin: { $where: 'return true' } });
    expect(r.body).toMatch(/^error: load_object: operator \$where is not allowed\n/);
  });

  it('is not bypassed by operators in the login or in a whole condition', async () => {
    expect((await post('login', { login: { $regex: '^a' }, pin: { $ne: '' } })).body).toBe('refused');
    expect((await post('count', { login: { $ne: '' }, min: 18 })).body).toBe('0/1');
    const whole = await post('find', { $or: [{ login: 'ann' }, { login: { $ne: '' } }] });
    expect(whole.body).toMatch(
      /^error: list_objects: argument 1 \(query\) holds the operator \$or from the request's input: a query's operators must be written in the script\n/,
    );
    const query = await post('find', { $query: { login: { $ne: '' } } });
    expect(query.body).toMatch(/^error: list_objects: argument 1 \(query\) holds the operator \$query from /);
    // a whole condition from the request without operators is a plain field match
    expect((await post('find', { login: 'bob', pin: '1234' })).body).toBe('1');
    expect((await post('find', { login: 'bob', pin: { $gt: '' } })).body).toBe('0');
  });

  it("keeps the script's own operators working, with request values inside them", async () => {
    expect((await post('count', { login: 'ann', min: 18 })).body).toBe('1/1');
    // an operator object in the operand of the script's $gt compares by type order, never runs
    expect((await post('count', { login: 'ann', min: { $where: 'true' } })).body).toMatch(
      /^error: count_objects: operator \$where is not allowed\n/,
    );
    expect((await post('count', { login: 'ann', min: { $lt: 0 } })).body).toBe('1/0');
    expect((await post('or', { any: [{ login: 'ann' }, { login: 'bob' }] })).body).toBe('2');
    expect((await post('or', { any: [{ login: 'ann' }, { login: { $ne: '' } }] })).body).toBe('1');
    // a hash concatenated with the request's keeps the request's keys as the request's
    expect((await post('merged', { login: 'ann' })).body).toBe('1');
    expect((await post('merged', { login: { $ne: '' } })).body).toBe('0');
    expect((await post('merged', { $expr: true })).body).toMatch(
      /^error: count_objects: argument 1 \(where\) holds the operator \$expr from /,
    );
    // in an aggregation expression a request object is a literal, not an expression
    expect((await post('expr', { pin: '4711' })).body).toBe('1');
    expect((await post('expr', { pin: { $ifNull: ['$pin', 0] } })).body).toBe('0');
    expect((await post('elem', { t: { $in: ['a', 'c'] } })).body).toBe('0');
    expect((await post('all', { t: ['a', 'b'] })).body).toBe('1');
    expect((await post('all', { t: [{ $elemMatch: { $ne: '' } }] })).body).toMatch(
      /^error: count_objects: argument 1 \(where\) holds the operator \$elemMatch from /,
    );
    const clause = await post('or', { any: [{ $where: 'true' }] });
    expect(clause.body).toMatch(
      /^error: count_objects: argument 1 \(where\) holds the operator \$where from /,
    );
  });

  it("takes a manual task's submission (P_result) literally in its output variables", async () => {
    const process = {
      name: 'check',
      steps: [
        {
          id: 1,
          type: 'manual',
          name: 'Identify',
          fields: ['login', 'pin'],
          output: {
            member: '${load_object({"login": P_result.login, "pin": P_result.pin}, "members").name!"none"}',
          },
        },
      ],
    };
    expect(
      (await call(server.url, 'POST', '/api/v1/processes', { token: admin(), body: process })).status,
    ).toBe(201);
    const submit = async (fields: Record<string, unknown>) => {
      const started = await call(server.url, 'POST', '/api/v1/requests', {
        token: admin(),
        body: { process: 'check', mode: 'TEST' },
      });
      const id = started.body.id as string;
      const r = await call(server.url, 'POST', `/live/acme/task/${id}/1/0`, { token: admin(), body: fields });
      expect(r.status).toBe(200);
      return (await call(server.url, 'GET', `/api/v1/requests/${id}`, { token: admin() })).body.data.member;
    };
    expect(await submit({ login: 'ann', pin: '4711' })).toBe('Ann');
    expect(await submit({ login: 'ann', pin: { $ne: '' } })).toBe('none');
  });

  it('does not take update operators from a body passed as the fields to set', async () => {
    expect((await post('set', { name: 'Bob' })).body).toBe('1');
    expect((await post('set', { $unset: { pin: '' } })).body).toMatch(
      /^error: update_field: argument 2 \(fieldname\) holds the operator \$unset from the request's input: an update's operators must be written in the script\n/,
    );
    expect((await post('replace', { $rename: { pin: 'x' } })).body).toMatch(
      /^error: update_objects: argument 2 \(variable\) holds the operator \$rename from the request's input/,
    );
    expect((await post('login', { login: 'bob', pin: '1234' })).body).toBe('welcome Bob');
  });

  it('is not bypassed by quotes in JSON text built with ?json_string', async () => {
    const r = await post('text', { login: 'ann", "pin": {"$ne": ""}, "x": "', pin: 'x' });
    expect(r.body).toBe('refused');
    // ?json_string of a hash is a template error: the object never reaches the query text
    const object = await post('text', { login: 'ann', pin: { $ne: '' } });
    expect(object.body).toMatch(/^error: For "\?json_string" left-hand operand: Expected a string/);
  });
});
