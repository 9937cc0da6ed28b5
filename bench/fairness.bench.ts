/**
 * The flood of issue 13, replayed on the script sandbox with its default settings (4 workers,
 * 2 s of CPU per script): account "flood" queues 150 endless scripts, then account "other" runs
 * a trivial one. Prints how long "other" waited and what became of the flood (run, refused). Before
 * the sandbox was shared between accounts, "other" waited behind the whole flood (58 s reported).
 *
 *   npm run bench -- fairness
 */
import { performance } from 'node:perf_hooks';
import { createExecutionContext } from '../src/functions/context.js';
import { closeScripts, configureScripts, runScript, ScriptBusyError } from '../src/script/index.js';

const FLOOD = 150;
const settings = configureScripts();
console.log(
  `${settings.workers} workers, ${settings.limits.cpuTimeMs} ms of CPU per script, ` +
    `at most ${settings.accountQueue} waiting per account`,
);
await runScript('1', { ctx: createExecutionContext() }); // a warm worker, as in a running server

let refused = 0;
let stopped = 0;
const flood = Array.from({ length: FLOOD }, () =>
  runScript('while (true) {}', { ctx: createExecutionContext({ accountId: 'flood' }) }).catch(
    (e: unknown) => {
      if (e instanceof ScriptBusyError) refused++;
      else stopped++;
    },
  ),
);
await new Promise((r) => setTimeout(r, 100));
const started = performance.now();
const other = await runScript('RMPData.setOutput("done")', {
  ctx: createExecutionContext({ accountId: 'other' }),
});
const waited = performance.now() - started;
console.log(
  `"other"'s trivial script: ${other.output} after ${waited.toFixed(0)} ms, while "flood" had ${FLOOD} endless scripts sent ` +
    `(${refused} refused at once)`,
);
await Promise.all(flood);
console.log(`the flood: ${stopped} stopped at their CPU limit, ${refused} refused`);
await closeScripts();
