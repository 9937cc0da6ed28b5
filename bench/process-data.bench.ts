// What a process step costs with a large data document (issue 29: one write of the document per
// step): a request of three script tasks (the first with an output variable) runs in a process of
// its own (its peak RSS measured alone) on SQLite — or on PostgreSQL with FLOWMARK_BENCH_PG — with
// a data document of ~1 MB and of ~5 MB (just under the 5 MiB limit); ms per step is a request's
// time divided by its three steps (the median of BENCH_ROUNDS requests after one warm-up).
//
// With FLOWMARK_BENCH_BASELINE=<a checkout of flowmark with dist/ built> the same runs on that
// build too, and the ratios are printed. Both builds run from their dist/: `npm run build` first.
//
//   npm run build && FLOWMARK_BENCH_BASELINE=/tmp/flowmark-56700f5 npm run bench -- process-data
//
// With a baseline it ends with `goal: process-step-5mb-ratio VALUE x` (≤ 0.6: this build's time a
// step over the baseline's, at 5 MB) and `goal: process-peak-rss-5mb-ratio VALUE x` (≤ 1). The
// count of writes (one per step) is a test: test/hosts/data-writes.test.ts.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BASELINE = process.env.FLOWMARK_BENCH_BASELINE;
const PG = process.env.FLOWMARK_BENCH_PG;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SIZES = [1_000_000, 5_100_000];
const STEPS = 3;
const GOAL_RATIO = 0.6;

const PROCESS = {
  name: 'Big',
  steps: [
    { id: 1, name: 'One', script: '${(n + 1)?c}', output: { n: '${P_result?c}' } },
    { id: 2, name: 'Two', script: '{"c": ${(n * 2)?c}}' },
    { id: 3, name: 'Three', script: '[1, 2, ${n?c}, ${P_result.c?c}]' },
  ],
};

interface Measure {
  msPerStep: number;
  peakRssMb: number;
}

if (process.argv[2] === '--child') {
  const [root, bytes] = [process.argv[3]!, Number(process.argv[4])];
  console.log(JSON.stringify(await child(root, bytes)));
  process.exit(0);
}

const builds: [string, string][] = [
  ['this build', ROOT],
  ...(BASELINE ? [['baseline', BASELINE] as [string, string]] : []),
];
for (const [, root] of builds)
  if (!existsSync(join(root, 'dist/hosts/index.js'))) {
    console.error(`bench process-data: no dist/ in ${root} — run \`npm run build\` there first`);
    process.exit(1);
  }
const results = new Map<string, Measure>();
for (const bytes of SIZES)
  for (const [name, root] of builds) {
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', root, String(bytes)],
      {
        encoding: 'utf8',
        env: process.env,
      },
    );
    if (r.status !== 0) {
      console.error(r.stdout, r.stderr);
      process.exit(1);
    }
    const m = JSON.parse(r.stdout.trim().split('\n').pop()!) as Measure;
    results.set(`${name} ${bytes}`, m);
    console.log(
      `${(bytes / 1e6).toFixed(1)} MB data document, ${name.padEnd(10)} ${m.msPerStep.toFixed(1).padStart(7)} ms a step, ` +
        `peak RSS ${m.peakRssMb.toFixed(0)} MB (${PG ? 'PostgreSQL' : 'SQLite'})`,
    );
  }
const big = results.get(`this build ${SIZES[1]}`)!;
console.log(`5 MB: ${big.msPerStep.toFixed(1)} ms a step, peak RSS ${big.peakRssMb.toFixed(0)} MB`);
if (BASELINE) {
  const base = results.get(`baseline ${SIZES[1]}`)!;
  console.log(
    `goal: process-step-5mb-ratio ${(big.msPerStep / base.msPerStep).toFixed(2)} x (≤ ${GOAL_RATIO}: this build ÷ the baseline)`,
  );
  console.log(`goal: process-peak-rss-5mb-ratio ${(big.peakRssMb / base.peakRssMb).toFixed(2)} x (≤ 1)`);
}

/** One build, one size, in this process alone: the median ms a step and the process's peak RSS. */
async function child(root: string, bytes: number): Promise<Measure> {
  const load = (path: string) => import(pathToFileURL(join(root, 'dist', path)).href);
  const { openStore } = await load('store/index.js');
  const { createPlatform } = await load('platform/index.js');
  const { ProcessHost } = await load('hosts/index.js');
  const dir = mkdtempSync(join(tmpdir(), 'flowmark-bench-data-'));
  let schema: string | undefined;
  let pgSchema: string | undefined;
  if (PG) {
    const pg = (await import('pg')).default;
    schema = `bench_data_${process.pid}`;
    const admin = new pg.Client({ connectionString: PG });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
    pgSchema = schema;
  }
  const store = await openStore(PG ? { databaseUrl: PG, pgSchema } : { sqliteFile: join(dir, 'bench.db') });
  try {
    const platform = createPlatform(store);
    await platform.accounts.create({ id: 'acme', name: 'Acme', baseUrl: 'https://flow.example.com' });
    const host = new ProcessHost(platform);
    // many small fields, as a form's or an import's document would have
    const data: Record<string, unknown> = { n: 1 };
    const filler = 'x'.repeat(80);
    for (let i = 0; JSON.stringify(data).length < bytes; i += 100)
      for (let j = i; j < i + 100; j++) data[`field_${j}`] = { id: j, text: filler };
    const times: number[] = [];
    for (let round = 0; round <= ROUNDS; round++) {
      const started = performance.now();
      const view = await host.start('acme', { definition: PROCESS, data, mode: 'TEST' });
      const ms = performance.now() - started;
      if (view.request.status !== 201) throw new Error(`request ended with ${view.request.status}`);
      if (round > 0) times.push(ms / STEPS);
    }
    times.sort((a, b) => a - b);
    return {
      msPerStep: times[Math.floor(times.length / 2)]!,
      peakRssMb: process.resourceUsage().maxRSS / 1024,
    };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
    if (schema) {
      const pg = (await import('pg')).default;
      const admin = new pg.Client({ connectionString: PG });
      await admin.connect();
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    }
  }
}
