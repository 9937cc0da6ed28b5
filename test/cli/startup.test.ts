/**
 * The CLI loads what a command needs, when it needs it (docs/architecture.md, "The CLI loads on
 * demand"): `flowmark version` loads no package at all, `flowmark render` neither the server
 * (Fastify and its plugins) nor the database drivers nor the libraries of functions it does not
 * call. What a process loaded is read from Node's CommonJS cache when it exits (the packages
 * named here are CommonJS, so an ESM import of them lands there too). Speed: bench/cli.bench.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flowmark } from '../support/cli.js';

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'flowmark-startup-'));
  writeFileSync(
    join(dir, 'loaded.cjs'),
    `process.on('exit', () => {
      const names = new Set();
      for (const file of Object.keys(require.cache)) {
        const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(file);
        if (m) names.add(m[1]);
      }
      process.stderr.write('LOADED ' + JSON.stringify([...names].sort()) + '\\n');
    });`,
  );
  writeFileSync(join(dir, 'x.ftl'), 'x');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function loadedBy(args: string[]): Promise<{ stdout: string; packages: string[] }> {
  const run = await flowmark(args, {
    env: {
      NODE_OPTIONS: `--require ${join(dir, 'loaded.cjs')}`,
      FLOWMARK_DATA: join(dir, 'none'),
      DATABASE_URL: '',
    },
  });
  expect(run.code).toBe(0);
  const line = /^LOADED (.*)$/m.exec(run.stderr);
  expect(line).not.toBeNull();
  return { stdout: run.stdout, packages: JSON.parse(line![1]!) as string[] };
}

const SERVER_AND_DRIVERS = [
  'fastify',
  '@fastify/swagger',
  '@fastify/swagger-ui',
  '@fastify/multipart',
  '@fastify/static',
  'pg',
  'better-sqlite3',
  'mingo',
  'exceljs',
  'sanitize-html',
  'yauzl',
  'yazl',
  'mime-types',
];

describe('the CLI loads a command when it runs', () => {
  it('flowmark version loads no package', async () => {
    const { stdout, packages } = await loadedBy(['version']);
    expect(stdout).toMatch(/^flowmark \d+\.\d+\.\d+\n$/);
    expect(packages).toEqual([]);
  });

  it('flowmark --help lists every command without loading any', async () => {
    const { stdout, packages } = await loadedBy(['--help']);
    for (const name of [
      'version',
      'functions',
      'render',
      'render-batch',
      'run',
      'serve',
      'token',
      'seed',
      'collections',
      'files',
    ])
      expect(stdout).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
    expect(packages).toEqual([]);
  });

  it('flowmark render loads neither the server, nor a database driver, nor unused libraries', async () => {
    const { stdout, packages } = await loadedBy(['render', join(dir, 'x.ftl')]);
    expect(stdout).toBe('x');
    expect(packages.filter((p) => SERVER_AND_DRIVERS.includes(p))).toEqual([]);
  });

  it('a command that uses a library still loads it on first use (markdown_to_html: sanitize-html)', async () => {
    writeFileSync(join(dir, 'md.ftl'), '${markdown_to_html("*a*")?contains("<em>a</em>")?c}');
    const { stdout, packages } = await loadedBy(['render', join(dir, 'md.ftl')]);
    expect(stdout).toBe('true');
    expect(packages).toContain('sanitize-html');
    expect(packages).not.toContain('fastify');
  });
});
