/**
 * The Python backend, measured in one run (one interpreter, scripts back to back):
 *  1. a worker's start: thread + Pyodide (CPython in WebAssembly, standard library) + lockdown +
 *     memory snapshot, seen as the first script's time;
 *  2. a trivial Python script end to end beside a trivial JavaScript one and a template render;
 *  3. writing the snapshot back after a script (the isolation between scripts), as the worker
 *     reports it, and after a script that grew the memory;
 *  4. platform calls per second: the same function (P_json_put / RMPUtilities.jsonPut) called in a
 *     loop from Python, from JavaScript and from a template's <#list>;
 *  5. memory per warm interpreter: the process's resident memory grown by starting a first and a
 *     second Python worker (approximate: it includes what the heap keeps around).
 *
 *   npm run bench -- python
 */
import { performance } from 'node:perf_hooks';
import { createExecutionContext } from '../src/functions/context.js';
import { evaluate } from '../src/hosts/evaluate.js';
import {
  closeScripts,
  configurePythonScripts,
  pythonScriptWorkers,
  runPythonScript,
  runScript,
} from '../src/script/index.js';

const ctx = createExecutionContext();

function median(samples: number[]): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function timed(fn: () => Promise<unknown>, rounds: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  return median(samples);
}

const ms = (n: number) => `${n.toFixed(2)} ms`;

async function main(): Promise<void> {
  configurePythonScripts({ workers: 1 });
  const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  const rss0 = process.memoryUsage().rss;
  let t = performance.now();
  await runPythonScript('pass', { ctx });
  const coldMs = performance.now() - t;
  console.log(`first Python script after a cold start (worker + Pyodide + snapshot): ${ms(coldMs)}`);
  const rss1 = process.memoryUsage().rss;
  t = performance.now();
  await runScript('1', { ctx });
  console.log(`first JavaScript script after a cold start: ${ms(performance.now() - t)}`);

  const py = await timed(() => runPythonScript('RMPData.setOutput(1)', { ctx }), 50);
  const js = await timed(() => runScript('RMPData.setOutput(1)', { ctx }), 50);
  const tpl = await timed(() => evaluate('${1}', ctx), 50);
  console.log(`trivial script, median of 50: Python ${ms(py)}, JavaScript ${ms(js)}, template ${ms(tpl)}`);
  const verdict = (value: number, bound: number) => (value <= bound ? 'met' : 'NOT met');
  console.log(
    `goal: python-trivial-ms ${py.toFixed(2)} ms (trivial Python script back to back, median of 50; ≤ 1) ${verdict(py, 1)}`,
  );
  console.log(
    `goal: python-cold-ms ${coldMs.toFixed(0)} ms (the first Python script on a cold worker; ≤ 300) ${verdict(coldMs, 300)}`,
  );

  const restores: number[] = [];
  for (let i = 0; i < 20; i++)
    restores.push((await runPythonScript('x = [str(i) for i in range(1000)]', { ctx })).timing.prepareMs);
  console.log(`snapshot written back after a small script (median of 20): ${ms(median(restores.slice(1)))}`);
  await runPythonScript('x = bytearray(16 * 1024 * 1024)', { ctx });
  const grown = (await runPythonScript('pass', { ctx })).timing.prepareMs;
  console.log(`snapshot written back after a script that grew the memory by 16 MiB: ${ms(grown)}`);

  const CALLS = 2_000;
  const pyCalls = await timed(
    () => runPythonScript(`for i in range(${CALLS}):\n    RMPUtilities.jsonPut({}, "a", i)`, { ctx }),
    3,
  );
  const jsCalls = await timed(
    () => runScript(`for (let i = 0; i < ${CALLS}; i++) RMPUtilities.jsonPut({}, "a", i);`, { ctx }),
    3,
  );
  const tplCalls = await timed(
    () => evaluate(`<#list 1..${CALLS} as i><#assign x = P_json_put({}, "a", i)></#list>`, ctx),
    3,
  );
  const rate = (n: number) => `${Math.round((CALLS / n) * 1000).toLocaleString('en-US')}/s`;
  console.log(
    `P_json_put calls (${CALLS} in a loop, median of 3): Python ${rate(pyCalls)}, JavaScript ${rate(jsCalls)}, template ${rate(tplCalls)}`,
  );

  // A second interpreter: two scripts at once, of two accounts (an account gets half the workers).
  configurePythonScripts({ workers: 2 });
  const other = { ...ctx, accountId: 'other' };
  const rssBefore2 = process.memoryUsage().rss;
  const hold = 'import time\ntime.sleep(0.3)';
  await Promise.all([runPythonScript(hold, { ctx }), runPythonScript(hold, { ctx: other })]);
  const rss2 = process.memoryUsage().rss;
  console.log(
    `resident memory: ${mib(rss0)} before Python; +${mib(rss1 - rss0)} for the first warm interpreter; +${mib(rss2 - rssBefore2)} for a second one (workers alive: ${pythonScriptWorkers()})`,
  );
  await closeScripts();
}

await main();
