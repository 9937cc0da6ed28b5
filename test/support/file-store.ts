/**
 * Set-up of each test file (vitest `setupFiles`): the default store of the commands and servers
 * the file starts without naming one is a directory of the file's own, inside the run's
 * (test/support/isolated-store.ts), so files that run side by side never share a store and no
 * file sees what another left.
 */
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';

const run = process.env.FLOWMARK_DATA;
if (!run) throw new Error('test/support/isolated-store.ts did not set FLOWMARK_DATA for the run');
process.env.FLOWMARK_DATA = mkdtempSync(join(run, 'file-'));
