/**
 * The composite API host on every engine: route matching, the HTTP request in scope, set_status
 * and P_custom_header shaping the response, public and private routes, script errors.
 */
import { beforeAll, expect, it } from 'vitest';
import { CompositeHost, type Exchange } from '../../src/hosts/index.js';
import { describeEachEngine } from '../support/engines.js';
import { buildWorld, NOW, type World } from '../platform/world.js';
import { anonymousExchange } from './support.js';

describeEachEngine('composite API host', (engine) => {
  let w: World;
  let host: CompositeHost;
  beforeAll(async () => {
    w = await buildWorld(engine.store);
    host = new CompositeHost(w.platform, { clock: () => NOW });
    const apis = w.platform.compositeApis;
    await apis.create(w.account, {
      method: 'GET',
      path: 'orders/:id',
      isPublic: true,
      template:
        '${P_custom_header("X-Order", P_params.id)}{"id": "${P_params.id}", "method": "${P_method}", "q": "${P_query.q!}", "agent": "${P_header["user-agent"]!}"}',
    });
    await apis.create(w.account, {
      method: 'GET',
      path: 'orders/latest',
      isPublic: true,
      template: 'latest',
    });
    await apis.create(w.account, {
      method: 'POST',
      path: 'orders',
      template:
        '<#assign o = P_body>${set_status(201, "Made")}${P_custom_header("Location", "/orders/" + o.ref)}' +
        '{"ref": "${o.ref}", "by": "${P_user.login}", "lines": ${o.lines?size}}',
    });
    await apis.create(w.account, {
      method: 'ANY',
      path: 'echo',
      isPublic: true,
      template: '${P_method} ${P_body!"-"}',
    });
    await apis.create(w.account, {
      method: 'DELETE',
      path: 'orders/:id',
      isPublic: true,
      template: '${set_status(404, "Gone", "No order " + P_params.id)}',
    });
    await apis.create(w.account, {
      method: 'GET',
      path: 'broken',
      isPublic: true,
      template: 'line one\n${nope.field}',
    });
    await apis.create(w.account, {
      method: 'GET',
      path: 'broken-test',
      isPublic: true,
      mode: 'TEST',
      template: '${list_objects({}, "x")}',
    });
    await apis.create(w.account, {
      method: 'GET',
      path: 'typed',
      isPublic: true,
      template: '${P_custom_header("Content-Type", "application/xml")}<a/>',
    });
  });
  const exchange = (method: string, path: string, extra: Partial<Exchange> = {}): Exchange =>
    anonymousExchange(w.account, method, path, extra);
  const ann = () => ({ accountId: w.account, user: { id: w.ids.ann, login: 'ann', isAdmin: false } });

  it('answers with the matching route: path parameters, query, headers in scope; JSON output as JSON', async () => {
    const r = await host.handle(
      exchange('GET', 'orders/42', { query: { q: 'x' }, headers: { 'user-agent': 'curl/8' } }),
    );
    expect(r).toEqual({
      status: 200,
      headers: { 'X-Order': '42', 'content-type': 'application/json; charset=utf-8' },
      body: '{"id": "42", "method": "GET", "q": "x", "agent": "curl/8"}',
    });
    // a literal segment wins over a parameter
    expect((await host.handle(exchange('GET', '/orders/latest/'))).body).toBe('latest');
    expect((await host.handle(exchange('GET', 'orders/latest'))).headers).toEqual({
      'content-type': 'text/plain; charset=utf-8',
    });
  });

  it('lets set_status and P_custom_header shape the response; a private route needs a caller', async () => {
    const body = { ref: 'A-1', lines: [1, 2] };
    expect(await host.handle(exchange('POST', 'orders', { body }))).toEqual({
      status: 401,
      headers: {},
      body: {
        status: 401,
        code: 'unauthenticated',
        message: 'Authentication required: log in or send an API token.',
      },
    });
    expect(await host.handle(exchange('POST', 'orders', { body, caller: ann() }))).toEqual({
      status: 201,
      statusMessage: 'Made',
      headers: { Location: '/orders/A-1', 'content-type': 'application/json; charset=utf-8' },
      body: '{"ref": "A-1", "by": "ann", "lines": 2}',
    });
  });

  it('sends the description as JSON when the script prints nothing after set_status', async () => {
    expect(await host.handle(exchange('DELETE', 'orders/7'))).toEqual({
      status: 404,
      statusMessage: 'Gone',
      headers: {},
      body: { status: 404, name: 'Gone', description: 'No order 7' },
    });
  });

  it('answers any method on an ANY route, HEAD without a body, a text or binary body as given', async () => {
    expect((await host.handle(exchange('PUT', 'echo', { body: 'plain' }))).body).toBe('PUT plain');
    expect((await host.handle(exchange('PATCH', 'echo', { body: Buffer.from([1, 2, 255]) }))).body).toBe(
      'PATCH AQL/',
    );
    expect(await host.handle(exchange('HEAD', 'orders/1'))).toMatchObject({ status: 200, body: null });
    expect((await host.handle(exchange('GET', 'typed'))).headers).toEqual({
      'Content-Type': 'application/xml',
    });
  });

  it('answers 404 for no route and 405 (with Allow) for another method', async () => {
    expect(await host.handle(exchange('GET', 'nothing/here'))).toEqual({
      status: 404,
      headers: {},
      body: { status: 404, code: 'not-found', message: 'No composite API answers GET /nothing/here.' },
    });
    expect(await host.handle(exchange('PUT', 'orders/3'))).toEqual({
      status: 405,
      headers: { allow: 'GET, DELETE' },
      body: {
        status: 405,
        code: 'method-not-allowed',
        message: 'The composite API /orders/3 does not answer PUT.',
      },
    });
    // another account's routes are not this one's
    expect((await host.handle({ ...exchange('GET', 'orders/1'), accountId: 'other' })).status).toBe(404);
  });

  it('answers 500 for a failing script: details for administrators and outside LIVE, always in the log', async () => {
    expect(await host.handle(exchange('GET', 'broken'))).toEqual({
      status: 500,
      headers: {},
      body: {
        status: 500,
        code: 'script-error',
        message: "The composite API's script failed (see the account's log).",
      },
    });
    const admin = { accountId: w.account, user: { id: w.ids.admin, login: 'admin', isAdmin: true } };
    expect((await host.handle(exchange('GET', 'broken', { caller: admin }))).body).toEqual({
      status: 500,
      code: 'script-error',
      message:
        'The following has evaluated to null or missing:\n==> nope  [in template "composite GET broken" at line 2, column 3]',
      line: 2,
      column: 3,
    });
    expect((await host.handle(exchange('GET', 'broken-test'))).body).toMatchObject({
      code: 'script-error',
      message: 'Cannot list objects with an empty condition.',
    });
    const [entry] = await w.platform.logs.list(w.account, { limit: 1 });
    expect(entry).toMatchObject({
      level: 'SEVERE',
      mode: 'TEST',
      message:
        'composite API GET /broken-test, line 1, column 3: list_objects: Cannot list objects with an empty condition.',
    });
  });

  it('sees a new route at once when it is made through the same platform', async () => {
    expect((await host.handle(exchange('GET', 'fresh'))).status).toBe(404);
    await w.platform.compositeApis.create(w.account, { path: 'fresh', template: 'new', isPublic: true });
    expect((await host.handle(exchange('GET', 'fresh'))).body).toBe('new');
  });

  it('sees a changed, a deleted and a made-private route at the next call (cached routes and templates)', async () => {
    const apis = w.platform.compositeApis;
    const made = await apis.create(w.account, {
      path: 'cached/:n',
      template: 'one ${P_params.n}',
      isPublic: true,
    });
    for (let i = 0; i < 3; i++) expect((await host.handle(exchange('GET', 'cached/7'))).body).toBe('one 7');
    await apis.replace(w.account, made.id, {
      path: 'cached/:n',
      template: 'two ${P_params.n}',
      isPublic: true,
    });
    expect((await host.handle(exchange('GET', 'cached/7'))).body).toBe('two 7');
    await apis.replace(w.account, made.id, {
      path: 'cached/:n',
      template: 'two ${P_params.n}',
      isPublic: false,
    });
    expect(await host.handle(exchange('GET', 'cached/7'))).toEqual({
      status: 401,
      headers: {},
      body: {
        status: 401,
        code: 'unauthenticated',
        message: 'Authentication required: log in or send an API token.',
      },
    });
    expect((await host.handle(exchange('GET', 'cached/7', { caller: ann() }))).body).toBe('two 7');
    await apis.replace(w.account, made.id, {
      method: 'POST',
      path: 'cached/:n',
      template: 'posted',
      isPublic: true,
    });
    const moved = await host.handle(exchange('GET', 'cached/7'));
    expect(moved.status).toBe(405);
    expect(moved.headers).toEqual({ allow: 'POST' });
    expect((await host.handle(exchange('POST', 'cached/7'))).body).toBe('posted');
    await apis.delete(w.account, made.id);
    expect(await host.handle(exchange('POST', 'cached/7'))).toEqual({
      status: 404,
      headers: {},
      body: { status: 404, code: 'not-found', message: 'No composite API answers POST /cached/7.' },
    });
  });

  it("never answers with another account's route, even one cached and called just before", async () => {
    const other = await buildWorld(engine.store);
    await other.platform.compositeApis.create(other.account, {
      path: 'only-theirs',
      template: 'theirs',
      isPublic: true,
    });
    await other.platform.compositeApis.create(other.account, { path: 'latest', template: 'other latest' });
    const theirs = (method: string, path: string, extra: Partial<Exchange> = {}) =>
      host.handle(anonymousExchange(other.account, method, path, extra));
    expect((await theirs('GET', 'only-theirs')).body).toBe('theirs');
    expect((await host.handle(exchange('GET', 'only-theirs'))).status).toBe(404);
    // The same path in both accounts: each its own script, and its own public flag.
    expect((await host.handle(exchange('GET', 'orders/latest'))).body).toBe('latest');
    expect((await theirs('GET', 'orders/latest')).status).toBe(404);
    expect((await theirs('GET', 'latest')).status).toBe(401);
    const otherAdmin = {
      accountId: other.account,
      user: { id: other.ids.admin, login: 'admin', isAdmin: true },
    };
    expect((await theirs('GET', 'latest', { caller: otherAdmin })).body).toBe('other latest');
    expect((await host.handle(exchange('GET', 'latest'))).status).toBe(404);
  });

  it('defines the internal parameters real scripts read: P_computed, P_language, P_connected_user', async () => {
    await w.platform.compositeApis.create(w.account, {
      path: 'whoami',
      template:
        '${P_computed?is_hash?c} ${P_computed?size} ${P_language} ${P_connected_user.login} ' +
        `\${has_right(P_connected_user.login, "${w.ids.clerks}")} \${P_urls.live}`,
    });
    const r = await host.handle(exchange('GET', 'whoami', { caller: ann() }));
    expect(r.body).toBe('true 0 fr ann true https://flow.example.com');
  });

  it('refuses malformed routes and a second route for the same method and path', async () => {
    const apis = w.platform.compositeApis;
    await expect(apis.create(w.account, { path: 'a b', template: '' })).rejects.toThrow(
      'invalid path "a b": a segment is letters, digits, . _ ~ - or a :parameter',
    );
    await expect(apis.create(w.account, { path: 'x/:id/:id', template: '' })).rejects.toThrow(
      'invalid path "x/:id/:id": :id appears twice',
    );
    await expect(apis.create(w.account, { path: 'x/:__proto__', template: '' })).rejects.toThrow(
      'invalid path "x/:__proto__": :__proto__ is not a parameter name',
    );
    await expect(apis.create(w.account, { method: 'TRACE', path: 'x', template: '' })).rejects.toThrow(
      'invalid method "TRACE": GET, POST, PUT, PATCH, DELETE, ANY',
    );
    await expect(
      apis.create(w.account, { method: 'get', path: '/orders/:id/', template: '' }),
    ).rejects.toThrow('a composite API answers GET orders/:id already');
  });
});
