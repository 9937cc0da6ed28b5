/**
 * The console's process pages in real Chromium against a real server with the process host, on
 * every engine: a definition refused with its error at its path (line marked, caret moved there),
 * then created; a request started from it; its page with steps and the manual task's form
 * rendered from its fields; the task submitted and the request completed, with links between the
 * parent and its sub-process's child; the task's own HTML page submitted without the console;
 * a request cancelled; the requests list filtered by status with its total; the definition
 * deleted; a user (not an administrator) starting a stored process by name and submitting its
 * task; a large upload and a collection import showing their progress (on a throttled uplink).
 * Screenshots (SQLite run) go to test-results/screenshots/ (docs/console.md).
 */
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { createHosts } from '../../src/hosts/index.js';
import { evalHost } from '../../src/hosts/eval-host.js';
import { useServer } from '../server/support.js';
import { describeEachEngine } from '../support/engines.js';
import { describeWithBrowser } from '../client/support/browser.js';
import { holdAnswers, replaceText, screenshot, submitLogin } from './support.js';

const INVALID = `{
  "name": "Approval",
  "steps": [
    { "id": 1, "name": "Price", "input": { "total": "\${(amount * 2)?c}" } },
    { "id": 2, "type": "manual", "name": "Approve", "lane": "managers",
      "fields": ["decision", "comment"] },
    { "id": 3, "type": "script", "deadline": "1h",
      "script": "done" }
  ]
}`;

const VALID = `{
  "name": "Approval",
  "steps": [
    { "id": 1, "name": "Price", "input": { "total": "\${(amount * 2)?c}" } },
    { "id": 2, "type": "manual", "name": "Approve", "fields": ["decision", "comment"],
      "input": { "summary": "Order of \${amount}: \${total}" },
      "output": { "approved": "\${(P_result.decision == \\"yes\\")?c}" } },
    { "id": 3, "type": "subprocess", "name": "Ship",
      "process": { "name": "Shipping", "steps": [ { "id": 1, "input": { "label": "box of \${get_parent_params(\\"parent\\").total}" } } ] },
      "output": { "label": "\${P_result.label}" } }
  ]
}`;

describeWithBrowser('console: processes, requests and tasks', (browser) => {
  describeEachEngine('processes', (engine) => {
    const server = useServer(engine, (platform) => ({
      hosts: { ...evalHost(platform), ...createHosts(platform, { routeCacheMs: 0 }) },
    }));
    let page: Page;
    const pageErrors: string[] = [];
    let requestId = '';

    beforeAll(async () => {
      page = await browser.context.newPage();
      page.on('pageerror', (e) => pageErrors.push(e.message));
      page.on('console', (m) => {
        // HTTP errors are asserted where expected (the session probe's 401, the refused definition's
        // 400); anything else logged as an error (a CSP violation, an exception) is a failure.
        if (m.type() === 'error' && !m.text().startsWith('Failed to load resource:'))
          pageErrors.push(m.text());
      });
      page.on('dialog', (d) => void d.accept());
    });

    const shoot = (name: string) => screenshot(page, engine.name, name);

    const setDefinition = (text: string) => replaceText(page, page.getByLabel('Definition (JSON)'), text);

    const fact = (name: string) => page.locator(`dl.facts dt:text-is("${name}") + dd`);

    it('logs in and refuses a definition with its error at its path', async () => {
      await page.goto(`${server.url}/console/`);
      await submitLogin(page, 'acme', 'admin');
      await page.getByRole('heading', { name: 'Playground', level: 1 }).waitFor();
      await page.getByRole('link', { name: 'Processes' }).click();
      await page.getByRole('heading', { name: 'Processes', level: 1 }).waitFor();
      await page.locator('.list p[role="status"]').getByText('0 process definitions').waitFor();
      await page.getByRole('button', { name: 'New definition' }).click();
      await page.getByRole('tab', { name: 'JSON' }).click();
      await setDefinition(INVALID);
      await page.getByRole('button', { name: 'Create' }).click();
      const error = page.locator('.eval-error');
      await error.locator('.error-position').first().waitFor();
      expect(await error.locator('li').allTextContents()).toEqual([
        'Line 5, column 61: steps[1].lane: must be a positive integer, not "managers"',
        'Line 7, column 5: steps[2]: unknown field "deadline" (known: id, type, name, lane, input, output, loop, retry, script)',
      ]);
      expect(await page.locator('.editor-gutter .gutter-error').textContent()).toBe('5\n');
      await error.locator('.error-position').first().click();
      const caret = await page
        .getByLabel('Definition (JSON)')
        .evaluate((t: HTMLTextAreaElement) => t.value.slice(t.selectionStart, t.selectionStart + 10));
      expect(caret).toBe('"managers"');
      await shoot('processes-error');

      await setDefinition('{"name": "Approval", "steps": [ {"id": 1,, } ]}');
      await page.getByRole('button', { name: 'Create' }).click();
      await page.locator('.eval-error .error-position').waitFor();
      expect(await page.locator('.eval-error .error-position').textContent()).toBe('Line 1, column 42');
    });

    it('creates the definition and starts a request from it', async () => {
      await setDefinition(VALID);
      await page.getByRole('button', { name: 'Create' }).click();
      await page.getByRole('heading', { name: 'Process Approval' }).waitFor();
      expect(
        await page.locator('table:has(caption:text("Process definitions")) tbody').textContent(),
      ).toContain('Approval');
      await page.getByLabel('Mode').selectOption('TEST');
      await page.getByLabel('Input data (JSON object)').fill('{"amount": 21}');
      await page.getByRole('button', { name: 'Start a request' }).click();
      await page.getByRole('heading', { name: /^Request / }).waitFor();
      requestId = decodeURIComponent(new URL(page.url()).hash.replace('#/requests/', ''));
      expect(await page.getByRole('heading', { name: /^Request / }).textContent()).toBe(
        `Request ${requestId}`,
      );
      expect(await fact('Status').textContent()).toBe('102 WAITING');
      expect(await fact('Process').textContent()).toBe('Approval');
      expect(await fact('Mode').textContent()).toBe('TEST');
    });

    it("shows the steps and the manual task's form, and completes the request when it is submitted", async () => {
      const steps = page.locator(`table:has(caption:text("Steps of ${requestId}")) tbody tr`);
      expect(await steps.locator('td:nth-child(3)').allTextContents()).toEqual(['done', 'waiting']);
      const form = page.getByRole('form', { name: 'Task Approve' });
      expect(
        await form.getByRole('textbox').evaluateAll((l) => l.map((i) => (i as HTMLInputElement).name)),
      ).toEqual(['decision', 'comment']);
      expect(JSON.parse((await form.getByLabel('Task data').textContent())!)).toEqual({
        summary: 'Order of 21: 42',
      });
      await form.getByLabel('decision').fill('yes');
      await form.getByLabel('comment').fill('<b>fine</b>');
      await shoot('request-task');
      await form.getByRole('button', { name: 'Submit' }).click();
      await page.getByText('Submitted the task Approve.').waitFor();
      expect(await fact('Status').textContent()).toBe('201 COMPLETED');
      expect(await steps.locator('td:nth-child(3)').allTextContents()).toEqual(['done', 'done', 'done']);
      expect(JSON.parse((await page.locator('.detail details[open] pre').textContent())!)).toEqual({
        amount: 21,
        total: 42,
        decision: 'yes',
        comment: '<b>fine</b>',
        summary: 'Order of 21: 42',
        approved: true,
        label: 'box of 42',
      });
      expect(await page.locator('.detail b').count()).toBe(0);
      await shoot('request-completed');

      const child = fact('Child requests').getByRole('link');
      const childId = (await child.textContent())!;
      await child.click();
      await page.getByRole('heading', { name: `Request ${childId}` }).waitFor();
      expect(await fact('Process').textContent()).toBe('Shipping');
      expect(await fact('Parent request').textContent()).toBe(requestId);
      await fact('Parent request').getByRole('link').click();
      await page.getByRole('heading', { name: `Request ${requestId}` }).waitFor();
    });

    it("submits a task on its own HTML page, without the console's script", async () => {
      const started = await page.evaluate(async () => {
        const r = await fetch('/api/v1/requests', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ process: 'Approval', mode: 'TEST', data: { amount: 5 } }),
        });
        return (await r.json()) as { id: string };
      });
      await page.goto(`${server.url}/live/acme/task/${encodeURIComponent(started.id)}/2/0`);
      await page.getByRole('heading', { name: 'Approve' }).waitFor();
      expect(await page.locator('dl.task-data').textContent()).toBe('summaryOrder of 5: 10');
      await page.getByLabel('decision').fill('no');
      await page.getByLabel('comment').fill('<script>alert(1)</script>');
      await shoot('task-page');
      await page.getByRole('button', { name: 'Submit' }).click();
      await page.getByText('Thank you: the task was submitted, and the request completed.').waitFor();
      expect(new URL(page.url()).search).toBe('?submitted=1');
      expect(await page.locator('dl.task-data').last().textContent()).toBe(
        'decisionnocomment<script>alert(1)</script>',
      );
      await page.goto(`${server.url}/console/#/requests/${encodeURIComponent(started.id)}`);
      await page.getByRole('heading', { name: `Request ${started.id}` }).waitFor();
      expect(await fact('Status').textContent()).toBe('201 COMPLETED');
    });

    it('cancels a waiting request', async () => {
      await page.goto(`${server.url}/console/#/processes`);
      await page.getByRole('button', { name: 'Approval', exact: true }).click();
      await page.getByLabel('Input data (JSON object)').fill('{"amount": 1}');
      await page.getByRole('button', { name: 'Start a request' }).click();
      await page.getByRole('heading', { name: /^Request / }).waitFor();
      await fact('Status').getByText('102 WAITING').waitFor();
      expect(await page.getByRole('button', { name: 'Resume' }).count()).toBe(0);
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByText('Cancelled.').waitFor();
      expect(await fact('Status').textContent()).toBe('400 CANCELLED');
      expect(await page.getByRole('form', { name: 'Task Approve' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Cancel' }).count()).toBe(0);
    });

    it('resumes a paused request', async () => {
      const id = await page.evaluate(async () => {
        const post = (path: string, body: unknown) =>
          fetch(path, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          }).then((r) => r.json() as Promise<{ id: string }>);
        await post('/api/v1/processes', {
          name: 'Pause',
          steps: [
            { id: 1, script: '${P_set_request_status(102)}' },
            { id: 2, input: { resumed: '${true?c}' } },
          ],
        });
        return (await post('/api/v1/requests', { process: 'Pause', mode: 'TEST' })).id;
      });
      await page.goto(`${server.url}/console/#/requests/${encodeURIComponent(id)}`);
      await fact('Status').getByText('102 WAITING').waitFor();
      await page.getByRole('button', { name: 'Resume' }).click();
      await page.getByText('Resumed.').waitFor();
      expect(await fact('Status').textContent()).toBe('201 COMPLETED');
      expect(JSON.parse((await page.locator('.detail details[open] pre').textContent())!)).toEqual({
        resumed: true,
      });
      expect(await page.getByRole('button', { name: 'Resume' }).count()).toBe(0);
    });

    it('filters the requests by status, with their total', async () => {
      await page.getByRole('link', { name: 'Requests and logs' }).click();
      const total = page.locator('.list p[role="status"]');
      await total.waitFor();
      expect(await total.textContent()).toBe('6 requests');
      const options = await page.getByLabel('Status').locator('option').allTextContents();
      expect(options).toEqual([
        'Any',
        '101 ACTIVE',
        '102 WAITING',
        '201 COMPLETED',
        '301 ABORTED',
        '302 KILLED',
        '400 CANCELLED',
        '401 OUTDATED',
      ]);
      await page.getByLabel('Status').selectOption('201');
      await page.getByRole('button', { name: 'Show' }).click();
      await total.getByText('5 requests').waitFor();
      await page.getByLabel('Status').selectOption('400');
      await page.getByRole('button', { name: 'Show' }).click();
      await total.getByText('1 request').waitFor();
      expect(
        await page.locator('table:has(caption:text("Requests")) tbody td:nth-child(5)').allTextContents(),
      ).toEqual(['400 CANCELLED']);
      await shoot('requests-list');
    });

    it('shows the progress of a large upload and of an import', async () => {
      // A slow uplink (256 KiB/s), so the upload's progress shows between its start and its end.
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: 256 * 1024,
      });
      try {
        await page.getByRole('link', { name: 'Files' }).click();
        await page.getByLabel('File', { exact: true }).setInputFiles({
          name: 'big.bin',
          mimeType: 'application/octet-stream',
          buffer: Buffer.alloc(768 * 1024, 7),
        });
        await page.getByRole('button', { name: 'Upload' }).click();
        const uploading = page.getByText(/^Uploading big\.bin: \d+ KB of 769 KB, \d+ %$/);
        await uploading.waitFor();
        const bar = page.getByLabel('Upload progress');
        expect(await bar.isVisible()).toBe(true);
        expect(Number(await bar.getAttribute('max'))).toBeGreaterThan(768 * 1024);
        await shoot('files-progress');
        await page.getByText(`Uploaded big.bin (${768 * 1024} bytes).`).waitFor({ timeout: 20_000 });
        await bar.waitFor({ state: 'hidden' });
        expect(await page.locator('.list p[role="status"]').textContent()).toBe('1 file');

        await page.evaluate(() =>
          fetch('/api/v1/collections', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ name: 'prices' }),
          }),
        );
        await page.getByRole('link', { name: 'Collections' }).click();
        await page.getByRole('button', { name: 'prices', exact: true }).click();
        const rows = Array.from({ length: 20_000 }, (_, i) => `item ${i};${i}.5`).join('\n');
        await page.getByLabel('CSV or JSON file').setInputFiles({
          name: 'prices.csv',
          mimeType: 'text/csv',
          buffer: Buffer.from(`item;price\n${rows}\n`),
        });
        await page.getByLabel('Options (JSON)').fill('{"separator": ";", "parse_numbers": ["price"]}');
        // Every text the import's status shows, kept as it changes.
        await page.evaluate(() => {
          const seen: string[] = [];
          Object.assign(window, { seen });
          new MutationObserver((records) => {
            for (const r of records) for (const n of Array.from(r.addedNodes)) seen.push(n.textContent ?? '');
          }).observe(document.querySelector('form[aria-label="Import a file"]')!, {
            childList: true,
            subtree: true,
          });
        });
        await page.getByRole('button', { name: 'Import' }).click();
        await page.getByText(/^Uploading prices\.csv: \d+ KB of \d+ KB, \d+ %$/).waitFor();
        expect(await page.getByLabel('Import progress').isVisible()).toBe(true);
        await page.getByText('20000 documents imported from prices.csv.').waitFor({ timeout: 30_000 });
        await page.getByLabel('Import progress').waitFor({ state: 'hidden' });
        const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen);
        expect(seen).toContain('Importing prices.csv: 500 documents so far…');
        expect(seen).toContain('Importing prices.csv: 20000 documents so far…');
      } finally {
        await cdp.send('Network.emulateNetworkConditions', {
          offline: false,
          latency: 0,
          downloadThroughput: -1,
          uploadThroughput: -1,
        });
        await cdp.detach();
      }
      const count = await page.evaluate(async () => {
        const r = await fetch('/api/v1/collections/prices/count', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"query": {"price": {"$gt": 19999}}}',
        });
        return (await r.json()) as { count: number };
      });
      expect(count).toEqual({ count: 1 });
    });

    it('lets a user start a stored process by name and submit its task', async () => {
      await page.goto(`${server.url}/console/#/processes`);
      await page.getByRole('button', { name: 'Log out' }).click();
      await submitLogin(page, 'acme', 'ann');
      await page.getByText('Process definitions are managed by administrators.', { exact: false }).waitFor();
      await page.getByLabel('Process name').fill('Approval');
      await page.getByLabel('Input data (JSON object)').fill('{"amount": 2}');
      await page.getByRole('button', { name: 'Start a request' }).click();
      await fact('Status').getByText('102 WAITING').waitFor();
      const form = page.getByRole('form', { name: 'Task Approve' });
      await form.getByLabel('decision').fill('yes');
      await form.getByRole('button', { name: 'Submit' }).click();
      await page.getByText('Submitted the task Approve.').waitFor();
      expect(await fact('Status').textContent()).toBe('201 COMPLETED');
      await page.getByRole('link', { name: 'Requests and logs' }).click();
      await page.locator('.list p[role="status"]').getByText('2 requests').waitFor();

      await page.getByRole('button', { name: 'Log out' }).click();
      await submitLogin(page, 'acme', 'admin');
      await page.getByRole('link', { name: 'Processes' }).waitFor();
    });

    it('shows a page once it has loaded: a new definition opened while the list loads stays open', async () => {
      // The list is held: the page is still loading when the button is asked for.
      const list = await holdAnswers(page, '/processes');
      await page.getByRole('link', { name: 'Requests and logs' }).click();
      await page.getByRole('heading', { name: 'Requests and logs', level: 1 }).waitFor();
      await page.getByRole('link', { name: 'Processes' }).click();
      await list.asked;
      expect(await page.locator('main').getAttribute('aria-busy')).toBe('true');
      expect(await page.getByRole('status').filter({ hasText: 'Loading Processes…' }).count()).toBe(1);
      const clicked = page.getByRole('button', { name: 'New definition' }).click();
      const early = await Promise.race([
        clicked.then(() => 'clicked while loading'),
        new Promise((resolve) => setTimeout(() => resolve('waited'), 500)),
      ]);
      expect(early).toBe('waited');
      await list.release();
      await clicked;
      // Had the click landed before the load, the address's own opening would have emptied it.
      await page.getByRole('tab', { name: 'JSON' }).click({ timeout: 5000 });
      await page.getByRole('heading', { name: 'New process definition' }).waitFor({ timeout: 5000 });
      expect(await page.locator('main').getAttribute('aria-busy')).toBeNull();
      expect(await page.getByText('Loading Processes…').count()).toBe(0);
    });

    it("opens what the latest address names: an earlier address's slower answer is dropped", async () => {
      const id = await page
        .locator('table:has(caption:text("Process definitions")) tbody tr', { hasText: 'Approval' })
        .locator('td:nth-child(2)')
        .textContent();
      const definition = await holdAnswers(page, `/processes/${id}`);
      await page.evaluate((address) => (location.hash = address), `#/processes/${id}`);
      await definition.asked;
      await page.evaluate(() => (location.hash = '#/processes'));
      await definition.release();
      expect(await page.getByRole('heading', { name: 'Process Approval' }).count()).toBe(0);
      expect(await page.locator('section.detail').textContent()).toBe('');
      // The address opens it when it is the latest.
      await page.evaluate((address) => (location.hash = address), `#/processes/${id}`);
      await page.getByRole('heading', { name: 'Process Approval' }).waitFor();
    });

    it('deletes the definition, and nothing in the pages failed', async () => {
      await page.getByRole('link', { name: 'Processes' }).click();
      await page.getByRole('button', { name: 'Delete Approval' }).click();
      await page.getByText('Deleted Approval.').waitFor();
      expect(await page.locator('.list p[role="status"]').textContent()).toBe('1 process definition');
      expect(pageErrors).toEqual([]);
    });
  });
});
