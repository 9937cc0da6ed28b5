/**
 * Edges of the server's front door, on a real server: the failed-login lock is per client address
 * and login (guessing from one address does not lock the user out of another); an anonymous
 * caller cannot tell which web interface ids exist; a 431 and a `__proto__` key get the API's
 * error body with a message that says what was refused.
 */
import { connect } from 'node:net';
import { expect, it } from 'vitest';
import { createHosts } from '../../src/hosts/index.js';
import { evalHost } from '../../src/hosts/eval-host.js';
import { describeEachEngine } from '../support/engines.js';
import { call, PASSWORD, useServer } from '../server/support.js';

const TOO_MANY = {
  status: 429,
  code: 'too-many-attempts',
  message: 'Too many failed logins: try again later.',
};
const UNAUTHENTICATED = {
  status: 401,
  code: 'unauthenticated',
  message: 'Authentication required: log in or send an API token.',
};

describeEachEngine('security: login lock, web interface ids, header and body refusals', (engine) => {
  // a still clock: the Retry-After below does not depend on how long ten password checks take
  const now = Date.now();
  const server = useServer(engine, (platform) => ({
    clock: () => now,
    trustProxy: true,
    hosts: { ...evalHost(platform), ...createHosts(platform, { routeCacheMs: 0 }) },
  }));
  const admin = () => server.acme.admin.token;

  const loginFrom = (address: string, password: string) =>
    call(server.url, 'POST', '/api/v1/auth/login', {
      body: { account: 'acme', login: 'ann', password },
      headers: { 'x-forwarded-for': address },
    });

  it('locks a login per client address: the real user still logs in from another', async () => {
    for (let i = 0; i < 10; i++) expect((await loginFrom('203.0.113.7', 'guess')).status).toBe(401);
    const attacker = await loginFrom('203.0.113.7', PASSWORD);
    expect(attacker.status).toBe(429);
    expect(attacker.body).toEqual(TOO_MANY);
    expect(attacker.headers.get('retry-after')).toBe('900');
    const user = await loginFrom('198.51.100.20', PASSWORD);
    expect(user.status).toBe(200);
    expect(user.body.user.login).toBe('ann');
    // the user's success does not lift the attacker's lock
    expect((await loginFrom('203.0.113.7', PASSWORD)).body).toEqual(TOO_MANY);
  });

  it('counts an IPv6 client by its /64 network', async () => {
    for (let i = 0; i < 10; i++)
      expect((await loginFrom(`2001:db8:1:2::${i + 1}`, 'guess')).status).toBe(401);
    expect((await loginFrom('2001:db8:1:2:ffff::99', PASSWORD)).body).toEqual(TOO_MANY);
    expect((await loginFrom('2001:db8:1:3::1', PASSWORD)).status).toBe(200);
  });

  it('gives an anonymous caller the same answer for an unknown and an existing web interface', async () => {
    const project = (
      await call(server.url, 'POST', '/api/v1/projects', { token: admin(), body: { title: 'W' } })
    ).body;
    await call(server.url, 'POST', `/api/v1/projects/${project.id}/versions`, {
      token: admin(),
      body: { name: '1', mode: 'LIVE' },
    });
    const wi = (
      await call(server.url, 'POST', `/api/v1/projects/${project.id}/web-interfaces`, {
        token: admin(),
        body: { title: 'Private page' },
      })
    ).body;
    const existing = await call(server.url, 'GET', `/live/acme/webinterface/${wi.id}`);
    const unknown = await call(server.url, 'GET', `/live/acme/webinterface/${wi.id + 1000}`);
    const otherAccount = await call(server.url, 'GET', `/live/nowhere/webinterface/${wi.id}`);
    for (const r of [existing, unknown, otherAccount]) {
      expect(r.status).toBe(401);
      expect(r.body).toEqual(UNAUTHENTICATED);
    }
    // a user of the account does learn it is missing
    const byUser = await call(server.url, 'GET', `/live/acme/webinterface/${wi.id + 1000}`, {
      token: server.acme.user.token,
    });
    expect(byUser.body).toEqual({ status: 404, code: 'not-found', message: 'Web interface not found.' });
  });

  it('answers header fields too large with the standard error body', async () => {
    const r = await fetch(`${server.url}/health`, { headers: { 'x-padding': 'a'.repeat(20_000) } });
    expect(r.status).toBe(431);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await r.json()).toEqual({
      status: 431,
      code: 'too-large',
      message: "The request's header fields are too large.",
    });
  });

  it('answers a request that is not HTTP with the standard error body', async () => {
    const { port } = new URL(server.url);
    const raw = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk) => (text += chunk));
      socket.on('close', () => resolve(text));
      // the server closes the connection after its answer: a reset is no failure here
      socket.on('error', () => resolve(text));
    });
    const [head, body] = raw.split('\r\n\r\n');
    expect(head!.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(head).toContain('Content-Type: application/json; charset=utf-8');
    expect(JSON.parse(body!)).toEqual({
      status: 400,
      code: 'invalid',
      message: 'The request is not valid HTTP.',
    });
  });

  it('says that a __proto__ key was refused, not that the JSON is invalid', async () => {
    const post = (path: string, text: string) =>
      call(server.url, 'POST', path, { body: text, headers: { 'content-type': 'application/json' } });
    const refused = (key: string) => ({
      status: 400,
      code: 'invalid-json',
      message: `The JSON body holds the key "${key}", which is not allowed.`,
    });
    const login = '/api/v1/auth/login';
    expect(
      (await post(login, '{"account":"acme","login":"ann","password":"x","__proto__":{"isAdmin":true}}'))
        .body,
    ).toEqual(refused('__proto__'));
    expect((await post(login, '{"a":[{"b":{"\\u005f_proto__":{}}}]}')).body).toEqual(refused('__proto__'));
    expect((await post(login, '{"constructor":{"prototype":{"isAdmin":true}}}')).body).toEqual(
      refused('constructor.prototype'),
    );
    await call(server.url, 'POST', '/api/v1/composite-apis', {
      token: admin(),
      body: { method: 'POST', path: 'echo', template: '${P_body.a}', isPublic: true },
    });
    expect((await post('/live/acme/composite/echo', '{"a":1,"__proto__":{"x":1}}')).body).toEqual(
      refused('__proto__'),
    );
    // what stays allowed, and what stays a syntax error
    expect((await post('/live/acme/composite/echo', '{"a":"__proto__","constructor":1}')).body).toBe(
      '__proto__',
    );
    expect((await post(login, '{"account":')).body).toEqual({
      status: 400,
      code: 'invalid-json',
      message: "Body is not valid JSON but content-type is set to 'application/json'",
    });
  });
});
