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
