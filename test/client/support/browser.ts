/**
 * Real Chromium for the browser suites (playwright-core with the system's Chromium): one browser per
 * test file, a fresh profile each time. Without Chromium (CHROMIUM_PATH unset and no
 * /usr/bin/chromium) the suites skip locally, but fail under CI=true, where Chromium is installed.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Where the console's screenshots go (gitignored; docs/console.md). */
export const SCREENSHOT_DIR = join(process.cwd(), 'test-results', 'screenshots');

export function chromiumPath(): string | undefined {
  const path = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  return existsSync(path) ? path : undefined;
}

export interface BrowserHandle {
  /** The browser's one context (fresh profile); open pages with context.newPage(). */
  readonly context: BrowserContext;
}

/**
 * A describe block that gets a browser (launched once, closed after the block). Without
 * Chromium: skipped, or under CI=true a failing test saying why.
 */
export function describeWithBrowser(title: string, body: (browser: BrowserHandle) => void): void {
  const executablePath = chromiumPath();
  if (!executablePath) {
    if (process.env.CI === 'true')
      describe(title, () =>
        it('needs Chromium', () => {
          throw new Error(
            `CI=true but no Chromium at ${process.env.CHROMIUM_PATH || '/usr/bin/chromium'}: install chromium or set CHROMIUM_PATH`,
          );
        }),
      );
    else describe.skip(`${title} (no Chromium: set CHROMIUM_PATH)`, () => body({} as BrowserHandle));
    return;
  }
  describe(title, () => {
    const handle = {} as { context: BrowserContext };
    let profile: string | undefined;
    beforeAll(async () => {
      profile = mkdtempSync(join(tmpdir(), 'flowmark-chromium-'));
      handle.context = await chromium.launchPersistentContext(profile, {
        executablePath,
        headless: true,
        args: ARGS,
        viewport: { width: 1280, height: 800 },
      });
    });
    afterAll(async () => {
      await handle.context?.close();
      if (profile) rmSync(profile, { recursive: true, force: true });
    });
    body(handle);
  });
}

/**
 * What the library pages define: `flowmark` (the module) and `once(start)`, which calls a method
 * in its callback form and records every callback made, waiting a little after the returned
 * Promise settles so that a second, late call would be seen.
 */
const PAGE_HELPERS = `
import * as flowmark from '/client/index.js';
window.flowmark = flowmark;
window.once = async (start) => {
  const calls = [];
  const returned = await start({
    onSuccess: (value) => calls.push({ kind: 'success', value }),
    onFailure: (error) => calls.push({
      kind: 'failure',
      error: { status: error.status, code: error.code, message: error.message, isClientError: error instanceof flowmark.ClientError },
    }),
  });
  await new Promise((resolve) => setTimeout(resolve, 30));
  return { calls, returned };
};
`;

/** The page globals PAGE_HELPERS defines, for the functions the suites run in the page. */
export interface Call {
  kind: 'success' | 'failure';
  value?: any;
  error?: { status: number; code: string; message: string; isClientError: boolean };
}
export type Once = (
  start: (callbacks: any) => Promise<unknown>,
) => Promise<{ calls: Call[]; returned: unknown }>;

/**
 * A page of the server's origin with the client library loaded as `window.flowmark` (the module
 * /client/index.js), logged in as `login` through the session cookie.
 */
export async function libraryPage(
  context: BrowserContext,
  url: string,
  account: string,
  login: string,
  password: string,
): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${url}/health`);
  await page.addScriptTag({ type: 'module', content: PAGE_HELPERS });
  await page.waitForFunction(() => 'flowmark' in window);
  await logIn(page, account, login, password);
  return page;
}

/** Logs the page in (POST /api/v1/auth/login from the page: the browser keeps the cookie). */
export async function logIn(page: Page, account: string, login: string, password: string): Promise<void> {
  const status = await page.evaluate(
    async ({ account, login, password }) => {
      const r = await fetch('/api/v1/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ account, login, password }),
      });
      return r.status;
    },
    { account, login, password },
  );
  if (status !== 200) throw new Error(`login ${account}/${login}: HTTP ${status}`);
}

export function screenshotPath(name: string): string {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return join(SCREENSHOT_DIR, `${name}.png`);
}
