/**
 * `flowmark files` on the embedded store (the command reads FLOWMARK_DATA like every command;
 * the service itself is tested on both engines in service.test.ts).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { createPlatform } from '../../../src/platform/index.js';
import { openStore } from '../../../src/store/index.js';

async function run(args: string[]) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  let err = '';
  stdout.on('data', (c: Buffer) => out.push(Buffer.from(c)));
  stderr.on('data', (c) => (err += c));
  const code = await main(['files', ...args], { stdin: new PassThrough(), stdout, stderr });
  return { code, out: Buffer.concat(out), text: Buffer.concat(out).toString(), err };
}

describe('flowmark files', () => {
  let dir: string;
  const saved = { data: process.env.FLOWMARK_DATA, url: process.env.DATABASE_URL };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'flowmark-files-cli-'));
    process.env.FLOWMARK_DATA = join(dir, 'data');
    delete process.env.DATABASE_URL;
    const store = await openStore();
    const platform = createPlatform(store);
    await platform.accounts.create({ id: 'acme' });
    await platform.directory.users.create('acme', { login: 'ann' });
    await platform.directory.users.create('acme', { login: 'carl' });
    await store.close();
  });
  afterAll(() => {
    if (saved.data === undefined) delete process.env.FLOWMARK_DATA;
    else process.env.FLOWMARK_DATA = saved.data;
    if (saved.url !== undefined) process.env.DATABASE_URL = saved.url;
    rmSync(dir, { recursive: true, force: true });
  });

  it('puts a file, gets it back byte for byte, and lists it', async () => {
    const local = join(dir, 'photo.png');
    const png = Buffer.concat([
      Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'),
      Buffer.from([0, 255, 7]),
    ]);
    writeFileSync(local, png);
    const put = await run(['put', local, '--account', 'acme']);
    expect(put.code).toBe(0);
    const id = put.text.trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(put.err).toBe('stored photo.png (image/png, 19 bytes) in account acme\n');

    const got = await run(['get', id, '--account', 'acme']);
    expect([got.code, got.out]).toEqual([0, png]);
    const target = join(dir, 'copy.png');
    expect((await run(['get', id, '-o', target, '--account', 'acme'])).code).toBe(0);
    expect(readFileSync(target)).toEqual(png);

    const named = await run([
      'put',
      local,
      '--name',
      'renamed.bin',
      '--type',
      'application/x-raw',
      '--account',
      'acme',
    ]);
    const ls = await run(['ls', '--account', 'acme']);
    expect(ls.text.split('\n').filter(Boolean).sort()).toEqual(
      [
        `${id}          19  image/png  photo.png`,
        `${named.text.trim()}          19  application/x-raw  renamed.bin`,
      ].sort(),
    );
  });

  it('acts as a user with --user: owner of what it puts, reading only what it may', async () => {
    const local = join(dir, 'notes.txt');
    writeFileSync(local, 'for ann');
    const put = await run(['put', local, '--user', 'ann', '--account', 'acme']);
    const id = put.text.trim();
    expect((await run(['get', id, '--user', 'ann', '--account', 'acme'])).text).toBe('for ann');
    const denied = await run(['get', id, '--user', 'carl', '--account', 'acme']);
    expect([denied.code, denied.err]).toEqual([
      1,
      `flowmark files: Access denied: no READ right on file ${id}.\n`,
    ]);
    expect((await run(['ls', '--user', 'carl', '--account', 'acme'])).text).toBe('');
    const unknown = await run(['ls', '--user', 'nobody', '--account', 'acme']);
    expect([unknown.code, unknown.err]).toEqual([1, 'flowmark files: Unable to retrieve user.\n']);
  });

  it('reports bad usage and missing files', async () => {
    expect((await run([])).code).toBe(2);
    expect((await run(['put'])).err).toMatch(/^flowmark files: put: 1 argument\(s\) expected\nusage: /);
    expect((await run(['fetch', 'x'])).err).toMatch(/^flowmark files: unknown action "fetch"/);
    const missing = await run(['put', join(dir, 'nope.txt'), '--account', 'acme']);
    expect([missing.code, missing.err]).toEqual([
      1,
      `flowmark files: cannot read ${join(dir, 'nope.txt')}: no such file\n`,
    ]);
    const unknown = await run(['get', 'nope', '--account', 'acme']);
    expect([unknown.code, unknown.err]).toEqual([1, "flowmark files: Uploaded file nope doesn't exist.\n"]);
  });
});
