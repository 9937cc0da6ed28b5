/**
 * Global setup of the test runs: no test reads or writes the developer's store. The default
 * store of every command and server a test starts without naming one is a fresh directory
 * (FLOWMARK_DATA), never ./data that `npm start` created, nor a DATABASE_URL of the shell.
 * Tests that use PostgreSQL name their database themselves (FLOWMARK_TEST_PG, test/support/engines.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'flowmark-test-store-'));
  process.env.FLOWMARK_DATA = dir;
  delete process.env.DATABASE_URL;
  return () => rmSync(dir, { recursive: true, force: true });
}
