/**
 * The client library from another origin (src/server/cors.ts, docs/client.md): preflights of
 * `/config/*` answered for listed origins and refused for others, the answers marked for the
 * listed origin only; and in Chromium, a page of another origin loading the library from the
 * server and calling it with an API token.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCorsOrigins } from '../../src/server/cors.js';
import { describeWithBrowser } from '../client/support/browser.js';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from './support.js';

const APP = 'http://localhost:5173';

describe('the CORS allow-list setting', () => {
  it('reads origins separated by commas or spaces, and * ; refuses what is not an origin', () => {
    expect(parseCorsOrigins(['https://app.example.com, http://localhost:3000/', '*'], 'x')).toEqual([
      'https://app.example.com',
      'http://localhost:3000',
      '*',
    ]);
    expect(() => parseCorsOrigins(['https://app.example.com/path'], '--cors-origin')).toThrow(
      '--cors-origin: expected origins like https://app.example.com (scheme, host and port, no path) or *, got "https://app.example.com/path"',
    );
    expect(() => parseCorsOrigins(['app.example.com'], 'FLOWMARK_CORS_ORIGINS')).toThrow(
      /^FLOWMARK_CORS_ORIGINS: expected origins/,
    );
  });
});

describeEachEngine('server: cross-origin requests', (engine) => {
  const server = useServer(engine, { corsOrigins: [APP] });

  const preflight = (origin: string, path: string, headers = 'authorization') =>
    call(server.url, 'OPTIONS', path, {
      headers: { origin, 'access-control-request-method': 'PUT', 'access-control-request-headers': headers },
    });

  it('answers the preflight of a listed origin on /config/*, /api/v1/* and /client/*', async () => {
    for (const path of ['/config/acme/project/1', '/api/v1/auth/me', '/client/index.js']) {
      const r = await preflight(APP, path, 'authorization, content-type');
      expect(r.status).toBe(204);
      expect(r.body).toBe('');
      expect(r.headers.get('access-control-allow-origin')).toBe(APP);
      expect(r.headers.get('access-control-allow-methods')).toBe('GET, POST, PUT, PATCH, DELETE');
      expect(r.headers.get('access-control-allow-headers')).toBe('authorization, content-type, accept');
      expect(r.headers.get('access-control-max-age')).toBe('600');
      expect(r.headers.get('access-control-allow-credentials')).toBeNull();
      expect(r.headers.get('vary')).toBe('Origin');
    }
  });

  it('refuses the preflight of another origin, and leaves other paths alone', async () => {
    const r = await preflight('https://evil.example', '/config/acme/project/1');
    expect(r.status).toBe(403);
    expect(r.body).toEqual({
      status: 403,
      code: 'forbidden',
      message: 'The origin https://evil.example is not allowed (serve --cors-origin, FLOWMARK_CORS_ORIGINS).',
    });
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
    const live = await preflight(APP, '/live/acme/composite/x');
    expect(live.headers.get('access-control-allow-origin')).toBeNull();
  });

  it("marks the answers to a listed origin's requests, errors included, and no others", async () => {
    const token = server.acme.admin.token;
    const me = await call(server.url, 'GET', '/api/v1/auth/me', { token, headers: { origin: APP } });
    expect(me.status).toBe(200);
    expect(me.headers.get('access-control-allow-origin')).toBe(APP);
    const user = await call(server.url, 'GET', '/config/acme/user/ann', {
      token,
      headers: { origin: APP, accept: 'application/json' },
    });
    expect(user.status).toBe(200);
    expect(user.headers.get('access-control-allow-origin')).toBe(APP);
    const missing = await call(server.url, 'GET', '/config/acme/project/999999', {
      token,
      headers: { origin: APP },
    });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('access-control-allow-origin')).toBe(APP);
    const other = await call(server.url, 'GET', '/api/v1/auth/me', {
      token,
      headers: { origin: 'https://evil.example' },
    });
    expect(other.status).toBe(200);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const sameOrigin = await call(server.url, 'GET', '/api/v1/auth/me', { token });
    expect(sameOrigin.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describeEachEngine('server: without an allow-list', (engine) => {
  const server = useServer(engine);
  it('answers no preflight and marks no answer (same origin only)', async () => {
    const r = await call(server.url, 'OPTIONS', '/config/acme/project/1', {
      headers: { origin: APP, 'access-control-request-method': 'GET' },
    });
    expect(r.status).toBe(404);
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describeWithBrowser('the client library from another origin, in Chromium', (browser) => {
  describeEachEngine('cross-origin page', (engine) => {
    // the pages: a server of their own; http://localhost:<port> is listed, http://127.0.0.1:<port> not
    let pages: Server;
    let listed = '';
    let unlisted = '';
    beforeAll(async () => {
      pages = createHttpServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title>');
      });
      await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
      const port = (pages.address() as { port: number }).port;
      listed = `http://localhost:${port}`;
      unlisted = `http://127.0.0.1:${port}`;
    });
    afterAll(() => {
      pages.closeAllConnections();
      return new Promise<void>((resolve) => pages.close(() => resolve()));
    });
    const server = useServer(engine, () => ({ corsOrigins: [listed] }));

    /** In a page of `origin`: the library imported from the server, a user and a missing project loaded with a token. */
    async function fromPage(origin: string) {
      const tab = await browser.context.newPage();
      try {
        await tab.goto(`${origin}/`);
        // as text: vitest would rewrite an import() written here
        const script = `(async () => {
          const report = (e) => ({ status: e.status, code: e.code, message: e.message });
          let flowmark;
          try {
            flowmark = await import(${JSON.stringify(`${server.url}/client/index.js`)});
          } catch {
            return { imported: false };
          }
          flowmark.configure({ baseUrl: ${JSON.stringify(server.url)}, token: ${JSON.stringify(server.acme.admin.token)} });
          const user = await new flowmark.User({ login: 'ann' }).load();
          const failed = await new flowmark.Project({ id: 999999 }).load().catch(report);
          return { imported: true, login: user.login, customer: user.customer, failed };
        })()`;
        return (await tab.evaluate(script)) as unknown;
      } finally {
        await tab.close();
      }
    }

    it('a listed origin loads the library from the server and calls it with a token', async () => {
      expect(await fromPage(listed)).toEqual({
        imported: true,
        login: 'ann',
        customer: 'acme',
        failed: { status: 404, code: 'not-found', message: 'Project not found.' },
      });
    });

    it('an unlisted origin cannot even import it', async () => {
      expect(await fromPage(unlisted)).toEqual({ imported: false });
    });
  });
});
