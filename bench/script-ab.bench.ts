/**
 * What a change costs a trivial JavaScript script end to end (issue 25: "trivial JS script not
 * slower"): this build against a baseline build of flowmark, in one process, batches of each taken
 * in turn so the load of the machine falls on both alike. Each build has its own script workers
 * (its own module instances); a script is `RMPData.setOutput(…)` run by `runScript`, from the
 * call to its result, sequentially.
 *
 *   git worktree add /tmp/baseline <commit> && (cd /tmp/baseline && ln -s $PWD/node_modules . && npm run build)
 *   FLOWMARK_BENCH_BASELINE=/tmp/baseline/dist node --import tsx bench/script-ab.bench.ts
 *   FLOWMARK_BENCH_CLOCK=cpu …     # the process's CPU time (every thread) instead of wall time
 *
 * Prints µs per script of each build by its median batch and its best batch, and ends with
 * `goal: js-trivial-ab-ratio VALUE x` (this ÷ baseline by median; not slower: ≤ 1.05, the noise of
 * a shared machine). FLOWMARK_BENCH_ROUNDS sets the rounds (default 30). Without
 * FLOWMARK_BENCH_BASELINE it says how to get one and stops.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

type ScriptIndex = typeof import('../src/script/index.js');
type ContextApi = typeof import('../src/functions/context.js');

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const BASELINE = process.env.FLOWMARK_BENCH_BASELINE ?? '';
const ROUNDS = Number(process.env.FLOWMARK_BENCH_ROUNDS ?? 30);
const CLOCK = process.env.FLOWMARK_BENCH_CLOCK === 'cpu' ? 'cpu' : 'wall';
const BATCH = 40;
const GOAL = 1.05;
const SCRIPT = 'RMPData.setOutput("Hello " + (6 * 7))';

interface Build {
  name: string;
  scripts: ScriptIndex;
  context: ContextApi;
}

async function load(name: string, dist: string): Promise<Build> {
  if (!existsSync(join(dist, 'script', 'index.js')))
    throw new Error(`${dist}: no script/index.js (build it first)`);
  const url = (m: string) => pathToFileURL(join(dist, `${m}.js`)).href;
  return {
    name,
    scripts: (await import(url('script/index'))) as ScriptIndex,
    context: (await import(url('functions/context'))) as ContextApi,
  };
}

function now(): number {
  if (CLOCK === 'wall') return performance.now() * 1000;
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** µs per script of one batch. */
async function batch(build: Build): Promise<number> {
  const ctx = build.context.createExecutionContext({ clock: () => Date.UTC(2024, 0, 15) });
  const started = now();
  for (let i = 0; i < BATCH; i++) {
    const r = await build.scripts.runScript(SCRIPT, { ctx });
    if (r.output !== 'Hello 42')
      throw new Error(`${build.name}: unexpected output ${JSON.stringify(r.output)}`);
  }
  return (now() - started) / BATCH;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

if (!BASELINE) {
  console.log(
    'bench script-ab: set FLOWMARK_BENCH_BASELINE to the dist/ of a baseline build (see the comment at the top)',
  );
  process.exit(0);
}

const builds = [await load('this build', join(root, 'dist')), await load('baseline', BASELINE)];
for (const b of builds) {
  await b.scripts.warmScripts?.();
  for (let i = 0; i < 3; i++) await batch(b); // workers started, code optimised
}
const times = new Map<string, number[]>(builds.map((b) => [b.name, []]));
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? builds : [...builds].reverse();
  for (const b of order) times.get(b.name)!.push(await batch(b));
}
for (const b of builds) await b.scripts.closeScripts();

console.log(
  `trivial JavaScript script, ${CLOCK} µs per script (${ROUNDS} rounds of ${BATCH}, batches alternating)`,
);
for (const b of builds) {
  const t = times.get(b.name)!;
  console.log(
    `${b.name.padEnd(12)} median ${median(t).toFixed(1).padStart(8)} µs   best ${Math.min(...t)
      .toFixed(1)
      .padStart(8)} µs`,
  );
}
const ratio = median(times.get('this build')!) / median(times.get('baseline')!);
const best = Math.min(...times.get('this build')!) / Math.min(...times.get('baseline')!);
console.log(`this ÷ baseline: ${ratio.toFixed(3)}× by median, ${best.toFixed(3)}× by best batch`);
console.log(
  `goal: js-trivial-ab-ratio ${ratio.toFixed(2)} x (${CLOCK} time per trivial script, this build ÷ baseline; ≤ ${GOAL}) ${ratio <= GOAL ? 'met' : 'NOT met'}`,
);
