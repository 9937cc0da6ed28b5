/**
 * Every command exits by itself once its work is done, also after running a `<@script env="js">`
 * or `<@script env="python">` (the sandboxes' worker threads must not keep the process alive):
 * the built CLI, spawned. The same cases for both languages.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flowmark } from '../support/cli.js';

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'flowmark-exits-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = () => ({ FLOWMARK_DATA: dir, DATABASE_URL: '' });

const languages = [
  {
    env: 'js',
    sixTimesSeven: 'RMPData.setOutput(6 * 7)',
    onePlusOne: 'RMPData.setOutput(1+1)',
    fails: 'throw new Error("no")',
    failure: 'no (script line 1, column 16)',
    // QuickJS starts in milliseconds
    timeoutMs: 10_000,
  },
  {
    env: 'python',
    sixTimesSeven: 'RMPData.setOutput(6 * 7)',
    onePlusOne: 'RMPData.setOutput(1+1)',
    fails: 'raise ValueError("no")',
    failure: 'ValueError: no (script line 1)',
    // Pyodide loads in seconds, more on a loaded machine
    timeoutMs: 60_000,
  },
];

describe.each(languages)('the CLI exits by itself after a script ran, env=$env', (l) => {
  const script = (body: string) => `<@script env="${l.env}">${body}</@script>`;
  const options = (input?: string) => ({ input, env: env(), timeoutMs: l.timeoutMs });

  it(
    'render prints the output and exits 0',
    async () => {
      const r = await flowmark(['render', '-'], options(script(l.onePlusOne)));
      expect(r).toMatchObject({ code: 0, stdout: '2', stderr: '' });
    },
    l.timeoutMs + 5_000,
  );

  it(
    'render exits 1 when the script fails',
    async () => {
      const r = await flowmark(['render', '-'], options(script(l.fails)));
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n')[0]).toBe(l.failure);
    },
    l.timeoutMs + 5_000,
  );

  it(
    'render-batch answers every line and exits 0',
    async () => {
      const lines = [
        { id: 1, template: script(l.sixTimesSeven) },
        { id: 2, template: '${1 + 1}' },
      ];
      const r = await flowmark(
        ['render-batch'],
        options(lines.map((line) => JSON.stringify(line)).join('\n') + '\n'),
      );
      expect(r).toMatchObject({
        code: 0,
        stdout: '{"id":1,"ok":true,"output":"42"}\n{"id":2,"ok":true,"output":"2"}\n',
        stderr: '',
      });
    },
    l.timeoutMs + 5_000,
  );

  it(
    'run completes a process with a script step and exits 0; a failing script exits 1',
    async () => {
      const step = (body: string) =>
        JSON.stringify({ name: 'S', steps: [{ id: 1, input: { n: script(body) } }] });
      writeFileSync(join(dir, `ok-${l.env}.json`), step(l.sixTimesSeven));
      writeFileSync(join(dir, `bad-${l.env}.json`), step(l.fails));

      const ok = await flowmark(['run', join(dir, `ok-${l.env}.json`), '--quiet'], options());
      expect(ok.code).toBe(0);
      expect(ok.stdout).toMatch(/^request \S+: 201 COMPLETED\n\{\n {2}"n": 42\n\}\n$/);

      const bad = await flowmark(['run', join(dir, `bad-${l.env}.json`), '--quiet'], options());
      expect(bad.code).toBe(1);
      expect(bad.stdout.split('\n').slice(0, 2)).toEqual([
        expect.stringMatching(/^request \S+: 301 ABORTED$/),
        `P_message: step 1 input n, line 1, column 1: ${l.failure}`,
      ]);
    },
    2 * l.timeoutMs + 5_000,
  );
});
