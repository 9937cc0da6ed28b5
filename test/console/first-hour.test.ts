/**
 * The first hour of a new team, in real Chromium against a real server with the real hosts, on
 * every engine (docs/console.md): an administrator creates a user (the console makes the password
 * and shows it once) and resets it; a pool and a runtime lane; a project, its LIVE version and the
 * pool it uses; a web interface opened LIVE; a process whose step adds its requester to the lane.
 * The new user logs in with the password the console gave and starts the process, which completes
 * with the user in the lane. Every selected item has an address (reload, back and forward), an
 * unknown page says so, and collections, documents and files are deleted after a confirmation.
 * Screenshots (SQLite run) go to test-results/screenshots/.
 */
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { createHosts } from '../../src/hosts/index.js';
import { evalHost } from '../../src/hosts/eval-host.js';
import { call, useServer } from '../server/support.js';
import { describeEachEngine } from '../support/engines.js';
import { describeWithBrowser } from '../client/support/browser.js';
import { replaceText, screenshot, submitLogin } from './support.js';

describeWithBrowser('console: the first hour of a new team', (browser) => {
  describeEachEngine('first hour', (engine) => {
    const server = useServer(engine, (platform) => ({
      hosts: { ...evalHost(platform), ...createHosts(platform, { routeCacheMs: 0 }) },
    }));
    let page: Page;
    const pageErrors: string[] = [];
    /** What the next window.confirm answers (then true again). */
    let confirmAnswer = true;
    const asked: string[] = [];
    const made = { userId: 0, password: '', laneId: 0, projectId: 0 };

    beforeAll(async () => {
      page = await browser.context.newPage();
      page.setDefaultTimeout(15_000);
      page.on('pageerror', (e) => pageErrors.push(e.message));
      page.on('console', (m) => {
        if (m.type() === 'error' && !m.text().startsWith('Failed to load resource:'))
          pageErrors.push(m.text());
      });
      page.on('dialog', (d) => {
        asked.push(d.message());
        void (confirmAnswer ? d.accept() : d.dismiss());
        confirmAnswer = true;
      });
    });

    const shoot = (name: string) => screenshot(page, engine.name, name);
    const hash = () => new URL(page.url()).hash;
    const logIn = (login: string, password: string) =>
      fetch(`${server.url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ account: 'acme', login, password }),
      }).then((r) => r.status);

    it('creates a user with a password shown once, and resets it', async () => {
      await page.goto(`${server.url}/console/#/users`);
      await submitLogin(page, 'acme', 'admin');
      await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
      await page.getByLabel('New user login').fill('newbie');
      await page.getByLabel('Name', { exact: true }).fill('Nina Newbie');
      await page.getByRole('button', { name: 'Create user' }).click();
      const shown = page.locator('code[data-password]');
      await shown.waitFor();
      made.password = (await shown.textContent())!;
      expect(made.password).toMatch(/^[A-Za-z0-9]{16}$/);
      made.userId = (await server.platform.directory.users.require('acme', 'newbie')).id;
      expect(hash()).toBe(`#/users/${made.userId}`);
      await page.getByRole('heading', { name: `User newbie (id ${made.userId})` }).waitFor();
      expect(await shown.locator('..').textContent()).toBe(
        `User newbie created. Password for newbie: ${made.password} — shown once: give it to newbie, who logs in with it (and may change it).`,
      );
      expect(await logIn('newbie', made.password)).toBe(200);
      await shoot('first-hour-user');

      // A reset: a dismissed confirmation changes nothing; an accepted one gives a new password.
      confirmAnswer = false;
      await page.getByRole('button', { name: 'Reset password' }).click();
      expect(asked.at(-1)).toBe('Give newbie a new password? The current one stops working.');
      expect(await logIn('newbie', made.password)).toBe(200);
      await page.getByRole('button', { name: 'Reset password' }).click();
      await page.getByText(/^New password for newbie: /).waitFor();
      const reset = (await page.locator('code[data-password]').textContent())!;
      expect(reset).not.toBe(made.password);
      expect(await logIn('newbie', made.password)).toBe(401);
      expect(await logIn('newbie', reset)).toBe(200);
      made.password = reset;
    });

    it('gives each selected item an address: reload, back and forward; an unknown page says so', async () => {
      await page.reload();
      await page.getByRole('heading', { name: `User newbie (id ${made.userId})` }).waitFor();
      // The password is not shown again.
      expect(await page.locator('code[data-password]').count()).toBe(0);
      await page.getByRole('button', { name: 'admin', exact: true }).click();
      await page.getByRole('heading', { name: `User admin (id ${server.acme.admin.id})` }).waitFor();
      expect(hash()).toBe(`#/users/${server.acme.admin.id}`);
      await page.goBack();
      await page.getByRole('heading', { name: `User newbie (id ${made.userId})` }).waitFor();
      await page.goForward();
      await page.getByRole('heading', { name: `User admin (id ${server.acme.admin.id})` }).waitFor();
      // The search typed stays while the address changes within the page.
      await page.getByLabel('Search users').fill('new');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByText('Users 1–1 of 1').waitFor();
      await page.getByRole('button', { name: 'newbie', exact: true }).click();
      await page.getByRole('heading', { name: `User newbie (id ${made.userId})` }).waitFor();
      expect(await page.getByLabel('Search users').inputValue()).toBe('new');

      await page.goto(`${server.url}/console/#/users/nobody`);
      await page.getByText('User nobody: Unable to retrieve user. (404 not-found)').waitFor();
      await page.goto(`${server.url}/console/#/nope/1`);
      await page.getByRole('heading', { name: 'Page not found', level: 1 }).waitFor();
      expect(await page.getByRole('alert').textContent()).toBe(
        'The console has no page "nope" (address #/nope/1). Choose a page above, or open the playground.',
      );
      expect(await page.title()).toBe('Page not found · flowmark console');
    });

    it('creates a pool and a runtime lane, a project with a LIVE version using the pool', async () => {
      await page.getByRole('link', { name: 'Lanes and pools' }).click();
      await page.getByText('No pool yet: create one above, then its lanes.').waitFor();
      await page.getByLabel('New pool').fill('Helpers');
      await page.getByRole('button', { name: 'Create pool' }).click();
      await page.getByText(/^Pool Helpers created \(id \d+\): add its lanes\.$/).waitFor();
      await page.getByLabel('New lane').fill('Volunteers');
      expect(await page.getByLabel('Runtime (scripts and designers add its users)').isChecked()).toBe(true);
      await page.getByRole('button', { name: 'Create lane' }).click();
      await page.getByText(/^Lane Volunteers created \(id \d+\), a runtime lane\.$/).waitFor();
      made.laneId = Number(
        /id (\d+)/.exec((await page.getByText(/^Lane Volunteers created/).textContent())!)![1],
      );
      await page.getByRole('heading', { name: `Lane Volunteers (id ${made.laneId})` }).waitFor();
      expect(hash()).toBe(`#/organisation/lanes/${made.laneId}`);
      expect(await page.locator('ul.tree button[aria-current="true"]').textContent()).toBe('Volunteers');
      await page.getByText('No user.').waitFor();
      await shoot('first-hour-organisation');

      await page.getByRole('link', { name: 'Projects' }).click();
      await page.getByLabel('New project title').fill('Onboarding');
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      await page.getByRole('heading', { name: /^Onboarding \(project \d+\)$/ }).waitFor();
      made.projectId = Number(/^#\/projects\/(\d+)$/.exec(hash())![1]);
      await page
        .getByText(
          'No version yet: add one. A version published LIVE makes the project run LIVE (its web interfaces open LIVE).',
        )
        .waitFor();
      await page.getByLabel('New version').fill('v1');
      await page.getByLabel('Published in').selectOption('LIVE');
      await page.getByRole('button', { name: 'Add version' }).click();
      await page.getByText(/^Version v1 added \(id \d+\), published LIVE\.$/).waitFor();
      expect(await page.locator('table:has(caption:text("Versions")) tbody tr').allTextContents()).toEqual([
        expect.stringMatching(/^\d+v1TESTACCEPTANCELIVE\d{4}-/),
      ]);
      await page.getByText('The project uses no pool yet: its processes have no lanes.').waitFor();
      await page.getByLabel('Pool', { exact: true }).selectOption({ label: 'Helpers' });
      await page.getByRole('button', { name: 'Use pool' }).click();
      await page.getByText('The project uses the pool Helpers.').waitFor();
      expect(
        await page.locator('table:has(caption:text("Lanes and pools")) tbody tr').allTextContents(),
      ).toEqual(['HelpersVolunteersno']);
      await shoot('first-hour-project');
      expect((await server.platform.projects.versions('acme', made.projectId)).map((v) => v.mode)).toEqual([
        'LIVE',
      ]);
    });

    it('makes a web interface in the project that opens LIVE with its sample template', async () => {
      await page.getByRole('link', { name: 'Web interfaces' }).click();
      await page.getByLabel('Project', { exact: true }).selectOption(String(made.projectId));
      await page.getByLabel('New web interface title').fill('Welcome');
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      await page
        .getByText(/^Web interface Welcome created \(id \d+\) with the sample template, saved\.$/)
        .waitFor();
      const opened = page.context().waitForEvent('page');
      await page.getByRole('link', { name: 'Open Welcome in LIVE', exact: true }).click();
      const live = await opened;
      await live.waitForLoadState();
      expect(await live.locator('h1').textContent()).toBe('Welcome');
      expect(await live.locator('p').textContent()).toBe('Mode LIVE, context web.');
      await live.close();
      // Its address reopens it.
      expect(hash()).toMatch(/^#\/web-interfaces\/\d+$/);
      await page.reload();
      await page.getByRole('heading', { name: 'Web interface Welcome' }).waitFor();
    });

    it('stores a process whose step adds its requester to the runtime lane', async () => {
      await page.getByRole('link', { name: 'Processes' }).click();
      await page.getByRole('button', { name: 'New definition' }).click();
      await page.getByRole('tab', { name: 'JSON' }).click();
      await replaceText(
        page,
        page.getByLabel('Definition (JSON)'),
        JSON.stringify({
          name: 'Join helpers',
          project: made.projectId,
          steps: [
            {
              id: 1,
              name: 'Join',
              input: { members: `\${P_add_user_to_lane(${made.laneId}, P_user.id)?size}` },
            },
          ],
        }),
      );
      await page.getByRole('button', { name: 'Create' }).click();
      await page.getByRole('heading', { name: 'Process Join helpers' }).waitFor();
      const stored = /^#\/processes\/(\d+)$/.exec(hash());
      expect(stored).not.toBeNull();
      await page.goBack();
      await page.waitForFunction(() => location.hash === '#/processes');
      expect(await page.getByRole('heading', { name: 'Process Join helpers' }).count()).toBe(0);
      await page.goForward();
      await page.getByRole('heading', { name: 'Process Join helpers' }).waitFor();
    });

    it('the new user logs in with the password the console gave and starts the process, which completes', async () => {
      await page.getByRole('button', { name: 'Log out' }).click();
      await page.getByRole('heading', { name: 'flowmark console' }).waitFor();
      await submitLogin(page, 'acme', 'newbie', made.password);
      await page.getByRole('heading', { name: 'Processes', level: 1 }).waitFor();
      await page.getByLabel('Process name').fill('Join helpers');
      expect(await page.getByLabel('Mode').inputValue()).toBe('LIVE');
      await page.getByRole('button', { name: 'Start a request' }).click();
      await page.getByRole('heading', { name: /^Request / }).waitFor();
      const fact = (name: string) => page.locator(`dl.facts dt:text-is("${name}") + dd`);
      expect(await fact('Status').textContent()).toBe('201 COMPLETED');
      expect(await fact('Process').textContent()).toBe('Join helpers');
      expect(await server.platform.directory.lanes.memberIds('acme', made.laneId, 'LIVE')).toEqual([
        made.userId,
      ]);
      await shoot('first-hour-request');

      await page.getByRole('link', { name: '← All requests' }).click();
      const row = page.locator('table:has(caption:text("Requests")) tbody tr');
      await row.first().waitFor();
      expect(await row.locator('td:nth-child(2)').allTextContents()).toEqual(['Join helpers']);
    });

    it('deletes collections, documents and files after a confirmation', async () => {
      await page.getByRole('button', { name: 'Log out' }).click();
      await submitLogin(page, 'acme', 'admin');
      await page.getByRole('heading', { name: 'Requests and logs', level: 1 }).waitFor();
      const token = server.acme.admin.token;
      const saved = await call(server.url, 'POST', '/api/v1/collections/scratch/documents', {
        token,
        body: [{ n: 1 }, { n: 2 }],
      });
      expect(saved.status).toBe(201);
      await page.getByRole('link', { name: 'Collections' }).click();
      await page.getByRole('button', { name: 'scratch', exact: true }).click();
      await page.getByText('2 documents.', { exact: true }).waitFor();
      expect(hash()).toBe('#/collections/scratch');
      const firstId = JSON.parse((await page.locator('pre.document').first().textContent())!)._id as string;
      await page.getByRole('button', { name: `Delete document ${firstId}` }).click();
      expect(asked.at(-1)).toBe(`Delete the document ${firstId} of scratch? This cannot be undone.`);
      await page.getByText(`Document ${firstId} deleted.`).waitFor();
      expect(await page.locator('pre.document').count()).toBe(1);

      confirmAnswer = false;
      await page.getByRole('button', { name: 'Delete collection scratch' }).click();
      expect(asked.at(-1)).toBe(
        'Delete the collection scratch with its 1 documents and its indexes? This cannot be undone.',
      );
      expect((await call(server.url, 'GET', '/api/v1/collections/scratch', { token })).status).toBe(200);
      await page.getByRole('button', { name: 'Delete collection scratch' }).click();
      await page.getByText('Collection scratch deleted.').waitFor();
      expect(hash()).toBe('#/collections');
      await page.getByText('No collection yet: create one above, then insert or import documents.').waitFor();

      await page.getByRole('link', { name: 'Files' }).click();
      await page.getByLabel('File', { exact: true }).setInputFiles({
        name: 'old.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('old\n'),
      });
      await page.getByRole('button', { name: 'Upload' }).click();
      await page.getByRole('heading', { name: 'Rights on old.txt' }).waitFor();
      const fileId = /^#\/files\/(.+)$/.exec(hash())![1]!;
      await page.getByRole('button', { name: 'Delete file old.txt' }).click();
      expect(asked.at(-1)).toBe('Delete the file old.txt (4 bytes)? This cannot be undone.');
      await page.getByText('File old.txt deleted.').waitFor();
      expect(hash()).toBe('#/files');
      await page.getByText('No file yet: upload one above.').waitFor();
      const gone = await call(server.url, 'GET', `/api/v1/files/${fileId}`, { token });
      expect(gone.status).toBe(404);
      expect(pageErrors).toEqual([]);
    });

    it('lists requests with their process, by process, in pages, and reads them again while one runs', async () => {
      const token = server.acme.admin.token;
      for (let i = 0; i < 22; i++) {
        const started = await call(server.url, 'POST', '/api/v1/requests', {
          token,
          body: { process: 'Join helpers', mode: 'TEST' },
        });
        expect(started.status).toBe(201);
      }
      const running = await server.platform.requests.create('acme', {
        mode: 'TEST',
        status: 101,
        initiatorId: server.acme.admin.id,
      });
      await page.getByRole('link', { name: 'Requests and logs' }).click();
      const total = page.locator('.list p[role="status"]');
      await total.getByText('24 requests, 1–20 shown').waitFor();
      const rows = page.locator('table:has(caption:text("Requests")) tbody tr');
      expect(await rows.first().locator('td:nth-child(5)').textContent()).toBe('101 ACTIVE');
      await page.getByText('1 running: refreshed every 2 s').waitFor();
      // The running request ends: the list shows it without a click.
      await server.platform.requests.update('acme', running.id, { status: 201 });
      await rows.first().locator('td:nth-child(5)', { hasText: '201 COMPLETED' }).waitFor();
      expect(await page.getByText('1 running: refreshed every 2 s').count()).toBe(0);

      await page.getByLabel('Process', { exact: true }).selectOption({ label: 'Join helpers' });
      await page.getByRole('button', { name: 'Show' }).click();
      await total.getByText('23 requests, 1–20 shown').waitFor();
      expect(new Set(await rows.locator('td:nth-child(2)').allTextContents())).toEqual(
        new Set(['Join helpers']),
      );
      await page.getByRole('button', { name: 'Older' }).click();
      await total.getByText('23 requests, 21–23 shown').waitFor();
      expect(await rows.count()).toBe(3);
      expect(await page.getByRole('button', { name: 'Older' }).isDisabled()).toBe(true);
      await page.getByRole('button', { name: 'Newer' }).click();
      await total.getByText('23 requests, 1–20 shown').waitFor();
      expect(await page.getByRole('button', { name: 'Newer' }).isDisabled()).toBe(true);
      await shoot('first-hour-requests');
      await page.getByLabel('Status').selectOption('102');
      await page.getByRole('button', { name: 'Show' }).click();
      await total.getByText('0 requests').waitFor();
      await page
        .getByText('No request here: start one from a process definition on the Processes page.')
        .waitFor();
      expect(pageErrors).toEqual([]);
    });

    it('fits the navigation in one row on a laptop, and in one scrolling row on a phone', async () => {
      const rowsOfNav = () =>
        page
          .locator('header.top nav li')
          .evaluateAll((items) => new Set(items.map((li) => (li as HTMLElement).offsetTop)).size);
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.getByRole('link', { name: 'Users' }).click();
      await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
      expect(await rowsOfNav()).toBe(1);
      await page.setViewportSize({ width: 390, height: 800 });
      expect(await rowsOfNav()).toBe(1);
      const nav = page.locator('header.top nav');
      expect(await nav.evaluate((n) => n.scrollWidth > n.clientWidth && n.clientWidth <= 390)).toBe(true);
      await shoot('first-hour-phone');
      await page.setViewportSize({ width: 1280, height: 720 });
    });
  });
});
