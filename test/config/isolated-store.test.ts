/**
 * The test runs never use the developer's store (test/support/isolated-store.ts): `npm test` after
 * `npm start` created ./data, or with a DATABASE_URL in the shell, leaves both alone — in this
 * process and in the built CLI a test spawns.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { resolve, join } from 'node:path';
import { tmpdir } from 'node:os';
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { createPlatform } from '../../src/platform/index.js';
import { openStore } from '../../src/store/index.js';
import { flowmark } from '../support/cli.js';

it("gives every test a fresh default store, not ./data nor the shell's DATABASE_URL", () => {
  expect(process.env.DATABASE_URL).toBeUndefined();
  const config = loadConfig();
  expect(config.databaseUrl).toBeUndefined();
  expect(resolve(config.dataDir).startsWith(resolve(tmpdir()))).toBe(true);
  expect(resolve(config.dataDir)).not.toBe(resolve('data'));
});

it('a CLI a test spawns without naming a store does not read the ./data that npm start made', async () => {
  // a checkout's ./data, as `npm start` leaves it, with the developer's own user
  const checkout = mkdtempSync(join(tmpdir(), 'flowmark-checkout-'));
  try {
    const store = await openStore({ dataDir: join(checkout, 'data'), databaseUrl: undefined });
    try {
      const platform = createPlatform(store);
      await platform.accounts.create({ id: 'default' });
      await platform.directory.users.create('default', { login: 'developer', password: 'dev password 1' });
    } finally {
      await store.close();
    }
    // (with FLOWMARK_DATA unset, this lists `1  developer  user  active`). The CLI gets a fresh
    // store as the run's setup gives every test: opened, the run's shared one would be left
    // with no account, and the renders of other files that expect no store would find it.
    const fresh = mkdtempSync(join(tmpdir(), 'flowmark-test-store-'));
    const listed = await flowmark(['users', 'list'], { cwd: checkout, env: { FLOWMARK_DATA: fresh } });
    rmSync(fresh, { recursive: true, force: true });
    expect(listed.stdout).not.toContain('developer');
    expect(listed.stderr).not.toContain('developer');
  } finally {
    rmSync(checkout, { recursive: true, force: true });
  }
});
