/**
 * Template memory (issue 29): 250 distinct 100 KB templates compiled and rendered one after the
 * other in a worker thread with a 1 GiB heap (as an evaluation worker has), with the compile
 * cache's bounds of this build (1000 units and 4 Mi characters of source) beside the bound by
 * count alone (the build before), in the same run. Prints the heap after each 50 templates (after
 * a full GC) and ends with `goal: template-heap-250x100k VALUE x` — the heap used at the end as a
 * fraction of the limit (≤ 0.5: room to spare). Runs dist/ (a thread does not inherit tsx):
 *
 *   npm run build && node --import tsx bench/template-memory.bench.ts
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

const HEAP_MB = 1024;
const TEMPLATES = 250;
const entry = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'template', 'index.js');

/** The thread: compiles and renders the templates, reporting the heap after each 50. */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
require('node:v8').setFlagsFromString('--expose-gc');
const collect = globalThis.gc ?? require('node:vm').runInNewContext('gc');
function template(i) {
  const parts = ['<#assign base = ' + i + '>'];
  let length = 0;
  for (let j = 0; length < 100000; j++) {
    const p = '<p>Row ' + i + '-' + j + ': \${(base + ' + j + ')?c} <#if items?size gt ' + (j % 7) +
      '>\${items[' + (j % 3) + '].name?upper_case}<#else>none</#if><#list items as it>\${it.name}-\${it?index}<#sep>, </#list></p>\\n';
    parts.push(p);
    length += p.length;
  }
  return parts.join('');
}
import(workerData.entry).then(async ({ compile, compileCacheSize, setCompileCacheLimits }) => {
  if (workerData.mode === 'count') setCompileCacheLimits({ sourceChars: Number.MAX_SAFE_INTEGER });
  const scope = { items: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] };
  for (let i = 0; i < workerData.templates; i++) {
    await compile(template(i), { name: 't' + i + '.ftl' }).render(scope);
    if ((i + 1) % 50 === 0) {
      collect();
      parentPort.postMessage({ templates: i + 1, heapMB: process.memoryUsage().heapUsed / 2 ** 20, cache: compileCacheSize() });
    }
  }
});
`;

interface Report {
  templates: number;
  heapMB: number;
  cache: { units: number; sourceChars: number };
}

function run(mode: 'bytes' | 'count'): Promise<{ heapMB?: number; died?: string }> {
  return new Promise((resolve) => {
    let last: number | undefined;
    let died: string | undefined;
    const worker = new Worker(THREAD, {
      eval: true,
      workerData: { mode, entry: pathToFileURL(entry).href, templates: TEMPLATES },
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: HEAP_MB },
    });
    worker.on('message', (m: Report) => {
      last = m.heapMB;
      console.log(
        `  ${mode.padEnd(5)} ${String(m.templates).padStart(3)} templates: heap ${m.heapMB.toFixed(0)} MiB, ` +
          `cache ${m.cache.units} units / ${(m.cache.sourceChars / 2 ** 20).toFixed(1)} Mi chars`,
      );
    });
    worker.on('error', (e: Error & { code?: string }) => {
      died = e.code ?? e.message;
      console.log(`  ${mode}: the thread died: ${died}`);
    });
    worker.on('exit', () => resolve(died ? { died } : { heapMB: last }));
  });
}

if (!existsSync(entry)) {
  console.error('template memory: dist/ is missing: run `npm run build` first');
  process.exit(1);
}
console.log(
  `template memory: ${TEMPLATES} distinct ~100 KB templates in a thread with a ${HEAP_MB} MiB heap`,
);
const before = await run('count');
const now = await run('bytes');
console.log(
  `bound by count alone (the build before): ${before.died ? `the thread died (${before.died})` : `${before.heapMB!.toFixed(0)} MiB at the end`}`,
);
if (now.died) console.log(`goal: template-heap-250x100k died x (${now.died}; ≤ 0.5) NOT met`);
else {
  const fraction = now.heapMB! / HEAP_MB;
  console.log(
    `goal: template-heap-250x100k ${fraction.toFixed(2)} x (heap used ÷ the ${HEAP_MB} MiB limit; ≤ 0.5) ${fraction <= 0.5 ? 'met' : 'NOT met'}`,
  );
}
