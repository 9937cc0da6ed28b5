/**
 * The console on a phone, in real Chromium at 390 × 844 against a real server on the demo account:
 * no main page is wider than the screen (the body never scrolls sideways; wide tables scroll in
 * their own box).
 */
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { seedDemo } from '../../src/platform/demo.js';
import { PASSWORD, useServer } from '../server/support.js';
import { describeEachEngine } from '../support/engines.js';
import { describeWithBrowser } from '../client/support/browser.js';
import { submitLogin } from './support.js';

const PAGES = [
  ['playground', 'Playground'],
  ['collections', 'Collections'],
  ['projects', 'Projects'],
  ['files', 'Files'],
  ['processes', 'Processes'],
  ['requests', 'Requests and logs'],
  ['users', 'Users'],
  ['organisation', 'Lanes and pools'],
  ['tokens', 'API tokens'],
  ['composite-apis', 'Composite APIs'],
  ['web-interfaces', 'Web interfaces'],
] as const;

describeWithBrowser('web console on a phone', (browser) => {
  describeEachEngine('console phone', (engine) => {
    const server = useServer(engine);
    let page: Page;

    beforeAll(async () => {
      await seedDemo(server.platform, { accountId: 'demo', password: PASSWORD });
      page = await browser.context.newPage();
      page.setDefaultTimeout(10_000);
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${server.url}/console/#/playground`);
      await submitLogin(page, 'demo', 'admin');
      await page.getByRole('button', { name: 'Log out' }).waitFor();
    });

    it('no main page is wider than the screen', async () => {
      const wide: string[] = [];
      for (const [path, title] of PAGES) {
        await page.goto(`${server.url}/console/#/${path}`);
        await page.getByRole('heading', { name: title, level: 1 }).waitFor();
        await page.waitForLoadState('networkidle');
        const { scrollWidth, innerWidth } = await page.evaluate(() => ({
          scrollWidth: document.documentElement.scrollWidth,
          innerWidth: window.innerWidth,
        }));
        if (scrollWidth > innerWidth) wide.push(`${path}: ${scrollWidth} > ${innerWidth}`);
      }
      expect(wide).toEqual([]);
    });
  });
});
