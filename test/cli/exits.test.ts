/**
 * Every command exits by itself once its work is done, also after running a `<@script env="js">`
 * (the sandbox's worker threads must not keep the process alive): the built CLI, spawned.
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

describe('the CLI exits by itself after a script ran', () => {
  it('render prints the output and exits 0', async () => {
    const r = await flowmark(['render', '-'], {
      input: '<@script env="js">RMPData.setOutput(1+1)</@script>',
      env: env(),
    });
    expect(r).toMatchObject({ code: 0, stdout: '2', stderr: '' });
  });

  it('render exits 1 when the script fails', async () => {
    const r = await flowmark(['render', '-'], {
      input: '<@script env="js">throw new Error("no")</@script>',
      env: env(),
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toBe('no (script line 1, column 16)');
  });

  it('render-batch answers every line and exits 0', async () => {
    const lines = [
      { id: 1, template: '<@script env="js">RMPData.setOutput(6 * 7)</@script>' },
      { id: 2, template: '${1 + 1}' },
    ];
    const r = await flowmark(['render-batch'], {
      input: lines.map((l) => JSON.stringify(l)).join('\n') + '\n',
      env: env(),
    });
    expect(r).toMatchObject({
      code: 0,
      stdout: '{"id":1,"ok":true,"output":"42"}\n{"id":2,"ok":true,"output":"2"}\n',
      stderr: '',
    });
  });

  it('run completes a process with a script step and exits 0; a failing script exits 1', async () => {
    const step = (script: string) =>
      JSON.stringify({
        name: 'S',
        steps: [{ id: 1, input: { n: `<@script env="js">${script}</@script>` } }],
      });
    writeFileSync(join(dir, 'ok.json'), step('RMPData.setOutput(6 * 7)'));
    writeFileSync(join(dir, 'bad.json'), step('throw new Error("no")'));

    const ok = await flowmark(['run', join(dir, 'ok.json'), '--quiet'], { env: env() });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^request \S+: 201 COMPLETED\n\{\n {2}"n": 42\n\}\n$/);

    const bad = await flowmark(['run', join(dir, 'bad.json'), '--quiet'], { env: env() });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(
      /^request \S+: 301 ABORTED\nP_message: step 1 input n, line 1, column 1: no \(script line 1, column 16\)\n/,
    );
  });
});
