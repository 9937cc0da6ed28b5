/**
 * Set-up of each test file (vitest `setupFiles`): the default store of the commands and servers
 * the file starts without naming one is a directory of the file's own, inside the run's
 * (test/support/isolated-store.ts), so files that run side by side never share a store and no
 * file sees what another left.
 *
 * Files that share a process (vitest's `isolate: false`, FLOWMARK_TEST_ISOLATE=0) share its
 * environment and its modules' state: each starts again from the environment the process began
 * with (a file's FLOWMARK_SECRET_KEY or limit must not reach the next file's spawned CLI), and
 * with no secret key loaded (the previous file's store had a key file of its own).
 */
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { resetSecretBox } from '../../src/platform/secrets.js';

const shared = globalThis as { flowmarkTestEnv?: Readonly<NodeJS.ProcessEnv> };
const initial = (shared.flowmarkTestEnv ??= { ...process.env });
for (const name of Object.keys(process.env)) if (!(name in initial)) delete process.env[name];
Object.assign(process.env, initial);
resetSecretBox();

const run = process.env.FLOWMARK_DATA;
if (!run) throw new Error('test/support/isolated-store.ts did not set FLOWMARK_DATA for the run');
process.env.FLOWMARK_DATA = mkdtempSync(join(run, 'file-'));
