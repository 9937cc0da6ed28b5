/**
 * The shell examples of README.md and docs/*.md, run the way a newcomer runs them: from a fresh
 * directory with a fresh FLOWMARK_DATA, `npx flowmark` being the built CLI of this checkout
 * (bin/flowmark.js, what `npx flowmark` runs in the repository after `npm ci`).
 *
 * Every ```sh fence is preceded by a marker:
 *   <!-- example: run -->     run as written; exit 0
 *   <!-- example: server -->  run against a server this test starts (`npx flowmark serve --port 0`):
 *                             its address for http://localhost:8080, its first-start password for
 *                             <printed at first start>, TOKEN an API token of admin
 *   <!-- example: skip (why) -->
 * and a `# → TEXT` comment on a line is TEXT the example's output must contain.
 *
 * Every ```ftl fence (a template) is preceded by one too:
 *   <!-- example: render ARGS[ → TEXT] -->  rendered with `npx flowmark render FILE ARGS` in a
 *                             store made by `npx flowmark seed --demo`; exit 0, its output
 *                             containing TEXT when given
 *   <!-- example: skip (why) -->
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finished } from '../support/cli.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

interface Example {
  file: string;
  line: number;
  kind: 'run' | 'server' | 'skip' | 'render' | undefined;
  script: string;
  /** A template's render: the CLI's arguments and the text its output must contain. */
  render?: { args: string[]; expect?: string };
}

/** The ```sh fences of a Markdown file with the marker before each. */
function examplesOf(file: string): Example[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const found: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    const template = /^```ftl\s*$/.test(lines[i]!);
    if (!template && !/^```(sh|bash|shell)\s*$/.test(lines[i]!)) continue;
    let j = i - 1;
    while (j >= 0 && lines[j]!.trim() === '') j--;
    const marker = template
      ? /^<!-- example: (render|skip)\b(.*?)(?: → (.+?))? -->$/.exec(lines[j] ?? '')
      : /^<!-- example: (run|server|skip)\b.*-->$/.exec(lines[j] ?? '');
    const end = lines.indexOf('```', i + 1);
    const kind = marker?.[1] as Example['kind'];
    found.push({
      file,
      line: i + 1,
      kind,
      script: lines.slice(i + 1, end).join('\n'),
      ...(kind === 'render'
        ? {
            render: {
              args: marker![2]!.trim().split(/\s+/).filter(Boolean),
              ...(marker![3] ? { expect: marker![3] } : {}),
            },
          }
        : {}),
    });
    i = end;
  }
  return found;
}

const files = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const examples = files.flatMap(examplesOf);

/** The texts the `# → TEXT` comments promise. */
function promised(script: string): string[] {
  return [...script.matchAll(/# → (.+)$/gm)].map((m) => m[1]!.trim());
}

async function exec(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(command, args, options);
  child.stdin.end();
  const r = await finished(child, 300_000);
  return { code: r.code, out: r.stdout, err: r.stderr };
}

describe('the shell examples of the README and the docs', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    if (!existsSync(join(root, 'dist/cli/main.js')))
      throw new Error('dist/ is missing: run `npm run build` (npm test does)');
    dir = mkdtempSync(join(tmpdir(), 'flowmark-examples-'));
    // `npx flowmark` as in the repository after `npm ci`; any other npx would download: refused
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(
      join(bin, 'npx'),
      '#!/bin/sh\n' +
        `if [ "$1" = flowmark ]; then shift; exec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(root, 'bin/flowmark.js'))} "$@"; fi\n` +
        'echo "examples: npx $1 is not run here" >&2; exit 127\n',
    );
    chmodSync(join(bin, 'npx'), 0o755);
    env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, DATABASE_URL: '' };
    delete env.FLOWMARK_CORS_ORIGINS;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('marks every example (run, server or skip with a reason)', () => {
    expect(examples.filter((e) => e.kind === undefined).map((e) => `${e.file}:${e.line}`)).toEqual([]);
    // the ones the newcomer's path goes through are run
    const run = (file: string) => examples.filter((e) => e.file === file && e.kind !== 'skip').length;
    expect(run('README.md')).toBe(3);
    expect(run('docs/hosts.md')).toBe(1);
    expect(run('docs/platform.md')).toBe(1);
    expect(run('docs/deploy.md')).toBe(1);
    // the script backends' examples render as written
    expect(examples.filter((e) => e.file === 'docs/script.md' && e.kind === 'render').length).toBe(3);
  });

  /** Runs one example in a fresh directory; `data` is its FLOWMARK_DATA. */
  async function runExample(example: Example, script: string, data: string, extra: NodeJS.ProcessEnv = {}) {
    const cwd = mkdtempSync(join(dir, 'cwd-'));
    const r = await exec('bash', ['-e', '-o', 'pipefail', '-c', script], {
      cwd,
      env: { ...env, FLOWMARK_DATA: data, ...extra },
    });
    const where = `${example.file}:${example.line}\n--- stdout\n${r.out}\n--- stderr\n${r.err}`;
    expect(r.code, where).toBe(0);
    for (const text of promised(example.script)) expect(r.out, where).toContain(text);
    return r;
  }

  describe.each(examples.filter((e) => e.kind === 'run').map((e) => [`${e.file}:${e.line}`, e] as const))(
    '%s',
    (_name, example) => {
      it('runs as written on a new store', async () => {
        await runExample(example, example.script, join(mkdtempSync(join(dir, 'data-')), 'data'));
      });
    },
  );

  describe.each(examples.filter((e) => e.kind === 'render').map((e) => [`${e.file}:${e.line}`, e] as const))(
    '%s',
    (_name, example) => {
      it('renders as written in the demo store', async () => {
        const file = join(mkdtempSync(join(dir, 'template-')), 'example.ftl');
        writeFileSync(file, example.script + '\n');
        const args = example.render!.args.map((a) => JSON.stringify(a)).join(' ');
        const r = await runExample(
          example,
          `npx flowmark seed --demo > /dev/null\nnpx flowmark render ${JSON.stringify(file)} ${args}`,
          join(mkdtempSync(join(dir, 'data-')), 'data'),
        );
        if (example.render!.expect) expect(r.out).toContain(example.render!.expect);
      });
    },
  );

  describe('against a server', () => {
    let server: ChildProcess;
    let url = '';
    let password = '';
    let token = '';
    let data = '';
    beforeAll(async () => {
      data = join(mkdtempSync(join(dir, 'served-')), 'data');
      server = spawn(
        process.execPath,
        [join(root, 'bin/flowmark.js'), 'serve', '--port', '0', '--log-level', 'warn'],
        {
          cwd: dir,
          // one worker process (the default is 2): the examples call its API, whichever answers
          env: { ...env, FLOWMARK_DATA: data, FLOWMARK_WORKERS: '1' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      server.stdout!.on('data', (c: Buffer) => (out += c.toString()));
      server.stderr!.on('data', (c: Buffer) => (out += c.toString()));
      for (let i = 0; i < 600 && !/password: \S+/.test(out); i++) await new Promise((r) => setTimeout(r, 50));
      url = /serving on (http:\/\/\S+?)[ ;]/.exec(out)?.[1] ?? '';
      password = /password: (\S+)/.exec(out)?.[1] ?? '';
      if (!url || !password) throw new Error(`the server did not start:\n${out}`);
      const created = await exec(
        process.execPath,
        [join(root, 'bin/flowmark.js'), 'token', 'create', '--user', 'admin'],
        {
          cwd: dir,
          env: { ...env, FLOWMARK_DATA: data },
        },
      );
      token = created.out.trim();
    });
    afterAll(async () => {
      if (!server || server.exitCode !== null) return;
      const closed = new Promise((r) => server.once('close', r));
      server.kill('SIGTERM');
      await closed;
    });

    const served = examples.filter((e) => e.kind === 'server');
    // in document order: README first (it creates the composite API the others do not need)
    it.each(served.map((e) => [`${e.file}:${e.line}`, e] as const))('%s', async (_name, example) => {
      const script = example.script
        .replaceAll('http://localhost:8080', url)
        .replaceAll('<printed at first start>', password);
      const r = await runExample(example, script, data, { TOKEN: token });
      // no API error body among the answers
      expect(r.out).not.toMatch(/\{"status":[45]\d\d,"code":/);
    });
  });
});
