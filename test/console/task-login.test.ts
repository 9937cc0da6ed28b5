/**
 * A manual task's page opened by someone not logged in, in real Chromium against a real server on
 * every engine: the page offers a login link; the console's login (its account filled in) comes
 * back to the task, which then shows its form.
 */
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { createHosts } from '../../src/hosts/index.js';
import { evalHost } from '../../src/hosts/eval-host.js';
import { call, useServer } from '../server/support.js';
import { describeEachEngine } from '../support/engines.js';
import { describeWithBrowser } from '../client/support/browser.js';
import { submitLogin } from './support.js';

describeWithBrowser('a task page for a visitor not logged in', (browser) => {
  describeEachEngine('task login', (engine) => {
    const server = useServer(engine, (platform) => ({
      hosts: { ...evalHost(platform), ...createHosts(platform, { routeCacheMs: 0 }) },
    }));
    let page: Page;
    const pageErrors: string[] = [];
    let taskPath = '';

    beforeAll(async () => {
      const { lanes } = server.platform.directory;
      const pool = await lanes.createPool('acme', { name: 'Approvers' });
      const lane = await lanes.createLane('acme', pool.id, { name: 'Managers' });
      await lanes.addMember('acme', lane.id, 'LIVE', server.acme.admin.id);
      const token = server.acme.admin.token;
      const definition = {
        name: 'approval',
        steps: [{ id: 1, type: 'manual', name: 'Approve', lane: lane.id, fields: ['decision'] }],
      };
      expect((await call(server.url, 'POST', '/api/v1/processes', { token, body: definition })).status).toBe(
        201,
      );
      const started = await call(server.url, 'POST', '/api/v1/requests', {
        token,
        body: { process: 'approval', mode: 'LIVE', data: {} },
      });
      expect(started.body.status).toBe(102);
      taskPath = `/live/acme/task/${started.body.id as string}/1/0`;
      page = await browser.context.newPage();
      page.setDefaultTimeout(10_000);
      page.on('pageerror', (e) => pageErrors.push(e.message));
    });

    it('offers a login link that comes back to the task', async () => {
      await page.goto(`${server.url}${taskPath}`);
      await page
        .getByText('Authentication required: log in, send an API token, or use the public URL.')
        .waitFor();
      await page.getByRole('link', { name: 'Log in to open this task' }).click();
      await page.getByRole('heading', { name: 'flowmark console' }).waitFor();
      expect(await page.getByLabel('Account').inputValue()).toBe('acme');
      await submitLogin(page, 'acme', 'admin');
      await page.waitForURL(`${server.url}${taskPath}`);
      await page.locator('form').waitFor();
      expect(await page.locator('input[name="decision"]').count()).toBe(1);
      expect(pageErrors).toEqual([]);
    });
  });
});
