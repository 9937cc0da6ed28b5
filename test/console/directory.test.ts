/**
 * The console's users, lanes and pools, and API token pages in real Chromium against a real
 * server on the demo account (`flowmark seed --demo`), on every engine: search a user, block and
 * unblock them; the organisation tree; add a user to a runtime lane and remove them, other lanes
 * read-only; a token created and shown once, used, revoked and then refused; what a designer and a
 * plain user see. Screenshots go to test-results/screenshots/ (docs/console.md), from the SQLite run.
 */
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { seedDemo, type DemoSummary } from '../../src/platform/demo.js';
import { call, login, PASSWORD, useServer } from '../server/support.js';
import { describeEachEngine } from '../support/engines.js';
import { describeWithBrowser } from '../client/support/browser.js';
import { screenshot, submitLogin } from './support.js';

describeWithBrowser('web console: users, lanes and pools, API tokens', (browser) => {
  describeEachEngine('console directory', (engine) => {
    const server = useServer(engine);
    let demo: DemoSummary;
    let page: Page;
    const pageErrors: string[] = [];

    beforeAll(async () => {
      demo = await seedDemo(server.platform, { accountId: 'demo', password: PASSWORD });
      page = await browser.context.newPage();
      page.setDefaultTimeout(10_000);
      page.on('pageerror', (e) => pageErrors.push(e.message));
    });

    const shoot = (name: string) => screenshot(page, engine.name, name);
    const rows = (caption: string) => page.locator(`table:has(caption:text-is("${caption}")) tbody tr`);

    async function logInAs(login: string): Promise<void> {
      await page.goto(`${server.url}/console/#/users`);
      await submitLogin(page, 'demo', login);
      await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    }

    async function logOut(): Promise<void> {
      await page.getByRole('button', { name: 'Log out' }).click();
      await page.getByRole('heading', { name: 'flowmark console' }).waitFor();
    }

    /** What a bearer token gets from GET /api/v1/auth/me, from outside the browser. */
    async function me(token: string): Promise<{ status: number; body: any }> {
      const r = await fetch(`${server.url}/api/v1/auth/me`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return { status: r.status, body: await r.json() };
    }

    it('users: search with the total, a user and their lanes; block, then unblock', async () => {
      await logInAs('admin');
      await page.getByText('Users 1–5 of 5').waitFor();
      expect(await rows('Users').locator('td:first-child').allTextContents()).toEqual([
        'admin',
        'ann',
        'bob',
        'carl',
        'dora',
      ]);
      await page.getByLabel('Status').selectOption('blocked');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByText('Users 1–1 of 1').waitFor();
      expect(await rows('Users').allTextContents()).toEqual([
        expect.stringMatching(/^bobBob Blockedbob@demo\.exampleUSERblocked\d{4}-/),
      ]);
      await page.getByLabel('Status').selectOption('');
      await page.getByLabel('Search users').fill('CLERK');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByText('Users 1–1 of 1').waitFor();
      await page.getByRole('button', { name: 'carl', exact: true }).click();
      await page.getByRole('heading', { name: `User carl (id ${demo.users.carl})` }).waitFor();
      await rows('Lanes of carl').first().waitFor();
      expect(await rows('Lanes of carl').allTextContents()).toEqual([
        'ClerksOrdersmanual',
        'SalesCompanymanual',
      ]);

      await page.getByRole('button', { name: 'Block user' }).click();
      await page.getByText('carl is blocked: their sessions and API tokens stop working.').waitFor();
      expect(await page.locator('dl.facts .status-blocked').textContent()).toBe('blocked');
      expect(await rows('Users').locator('.tag').allTextContents()).toEqual(['blocked']);
      expect((await server.platform.directory.users.require('demo', demo.users.carl)).status).toBe('blocked');
      const refused = await fetch(`${server.url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ account: 'demo', login: 'carl', password: PASSWORD }),
      });
      expect([refused.status, await refused.json()]).toEqual([
        403,
        { status: 403, code: 'blocked', message: 'This user is blocked.' },
      ]);
      await shoot('users');

      await page.getByRole('button', { name: 'Unblock user' }).click();
      await page.getByText('carl is unblocked.').waitFor();
      expect(await rows('Users').locator('.tag').allTextContents()).toEqual(['active']);
      expect((await server.platform.directory.users.require('demo', demo.users.carl)).status).toBe('active');
      // Administrators cannot block themselves: no button on their own page.
      await page.getByLabel('Search users').fill('');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByRole('button', { name: 'admin', exact: true }).click();
      await page.getByText('You cannot block yourself.').waitFor();
      expect(await page.getByRole('button', { name: 'Block user' }).count()).toBe(0);
    });

    it('lanes and pools: the organisation tree; a runtime lane filled and emptied; others read-only', async () => {
      await page.getByRole('link', { name: 'Lanes and pools' }).click();
      await page.getByRole('heading', { name: 'Pools and lanes' }).waitFor();
      const tree = page.locator('ul.tree');
      expect(await tree.locator(':scope > li > .pool-name').allTextContents()).toEqual(['Orders', 'Company']);
      expect(await tree.locator(':scope > li').nth(0).locator('li > button').allTextContents()).toEqual([
        'Clerks',
        'Managers',
        'French speakers',
        'On call',
      ]);
      // Sales sits under Board, which dora manages.
      const board = tree.locator(':scope > li').nth(1).locator(':scope > ul > li');
      expect(await board.locator(':scope > button').textContent()).toBe('Board');
      expect(await board.locator(':scope > .meta').textContent()).toBe(' managed by dora');
      expect(await board.locator(':scope > ul > li > button').allTextContents()).toEqual(['Sales']);

      await page.getByRole('button', { name: 'On call', exact: true }).click();
      await page.getByRole('heading', { name: `Lane On call (id ${demo.lanes['On call']})` }).waitFor();
      await page.getByText('No user.').waitFor();
      // The account's logins are suggested.
      const suggested = await page
        .locator('datalist option')
        .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value));
      expect(suggested).toEqual(['admin', 'ann', 'bob', 'carl', 'dora']);
      await page.getByLabel('User (login, email or id)').fill('carl@demo.example');
      await page.getByRole('button', { name: 'Add user' }).click();
      await page.getByText('carl added to On call (LIVE).').waitFor();
      expect(await rows('Users of On call (LIVE)').allTextContents()).toEqual([
        `${demo.users.carl}carlCarl ClerkactiveRemove`,
      ]);
      expect(await server.platform.directory.lanes.memberIds('demo', demo.lanes['On call']!, 'LIVE')).toEqual(
        [demo.users.carl],
      );
      // An unknown user is the server's answer, shown.
      await page.getByLabel('User (login, email or id)').fill('nobody');
      await page.getByRole('button', { name: 'Add user' }).click();
      await page.getByText('Unable to retrieve user. (404 not-found)').waitFor();
      await shoot('organisation');

      await page.getByRole('button', { name: 'Remove carl' }).click();
      await page.getByText('carl removed from On call (LIVE).').waitFor();
      await page.getByText('No user.').waitFor();
      expect(await server.platform.directory.lanes.memberIds('demo', demo.lanes['On call']!, 'LIVE')).toEqual(
        [],
      );

      // A rule lane: read-only, with the reason, its rule and its users.
      await page.getByRole('button', { name: 'French speakers', exact: true }).click();
      await page.getByRole('heading', { name: /^Lane French speakers/ }).waitFor();
      expect(await page.locator('.detail .note').textContent()).toBe(
        'Read only: French speakers is not a runtime lane. Its users come from its rule (lane jobs); the console changes the users of runtime lanes only.',
      );
      expect(JSON.parse((await page.locator('dl.facts code').textContent())!)).toEqual({
        language: 'fr',
        status: 'active',
      });
      await rows('Users of French speakers (LIVE)').first().waitFor();
      expect(
        await rows('Users of French speakers (LIVE)').locator('td:nth-child(2)').allTextContents(),
      ).toEqual(['ann']);
      expect(await page.getByRole('button', { name: 'Add user' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: /^Remove / }).count()).toBe(0);
      // ACCEPTANCE membership of Clerks.
      await page.getByRole('button', { name: 'Clerks', exact: true }).click();
      await rows('Users of Clerks (LIVE)').first().waitFor();
      await page.getByLabel('Lane mode').selectOption('ACCEPTANCE');
      await rows('Users of Clerks (ACCEPTANCE)').first().waitFor();
      expect(await rows('Users of Clerks (ACCEPTANCE)').locator('td:nth-child(2)').allTextContents()).toEqual(
        ['dora'],
      );
    });

    it('API tokens: created and shown once, used, listed without the secret, revoked and then refused', async () => {
      await page.getByRole('link', { name: 'API tokens' }).click();
      await page.getByLabel('Token name').fill('ci');
      await page.getByLabel('Expires in days').fill('30');
      await page.getByRole('button', { name: 'Create token' }).click();
      await page.getByRole('heading', { name: 'Token ci created' }).waitFor();
      const token = await page.getByLabel('New token').inputValue();
      expect(token).toMatch(/^fmk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
      expect(await page.locator('.secret-panel .note').textContent()).toMatch(
        /^Copy it now: it is shown only this once\./,
      );
      await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
      await page.getByRole('button', { name: 'Copy', exact: true }).click();
      await page.getByText('Copied to the clipboard.').waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);

      // The token works from outside the browser, as its user.
      const used = await me(token);
      expect([used.status, used.body.user.login, used.body.via]).toEqual([200, 'admin', 'token']);
      const list = rows('API tokens');
      await list.first().waitFor();
      expect(await list.first().textContent()).toMatch(/^ci[0-9a-f]{16}\d{4}-.+Z\d{4}-.+ZneverRevoke$/);
      await shoot('tokens');

      // Shown once: after leaving the page, only the list is left, without the secret.
      await page.getByRole('link', { name: 'Users' }).click();
      await page.getByRole('link', { name: 'API tokens' }).click();
      await list.first().waitFor();
      expect(await page.locator('.secret-panel').textContent()).toBe('');
      expect(await page.content()).not.toContain(token.slice(4 + 16 + 1));
      // The last use is listed.
      expect(await list.filter({ hasText: /^ci/ }).textContent()).toMatch(
        /^ci[0-9a-f]{16}(\d{4}-.+?Z){3}Revoke$/,
      );

      // Every user's tokens, with their owner (administrators).
      const doraCookie = await login(server.url, 'demo', 'dora');
      await call(server.url, 'POST', '/api/v1/tokens', { cookie: doraCookie, body: { name: 'dora tool' } });
      await page.getByLabel("Every user's tokens").check();
      await list.nth(1).waitFor();
      expect(await list.locator('td:first-child').allTextContents()).toEqual(['dora tool', 'ci']);
      expect(await list.locator('td:nth-child(6)').allTextContents()).toEqual(['dora', 'admin']);
      await page.getByLabel("Every user's tokens").uncheck();
      await list.nth(1).waitFor({ state: 'detached' });

      // Revoking asks first.
      await page.getByRole('button', { name: 'Revoke ci' }).click();
      await page.getByText('Revoke ci? Programs using it will be refused. Click Confirm revoke.').waitFor();
      expect((await me(token)).status).toBe(200);
      await page.getByRole('button', { name: 'Confirm: revoke ci' }).click();
      await page.getByText('Token ci revoked: it no longer works.').waitFor();
      expect(await list.allTextContents()).toEqual(['Nothing yet.']);
      expect(await me(token)).toEqual({
        status: 401,
        body: {
          status: 401,
          code: 'invalid-token',
          message: 'The API token is invalid, expired or revoked.',
        },
      });
    });

    it("a designer changes her pool's runtime lane only; a plain user sees read-only pages", async () => {
      await logOut();
      await logInAs('dora');
      await page.getByRole('link', { name: 'Lanes and pools' }).click();
      await page.getByRole('button', { name: 'On call', exact: true }).click();
      await page.getByLabel('User (login, email or id)').fill('ann');
      await page.getByRole('button', { name: 'Add user' }).click();
      await page.getByText('ann added to On call (LIVE).').waitFor();
      await page.getByRole('button', { name: 'Board', exact: true }).click();
      await page.getByRole('heading', { name: /^Lane Board/ }).waitFor();
      expect(await page.locator('.detail .note').textContent()).toBe(
        'Read only: Board is not a runtime lane. Its users come from its administrators; the console changes the users of runtime lanes only.',
      );
      await logOut();

      // Markup in a user's fields is shown as text, never run.
      await server.platform.directory.users.create('demo', {
        login: 'mallory',
        name: '<img src=x onerror="window.pwned=1">',
      });
      await logInAs('ann');
      await page.getByLabel('Search users').fill('mallory');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByText('Users 1–1 of 1').waitFor();
      expect(await rows('Users').locator('td:nth-child(2)').textContent()).toBe(
        '<img src=x onerror="window.pwned=1">',
      );
      expect(await page.locator('main img').count()).toBe(0);
      expect(await page.evaluate(() => 'pwned' in window)).toBe(false);
      await page.getByLabel('Search users').fill('');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByRole('button', { name: 'bob', exact: true }).click();
      await page.getByText('Only an administrator of the account may block or unblock users.').waitFor();
      expect(await page.getByRole('button', { name: /^(Block|Unblock) user$/ }).count()).toBe(0);
      await page.getByRole('link', { name: 'Lanes and pools' }).click();
      await page.getByRole('button', { name: 'On call', exact: true }).click();
      await rows('Users of On call (LIVE)').first().waitFor();
      expect(await page.locator('.detail .note').textContent()).toBe(
        'Read only: only an administrator of the account or a designer of a project using the pool Orders may change the users of On call.',
      );
      expect(await rows('Users of On call (LIVE)').allTextContents()).toEqual([
        `${demo.users.ann}annAnn Smithactive`,
      ]);
      expect(await page.getByRole('button', { name: 'Add user' }).count()).toBe(0);
      await page.getByRole('link', { name: 'API tokens' }).click();
      await page.getByRole('button', { name: 'Create token' }).waitFor();
      expect(await page.getByLabel("Every user's tokens").count()).toBe(0);
      await logOut();
      expect(pageErrors).toEqual([]);
    });
  });
});
