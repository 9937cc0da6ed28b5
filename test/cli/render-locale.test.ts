/**
 * `flowmark render`'s one rule of the locale and time zone, through the built CLI: --locale and
 * --time-zone, else the account's (a render in a store), else en_US and UTC, for the template's
 * formatting and the functions it calls alike; the rule is in `--help`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatform } from '../../src/platform/index.js';
import { openStore } from '../../src/store/index.js';
import { flowmark } from '../support/cli.js';

let dir = '';
let template = '';
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flowmark-locale-'));
  const store = await openStore({ dataDir: join(dir, 'store'), databaseUrl: undefined });
  try {
    await createPlatform(store).accounts.create({
      id: 'default',
      locale: 'de_DE',
      timeZone: 'Europe/Berlin',
    });
  } finally {
    await store.close();
  }
  template = join(dir, 'l.ftl');
  // the template's number format, a function's locale (day name) and time zone (epoch 0), the setting
  writeFileSync(
    template,
    '${1234.5} ${date_format("2024-03-01", "yyyy-MM-dd", "EEEE")} ${get_date(0, "HH:mm")} ${.locale}',
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const render = (data: string, ...options: string[]) =>
  flowmark(['render', template, ...options], { env: { FLOWMARK_DATA: join(dir, data), DATABASE_URL: '' } });

describe('flowmark render: one rule for the locale and time zone', () => {
  it("uses the account's locale and time zone in a store, en_US and UTC without one", async () => {
    expect(await render('store')).toMatchObject({ code: 0, stdout: '1.234,5 Freitag 01:00 de_DE' });
    expect(await render('none')).toMatchObject({ code: 0, stdout: '1,234.5 Friday 00:00 en_US' });
  });

  it("--locale and --time-zone win over the account's, for the template and the functions alike", async () => {
    expect(await render('store', '--locale', 'fr_FR')).toMatchObject({
      code: 0,
      stdout: '1\u202f234,5 vendredi 01:00 fr_FR',
    });
    expect(await render('store', '--time-zone', 'UTC')).toMatchObject({
      code: 0,
      stdout: '1.234,5 Freitag 00:00 de_DE',
    });
    expect(await render('store', '--locale', 'en_US', '--time-zone', 'America/New_York')).toMatchObject({
      code: 0,
      stdout: '1,234.5 Friday 19:00 en_US',
    });
    expect(await render('store', '--setting', 'locale=fr_FR')).toMatchObject({
      code: 0,
      stdout: '1\u202f234,5 vendredi 01:00 fr_FR',
    });
  });

  it('says the rule in --help', async () => {
    const help = await render('none', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      'The locale and time zone (of ${n}, ?string, date_format …) are --locale and --time-zone, else ' +
        "--setting locale=/time_zone=, else the account's (in a store: its locale and time zone), else " +
        'en_US and UTC;',
    );
  });
});
