/**
 * The worker threads (JS sandbox, file_replace's regex, the template engine's regex thread) do not inherit the flags of the
 * Node process that starts them: each is a built module started from its file (config/built-files.ts), so neither
 * `--input-type=module` nor a TypeScript loader of the parent changes how it loads.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../', import.meta.url));
const module = (path: string) => JSON.stringify(new URL(path, `file://${root}`).href);

/** Runs `node [flags] -e program` in the repository; resolves to its exit code and output. */
function node(flags: string[], program: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...flags, '-e', program], { cwd: root });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

describe('worker threads and the parent’s flags', () => {
  it('run scripts in a process started with `node --input-type=module -e …`', async () => {
    const program = `
      import { closeScripts, runScript } from ${module('src/script/index.ts')};
      import { createExecutionContext } from ${module('src/functions/context.ts')};
      const ctx = createExecutionContext({ clock: () => Date.UTC(2024, 0, 15) });
      try {
        const r = await runScript('RMPData.setOutput(RMPUtilities.now("yyyy") + ":" + (6 * 7))', { ctx });
        console.log('output ' + r.output);
      } catch (e) {
        console.log('failed ' + e.message);
      } finally {
        await closeScripts();
      }`;
    const r = await node(['--import', 'tsx', '--input-type=module'], program);
    expect(r.out).toBe('output 2024:42\n');
    expect(r.code).toBe(0);
  }, 60_000);

  it('run file_replace’s regex worker in such a process too', async () => {
    const program = `
      import { replaceText } from ${module('src/platform/files/replace.ts')};
      const request = { search: 'b+', replacement: '-', regex: true, first: false, ignoreCase: false, multiline: false, dotAll: false };
      try {
        console.log('output ' + (await replaceText('abbcb', request, { maxPatternLength: 100, regexTimeoutMs: 5000 })));
      } catch (e) {
        console.log('failed ' + e.message);
      }`; // no process.exit: an idle regex worker must not keep the process alive
    const r = await node(['--import', 'tsx', '--input-type=module'], program);
    expect(r.out).toBe('output a-c-\n');
    expect(r.code).toBe(0);
  }, 60_000);

  it('run the template engine’s regex thread in such a process too, and let the process exit', async () => {
    const program = `
      import { runRegex } from ${module('src/template/regex-worker.ts')};
      const r = await runRegex({ source: '(a)\\\\1', flags: '', input: 'xaab aa', op: 'all', maxMatches: 10 }, 5000);
      console.log('matches ' + JSON.stringify(r));`; // no process.exit: an idle regex thread must not keep the process alive
    const r = await node(['--import', 'tsx', '--input-type=module'], program);
    expect(r.err).toBe('');
    expect(r.out).toBe('matches {"matches":[[1,"aa","a"],[5,"aa","a"]],"tooMany":false}\n');
    expect(r.code).toBe(0);
  }, 60_000);
});
