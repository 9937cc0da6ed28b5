/**
 * The History view of the console in real Chromium against a real server with the real hosts, on
 * every engine: a composite API saved twice from its page, its versions listed (who, when), the
 * line diff of the first against the current one, the first restored, and the API then answers
 * what the first version said.
 */
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { createHosts } from '../../src/hosts/index.js';
import { evalHost } from '../../src/hosts/eval-host.js';
import { call, useServer } from '../server/support.js';
import { describeEachEngine } from '../support/engines.js';
import { describeWithBrowser } from '../client/support/browser.js';
import { replaceText, screenshot, submitLogin } from './support.js';

describeWithBrowser('web console: history', (browser) => {
  describeEachEngine('console history', (engine) => {
    const server = useServer(engine, (platform) => ({
      hosts: { ...evalHost(platform), ...createHosts(platform, { routeCacheMs: 0 }) },
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

    it('a composite API saved twice: its history, the diff, and the first version restored', async () => {
      await page.getByRole('link', { name: 'Composite APIs' }).click();
      await page.getByRole('heading', { name: 'Composite APIs', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'New composite API' }).click();
      await page.getByRole('heading', { name: 'New composite API' }).waitFor();
      await page.getByLabel('Path', { exact: true }).fill('greeting');
      await page.getByLabel('Public (no credentials needed)').check();
      const editor = page.getByRole('combobox', { name: 'Template' });
      await replaceText(page, editor, 'Hello\nfirst answer\nBye');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByRole('heading', { name: 'Composite API GET greeting' }).waitFor();
      await page.getByText(/^Saved at /).waitFor();
      await replaceText(page, editor, 'Hello\nsecond answer\nBye');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByText(/^Saved at /).waitFor();
      expect((await call(server.url, 'GET', '/live/acme/composite/greeting')).body).toBe(
        'Hello\nsecond answer\nBye',
      );

      const history = page.getByRole('region', { name: 'History' });
      await history.getByRole('button', { name: 'History' }).click();
      const versions = history.locator('table', { has: page.locator('caption', { hasText: /^Versions$/ }) });
      await versions.waitFor();
      const rows = await versions.locator('tbody tr').allInnerTexts();
      expect(rows).toEqual([
        expect.stringMatching(/^2\tadmin\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\tcurrent$/),
        expect.stringMatching(/^1\tadmin\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\tDiff 1 Restore 1$/),
      ]);

      await history.getByRole('button', { name: 'Diff 1' }).click();
      const diff = history.getByLabel('Diff of version 1');
      await diff.waitFor();
      expect(await history.getByRole('heading', { name: 'Version 1 → current (version 2)' }).count()).toBe(1);
      expect(await diff.locator('.diff-removed').allTextContents()).toEqual(['- first answer\n']);
      expect(await diff.locator('.diff-added').allTextContents()).toEqual(['+ second answer\n']);
      expect(await diff.locator('.diff-same').allTextContents()).toContain('  Hello\n');
      await screenshot(page, engine.name, 'console-history');

      page.once('dialog', (dialog) => void dialog.accept());
      await history.getByRole('button', { name: 'Restore 1' }).click();
      await page.getByText('Version 1 restored as version 3.').waitFor();
      expect((await call(server.url, 'GET', '/live/acme/composite/greeting')).body).toBe(
        'Hello\nfirst answer\nBye',
      );
      // the page shows the restored template
      expect(await editor.inputValue()).toBe('Hello\nfirst answer\nBye');
      expect(pageErrors).toEqual([]);
    });
  });
});
