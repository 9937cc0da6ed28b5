/**
 * The test runs never use the developer's store (test/support/isolated-store.ts): `npm test` after
 * `npm start` created ./data, or with a DATABASE_URL in the shell, leaves both alone.
 */
import { resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';

it("gives every test a fresh default store, not ./data nor the shell's DATABASE_URL", () => {
  expect(process.env.DATABASE_URL).toBeUndefined();
  const config = loadConfig();
  expect(config.databaseUrl).toBeUndefined();
  expect(resolve(config.dataDir).startsWith(resolve(tmpdir()))).toBe(true);
  expect(resolve(config.dataDir)).not.toBe(resolve('data'));
});
