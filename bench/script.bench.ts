/**
 * The JavaScript backend, measured in one run:
 *  1. calls per second of a registry function from a script (RMPUtilities.jsonPut, a pure
 *     function, and RMPCollection.find, list_objects on SQLite) beside the same call from a
 *     template (the same function, same context, same loop), and the ratio; jsonPut runs in the
 *     script worker (a pure function, src/script/in-worker-functions.ts), and the same script with
 *     every call over the bridge (the path before) is measured beside it;
 *  2. the cost of a fresh context: a trivial script end to end (worker from the pool, new QuickJS
 *     context in the worker's shared runtime + RMP* objects, output back) beside a trivial
 *     template render; the part spent inside the worker setting up; the worker program's CPU time
 *     per trivial script, run on this thread without the thread hand-offs (steady under load);
 *     and a worker's start (WebAssembly module included);
 *  3. the asyncify build (quickjs-emscripten's async variant, rejected — docs/script.md): its cost
 *     per suspending call in the same process, and, in a child process, how deep a script can
 *     recurse before a suspending call once V8 has optimised the module.
 *
 *   npm run bench -- script
 *   BENCH_ROUNDS=15 npm run bench -- script     # timed rounds of rows 1 and 2 (default 7 and 5)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { MessagePort } from 'node:worker_threads';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { newQuickJSAsyncWASMModule, RELEASE_ASYNC } from 'quickjs-emscripten';
import { createExecutionContext } from '../src/functions/context.js';
import { defaultRegistry, FunctionRegistry } from '../src/functions/registry.js';
import { contextFor } from '../src/functions/request/index.js';
import { evaluate } from '../src/hosts/evaluate.js';
import { createPlatform } from '../src/platform/index.js';
import {
  closeScripts,
  configureScripts,
  runScript,
  scriptWorkers,
  warmScripts,
} from '../src/script/index.js';
import { openStore } from '../src/store/index.js';
import { scriptApi } from '../src/script/api.js';
import { DEFAULT_SCRIPT_LIMITS } from '../src/script/limits.js';
import { startQuickJSWorker } from '../src/script/worker/quickjs.js';
import type { RunJob, WorkerMessage } from '../src/script/worker/messages.js';

const CALLS = 2_000;
/** Timed rounds (interleaved) of rows 1 and 2; BENCH_ROUNDS overrides both defaults. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 0);
if (!Number.isInteger(ROUNDS) || ROUNDS < 0)
  throw new Error(`BENCH_ROUNDS must be a whole number, got ${process.env.BENCH_ROUNDS}`);

function median(samples: number[]): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Median ms of each function over `rounds`, interleaved so outside load hits them alike. */
async function timeAll(fns: Array<() => Promise<unknown>>, rounds: number): Promise<number[]> {
  for (const fn of fns) for (let i = 0; i < 2; i++) await fn();
  const samples = fns.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++) {
    for (let j = 0; j < fns.length; j++) {
      const t = performance.now();
      await fns[j]!();
      samples[j]!.push(performance.now() - t);
    }
  }
  return samples.map(median);
}

/** The least CPU time of the process (all threads, ms) each function took over `rounds`, interleaved. */
async function cpuBest(fns: Array<() => Promise<unknown>>, rounds: number): Promise<number[]> {
  const best = fns.map(() => Infinity);
  for (let r = 0; r < rounds; r++) {
    for (let j = 0; j < fns.length; j++) {
      const before = process.cpuUsage();
      await fns[j]!();
      const used = process.cpuUsage(before);
      best[j] = Math.min(best[j]!, (used.user + used.system) / 1000);
    }
  }
  return best;
}

const rate = (calls: number, ms: number) => `${Math.round((calls / ms) * 1000).toLocaleString('en-US')}/s`;

/** The library as copies of its declarations: every script call takes the bridge (src/script/in-worker-plan.ts). */
const bridgeOnly = new FunctionRegistry(
  defaultRegistry()
    .list()
    .map((s) => ({ ...s })),
);

async function callsPerSecond(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'flowmark-bench-script-'));
  const store = await openStore({ dataDir: dir, databaseUrl: undefined });
  try {
    const platform = createPlatform(store);
    await platform.accounts.create({ id: 'bench', name: 'Bench' });
    await platform.directory.users.create('bench', { login: 'ann', name: 'Ann' });
    const ctx = await contextFor({ platform, account: 'bench', user: 'ann', mode: 'LIVE' });
    await evaluate('${save_object(docs, "orders")?size}', ctx, {
      docs: Array.from({ length: 100 }, (_, i) => ({ k: i % 10, n: i })),
    });
    const cases: Array<{ label: string; template: string; script: string }> = [
      {
        label: 'P_json_put / RMPUtilities.jsonPut',
        template: `<#list 1..${CALLS} as i><#assign r = P_json_put({"a": 1}, "b", i)></#list>\${r.b?c}`,
        script: `let r; for (let i = 1; i <= ${CALLS}; i++) r = RMPUtilities.jsonPut({a: 1}, "b", i); RMPData.setOutput(r.b);`,
      },
      {
        label: 'list_objects / RMPCollection.find (SQLite, 10 of 100 documents)',
        template: `<#list 1..${CALLS} as i><#assign r = list_objects({"k": i % 10}, "orders")></#list>\${r?size}`,
        script: `let r; for (let i = 1; i <= ${CALLS}; i++) r = RMPCollection.find({k: i % 10}, "orders"); RMPData.setOutput(r.length);`,
      },
    ];
    console.log(`1. calls per second, ${CALLS} calls in a loop, template and script in the same context`);
    // The worker loads its table of pure functions in the background on the first call of one.
    for (let i = 0; i < 200; i++) {
      const { timing } = await runScript(cases[0]!.script, { ctx });
      if (timing.inWorkerCalls) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    for (const c of cases) {
      const viaTemplate = () => evaluate(c.template, ctx);
      const viaScript = () => evaluate(`<@script env="js">${c.script}</@script>`, ctx);
      // The bridge for every call (copies of the declarations are not the worker's): the path before in-worker calls.
      const viaRun = () => runScript(c.script, { ctx });
      const viaBridge = () => runScript(c.script, { ctx, registry: bridgeOnly });
      const [t, s, run, bridged] = await timeAll([viaTemplate, viaScript, viaRun, viaBridge], ROUNDS || 7);
      const [a, b] = [(await viaTemplate()).output, (await viaScript()).output];
      if (a !== b) throw new Error(`${c.label}: template gave ${a}, script ${b}`);
      // Where a script's call goes: blocked on the main thread (the two hand-offs and the function)
      // or in the worker (QuickJS, the prelude's JSON, the host function).
      const { timing } = await runScript(c.script, { ctx });
      const perCall = (ms: number) =>
        `${((ms / (timing.calls + (timing.inWorkerCalls ?? 0))) * 1000).toFixed(1)} µs`;
      console.log(
        `   ${c.label}\n      template ${rate(CALLS, t!).padStart(10)}   script ${rate(CALLS, s!).padStart(10)}   ` +
          `script/template time ${(s! / t!).toFixed(2)}   (+${(((s! - t!) / CALLS) * 1000).toFixed(1)} µs a call)\n` +
          (timing.inWorkerCalls
            ? `      a script call: ${perCall(timing.totalMs)} in the worker (QuickJS, the prelude, the function; one run of ${CALLS} calls)\n`
            : `      a script call: ${perCall(timing.waitedMs)} waiting on the main thread, ` +
              `${perCall(timing.totalMs - timing.waitedMs)} in QuickJS and the prelude (one run of ${CALLS} calls)\n`) +
          `      runScript: ${timing.inWorkerCalls ? 'in-worker' : 'bridge'} +${(((run! - t!) / CALLS) * 1000).toFixed(1)} µs a call, ` +
          `every call over the bridge +${(((bridged! - t!) / CALLS) * 1000).toFixed(1)} µs a call`,
      );
      // CPU time of the process (every thread) per call, best round: steadier than wall time under load.
      const [ct, cr, cb] = await cpuBest([viaTemplate, viaRun, viaBridge], ROUNDS || 7);
      const us = (ms: number) => `${((ms / CALLS) * 1000).toFixed(1)} µs`;
      console.log(
        `      CPU a call (best of ${ROUNDS || 7}): template ${us(ct!)}, runScript ${us(cr!)} ` +
          `(+${us(cr! - ct!)}, ${(cr! / ct!).toFixed(2)}×), every call over the bridge ${us(cb!)} (+${us(cb! - ct!)})`,
      );
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function freshContext(): Promise<void> {
  const ctx = createExecutionContext();
  await closeScripts();
  let t = performance.now();
  warmScripts();
  await runScript('1', { ctx });
  const firstMs = performance.now() - t;
  const N = 300;
  // Interleaved rounds: a trivial script end to end, and a trivial template render.
  let prepareSum = 0;
  let scripts = 0;
  const script = async () => {
    for (let i = 0; i < N; i++) {
      prepareSum += (await runScript('RMPData.setOutput("x")', { ctx })).timing.prepareMs;
      scripts++;
    }
  };
  const template = async () => {
    for (let i = 0; i < N; i++) await evaluate('x', ctx);
  };
  const [scriptMs, templateMs] = await timeAll([script, template], ROUNDS || 5);
  // A server's scripts rarely come back to back: with a pause, the next sandbox is ready.
  const spaced: number[] = [];
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 5));
    const s = performance.now();
    await runScript('RMPData.setOutput("x")', { ctx });
    spaced.push(performance.now() - s);
  }
  const parallel = 200;
  // One account may use every worker and queue them all here (by default: half, and 32 waiting).
  configureScripts({ accountWorkers: scriptWorkers() || 4, accountQueue: parallel });
  t = performance.now();
  await Promise.all(Array.from({ length: parallel }, () => runScript('RMPData.setOutput("x")', { ctx })));
  const parallelMs = performance.now() - t;
  console.log('2. a fresh context per script');
  console.log(
    `   a fresh QuickJS context + RMP* objects: ${((prepareSum / scripts) * 1000).toFixed(0)} µs in the worker ` +
      '(prepared as soon as the previous script ends)',
  );
  console.log(
    `   trivial script back to back ${((scriptMs! / N) * 1000).toFixed(0)} µs (${rate(N, scriptMs!)}) beside a trivial ` +
      `template ${((templateMs! / N) * 1000).toFixed(0)} µs: ratio ${(scriptMs! / templateMs!).toFixed(1)}; ` +
      `with 5 ms between scripts ${(median(spaced) * 1000).toFixed(0)} µs (median)`,
  );
  const trivialUs = (scriptMs! / N) * 1000;
  console.log(
    `goal: js-trivial-us ${trivialUs.toFixed(0)} us (trivial script back to back, wall; ≤ 150) ${trivialUs <= 150 ? 'met' : 'NOT met'}`,
  );
  console.log(
    `   ${parallel} scripts at once on ${scriptWorkers()} workers: ${rate(parallel, parallelMs)}; ` +
      `first script after a cold start (worker + WebAssembly module): ${firstMs.toFixed(0)} ms`,
  );
  await closeScripts();
  const cpu = await workerCpuPerScript(ROUNDS || 5);
  console.log(
    `   the worker program's CPU time per trivial script, on this thread (no hand-offs), ${cpu.length} rounds of 2,000: ` +
      `best ${Math.min(...cpu).toFixed(0)} µs, median ${median(cpu).toFixed(0)} µs, worst ${Math.max(...cpu).toFixed(0)} µs`,
  );
}

/**
 * The worker program (src/script/worker/quickjs.ts) run on this thread with a stand-in for worker_threads:
 * CPU µs per trivial script over rounds of 2,000 — its run, its cleanup and the next sandbox.
 */
async function workerCpuPerScript(rounds: number): Promise<number[]> {
  const table = scriptApi(defaultRegistry()).table;
  let onMessage: (job: RunJob) => void = () => {};
  let done: { output?: string } | null = null;
  startQuickJSWorker({
    on: (_event, fn) => (onMessage = fn),
    post: (m: WorkerMessage) => {
      if (m.type === 'done') done = m;
    },
    workerData: {
      memoryBytes: DEFAULT_SCRIPT_LIMITS.memoryBytes,
      signal: new SharedArrayBuffer(4),
      replies: null as unknown as MessagePort,
    },
    receive: () => undefined,
  });
  let run = 0;
  const one = async () => {
    done = null;
    onMessage({
      run: ++run,
      source: 'RMPData.setOutput("x")',
      table,
      limits: DEFAULT_SCRIPT_LIMITS,
      account: '',
    });
    // The first job waits for the WebAssembly module (I/O); the others finish within microtasks.
    while (done === null) await (run === 1 ? new Promise((r) => setTimeout(r, 5)) : null);
    const out = (done as { output?: string }).output;
    if (out !== 'sx') throw new Error(`the worker program answered ${JSON.stringify(done)}`);
  };
  for (let i = 0; i < 300; i++) await one();
  const perScript: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const start = process.cpuUsage();
    for (let i = 0; i < 2_000; i++) await one();
    const used = process.cpuUsage(start);
    perScript.push((used.user + used.system) / 2_000);
  }
  return perScript;
}

async function asyncify(): Promise<void> {
  console.log('3. the asyncify build (not used), for comparison');
  const mod = await newQuickJSAsyncWASMModule(RELEASE_ASYNC);
  const rt = mod.newRuntime();
  rt.setMaxStackSize(256 * 1024);
  const ctx = rt.newContext();
  const sync = ctx.newFunction('s', () => ctx.newNumber(1));
  const suspending = ctx.newAsyncifiedFunction('a', async () => {
    await null;
    return ctx.newNumber(1);
  });
  ctx.setProp(ctx.global, 's', sync);
  ctx.setProp(ctx.global, 'a', suspending);
  sync.dispose();
  suspending.dispose();
  const perCall = async (fn: string) => {
    const n = 20_000;
    const code = `(() => { let x = 0; for (let i = 0; i < ${n}; i++) x += ${fn}(); return x; })()`;
    ctx.unwrapResult(await ctx.evalCodeAsync(code)).dispose();
    const t = performance.now();
    ctx.unwrapResult(await ctx.evalCodeAsync(code)).dispose();
    return ((performance.now() - t) / n) * 1000;
  };
  console.log(
    `   in-thread host call: returning at once ${(await perCall('s')).toFixed(1)} µs, suspending ${(await perCall('a')).toFixed(1)} µs`,
  );
  // The depth probe runs apart: when it fails, V8's stack overflow surfaces as an unhandled rejection.
  const probe = String.raw`
    const { newQuickJSAsyncWASMModule, RELEASE_ASYNC } = require(process.argv[1]);
    process.on('unhandledRejection', (e) => { console.log('unhandled ' + e.message); process.exit(0); });
    (async () => {
      const mod = await newQuickJSAsyncWASMModule(RELEASE_ASYNC);
      const rt = mod.newRuntime();
      rt.setMaxStackSize(256 * 1024);
      const run = async (code) => {
        const ctx = rt.newContext();
        const h = ctx.newAsyncifiedFunction('h', async () => { await new Promise((r) => setTimeout(r, 1)); return ctx.newNumber(1); });
        ctx.setProp(ctx.global, 'h', h); h.dispose();
        try {
          const r = await ctx.evalCodeAsync(code);
          const ok = !r.error; (r.error || r.value).dispose(); return ok ? 'ok' : 'script error';
        } catch (e) { return 'host ' + e.constructor.name + ': ' + e.message; }
      };
      const depths = [5, 10, 20, 40, 80, 160];
      const at = async (label) => {
        const out = [];
        for (const d of depths) out.push(d + ' ' + (await run('function r(n) { return n ? r(n - 1) + 1 : h(); } r(' + d + ')')));
        console.log(label + ': ' + out.join(', '));
      };
      await at('fresh module');
      for (let i = 0; i < 30; i++) await run('let s = 0; for (let i = 0; i < 300000; i++) s += [i].length; s');
      await new Promise((r) => setTimeout(r, 500));
      await at('after warm-up');
    })();`;
  const quickjs = createRequire(import.meta.url).resolve('quickjs-emscripten');
  const child = spawnSync(process.execPath, ['-e', probe, quickjs], { encoding: 'utf8', timeout: 120_000 });
  for (const line of (child.stdout || child.stderr).trim().split('\n'))
    console.log(`   recursion depth then a suspending call, ${line}`);
}

await callsPerSecond();
await freshContext();
await asyncify();
