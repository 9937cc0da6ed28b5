import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { describeLibrary, functionsMarkdown } from '../../src/functions/docs.js';
import { defaultRegistry } from '../../src/functions/registry.js';
import { sourceIndex } from '../../src/functions/source-index.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
import { SPEC_2_1_WEB_INTERFACE, WEB_INTERFACE_EXTRAS } from '../support/spec.js';

async function run(args: string[]) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => (out += c));
  stderr.on('data', (c) => (err += c));
  const code = await main(args, { stdin: new PassThrough(), stdout, stderr });
  return { code, out, err };
}

describe('docs/functions.md', () => {
  it('is the registry\u2019s current reference (run `npm run docs:functions` when this fails)', () => {
    const committed = readFileSync(new URL('../../docs/functions.md', import.meta.url), 'utf8');
    expect(
      committed === functionsMarkdown(defaultRegistry(), sourceIndex(root)),
      'docs/functions.md is stale: npm run docs:functions',
    ).toBe(true);
  });

  it('links every function to the module that declares and implements it, and to its tests', () => {
    const sources = sourceIndex(root);
    const undeclared: string[] = [];
    for (const f of defaultRegistry().list()) {
      const { declaration, tests } = sources(f.name);
      if (!declaration) {
        undeclared.push(f.name);
        continue;
      }
      expect(existsSync(`${root}/${declaration}`)).toBe(true);
      expect(readFileSync(`${root}/${declaration}`, 'utf8')).toContain(`'${f.name}'`);
      for (const t of tests) expect(readFileSync(`${root}/${t}`, 'utf8')).toContain(f.name);
    }
    expect(undeclared).toEqual([]);
    const md = readFileSync(new URL('../../docs/functions.md', import.meta.url), 'utf8');
    expect(md).toContain(
      'Declared and implemented in [src/functions/file/zip.ts](../src/functions/file/zip.ts).',
    );
    expect(md).toMatch(/### count_objects\n[\s\S]*?Tests: \[test\/[^\]]+\]\(\.\.\/test\//);
  });

  it('documents every function, alias and flag of the library', () => {
    const md = functionsMarkdown(defaultRegistry());
    for (const f of defaultRegistry().list()) {
      expect(md).toContain(`### ${f.name}\n`);
      for (const alias of f.aliases ?? []) expect(md).toContain(`\`${alias}\``);
    }
    expect(md).toContain('    encrypt(algorithm: string, input: string, output_type?: string) → string');
    expect(md).toContain('Flags: web-interface.');
  });

  it('says which web-interface functions are beyond spec 2.1’s list (P_quoted and i18n), and password_digest’s algorithm', () => {
    const spec21 = SPEC_2_1_WEB_INTERFACE;
    const flagged = defaultRegistry()
      .list()
      .filter((f) => f.flags?.webInterface)
      .map((f) => f.name);
    expect(flagged.filter((n) => !spec21.includes(n)).sort()).toEqual([...WEB_INTERFACE_EXTRAS].sort());
    expect(spec21.filter((n) => !flagged.includes(n))).toEqual([]);
    const md = functionsMarkdown(defaultRegistry());
    expect(md.replace(/\s+/g, ' ')).toContain(
      'Flags: **web-interface** — usable in a web interface: the functions the platform lists for them, plus P_quoted and i18n, which are beyond that list',
    );
    expect(defaultRegistry().get('password_digest')!.doc).toMatch(
      /^The lower-case hexadecimal SHA-256 of the password's UTF-8 bytes/,
    );
  });
});

describe('flowmark functions', () => {
  it('lists name, group, signature and flags', async () => {
    const { code, out } = await run(['functions']);
    expect(code).toBe(0);
    const lines = out.split('\n');
    expect(lines[0]).toMatch(/^name +group +signature +\(flags\)$/);
    expect(out).toMatch(
      /\nencrypt +Utilities +encrypt\(input: string\) → string +\[web-interface\]\n +encrypt\(algorithm: string, input: string, output_type\?: string\) → string\n/,
    );
    expect(out).toMatch(/\nuuid +Utilities +uuid\(\) → string\n/);
    expect(lines.filter((l) => /^\S/.test(l)).length).toBe(defaultRegistry().list().length + 1);
  });

  it('filters by name or alias and by group', async () => {
    const one = await run(['functions', 'uuid', 'P_quoted']);
    expect(one.out.trim().split('\n')).toHaveLength(3);
    const group = await run(['functions', '--group', 'utilities']);
    expect(group.code).toBe(0);
    expect(group.out.trim().split('\n').length).toBeGreaterThan(10);
    const none = await run(['functions', 'no_such']);
    expect(none.code).toBe(1);
    expect(none.err).toBe('flowmark functions: no function named no_such\n');
    const bad = await run(['functions', '--group', 'Nope']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('flowmark functions: unknown group "Nope"');
    expect((await run(['functions', '--frob'])).code).toBe(2);
  });

  it('prints JSON descriptions with --json', async () => {
    const { code, out } = await run(['functions', '--json', 'encrypt']);
    expect(code).toBe(0);
    const [encrypt] = JSON.parse(out) as ReturnType<typeof describeLibrary>;
    expect(encrypt).toEqual({
      name: 'encrypt',
      aliases: [],
      group: 'Utilities',
      rights: 'none',
      doc: defaultRegistry().get('encrypt')!.doc,
      returns: 'string',
      flags: ['web-interface'],
      forms: [
        {
          signature: 'encrypt(input: string)',
          deprecated: false,
          params: [{ name: 'input', type: 'string', optional: false, variadic: false }],
        },
        {
          signature: 'encrypt(algorithm: string, input: string, output_type?: string)',
          deprecated: false,
          params: [
            { name: 'algorithm', type: 'string', optional: false, variadic: false },
            { name: 'input', type: 'string', optional: false, variadic: false },
            { name: 'output_type', type: 'string', optional: true, variadic: false },
          ],
        },
      ],
    });
    const all = JSON.parse((await run(['functions', '--json'])).out) as unknown[];
    expect(all).toHaveLength(defaultRegistry().list().length);
  });

  it('prints the markdown reference with --markdown', async () => {
    expect((await run(['functions', '--markdown'])).out).toBe(functionsMarkdown(defaultRegistry()));
  });
});
