/**
 * The console's composite API and web interface pages in real Chromium against a real server with
 * the real hosts, on every engine: a composite API created with the playground's editor (and its
 * completion), called through the "try it" panel (status, reason, headers, body; anonymous refused
 * when it is not public; a hostile answer shown as text), edited and deleted after a confirmation;
 * a web interface created, its template edited, opened live, changed and deleted. Screenshots go
 * to test-results/screenshots/ (docs/console.md), from the SQLite run.
 */
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { createHosts } from '../../src/hosts/index.js';
import { evalHost } from '../../src/hosts/eval-host.js';
import { call, useServer } from '../server/support.js';
import { describeEachEngine } from '../support/engines.js';
import { describeWithBrowser } from '../client/support/browser.js';
import { replaceText, screenshot, submitLogin } from './support.js';

describeWithBrowser('web console: composite APIs and web interfaces', (browser) => {
  describeEachEngine('console scripts', (engine) => {
    const server = useServer(engine, (platform) => ({
      hosts: { ...evalHost(platform), ...createHosts(platform) },
    }));
    let page: Page;
    const pageErrors: string[] = [];

    beforeAll(async () => {
      page = await browser.context.newPage();
      page.on('pageerror', (e) => pageErrors.push(e.message));
      await page.goto(`${server.url}/console/`);
      await submitLogin(page, 'acme', 'admin');
      await page.getByRole('heading', { name: 'Playground', level: 1 }).waitFor();
    });

    const shoot = (name: string) => screenshot(page, engine.name, name);
    const editor = () => page.getByRole('combobox', { name: 'Template' });
    const setTemplate = (text: string) => replaceText(page, editor(), text);
    /** Accepts (or dismisses) the next confirmation and says what it asked. */
    function nextDialog(accept: boolean): Promise<string> {
      return new Promise((resolve) =>
        page.once('dialog', (dialog) => {
          resolve(dialog.message());
          void (accept ? dialog.accept() : dialog.dismiss());
        }),
      );
    }
    const rows = (caption: string) =>
      page
        .locator('table', { has: page.locator('caption', { hasText: new RegExp(`^${caption}$`) }) })
        .locator('tbody tr')
        .allInnerTexts();

    it('composite APIs: create one with the editor, try it, edit it, delete it', async () => {
      await page.getByRole('link', { name: 'Composite APIs' }).click();
      await page.getByRole('heading', { name: 'Composite APIs', level: 1 }).waitFor();
      await page.locator('.page-info', { hasText: 'No composite APIs' }).waitFor();

      // The sample a new API starts from works as it is: GET hello/:name.
      await page.getByRole('button', { name: 'New composite API' }).click();
      await page.getByRole('heading', { name: 'New composite API' }).waitFor();
      await expect(page.getByRole('form', { name: 'Try it' }).count()).resolves.toBe(0);
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByText(/^Saved at /).waitFor();
      const sample = page.getByRole('form', { name: 'Try it' });
      await sample.getByLabel('Path parameter name').fill('Zoé "Z"');
      await sample.getByRole('button', { name: 'Send' }).click();
      await sample.getByText(/^Answered 200 in \d+ ms\.$/).waitFor();
      expect(await sample.getByLabel('Response body').textContent()).toBe(
        JSON.stringify({ hello: 'Zoé "Z"' }, null, 2),
      );
      void nextDialog(true);
      await page.getByRole('button', { name: 'Delete GET hello/:name' }).first().click();
      await page.getByText('Composite API GET hello/:name deleted.').waitFor();

      await page.getByRole('button', { name: 'New composite API' }).click();
      await page.getByRole('heading', { name: 'New composite API' }).waitFor();
      await page.getByLabel('Method', { exact: true }).selectOption('POST');
      await page.getByLabel('Path', { exact: true }).fill('orders/:id');
      await expect(page.locator('.meta code').first().textContent()).resolves.toBe(
        `${server.url}/live/acme/composite/orders/:id`,
      );
      await page.getByLabel('Public (no credentials needed)').check();

      // The playground's editor: completion from the registry, highlighting.
      await setTemplate('');
      await editor().focus();
      await page.keyboard.type('${set_sta');
      const listbox = page.getByRole('listbox', { name: 'Functions' });
      await listbox.waitFor();
      expect(await listbox.getByRole('option').allTextContents()).toEqual(['set_statusComposite API']);
      await page.keyboard.press('Enter');
      expect(await editor().inputValue()).toBe('${set_status(');
      await setTemplate(
        [
          '<#-- An order: 201, its id in a header, the input echoed as JSON. -->',
          '${set_status(201, "Made")}${P_custom_header("X-Order", P_params.id)}',
          '${P_custom_header("Content-Type", "application/json")}',
          '{"id": "${P_params.id}", "q": "${P_query.q}",',
          ' "item": "${P_body.item}", "trace": "${P_header["x-trace"]!}"}',
        ].join('\n'),
      );
      expect(await page.locator('.editor-highlight .tok-function').allTextContents()).toEqual([
        'set_status',
        'P_custom_header',
        'P_custom_header',
      ]);
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByRole('heading', { name: 'Composite API POST orders/:id' }).waitFor();
      await page.getByText(/^Saved at /).waitFor();
      expect(await rows('Composite APIs')).toEqual([
        expect.stringMatching(/^POST\torders\/:id\tyes\tLIVE\t\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\tDelete$/),
      ]);
      await expect(page.locator('.page-info').textContent()).resolves.toBe('1–1 of 1');

      // Try it: path parameter, query, headers and a JSON body reach the script.
      const tryIt = page.getByRole('form', { name: 'Try it' });
      await tryIt.getByLabel('Path parameter id').fill('42');
      await tryIt.getByLabel('Query', { exact: true }).fill('q=fast');
      await tryIt.getByLabel('Headers', { exact: true }).fill('X-Trace: t1');
      await tryIt.getByLabel('Body', { exact: true }).fill('{"item": "pen"}');
      await expect(tryIt.locator('.meta code').textContent()).resolves.toBe(
        `${server.url}/live/acme/composite/orders/42?q=fast`,
      );
      await tryIt.getByRole('button', { name: 'Send' }).click();
      await tryIt.getByText(/^Answered 201 in \d+ ms\.$/).waitFor();
      expect(await tryIt.locator('.call-status').textContent()).toBe('201 Made');
      const headers = await rows('Response headers');
      expect(headers).toContain('x-order\t42');
      expect(headers).toContain('content-type\tapplication/json; charset=utf-8');
      expect(await tryIt.getByLabel('Response body').textContent()).toBe(
        JSON.stringify({ id: '42', q: 'fast', item: 'pen', trace: 't1' }, null, 2),
      );
      await shoot('composite-apis');

      // A hostile answer is shown as text, never as markup.
      await tryIt
        .getByLabel('Body', { exact: true })
        .fill('{"item": "<img src=x onerror=window.__pwned=1>"}');
      await tryIt.getByRole('button', { name: 'Send' }).click();
      await tryIt.locator('pre', { hasText: '<img' }).waitFor();
      expect(await page.locator('.detail img').count()).toBe(0);
      expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();

      // A bad header line is refused before any call.
      await tryIt.getByLabel('Headers', { exact: true }).fill('no colon here');
      await tryIt.getByRole('button', { name: 'Send' }).click();
      await expect(tryIt.getByRole('alert').textContent()).resolves.toBe(
        'Headers: line 1 is not "Name: value"',
      );
      await tryIt.getByLabel('Headers', { exact: true }).fill('');

      // A script error is shown at its line and column, marked in the editor as in the playground.
      await setTemplate('Hello\n<#assign x = 1>\n${missing_value}\n');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByText(/^Saved at /).waitFor();
      const failing = page.getByRole('form', { name: 'Try it' });
      await failing.getByLabel('Path parameter id').fill('1');
      await failing.getByRole('button', { name: 'Send' }).click();
      await failing.getByText(/^Answered 500 in \d+ ms\.$/).waitFor();
      const position = failing.locator('.eval-error .error-position');
      expect(await position.textContent()).toBe('Line 3, column 3');
      expect(await failing.locator('.eval-error .error-message').textContent()).toMatch(
        /^ of the saved template: The following has evaluated to null or missing:\n==> missing_value/,
      );
      expect(await page.locator('.editor-gutter .gutter-error').textContent()).toBe('3\n');
      await position.click();
      expect(
        await editor().evaluate((t: HTMLTextAreaElement) => [t.selectionStart, document.activeElement === t]),
      ).toEqual(['Hello\n<#assign x = 1>\n${'.length, true]);

      // Edit: no longer public, another answer. Anonymous is refused, the session is accepted.
      await page.getByLabel('Public (no credentials needed)').uncheck();
      await setTemplate('order ${P_params.id} for ${P_user.login}');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByText(/^Saved at /).waitFor();
      const tryAgain = page.getByRole('form', { name: 'Try it' });
      await tryAgain.getByLabel('Path parameter id').fill('7');
      await tryAgain.getByLabel('Send my session (untick to call as anonymous)').uncheck();
      await tryAgain.getByRole('button', { name: 'Send' }).click();
      await tryAgain.getByText(/^Answered 401 in \d+ ms\.$/).waitFor();
      await tryAgain.getByLabel('Send my session (untick to call as anonymous)').check();
      await tryAgain.getByRole('button', { name: 'Send' }).click();
      await tryAgain.getByText(/^Answered 200 in \d+ ms\.$/).waitFor();
      expect(await tryAgain.getByLabel('Response body').textContent()).toBe('order 7 for admin');
      expect(await page.locator('.editor-gutter .gutter-error').count()).toBe(0);
      const stored = await call(server.url, 'GET', '/api/v1/composite-apis', {
        token: server.acme.admin.token,
      });
      expect(stored.body.items).toMatchObject([
        {
          method: 'POST',
          path: 'orders/:id',
          isPublic: false,
          template: 'order ${P_params.id} for ${P_user.login}',
        },
      ]);
      expect(await rows('Composite APIs')).toEqual([expect.stringMatching(/^POST\torders\/:id\tno\t/)]);

      // A redirect is reported, not followed.
      await setTemplate('${set_status(302)}${P_custom_header("Location", "/console/")}');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByText(/^Saved at /).waitFor();
      // The panel keeps what was typed while the method and path stay the same.
      expect(
        await page.getByRole('form', { name: 'Try it' }).getByLabel('Path parameter id').inputValue(),
      ).toBe('7');
      await page.getByRole('form', { name: 'Try it' }).getByRole('button', { name: 'Send' }).click();
      await page
        .getByText(/^Answered a redirect in \d+ ms \(not followed; the browser hides its target\)\.$/)
        .waitFor();
      // The console stays where it was: the API's own address (#/composite-apis/<id>).
      expect(new URL(page.url()).hash).toMatch(/^#\/composite-apis\/\d+$/);

      // The filter by path.
      await page.getByLabel('Filter by path').fill('zzz');
      await page.locator('.page-info', { hasText: 'No composite APIs' }).waitFor();
      expect(await rows('Composite APIs')).toEqual(['Nothing yet.']);
      await page.getByLabel('Filter by path').fill('ord');
      await page.locator('.page-info', { hasText: '1–1 of 1' }).waitFor();
      await page.getByLabel('Filter by path').fill('');

      // Delete: a dismissed confirmation keeps it, an accepted one deletes it.
      const asked = nextDialog(false);
      await page.getByRole('button', { name: 'Delete POST orders/:id' }).first().click();
      expect(await asked).toBe('Delete the composite API POST orders/:id?');
      expect(await rows('Composite APIs')).toHaveLength(1);
      const kept = await call(server.url, 'GET', '/api/v1/composite-apis', {
        token: server.acme.admin.token,
      });
      expect(kept.body.total).toBe(1);
      void nextDialog(true);
      await page.getByRole('button', { name: 'Delete POST orders/:id' }).first().click();
      await page.getByText('Composite API POST orders/:id deleted.').waitFor();
      expect(await rows('Composite APIs')).toEqual(['Nothing yet.']);
      expect(await page.locator('.detail').isHidden()).toBe(true);
      const gone = await call(server.url, 'POST', '/live/acme/composite/orders/7', {
        token: server.acme.admin.token,
      });
      expect(gone.status).toBe(404);
    }, 60_000);

    it('web interfaces: create one, edit its template, open it live, delete it', async () => {
      const project = await call(server.url, 'POST', '/api/v1/projects', {
        token: server.acme.admin.token,
        body: { title: 'Sales' },
      });
      await page.getByRole('link', { name: 'Web interfaces' }).click();
      await page.getByRole('heading', { name: 'Web interfaces', level: 1 }).waitFor();
      await page.locator('.page-info', { hasText: 'No web interfaces' }).waitFor();

      await page.getByLabel('Project', { exact: true }).selectOption(String(project.body.id));
      await page.getByLabel('New web interface title').fill('Order <b>entry</b>');
      await page.getByLabel('Tags').fill('sales, orders');
      await page.getByRole('checkbox', { name: 'mobile' }).check();
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      const created = page.getByText(
        /^Web interface Order <b>entry<\/b> created \(id \d+\) with the sample template, saved\.$/,
      );
      await created.waitFor();
      const id = Number(/\(id (\d+)\)/.exec((await created.textContent())!)![1]);
      expect(await page.locator('.detail .meta').textContent()).toMatch(
        new RegExp(
          `^Id ${id} · project ${project.body.id} · contexts web, mobile · tags sales, orders · created `,
        ),
      );
      expect(await rows('Web interfaces')).toEqual([
        `${id}\tOrder <b>entry</b>\t${project.body.id}\tweb, mobile\tsales, orders\tOpen\tDelete`,
      ]);
      expect(await page.locator('.detail b').count()).toBe(0);
      // A new interface starts from the sample template, in the playground's editor; it works as it is.
      expect(await editor().inputValue()).toMatch(/^<#-- Rendered on the server/);
      await page.getByRole('button', { name: 'Save template' }).click();
      await page.getByText(/^Template saved \(\d+ characters\)\.$/).waitFor();
      const sample = await call(server.url, 'GET', `/live/acme/webinterface/${id}?P_mode=TEST`, {
        token: server.acme.admin.token,
      });
      expect(sample.body).toContain(
        '<h1>Order &lt;b&gt;entry&lt;/b&gt;</h1>\n<p>Mode TEST, context web.</p>',
      );

      await setTemplate(
        '<p>${P_webinterface.title?html} in ${P_mode}, ${P_context}: ${P_query.who!"nobody"}</p>',
      );
      await page.getByRole('button', { name: 'Save template' }).click();
      await page.getByText(/^Template saved \(\d+ characters\)\.$/).waitFor();
      const links = page.getByRole('navigation', { name: 'Open Order <b>entry</b> live' }).getByRole('link');
      expect(await links.allTextContents()).toEqual([
        'LIVE',
        'LIVE (mobile)',
        'ACCEPTANCE',
        'ACCEPTANCE (mobile)',
        'TEST',
        'TEST (mobile)',
      ]);
      expect(
        await page
          .getByRole('link', { name: 'Open Order <b>entry</b> in TEST (mobile)' })
          .getAttribute('href'),
      ).toBe(`/live/acme/webinterface/${id}?P_mode=TEST&P_context=mobile`);
      await shoot('web-interfaces');

      // Open live: a new tab renders the template on the server.
      const opened = page.context().waitForEvent('page');
      await page.getByRole('link', { name: 'Open Order <b>entry</b> in TEST', exact: true }).click();
      const live = await opened;
      await live.waitForLoadState();
      expect(live.url()).toBe(`${server.url}/live/acme/webinterface/${id}?P_mode=TEST`);
      expect(await live.locator('p').textContent()).toBe('Order <b>entry</b> in TEST, web: nobody');
      // LIVE needs a LIVE version of the project, which it has not.
      const inLive = await call(server.url, 'GET', `/live/acme/webinterface/${id}`, {
        token: server.acme.admin.token,
      });
      expect(inLive.status).toBe(404);

      // Edit, then the live page shows the change.
      await setTemplate('<p>changed ${P_query.who!"nobody"}</p>');
      await page.getByRole('button', { name: 'Save template' }).click();
      await page.getByText(/^Template saved \(\d+ characters\)\.$/).waitFor();
      await live.goto(`${server.url}/live/acme/webinterface/${id}?P_mode=TEST&who=ann`);
      expect(await live.locator('p').textContent()).toBe('changed ann');
      const template = await call(server.url, 'GET', `/api/v1/web-interfaces/${id}/template`, {
        token: server.acme.admin.token,
      });
      expect(template.body).toEqual({ template: '<p>changed ${P_query.who!"nobody"}</p>' });

      // Delete after a confirmation: gone from the list, and from /live.
      const asked = nextDialog(true);
      await page.getByRole('button', { name: 'Delete web interface Order <b>entry</b>' }).first().click();
      expect(await asked).toBe(`Delete the web interface Order <b>entry</b> (${id}) and its template?`);
      await page.getByText('Web interface Order <b>entry</b> deleted.').waitFor();
      expect(await rows('Web interfaces')).toEqual(['Nothing yet.']);
      await live.close();
      const deleted = await call(server.url, 'GET', `/live/acme/webinterface/${id}?P_mode=TEST`, {
        token: server.acme.admin.token,
      });
      expect(deleted.body).toEqual({ status: 404, code: 'not-found', message: 'Web interface not found.' });
    }, 60_000);

    it('a plain user sees the web interfaces with their links, and is refused composite APIs', async () => {
      await call(server.url, 'POST', `/api/v1/projects`, {
        token: server.acme.admin.token,
        body: { title: 'Kept' },
      }).then((p) =>
        call(server.url, 'POST', `/api/v1/projects/${p.body.id}/web-interfaces`, {
          token: server.acme.admin.token,
          body: { title: 'Catalogue' },
        }),
      );
      await page.getByRole('button', { name: 'Log out' }).click();
      await submitLogin(page, 'acme', 'ann');
      await page.getByRole('link', { name: 'Web interfaces' }).waitFor();
      await page.getByRole('link', { name: 'Web interfaces' }).click();
      await page.getByRole('heading', { name: 'Web interfaces', level: 1 }).waitFor();
      await page.locator('.page-info', { hasText: '1–1 of 1' }).waitFor();
      expect(await rows('Web interfaces')).toEqual([
        expect.stringMatching(/^\d+\tCatalogue\t\d+\tweb\t\tOpen\t$/),
      ]);
      expect(await page.getByRole('form', { name: 'Create a web interface' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Catalogue' }).count()).toBe(0);

      await page.getByRole('link', { name: 'Composite APIs' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toBe(
        'Only an administrator of the account may call GET /api/v1/composite-apis. (403 forbidden)',
      );
      expect(await page.getByRole('button', { name: 'New composite API' }).count()).toBe(0);
      expect(await page.locator('main table').count()).toBe(0);
      expect(pageErrors).toEqual([]);
    }, 60_000);
  });
});
