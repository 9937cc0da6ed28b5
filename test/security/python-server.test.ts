/**
 * Hostile Python scripts through the real HTTP server (POST /api/v1/eval), from two accounts at
 * once: while 20 of them loop, grow, recurse, flood their output or try the bridge, the file
 * system and the network, the server keeps answering /health; each ends with its own error; and
 * a script that patches `json`, builtins and `sys.modules` changes nothing for the next script,
 * of its account or another one (same interpreter: one worker).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  closeScripts,
  configurePythonScripts,
  configureScripts,
  pythonScriptWorkers,
  type ScriptSettings,
} from '../../src/script/index.js';
import { evalHost } from '../../src/hosts/eval-host.js';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from '../server/support.js';

const py = (body: string) => `<@script env="python"><#noparse>${body}</#noparse></@script>`;

let before: ScriptSettings;
beforeAll(() => {
  before = configureScripts();
  configureScripts({ limits: { cpuTimeMs: 400, memoryBytes: 16 * 1024 * 1024 } });
  configurePythonScripts({ workers: 1 });
});
afterAll(async () => {
  configureScripts({ limits: before.limits });
  configurePythonScripts({ workers: 2 });
  await closeScripts();
});

const cpu = /^script stopped: it ran for more than 400 ms of computing \(cpuTimeMs\)( \(script line \d\))?$/;
const memory = (line: number) =>
  `script stopped: it needed more than 16 MiB of memory (memoryBytes) (script line ${line})`;
const refused = (name: string) =>
  `ImportError: import of ${name} is not allowed in a flowmark script (script line 1)`;

/** Patches json, builtins and sys.modules, and outputs "patched". */
const PATCH = [
  'import sys, json, builtins, types',
  'fake = types.ModuleType("json")',
  'fake.dumps = lambda *a, **k: "fake"',
  'sys.modules["json"] = fake',
  'builtins.print = None',
  'builtins.len = lambda x: 0',
  'json.JSONEncoder.default = lambda self, o: "leak"',
  'RMPData.setOutput("patched")',
].join('\n');
/** What the patch would change, seen from the next script. */
const CHECK = [
  'import json, builtins',
  'class X: pass',
  'try:',
  '    json.dumps(X())',
  '    encoder = "patched"',
  'except TypeError:',
  '    encoder = "clean"',
  'RMPData.setOutput([json.dumps([1]), builtins.print is not None, len([1, 2]), encoder])',
].join('\n');
const CLEAN = '["[1]",true,2,"clean"]';

/** 20 hostile scripts and how each must end: its error (exact, or a pattern) or its output. */
const HOSTILE: Array<{ body: string; error?: RegExp | string; output?: string }> = [
  { body: 'while True:\n    pass', error: cpu },
  {
    body: 'while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass',
    error: cpu,
  },
  { body: 'import time\ntime.sleep(30)', error: cpu },
  { body: 'while True:\n    print("x" * 100000)', error: cpu },
  { body: 'while True:\n    RMPUtilities.jsonPut({}, "a", 1)', error: cpu },
  { body: 'x = bytearray(64 * 1024 * 1024)', error: memory(1) },
  // 100 KB an append: the memory limit comes after a few hundred, long before the CPU time limit on a busy machine
  { body: 'x = []\nwhile True:\n    x.append("x" * 100_000)', error: memory(3) },
  { body: 's = "x"\nwhile True:\n    s = s + s', error: memory(3) },
  // a huge output: the text is made inside the script's memory, and refused there
  { body: 'RMPData.setOutput("x" * 200_000_000)', error: memory(1) },
  { body: 'x = [0] * (10 ** 9)', error: memory(1) },
  {
    body: 'def f(n):\n    return f(n + 1)\nf(0)',
    error: 'script stopped: it recursed deeper than its 256 KiB stack allows (stackBytes) (script line 2)',
  },
  { body: 'import js', error: refused('js') },
  { body: 'import pyodide_js', error: refused('pyodide_js') },
  { body: 'import socket', error: refused('socket') },
  { body: 'import subprocess', error: refused('subprocess') },
  {
    body: 'open("/tmp/x", "w")',
    error: 'PermissionError: a flowmark script cannot write files (/tmp/x) (script line 1)',
  },
  {
    body: 'open("/etc/passwd").read()',
    error: "FileNotFoundError: [Errno 44] No such file or directory: '/etc/passwd' (script line 1)",
  },
  {
    body: 'import os\nos.system("ls")',
    error: 'PermissionError: os.system is not allowed in a flowmark script (script line 2)',
  },
  {
    body: 'import threading\nthreading.Thread(target=print).start()',
    error: "RuntimeError: can't start new thread (script line 2)",
  },
  { body: PATCH, output: 'patched' },
];

describeEachEngine('hostile Python scripts over HTTP', (engine) => {
  const server = useServer(engine, (platform) => ({ hosts: evalHost(platform) }));
  const evaluate = (template: string, who: 'acme' | 'globex') =>
    call(server.url, 'POST', '/api/v1/eval', { token: server[who].admin.token, body: { template } });

  it('keeps answering /health while 20 hostile scripts run; each ends with its own error', async () => {
    expect(HOSTILE).toHaveLength(20);
    await evaluate(py('pass'), 'acme'); // the interpreter is loaded (seconds)
    let running = true;
    const all = Promise.all(
      HOSTILE.map((h, i) => evaluate(py(h.body), i % 2 === 0 ? 'acme' : 'globex')),
    ).finally(() => {
      running = false;
    });
    const healthMs: number[] = [];
    while (running) {
      const t = performance.now();
      const health = await call(server.url, 'GET', '/health');
      healthMs.push(performance.now() - t);
      expect(health.status).toBe(200);
      await new Promise((r) => setTimeout(r, 100));
    }
    const replies = await all;
    // /health answered all along, quickly: the scripts ran off the server's thread.
    expect(healthMs.length).toBeGreaterThanOrEqual(20);
    expect(Math.max(...healthMs)).toBeLessThan(1000);
    HOSTILE.forEach((h, i) => {
      const r = replies[i]!;
      expect(r.status, h.body).toBe(200);
      if (h.output !== undefined) {
        expect(r.body.output, h.body).toBe(h.output);
        expect(r.body.error, h.body).toBeUndefined();
      } else {
        expect(r.body.output, h.body).toBe('');
        const first = (r.body.error.message as string).split('\n')[0];
        if (typeof h.error === 'string') expect(first, h.body).toBe(h.error);
        else expect(first, h.body).toMatch(h.error!);
      }
    });
    // and the scripts of both accounts run again
    for (const who of ['acme', 'globex'] as const)
      expect(
        (await evaluate(py('RMPData.setOutput(RMPData.getCurrentUser()["login"])'), who)).body.output,
      ).toBe('admin');
  }, 180_000);

  it('a script that patches json, builtins and sys.modules changes nothing for the next one, of its account or another', async () => {
    for (const [patcher, checker] of [
      ['acme', 'acme'],
      ['acme', 'globex'],
      ['globex', 'acme'],
    ] as const) {
      expect((await evaluate(py(PATCH), patcher)).body.output).toBe('patched');
      expect((await evaluate(py(CHECK), checker)).body.output, `${patcher} then ${checker}`).toBe(CLEAN);
    }
    // one interpreter served them all
    expect(pythonScriptWorkers()).toBe(1);
  }, 60_000);
});
