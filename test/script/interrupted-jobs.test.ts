/**
 * A script stopped at its CPU time limit inside promise callbacks: QuickJS can be left with
 * unbalanced reference counts, and freeing that runtime made it abort on its own assertion
 * (`Aborted(Assertion failed: list_empty(&rt->gc_obj_list) … JS_FreeRuntime)` on stderr). The
 * worker replaces itself instead (src/script/worker/quickjs.ts). Run in a child process on dist/,
 * so that its whole stderr is seen.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

const PROGRAM = `
import { createExecutionContext } from './dist/functions/context.js';
import { closeScripts, runScript } from './dist/script/index.js';
const ctx = createExecutionContext();
const scripts = {
  loop: 'let n = 0;\\nwhile (true) { n++; }',
  chain: 'function again() { return Promise.resolve().then(again); }\\nagain();',
  ok: 'RMPData.setOutput("ok")',
};
const results = [];
for (const name of ['loop', 'ok', 'chain', 'ok', 'chain', 'chain', 'ok']) {
  try {
    results.push((await runScript(scripts[name], { ctx, limits: { cpuTimeMs: 100 } })).output);
  } catch (e) {
    results.push(e.kind);
  }
}
await closeScripts();
console.log(JSON.stringify(results));
`;

describe('scripts stopped inside promise callbacks', () => {
  it('end at the CPU time limit without QuickJS aborting, and the next scripts run', () => {
    if (!existsSync(`${root}dist/script/index.js`))
      throw new Error('dist/ is missing: run `npm run build` (npm test does)');
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', PROGRAM], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(['cpu-time', 'ok', 'cpu-time', 'ok', 'cpu-time', 'cpu-time', 'ok']);
  });
});
