/**
 * First steps with the CLI as a user runs it (the built bin/flowmark.js in a child process):
 * a mistyped command gets "did you mean", a checkout that was never built says to build it, and a
 * lost administrator password has a command that gives a new one.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPlatform } from '../../src/platform/index.js';
import { openStore } from '../../src/store/index.js';
import { BIN, finished, flowmark } from '../support/cli.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tempDir = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};

describe('the CLI on first steps', () => {
  it('suggests the command a typo meant', async () => {
    const r = await flowmark(['rendr']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^flowmark: unknown command 'rendr' — did you mean 'render'\?\n\nusage: flowmark <command>/,
    );
    const far = await flowmark(['zzzzzz']);
    expect(far.stderr).toMatch(/^flowmark: unknown command 'zzzzzz'\n\nusage:/);
  });

  it('refuses an unknown option of a store command with its usage (exit 2)', async () => {
    for (const command of ['users', 'token', 'files', 'collections', 'run']) {
      const r = await flowmark([command, '--bogus'], {
        env: { FLOWMARK_DATA: tempDir('flowmark-bogus-'), DATABASE_URL: '' },
      });
      expect([r.code, r.stdout]).toEqual([2, '']);
      expect(r.stderr).toMatch(
        new RegExp(`^flowmark ${command}: unknown option --bogus\\nusage: flowmark ${command} `),
      );
    }
  });

  it('says to build a checkout that has no dist/ yet, instead of a stack trace', async () => {
    const root = tempDir('flowmark-unbuilt-');
    mkdirSync(join(root, 'bin'));
    copyFileSync(BIN, join(root, 'bin', 'flowmark.js'));
    const child = spawn(process.execPath, [join(root, 'bin', 'flowmark.js'), 'version'], { cwd: root });
    child.stdin.end();
    const r = await finished(child, 10_000);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      1,
      '',
      'flowmark: this checkout is not built yet (dist/ is missing): run `npm run build` first (or `npm start`, which builds and then serves)\n',
    ]);
  });

  it('gives a user a new password with users reset-password, shown once; the old one stops working', async () => {
    const data = tempDir('flowmark-users-');
    const store = await openStore({ dataDir: data, databaseUrl: undefined });
    try {
      const platform = createPlatform(store);
      await platform.accounts.create({ id: 'default' });
      await platform.directory.users.create('default', {
        login: 'admin',
        isAdmin: true,
        password: 'lost password 1',
      });
      await platform.directory.users.create('default', { login: 'ann', password: 'ann password 1' });
      const env = { FLOWMARK_DATA: data, DATABASE_URL: '' };

      const listed = await flowmark(['users', 'list'], { env });
      expect([listed.code, listed.stdout]).toEqual([
        0,
        '1  admin  administrator  active\n2  ann  user  active\n',
      ]);

      const reset = await flowmark(['users', 'reset-password', '--user', 'admin'], { env });
      expect(reset.code).toBe(0);
      expect(reset.stderr).toBe('new password of admin in account default; it is shown only once\n');
      const password = reset.stdout.trim();
      expect(password).toMatch(/^[\w-]{24}$/);
      const users = platform.directory.users;
      expect((await users.verifyPassword('default', 'admin', password))?.login).toBe('admin');
      expect(await users.verifyPassword('default', 'admin', 'lost password 1')).toBeUndefined();

      const unknown = await flowmark(['users', 'reset-password', '--user', 'nobody'], { env });
      expect([unknown.code, unknown.stderr]).toEqual([
        1,
        'flowmark users: no user nobody in account default\n',
      ]);
      const missing = await flowmark(['users', 'reset-password'], { env });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/^flowmark users: reset-password: --user LOGIN is required\nusage: /);
    } finally {
      await store.close();
    }
  });
});
