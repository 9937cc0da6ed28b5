/**
 * The client library in real Chromium when the SERVER answers what it cannot read: malformed XML,
 * XML that is not Atom, an error status without the JSON error body, text that is not JSON. The
 * answers come from a real server (composite APIs standing in for a broken or foreign server at
 * the resource's baseUrl), and one list answer is replaced on the wire (page.route). Each failure
 * reaches onFailure exactly once as the documented {status, code, message} (docs/client.md, Errors),
 * and the Promise form rejects with the same error.
 */
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import type * as Client from '../../src/client/index.js';
import { createHosts } from '../../src/hosts/index.js';
import { call, PASSWORD, useServer } from '../server/support.js';
import { describeEachEngine } from '../support/engines.js';
import { describeWithBrowser, libraryPage, type Once } from './support/browser.js';

declare const flowmark: typeof Client;
declare const once: Once;

const BAD_XML = '<entry><title>x</entry>';

/** Composite APIs under /live/acme/composite/<prefix>/config/acme/project/:id answering `template`. */
const ROUTES: Record<string, string> = {
  'bad-xml': `\${P_custom_header("Content-Type", "application/atom+xml; charset=utf-8")}${BAD_XML}`,
  'not-atom': '${P_custom_header("Content-Type", "application/xml")}<html><body>maintenance</body></html>',
  'plain-500': '${set_status(500, "Broken")}${P_custom_header("Content-Type", "text/plain")}upstream down',
  'bad-json': '${P_custom_header("Content-Type", "application/json")}{"entry": ',
};

describeWithBrowser('client: answers the server sends that are not Atom', (browser) => {
  describeEachEngine('bad answers', (engine) => {
    const server = useServer(engine, (platform) => ({
      hosts: createHosts(platform, { routeCacheMs: 0 }),
    }));
    let page: Page;
    let id: number;

    beforeAll(async () => {
      for (const [prefix, template] of Object.entries(ROUTES)) {
        const made = await call(server.url, 'POST', '/api/v1/composite-apis', {
          token: server.acme.admin.token,
          body: { method: 'ANY', path: `${prefix}/config/acme/project/:id`, template },
        });
        expect(made.status, JSON.stringify(made.body)).toBe(201);
      }
      page = await libraryPage(browser.context, server.url, 'acme', 'admin', PASSWORD);
      id = await page.evaluate(async () => {
        const p = new flowmark.Project({ title: 'Real' });
        await p.create();
        return p.id!;
      });
    });

    it('load(), create() and update() reach onFailure once with {status, code, message}; the Promise rejects alike', async () => {
      const result = await page.evaluate(
        async ({ id, BAD_XML }) => {
          const base = (prefix: string) => `${location.origin}/live/acme/composite/${prefix}`;
          const calls: Record<string, unknown> = {};
          const record = async (name: string, start: Parameters<typeof once>[0]) => {
            const { calls: made } = await once(start);
            calls[name] = made.map((c) => (c.kind === 'failure' ? c.error : c));
          };
          const project = (prefix: string, format?: 'json') =>
            new flowmark.Project({
              id,
              customer: 'acme',
              baseUrl: base(prefix),
              ...(format ? { format } : {}),
            });
          await record('load, bad XML', (cb) => project('bad-xml').load(cb));
          await record('load, not Atom', (cb) => project('not-atom').load(cb));
          await record('load, 500 without the JSON body', (cb) => project('plain-500').load(cb));
          await record('load, JSON form, bad JSON', (cb) => project('bad-json', 'json').load(cb));
          await record('update, bad XML', (cb) => project('bad-xml').update(cb));
          // What loadSet says of the same text given directly (no HTTP: status 0).
          const direct = await once((cb) => new flowmark.Project().loadSet(BAD_XML, cb));
          let rejected: unknown;
          await project('bad-xml')
            .load()
            .catch((e: Client.ClientError) => {
              rejected = [e instanceof flowmark.ClientError, e.status, e.code, e.message];
            });
          return { calls, direct: direct.calls, rejected };
        },
        { id, BAD_XML },
      );
      const failure = (status: number, code: string, message: string) => [
        { status, code, message, isClientError: true },
      ];
      expect(result.direct).toHaveLength(1);
      const directError = result.direct[0]!.error!;
      expect(directError).toMatchObject({ status: 0, code: 'invalid-xml', isClientError: true });
      expect(directError.message).toMatch(/^Invalid XML: .*line 1 at column \d+/);
      expect(result.calls).toEqual({
        'load, bad XML': failure(200, 'invalid-xml', directError.message),
        'load, not Atom': failure(
          200,
          'invalid-xml',
          'Invalid Atom document: expected an Atom <entry> or <feed>, not <html>',
        ),
        'load, 500 without the JSON body': failure(500, 'http-error', 'HTTP 500 Broken'),
        'load, JSON form, bad JSON': failure(
          200,
          'invalid-json',
          'The answer is not an Atom document: not JSON.',
        ),
        'update, bad XML': failure(200, 'invalid-xml', directError.message),
      });
      expect(result.rejected).toEqual([true, 200, 'invalid-xml', directError.message]);
      // The real project was never touched.
      expect((await server.platform.projects.require('acme', id)).title).toBe('Real');
    });

    it('a list (loadVersions) whose answer is malformed XML on the wire reaches onFailure once', async () => {
      const pattern = `**/config/acme/project/${id}/version*`;
      await page.route(pattern, (route) =>
        route.fulfill({ status: 200, contentType: 'application/atom+xml', body: '<feed><entry></feed>' }),
      );
      try {
        const result = await page.evaluate(async (id) => {
          const { calls } = await once((cb) =>
            new flowmark.Project({ id, customer: 'acme' }).loadVersions(cb),
          );
          return calls;
        }, id);
        expect(result).toHaveLength(1);
        expect(result[0]).toMatchObject({
          kind: 'failure',
          error: { status: 200, code: 'invalid-xml', isClientError: true },
        });
        expect(result[0]!.error!.message).toMatch(/^Invalid XML: .*line 1 at column \d+/);
      } finally {
        await page.unroute(pattern);
      }
    });
  });
});
