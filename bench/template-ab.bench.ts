/**
 * What a change costs the template engine: this build's render time against a baseline build of
 * flowmark, on the template bench's templates, in one process, batches of each taken in turn (so
 * the load of the machine falls on both alike).
 *
 *   git worktree add /tmp/baseline <commit> && (cd /tmp/baseline && ln -s $PWD/node_modules . && npx tsc -p tsconfig.build.json)
 *   FLOWMARK_BENCH_BASELINE=/tmp/baseline/dist npm run bench -- template-ab
 *   FLOWMARK_BENCH_CLOCK=cpu …     # CPU time instead of wall time (a loaded machine)
 *
 * Prints, per template, µs per render of each build by its median batch and its best batch, and
 * the ratio this/baseline (1.05× = 5% slower); the geometric means close. Without
 * FLOWMARK_BENCH_BASELINE it says how to get one and stops.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cases } from './template.bench.js';

type TemplateApi = typeof import('../src/template/index.js');
type DataApi = typeof import('../src/template/data.js');

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const BASELINE = process.env.FLOWMARK_BENCH_BASELINE ?? '';
const ROUNDS = Number(process.env.FLOWMARK_BENCH_ROUNDS ?? 40);
const BATCH_MS = 25;

interface Build {
  name: string;
  api: TemplateApi;
  data: DataApi;
}

async function load(name: string, dist: string): Promise<Build> {
  const url = (m: string) => pathToFileURL(join(dist, 'template', `${m}.js`)).href;
  return {
    name,
    api: (await import(url('index'))) as TemplateApi,
    data: (await import(url('data'))) as DataApi,
  };
}

/**
 * The clock: wall time by default; FLOWMARK_BENCH_CLOCK=cpu takes this process's CPU time
 * (process.cpuUsage, user + system), which time spent waiting for a core on a loaded machine does
 * not inflate.
 */
const CPU_CLOCK = process.env.FLOWMARK_BENCH_CLOCK === 'cpu';

/** µs per render of `op` over one batch of `n` renders. */
async function batch(op: () => Promise<unknown>, n: number): Promise<number> {
  if (CPU_CLOCK) {
    const c = process.cpuUsage();
    for (let i = 0; i < n; i++) await op();
    const d = process.cpuUsage(c);
    return (d.user + d.system) / n;
  }
  const t = performance.now();
  for (let i = 0; i < n; i++) await op();
  return ((performance.now() - t) * 1000) / n;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

async function main(): Promise<void> {
  if (!BASELINE || !existsSync(join(BASELINE, 'template', 'index.js'))) {
    console.log(
      'template-ab: set FLOWMARK_BENCH_BASELINE to the dist/ of a baseline build (see the header); skipped',
    );
    return;
  }
  const builds = [await load('this', join(root, 'dist')), await load('baseline', BASELINE)];
  console.log(
    `this build: ${join(root, 'dist')}; baseline: ${BASELINE}; ${ROUNDS} rounds of ~${BATCH_MS} ms batches each; ${CPU_CLOCK ? 'CPU time' : 'wall time'}`,
  );
  console.log(
    'template        this µs (median/best)  baseline µs (median/best)  ratio median  ratio best  same output',
  );
  const ratios: { median: number; best: number }[] = [];
  for (const c of cases()) {
    const ops = [];
    const outputs = [];
    for (const b of builds) {
      const t = b.api.compile(c.template, { name: c.name });
      const model = b.data.dataFromJson(c.data, 'UTC');
      outputs.push(await t.render(model));
      ops.push(() => t.render(model));
    }
    // warm-up, and the batch size that takes about BATCH_MS
    for (const op of ops) for (let i = 0; i < 2000; i++) await op();
    const perRender = await batch(ops[0]!, 200);
    const n = Math.max(1, Math.round((BATCH_MS * 1000) / perRender));
    const times: number[][] = [[], []];
    for (let r = 0; r < ROUNDS; r++)
      for (let k = 0; k < 2; k++) {
        const i = (r + k) % 2; // alternate which build goes first
        times[i]!.push(await batch(ops[i]!, n));
      }
    const [self, base] = times as [number[], number[]];
    const ratio = { median: median(self) / median(base), best: Math.min(...self) / Math.min(...base) };
    ratios.push(ratio);
    console.log(
      `${c.name.padEnd(15)} ${`${median(self).toFixed(1)} / ${Math.min(...self).toFixed(1)}`.padStart(22)}` +
        `  ${`${median(base).toFixed(1)} / ${Math.min(...base).toFixed(1)}`.padStart(25)}` +
        `  ${ratio.median.toFixed(3).padStart(11)}×  ${ratio.best.toFixed(3).padStart(9)}×  ${outputs[0] === outputs[1] ? 'yes' : 'NO'}`,
    );
  }
  const geo = (k: 'median' | 'best') =>
    Math.exp(ratios.reduce((s, r) => s + Math.log(r[k]), 0) / ratios.length);
  console.log(
    `geometric mean of this/baseline: ${geo('median').toFixed(3)}× by median batch, ${geo('best').toFixed(3)}× by best batch`,
  );
}

await main();
