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
 * the ratio this/baseline (1.05× = 5% slower); the geometric means close. Then the same for
 * parse+compile (compile cache cleared before each), each build in a worker thread of its own: a
 * separate heap, so that one build's garbage does not slow the other's collections. FLOWMARK_BENCH_ROUNDS sets the rounds
 * (default 40); FLOWMARK_BENCH_AB=render or =parse runs that half only. Without FLOWMARK_BENCH_BASELINE it says how to get one and stops.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { cases } from './template.bench.js';

type TemplateApi = typeof import('../src/template/index.js');
type DataApi = typeof import('../src/template/data.js');
type CompileApi = typeof import('../src/template/compile.js');

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const BASELINE = process.env.FLOWMARK_BENCH_BASELINE ?? '';
const ROUNDS = Number(process.env.FLOWMARK_BENCH_ROUNDS ?? 40);
const BATCH_MS = 25;

interface Build {
  name: string;
  api: TemplateApi;
  data: DataApi;
  cc: CompileApi;
}

async function load(name: string, dist: string): Promise<Build> {
  const url = (m: string) => pathToFileURL(join(dist, 'template', `${m}.js`)).href;
  return {
    name,
    api: (await import(url('index'))) as TemplateApi,
    data: (await import(url('data'))) as DataApi,
    cc: (await import(url('compile'))) as CompileApi,
  };
}

/**
 * The clock: wall time by default; FLOWMARK_BENCH_CLOCK=cpu takes this process's CPU time
 * (process.cpuUsage, user + system), which time spent waiting for a core on a loaded machine does
 * not inflate.
 */
const CPU_CLOCK = process.env.FLOWMARK_BENCH_CLOCK === 'cpu';

/** µs per op of `op` over one batch of `n` ops. */
async function batch(op: () => unknown, n: number): Promise<number> {
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
  const ratios = { render: [] as Ratio[], parse: [] as Ratio[] };
  const only = process.env.FLOWMARK_BENCH_AB; // 'render' or 'parse': that half only
  for (const what of (['render', 'parse'] as const).filter((w) => !only || only === w)) {
    console.log(
      `${what === 'render' ? 'render' : 'parse+compile'}: template  this µs (median/best)  baseline µs (median/best)  ratio median  ratio best  same output`,
    );
    const workers = what === 'parse' ? [compileWorker(join(root, 'dist')), compileWorker(BASELINE)] : [];
    for (const c of cases()) {
      const fns: BatchFn[] = [];
      const outputs = [];
      for (const [k, b] of builds.entries()) {
        const t = b.api.compile(c.template, { name: c.name });
        const model = b.data.dataFromJson(c.data, 'UTC');
        outputs.push(await t.render(model));
        fns.push(what === 'render' ? (n) => batch(() => t.render(model), n) : (n) => workers[k]!(c, n));
      }
      const r = await compare(fns as [BatchFn, BatchFn]);
      ratios[what].push(r.ratio);
      console.log(
        `${c.name.padEnd(15)} ${`${r.self.median.toFixed(1)} / ${r.self.best.toFixed(1)}`.padStart(22)}` +
          `  ${`${r.base.median.toFixed(1)} / ${r.base.best.toFixed(1)}`.padStart(25)}` +
          `  ${r.ratio.median.toFixed(3).padStart(11)}×  ${r.ratio.best.toFixed(3).padStart(9)}×  ${outputs[0] === outputs[1] ? 'yes' : 'NO'}`,
      );
    }
    for (const w of workers) w(null, 0);
    const geo = (k: 'median' | 'best') =>
      Math.exp(ratios[what].reduce((s, r) => s + Math.log(r[k]), 0) / ratios[what].length);
    console.log(
      `${what === 'render' ? 'render' : 'parse+compile'}: geometric mean of this/baseline: ${geo('median').toFixed(3)}× by median batch, ${geo('best').toFixed(3)}× by best batch`,
    );
  }
}

interface Ratio {
  median: number;
  best: number;
}

/** Runs `n` ops and gives µs per op. */
type BatchFn = (n: number) => Promise<number>;

/** Batches of each in turn, ROUNDS rounds (which goes first alternates): µs per op of each. */
async function compare(fns: [BatchFn, BatchFn]): Promise<{ self: Ratio; base: Ratio; ratio: Ratio }> {
  // warm-up, and the batch size that takes about BATCH_MS
  for (const fn of fns) await fn(2000);
  const perOp = await fns[0](200);
  const n = Math.max(1, Math.round((BATCH_MS * 1000) / perOp));
  const times: number[][] = [[], []];
  for (let r = 0; r < ROUNDS; r++)
    for (let k = 0; k < 2; k++) {
      const i = (r + k) % 2; // alternate which build goes first
      times[i]!.push(await fns[i]!(n));
    }
  const [self, base] = times.map((t) => ({ median: median(t), best: Math.min(...t) })) as [Ratio, Ratio];
  return { self, base, ratio: { median: self.median / base.median, best: self.best / base.best } };
}

/** A worker thread that parses+compiles with the build in `dist`: `(case, n)` → µs per compile; `(null)` ends it. */
function compileWorker(
  dist: string,
): (c: { template: string; name: string } | null, n: number) => Promise<number> {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const { performance } = require('node:perf_hooks');
    Promise.all([import(workerData.index), import(workerData.compile)]).then(([api, cc]) => {
      parentPort.on('message', ({ template, name, n }) => {
        const t = performance.now();
        for (let i = 0; i < n; i++) {
          cc.clearCompileCache();
          api.compile(template, { name });
        }
        parentPort.postMessage(((performance.now() - t) * 1000) / n);
      });
    });`;
  const url = (m: string) => pathToFileURL(join(dist, 'template', `${m}.js`)).href;
  const w = new Worker(code, { eval: true, workerData: { index: url('index'), compile: url('compile') } });
  return (c, n) => {
    if (c === null) return w.terminate();
    w.postMessage({ template: c.template, name: c.name, n });
    return new Promise((resolve, reject) => {
      w.once('error', reject);
      w.once('message', (us: number) => {
        w.off('error', reject);
        resolve(us);
      });
    });
  };
}

await main();
