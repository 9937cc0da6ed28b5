/** What the console's Chromium tests share: screenshots, replacing an editor's text, the login form. */
import type { Locator, Page } from 'playwright-core';
import { screenshotPath } from '../client/support/browser.js';
import { PASSWORD } from '../server/support.js';

/** A full-length screenshot of the page as it is, taken once: from the SQLite run (docs/console.md). */
export async function screenshot(page: Page, engineName: string, name: string): Promise<void> {
  if (engineName === 'sqlite') await page.screenshot({ path: screenshotPath(name), fullPage: true });
}

/** Replaces an editor's text as typing would (input events, undo history). */
export async function replaceText(page: Page, editor: Locator, text: string): Promise<void> {
  await editor.focus();
  await page.keyboard.press('Control+a');
  await page.keyboard.press('Delete');
  await page.evaluate((t) => document.execCommand('insertText', false, t), text);
}

/** Fills the console's login form and submits it (the caller waits for the page it expects). */
export async function submitLogin(
  page: Page,
  account: string,
  login: string,
  password = PASSWORD,
): Promise<void> {
  await page.getByLabel('Account').fill(account);
  await page.getByLabel('Login').fill(login);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
}

/** The answers to one API path, held until released: what a slow server looks like to the console. */
export interface HeldAnswers {
  /** Resolves when the console has asked (the first request is held). */
  asked: Promise<void>;
  /** Lets the held answers through, waits until the first one has reached the page and its
   * handlers have run, and stops holding. */
  release(): Promise<void>;
}

export async function holdAnswers(page: Page, apiPath: string): Promise<HeldAnswers> {
  const pattern = `**/api/v1${apiPath}`;
  let asked!: () => void;
  const wasAsked = new Promise<void>((resolve) => (asked = resolve));
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(pattern, async (route) => {
    asked();
    await held;
    await route.continue();
  });
  return {
    asked: wasAsked,
    async release() {
      const answered = page.waitForResponse((r) => new URL(r.url()).pathname === `/api/v1${apiPath}`);
      release();
      await answered;
      // The answer's body is read and handled in the page's next tasks.
      await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 100)));
      await page.unroute(pattern);
    },
  };
}
