#!/usr/bin/env node
// Runs the benchmarks: every bench/<area>.bench.ts, or only the areas named on the command line
// (`npm run bench -- template collections`). Each prints its own ratios against a reference
// measured in the same run.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const all = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.slice(0, -'.bench.ts'.length))
  .sort();
const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !all.includes(w));
if (unknown.length) {
  console.error(`bench: unknown area(s) ${unknown.join(', ')}; available: ${all.join(', ')}`);
  process.exit(2);
}
let failed = 0;
for (const area of wanted.length ? wanted : all) {
  console.log(`\n### bench ${area}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(here, `${area}.bench.ts`)], {
    stdio: 'inherit',
  });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
