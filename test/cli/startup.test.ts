/**
 * The CLI loads what a command needs, when it needs it (docs/architecture.md, "The CLI loads on
 * demand"): `flowmark version` loads no package at all, `flowmark render` neither the server
 * (Fastify and its plugins) nor the database drivers nor the libraries of functions it does not
 * call. What a process loaded is read from Node's CommonJS cache when it exits (the packages
 * named here are CommonJS, so an ESM import of them lands there too), and every ES module it
 * loaded (ESM-only packages such as marked, and flowmark's own modules) from a module hook.
 * Speed: bench/cli.bench.ts.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  writeFileSync(
    join(dir, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs';
    export async function load(url, context, next) {
      if (process.env.FLOWMARK_TEST_MODULES) appendFileSync(process.env.FLOWMARK_TEST_MODULES, url + '\\n');
      return next(url, context);
    }`,
  );
  writeFileSync(
    join(dir, 'modules.mjs'),
    `import { register } from 'node:module';
    import { pathToFileURL } from 'node:url';
    register(pathToFileURL(${JSON.stringify(join(dir, 'hooks.mjs'))}));`,
  );
  writeFileSync(join(dir, 'x.ftl'), 'x');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let runs = 0;

/**
 * What `flowmark args…` loaded: the packages (CommonJS cache) and, as `modules`, every ES module
 * (`marked`, `csv-parse` … for a package, `dist/store/index.js` … for flowmark's own).
 */
async function loadedBy(args: string[]): Promise<{ stdout: string; packages: string[]; modules: string[] }> {
  const list = join(dir, `modules-${runs++}.txt`);
  writeFileSync(list, '');
  const run = await flowmark(args, {
    env: {
      NODE_OPTIONS: `--require ${join(dir, 'loaded.cjs')} --import ${join(dir, 'modules.mjs')}`,
      FLOWMARK_TEST_MODULES: list,
      FLOWMARK_DATA: join(dir, 'none'),
      DATABASE_URL: '',
    },
  });
  expect(run.code).toBe(0);
  const line = /^LOADED (.*)$/m.exec(run.stderr);
  expect(line).not.toBeNull();
  const modules = new Set<string>();
  for (const url of readFileSync(list, 'utf8').split('\n')) {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    const own = /\/(dist\/.*)$/.exec(url);
    if (pkg) modules.add(pkg[1]!);
    else if (own) modules.add(own[1]!);
    else if (url.startsWith('node:')) modules.add(url);
  }
  return { stdout: run.stdout, packages: JSON.parse(line![1]!) as string[], modules: [...modules].sort() };
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
      'project',
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

  it('flowmark render of a template without a store loads no store, platform service or library of a function it does not call', async () => {
    const { stdout, modules } = await loadedBy(['render', join(dir, 'x.ftl')]);
    expect(stdout).toBe('x');
    expect(modules).toContain('dist/template/index.js'); // the hook sees the modules it should
    expect(modules).toContain('dist/functions/registry.js');
    const unwanted = (m: string) =>
      ['marked', 'csv-parse', 'csv-stringify', 're2js', 'sanitize-html'].includes(m) ||
      // The store's SQL builder and contention message are leaves; its index (drivers, migrations) is not.
      (/^dist\/(server|store)\//.test(m) && !['dist/store/sql.js', 'dist/store/contention.js'].includes(m)) ||
      m === 'dist/platform/index.js' ||
      /^dist\/platform\/(collections|files|processes|directory|projects|applications|scripted)\/index\.js$/.test(
        m,
      ) ||
      m === 'dist/platform/collections/import.js' ||
      m === 'dist/platform/files/replace.js' ||
      // the script sandboxes load with the first <@script>
      ['dist/script/run.js', 'dist/script/pool.js', 'dist/script/python/run.js'].includes(m);
    expect(modules.filter(unwanted)).toEqual([]);
  });

  it('flowmark render of x loads the declarations of the function library, not its implementations, and few modules', async () => {
    const { stdout, modules } = await loadedBy(['render', join(dir, 'x.ftl')]);
    expect(stdout).toBe('x');
    expect(modules).toContain('dist/functions/declarations.js');
    // a group's modules load on the first call of one of its functions (src/functions/lazy.ts);
    // the evaluation's own state (request/evaluation.js, the reads contexts share: request/reads.js)
    // and the registry's helpers are not groups
    const groupModules = modules.filter(
      (m) =>
        /^dist\/functions\/(application|collections|composite|file|request|user|utilities)\//.test(m) &&
        !['dist/functions/request/evaluation.js', 'dist/functions/request/descriptors.js'].includes(m) &&
        m !== 'dist/functions/request/reads.js' &&
        !['dist/functions/request/script-urls.js', 'dist/functions/request/calls.js'].includes(m),
    );
    expect(groupModules).toEqual([]);
    // required on first use (src/jdk/on-demand.ts): charsets, time-zone rules, regex workers
    expect(modules.filter((m) => ['iconv-lite', 'node:zlib', 'node:worker_threads'].includes(m))).toEqual([]);
    // 211 modules before the library loaded on first use, 133 after; 135 with the ?truncate family
    // and SimpleDateFormat's field digits in modules of their own (bench/cli.bench.ts measures the time);
    // 136 with the wording of a file it cannot read (cli/file-errors.ts, without the option parser);
    // 137 with the reads a process request's contexts share (functions/request/reads.ts, no imports)
    expect(modules.filter((m) => m.startsWith('dist/')).length).toBeLessThanOrEqual(137);
  });

  it('a function of the library loads its own module on first call, not its group', async () => {
    writeFileSync(join(dir, 'json.ftl'), '${P_json_stringify({"a": [1, 2]})}');
    const { stdout, modules } = await loadedBy(['render', join(dir, 'json.ftl')]);
    expect(stdout).toBe('{"a":[1,2]}');
    expect(modules).toContain('dist/functions/utilities/json.js');
    expect(modules).not.toContain('dist/functions/utilities/crypto.js');
    expect(modules).not.toContain('dist/functions/utilities/index.js');
  });

  it('a command that uses a library still loads it on first use (markdown_to_html: marked, sanitize-html)', async () => {
    writeFileSync(join(dir, 'md.ftl'), '${markdown_to_html("*a*")?contains("<em>a</em>")?c}');
    const { stdout, packages, modules } = await loadedBy(['render', join(dir, 'md.ftl')]);
    expect(stdout).toBe('true');
    expect(packages).toContain('sanitize-html');
    expect(modules).toContain('marked');
    expect(packages).not.toContain('fastify');
  });

  it('csv_to_json loads the CSV parser on first use', async () => {
    writeFileSync(join(dir, 'csv.ftl'), '${csv_to_json("a,b\\n1,2", {"header": true})}');
    const plain = await loadedBy(['render', join(dir, 'x.ftl')]);
    expect(plain.packages).not.toContain('csv-parse');
    const { stdout, packages } = await loadedBy(['render', join(dir, 'csv.ftl')]);
    expect(stdout).toBe('[{"a":"1","b":"2"}]');
    expect(packages).toContain('csv-parse');
  });
});
