/**
 * `flowmark collections` on the embedded store (the command reads FLOWMARK_DATA like every
 * command; the import itself is tested on both engines in service.test.ts and the functions').
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { flowmark } from '../../support/cli.js';

async function run(args: string[]) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => (out += c));
  stderr.on('data', (c) => (err += c));
  const code = await main(['collections', ...args], { stdin: new PassThrough(), stdout, stderr });
  return { code, out, err };
}

describe('flowmark collections', () => {
  let dir: string;
  const saved = { data: process.env.FLOWMARK_DATA, url: process.env.DATABASE_URL };
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'flowmark-cli-'));
    process.env.FLOWMARK_DATA = join(dir, 'data');
    delete process.env.DATABASE_URL;
  });
  afterAll(() => {
    if (saved.data === undefined) delete process.env.FLOWMARK_DATA;
    else process.env.FLOWMARK_DATA = saved.data;
    if (saved.url !== undefined) process.env.DATABASE_URL = saved.url;
    rmSync(dir, { recursive: true, force: true });
  });

  it('imports a large CSV file with progress, then lists it with its id', async () => {
    const file = join(dir, 'orders.csv');
    const lines = ['id;amount;status'];
    for (let i = 0; i < 30_000; i++) lines.push(`${i};${(i % 100) / 4};${i % 3 ? 'open' : 'closed'}`);
    writeFileSync(file, lines.join('\n'));
    const imported = await run([
      'import',
      file,
      'orders',
      '--options',
      '{"separator": ";", "parse_numbers": ["amount"], "parse_longs": ["id"]}',
      '--account',
      'acme',
    ]);
    expect(imported.code).toBe(0);
    expect(imported.out).toMatch(
      /^imported 30000 document\(s\) into orders \(account acme\) in \d+\.\d s — \d+ documents\/s\n$/,
    );
    const progress = imported.err.trim().split('\n');
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.at(-1)).toMatch(/^importing: 30000 document\(s\), 0\.\d of 0\.\d MB \(100%\)$/);

    const listed = await run(['list', '--account', 'acme']);
    expect(listed.out).toMatch(/^ +\d+ {2}orders {2}30000 document\(s\)\n$/);
    const id = listed.out.trim().split(/\s+/)[0]!;
    expect((await run(['indexes', id, '--account', 'acme'])).out).toBe('_id_  (_id)  unique\n');
  });

  it('leaves the collection unchanged when a row is bad, and says why', async () => {
    const file = join(dir, 'bad.csv');
    writeFileSync(file, 'n\n1\n2\nthree\n');
    const failed = await run([
      'import',
      file,
      'orders',
      '--options',
      '{"parse_numbers": ["n"]}',
      '--drop',
      '--account',
      'acme',
    ]);
    expect(failed.code).toBe(1);
    expect(failed.err).toMatch(/flowmark collections: line 4, column 'n': "three" is not a number\n$/);
    expect((await run(['list', '--account', 'acme'])).out).toMatch(/orders {2}30000 document\(s\)/);
  });

  it('takes a file as JSON by its name or its first character, as the built CLI run by a user', async () => {
    const env = { FLOWMARK_DATA: join(dir, 'spawned'), DATABASE_URL: '' };
    const named = join(dir, 'people.json');
    writeFileSync(
      named,
      JSON.stringify([
        { name: 'Ann', age: 30 },
        { name: 'Bob', age: 41 },
      ]),
    );
    const lines = join(dir, 'people.txt');
    writeFileSync(lines, '\uFEFF  {"name": "Carl", "age": 52}\n{"name": "Dee", "age": 23}\n');
    for (const [file, collection] of [
      [named, 'named'],
      [lines, 'sniffed'],
    ] as const) {
      const r = await flowmark(['collections', 'import', file, collection], { env, timeoutMs: 60_000 });
      expect([r.code, r.stderr]).toEqual([0, expect.any(String)]);
      expect(r.stdout).toMatch(
        new RegExp(`^imported 2 document\\(s\\) into ${collection} \\(account default\\)`),
      );
    }
    const listed = await flowmark(['collections', 'list'], { env, timeoutMs: 60_000 });
    expect(listed.stdout).toMatch(/named {2}2 document\(s\)/);
    expect(listed.stdout).toMatch(/sniffed {2}2 document\(s\)/);
    // a CSV stays CSV
    const csv = join(dir, 'people.csv');
    writeFileSync(csv, 'name,age\nEve,37\n');
    const r = await flowmark(
      ['collections', 'import', csv, 'csv', '--options', '{"parse_numbers": ["age"]}'],
      {
        env,
        timeoutMs: 60_000,
      },
    );
    expect(r.code, r.stderr).toBe(0);
  });

  it('explains its usage', async () => {
    const bad = await run(['import', 'only-one']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(
      /^flowmark collections: import: 2 argument\(s\) expected\nusage: flowmark collections list/,
    );
    expect((await run(['import', 'f', 'c', '--options', '[1]'])).err).toMatch(
      /--options: a JSON object is expected/,
    );
  });
});
