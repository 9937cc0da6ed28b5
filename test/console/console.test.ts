/**
 * The web console in real Chromium against a real server, on every engine: log in, render a template and see an error at its
 * line, autocompletion and the reference, a collection created and queried with an index, projects
 * through the Project class, a file uploaded with its rights, requests and their logs. Each page
 * is screenshotted into test-results/screenshots/ (docs/console.md), from the SQLite run.
 */
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { evalHost } from '../../src/hosts/eval-host.js';
import { PASSWORD, useServer } from '../server/support.js';
import { describeEachEngine } from '../support/engines.js';
import { describeWithBrowser } from '../client/support/browser.js';
import { holdAnswers, replaceText, screenshot } from './support.js';

describeWithBrowser('web console', (browser) => {
  describeEachEngine('console', (engine) => {
    const server = useServer(engine, (platform) => ({ hosts: evalHost(platform) }));
    let page: Page;
    const pageErrors: string[] = [];

    beforeAll(async () => {
      page = await browser.context.newPage();
      page.on('pageerror', (e) => pageErrors.push(e.message));
    });

    const shoot = (name: string) => screenshot(page, engine.name, name);

    const editor = () => page.getByRole('combobox', { name: 'Template' });

    const setTemplate = (text: string) => replaceText(page, editor(), text);

    it('logs in: a wrong password is refused, then the playground opens', async () => {
      await page.goto(`${server.url}/console/`);
      await expect(page.getByRole('heading', { name: 'flowmark console' }).isVisible()).resolves.toBe(true);
      await page.getByLabel('Account').fill('acme');
      await page.getByLabel('Login').fill('admin');
      await page.getByLabel('Password').fill('not the password');
      await page.getByRole('button', { name: 'Log in' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toBe(
        'Invalid account, login or password. (401 invalid-credentials)',
      );
      await shoot('login');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('heading', { name: 'Playground', level: 1 }).waitFor();
      expect(await page.locator('header .who').textContent()).toBe('admin@acme (administrator) Log out');
      expect(new URL(page.url()).hash).toBe('#/playground');
    });

    it('playground: renders live, and shows an error at its line and column', async () => {
      await page.getByText('Rendered:').waitFor();
      await setTemplate('<#assign n = 6 * 7>\nThe answer: ${n}');
      await page.getByText('Rendered: 14 characters.').waitFor();
      expect(await page.getByLabel('Output', { exact: true }).textContent()).toBe('The answer: 42');

      await setTemplate('Hello\n<#assign x = 1>\n${missing_value}\n');
      const position = page.locator('.eval-error .error-position');
      await position.waitFor();
      expect(await position.textContent()).toBe('Line 3, column 3');
      expect(await page.locator('.eval-error .error-message').textContent()).toMatch(
        /^: The following has evaluated to null or missing:\n==> missing_value {2}\[in template "template" at line 3, column 3\]/,
      );
      expect(await page.locator('.editor-gutter .gutter-error').textContent()).toBe('3\n');
      expect(await page.locator('.editor .error-line').isVisible()).toBe(true);
      await shoot('playground-error');

      // The position is a button taking the caret there.
      await position.click();
      const caret = await editor().evaluate((t: HTMLTextAreaElement) => [
        t.selectionStart,
        document.activeElement === t,
      ]);
      expect(caret).toEqual(['Hello\n<#assign x = 1>\n${'.length, true]);

      // The mode and the request data reach the template.
      await setTemplate('${P_mode} ${customer.name}');
      await page.getByLabel('Request data (JSON)').fill('{"customer": {"name": "Zoé"}}');
      await page.getByLabel('Mode').selectOption('ACCEPTANCE');
      await page.getByText('Rendered: 14 characters.').waitFor();
      expect(await page.getByLabel('Output', { exact: true }).textContent()).toBe('ACCEPTANCE Zoé');
      await page.getByLabel('Mode').selectOption('TEST');
    });

    it('playground: function autocompletion and the reference come from the registry', async () => {
      await setTemplate('');
      await editor().focus();
      await page.keyboard.type('${list_ob');
      const listbox = page.getByRole('listbox', { name: 'Functions' });
      await listbox.waitFor();
      expect(await listbox.getByRole('option').allTextContents()).toEqual(['list_objectsCollections']);
      expect(await editor().getAttribute('aria-expanded')).toBe('true');
      // The reference shows the highlighted function.
      const details = page.locator('.function-details');
      await expect(details.locator('h3').textContent()).resolves.toBe('list_objects');
      expect(await details.locator('.signature').first().textContent()).toMatch(
        /^list_objects\(query: \w+, name: string/,
      );
      await shoot('playground-completion');
      await page.keyboard.press('Enter');
      expect(await editor().inputValue()).toBe('${list_objects(');
      expect(await listbox.isHidden()).toBe(true);
      // Escape closes without inserting; the search box filters the reference.
      await page.keyboard.type('{"a":1}, "x")} ${now');
      await listbox.waitFor();
      await page.keyboard.press('Escape');
      expect(await listbox.isHidden()).toBe(true);
      expect(await editor().inputValue()).toBe('${list_objects({"a":1}, "x")} ${now');
      await page.getByLabel('Search functions').fill('uuid');
      expect(await page.locator('.function-list button').allTextContents()).toEqual(['uuid']);
      expect(await page.locator('.editor-highlight .tok-function').allTextContents()).toEqual([
        'list_objects',
        'now',
      ]);

      // A Python script's body is highlighted as Python, and runs.
      await setTemplate('<@script env="python">\nif True:\n    RMPData.setOutput("py")  # done\n</@script>');
      const tokens = (kind: string) => page.locator(`.editor-highlight .tok-${kind}`).allTextContents();
      expect(await tokens('keyword')).toEqual(['if', 'True']);
      expect(await tokens('comment')).toEqual(['# done']);
      expect(await tokens('function')).toEqual(['RMPData']);
      expect(await tokens('string')).toEqual(['"python"', '"py"']);
      await page.getByText('Rendered: 2 characters.').waitFor({ timeout: 60_000 });
      expect(await page.getByLabel('Output', { exact: true }).textContent()).toBe('py');
      await shoot('playground-python');
    }, 90_000);

    it('collections: create one, insert documents, query in MongoDB syntax, add an index', async () => {
      await page.getByRole('link', { name: 'Collections' }).click();
      await page.getByRole('heading', { name: 'Collections', level: 1 }).waitFor();
      await page.getByLabel('New collection').fill('orders');
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      await page.getByRole('heading', { name: 'Collection orders' }).waitFor();
      await page
        .getByLabel('Documents (an object or an array)')
        .fill(
          '[{"ref": "A1", "status": "open", "total": 30}, {"ref": "A2", "status": "closed", "total": 10}, {"ref": "A3", "status": "open", "total": 5}]',
        );
      await page.getByRole('button', { name: 'Save documents' }).click();
      await page.getByText('3 documents saved.').waitFor();
      await page.getByLabel('Query (MongoDB syntax)').fill('{"status": "open", "total": {"$gt": 6}}');
      await page.getByRole('button', { name: 'Find', exact: true }).click();
      await page.getByText('1 document.', { exact: true }).waitFor();
      const found = JSON.parse((await page.locator('pre.document').textContent())!);
      expect(found).toMatchObject({ ref: 'A1', status: 'open', total: 30 });
      // A refused operator is an error shown to the user.
      await page.getByLabel('Query (MongoDB syntax)').fill('{"$where": "1"}');
      await page.getByRole('button', { name: 'Find', exact: true }).click();
      await page.locator('form[aria-label="Find documents"] .message.error').waitFor();

      await page.getByLabel('Index name').fill('by_ref');
      await page.getByLabel('Keys (comma-separated)').fill('ref');
      await page.getByLabel('Unique').check();
      await page.getByRole('button', { name: 'Create index' }).click();
      await page.getByText('Index by_ref created.').waitFor();
      const indexRows = await page
        .locator('table:has(caption:text("Indexes of orders")) tbody tr')
        .allTextContents();
      expect(indexRows).toEqual(['_id__idyesyes', 'by_refrefyesyesDelete']);
      expect(
        await page.locator('table:has(caption:text("Collections")) tbody tr').first().textContent(),
      ).toMatch(/^orders3nono/);
      await shoot('collections');
      const stored = await server.platform.collections.listIndexes(
        { accountId: 'acme', user: { id: server.acme.admin.id, login: 'admin', isAdmin: true } },
        'orders',
      );
      expect(stored.map((i: { name: string }) => i.name)).toEqual(['_id_', 'by_ref']);
    });

    it("collections: the latest address is what opens, not an earlier one's slower answer", async () => {
      await page.evaluate(() => (location.hash = '#/collections'));
      await page.getByRole('heading', { name: 'Collection orders' }).waitFor({ state: 'detached' });
      const collection = await holdAnswers(page, '/collections/orders');
      await page.evaluate(() => (location.hash = '#/collections/orders'));
      await collection.asked;
      await page.evaluate(() => (location.hash = '#/collections'));
      await collection.release();
      expect(await page.getByRole('heading', { name: 'Collection orders' }).count()).toBe(0);
      await page.evaluate(() => (location.hash = '#/collections/orders'));
      await page.getByRole('heading', { name: 'Collection orders' }).waitFor();
    });

    it('projects: listed, opened and saved through the Project class', async () => {
      const { projects, directory } = server.platform;
      const project = await projects.create('acme', {
        title: 'Purchases',
        authorId: server.acme.admin.id,
        content: { steps: 2 },
      });
      await projects.addVersion('acme', project.id, { name: 'v1', mode: 'TEST' });
      const pool = await directory.lanes.createPool('acme', { name: 'Buyers' });
      await directory.lanes.createLane('acme', pool.id, { name: 'Europe' });
      await projects.attachPool('acme', project.id, pool.id);
      await page.getByRole('link', { name: 'Projects' }).click();
      await page.getByRole('button', { name: 'Purchases' }).click();
      await page.getByRole('heading', { name: `Purchases (project ${project.id})` }).waitFor();
      await page
        .locator('table:has(caption:text("Lanes and pools")) tbody tr')
        .filter({ hasText: 'Europe' })
        .waitFor();
      expect(await page.locator('table:has(caption:text("Versions")) tbody tr').allTextContents()).toEqual([
        expect.stringMatching(new RegExp(`^\\d+v1TESTACCEPTANCELIVE\\d{4}-`)),
      ]);
      await page.getByLabel('Title', { exact: true }).fill('Purchases 2');
      await page.getByLabel('Mode of version v1').selectOption('LIVE');
      await page.getByRole('button', { name: 'Save modes' }).click();
      await page.getByText('Modes saved.').waitFor();
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByText(/^Saved at /).waitFor();
      await page.getByRole('button', { name: 'Atom XML' }).click();
      expect(await page.locator('.detail pre.output').textContent()).toContain(
        `<id>urn:flowmark:acme:project:${project.id}</id>\n  <title>Purchases 2</title>`,
      );
      await shoot('projects');
      expect((await projects.require('acme', project.id)).title).toBe('Purchases 2');
      expect((await projects.versions('acme', project.id)).map((v) => v.mode)).toEqual(['LIVE']);
    });

    it('files: upload, download and rights', async () => {
      await page.getByRole('link', { name: 'Files' }).click();
      await page.getByLabel('File', { exact: true }).setInputFiles({
        name: 'notes é.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('first line\nsecond line\n'),
      });
      await page.getByRole('button', { name: 'Upload' }).click();
      await page.getByText('Uploaded notes é.txt (23 bytes).').waitFor();
      await page.getByRole('heading', { name: 'Rights on notes é.txt' }).waitFor();
      const link = page.getByRole('link', { name: 'notes é.txt' });
      const href = (await link.getAttribute('href'))!;
      const downloaded = await page.evaluate(async (h) => (await fetch(h)).text(), href);
      expect(downloaded).toBe('first line\nsecond line\n');
      await page.getByLabel('Users or lanes (logins or ids)').fill('ann');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.getByText('Rights changed.').waitFor();
      expect(await page.locator('table:has(caption:text("Rights on")) tbody tr').allTextContents()).toEqual([
        `Users${server.acme.user.id}—`,
        'Lanes——',
      ]);
      await shoot('files');
      const id = href.split('/')[4]!;
      const rights = await server.platform.files.rights(
        'acme',
        { userId: server.acme.admin.id, isAdmin: true, mode: 'LIVE' },
        id,
      );
      expect(rights.user.READ).toEqual([server.acme.user.id]);
    });

    it('requests and logs: a request, its data and its log', async () => {
      const { requests, logs } = server.platform;
      await requests.create('acme', {
        id: 'req-console',
        mode: 'TEST',
        status: 200,
        data: { amount: 12 },
        initiatorId: server.acme.admin.id,
      });
      await logs.write('acme', {
        requestId: 'req-console',
        projectId: null,
        userId: server.acme.admin.id,
        mode: 'TEST',
        level: 'WARNING',
        message: 'stock is low',
      });
      await page.getByRole('link', { name: 'Requests and logs' }).click();
      await page.locator('table:has(caption:text("Account log")) tbody tr').first().waitFor();
      expect(await page.locator('table:has(caption:text("Account log")) tbody').textContent()).toContain(
        'stock is low',
      );
      // 100 newer entries push it to the second page: Older reaches it, the filters find it.
      for (let i = 0; i < 100; i++)
        await logs.write('acme', {
          requestId: null,
          projectId: null,
          userId: null,
          mode: 'TEST',
          level: 'INFO',
          message: `filler ${i}`,
        });
      const logSection = page.locator('section:has(h2:text("Account log"))');
      const logMessages = () =>
        logSection
          .locator('table:has(caption:text("Account log")) tbody tr td:nth-child(4)')
          .allTextContents();
      await logSection.getByRole('button', { name: 'Filter log' }).click();
      await page.waitForFunction(() => document.body.textContent!.includes('filler 99'));
      expect((await logMessages()).slice(0, 2)).toEqual(['filler 99', 'filler 98']);
      expect(await logMessages()).not.toContain('stock is low');
      await logSection.getByRole('button', { name: 'Earlier entries' }).click();
      await logSection.locator('td:text("stock is low")').waitFor();
      expect(await logSection.getByRole('button', { name: 'Earlier entries' }).isDisabled()).toBe(true);
      await logSection.getByRole('button', { name: 'Later entries' }).click();
      await logSection.locator('td:text("filler 99")').waitFor();
      await logSection.getByLabel('Level', { exact: true }).selectOption('WARNING');
      await logSection.getByLabel('Text', { exact: true }).fill('STOCK');
      await logSection.getByRole('button', { name: 'Filter log' }).click();
      await logSection.locator('td:text("filler 99")').waitFor({ state: 'detached' });
      expect(await logMessages()).toEqual(['stock is low']);
      await logSection.getByLabel('Since', { exact: true }).fill('2999-01-01T00:00');
      await logSection.getByRole('button', { name: 'Filter log' }).click();
      await logSection.getByText('No log entry matches: widen the filters.').waitFor();
      expect(await logMessages()).toEqual([]);
      await page.getByRole('link', { name: 'req-console' }).click();
      await page.getByRole('heading', { name: 'Request req-console' }).waitFor();
      await page.locator('table:has(caption:text("Log of req-console")) tbody tr').first().waitFor();
      expect(
        await page
          .locator('table:has(caption:text("Log of req-console")) tbody tr td:nth-child(3)')
          .allTextContents(),
      ).toEqual(['stock is low']);
      expect(JSON.parse((await page.locator('.detail details[open] pre').textContent())!)).toEqual({
        amount: 12,
      });
      await shoot('requests');
    });

    it('logs out, and nothing in the pages failed', async () => {
      await page.getByRole('button', { name: 'Log out' }).click();
      await page.getByRole('heading', { name: 'flowmark console' }).waitFor();
      expect(pageErrors).toEqual([]);
    });
  });
});
