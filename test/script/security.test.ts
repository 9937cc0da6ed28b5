/**
 * The sandbox's bounds: nothing of the host is reachable, values cross as JSON only, and runaway
 * scripts (loops, memory, recursion, waiting) end with a clear error within their limits while
 * the server's event loop keeps running and the next script works.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createExecutionContext } from '../../src/functions/context.js';
import { defaultRegistry, defineFunction, FunctionRegistry } from '../../src/functions/registry.js';
import {
  closeScripts,
  configureScripts,
  DEFAULT_SCRIPT_LIMITS,
  runScript,
  ScriptError,
  scriptWorkers,
} from '../../src/script/index.js';

afterAll(() => closeScripts());

const ctx = createExecutionContext();
const run = async (source: string, limits = {}) => (await runScript(source, { ctx, limits })).output;
const failure = async (source: string, limits = {}): Promise<ScriptError> => {
  try {
    await runScript(source, { ctx, limits });
  } catch (e) {
    expect(e).toBeInstanceOf(ScriptError);
    return e as ScriptError;
  }
  throw new Error(`did not fail: ${source}`);
};

/** Counts event-loop turns while `work` runs: the main thread must stay free. */
async function ticksDuring<T>(work: Promise<T>): Promise<{ ticks: number; result: T | unknown }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 10);
  let result: unknown;
  try {
    result = await work;
  } catch (e) {
    result = e;
  } finally {
    clearInterval(timer);
  }
  return { ticks, result };
}

describe('nothing of the host is reachable', () => {
  it('has no process, require, modules, network, timers or file system', async () => {
    const probe = await run(`RMPData.setOutput({
      process: typeof process, require: typeof require, module: typeof module, fetch: typeof fetch,
      XMLHttpRequest: typeof XMLHttpRequest, setTimeout: typeof setTimeout, console: typeof console,
      std: typeof std, os: typeof os, Deno: typeof Deno, Buffer: typeof Buffer, WebAssembly: typeof WebAssembly,
    })`);
    expect(JSON.parse(probe)).toEqual({
      process: 'undefined',
      require: 'undefined',
      module: 'undefined',
      fetch: 'undefined',
      XMLHttpRequest: 'undefined',
      setTimeout: 'undefined',
      console: 'undefined',
      std: 'undefined',
      os: 'undefined',
      Deno: 'undefined',
      Buffer: 'undefined',
      WebAssembly: 'undefined',
    });
    const imported = await run(
      'import("fs").then(() => RMPData.setOutput("imported"), (e) => RMPData.setOutput("refused: " + e.message))',
    );
    expect(imported).toMatch(/^refused: /);
  });

  it('constructor.constructor and Function reach the sandbox’s own globals, never the host’s', async () => {
    const out = await run(`RMPData.setOutput([
      RMPCollection.find.constructor.constructor("return typeof process")(),
      RMPData.setOutput.constructor("return typeof globalThis.RMPData")(),
      Function("return this")() === globalThis,
      (() => {}).constructor("return typeof require")(),
      Object.getOwnPropertyNames(globalThis).filter((n) => /^(process|global|require|host)$/.test(n)),
      eval("typeof process"),
    ])`);
    expect(JSON.parse(out)).toEqual(['undefined', 'object', true, 'undefined', [], 'undefined']);
  });

  it('the RMP objects are frozen and their methods keep no reachable host function', async () => {
    const out = await run(`"use strict";
      const attempts = [
        () => { RMPCollection.find = () => 1; },
        () => { RMPData.extra = 1; },
        () => { delete RMPUtilities.uuid; },
        () => { globalThis.RMPData = {}; },
        () => RMPCollection.find.caller,
        () => RMPCollection.find.arguments,
      ];
      RMPData.setOutput(attempts.map((f) => { try { f(); return "allowed"; } catch (e) { return e.name; } }));`);
    expect(JSON.parse(out)).toEqual([
      'TypeError',
      'TypeError',
      'TypeError',
      'TypeError',
      'TypeError',
      'TypeError',
    ]);
  });

  it('the objects are built the first time the script names them, from what the prelude captured', async () => {
    const out = await run(`"use strict";
      Object.defineProperty = () => { throw new Error("patched"); };
      Object.freeze = (o) => o;
      Function = function () { throw new Error("patched"); };
      const d = Object.getOwnPropertyDescriptor(globalThis, "RMPUtilities");
      const assign = () => { try { RMPUtilities = 1; return "allowed"; } catch (e) { return e.name; } };
      RMPData.setOutput([Object.isFrozen(RMPUtilities), RMPUtilities === d.get(), RMPUtilities.jsonPut({}, "a", 1).a,
        d.configurable, d.enumerable, d.set === undefined, assign(), Object.keys(RMPData).length]);`);
    expect(JSON.parse(out)).toEqual([true, true, 1, false, false, true, 'TypeError', 8]);
  });

  it('prototype pollution stays in the sandbox and does not outlive the script', async () => {
    await run(`Object.prototype.polluted = "yes"; Array.prototype.push = null; JSON.parse = () => ({});
      RMPData.setOutput(RMPUtilities.jsonPut({}, "a", 1));`);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(await run('RMPData.setOutput([typeof ({}).polluted, typeof [].push])')).toBe(
      '["undefined","function"]',
    );
  });

  it('nothing a script leaves behind reaches the next one on the same worker, same account or another', async () => {
    const before = configureScripts();
    try {
      // One worker: the scripts below run one after another in it, on the sandbox it prepared ahead.
      await closeScripts();
      configureScripts({ workers: 1 });
      const leave = `globalThis.leaked = "a"; var declared = "a"; Object.prototype.polluted = "a";
        Array.prototype.map = function () { return "patched"; }; String.prototype.trim = null;
        try { RMPUtilities.jsonPut = () => "patched"; } catch (e) {}
        try { Object.defineProperty(globalThis, "RMPData", { value: 1 }); } catch (e) {}
        try { new FinalizationRegistry(() => { throw new Error("from the previous script"); }).register({}, 1); } catch (e) {}
        Promise.resolve().then(() => { globalThis.late = "a"; });
        RMPData.setOutput("left");`;
      const look = `RMPData.setOutput([typeof leaked, typeof declared, typeof late, typeof ({}).polluted,
        [1].map((x) => x + 1), typeof "".trim, RMPUtilities.jsonPut({}, "b", 2).b, typeof RMPData]);`;
      const expected = '["undefined","undefined","undefined","undefined",[2],"function",2,"object"]';
      const other = createExecutionContext({ accountId: 'other' });
      // In the same script, \`look\` sees all of it: the checks below can fail.
      expect(
        (await runScript(`${leave.replace('RMPData.setOutput("left");', '')} ${look}`, { ctx })).output,
      ).toBe('["string","string","undefined","string","patched","object",2,"object"]');
      expect(await runScript(leave, { ctx })).toMatchObject({ output: 'left' });
      expect((await runScript(look, { ctx })).output).toBe(expected);
      expect(await runScript(leave, { ctx })).toMatchObject({ output: 'left' });
      expect((await runScript(look, { ctx: other })).output).toBe(expected);
      // A script that fails, or is stopped at its CPU time, leaves nothing either.
      await expect(runScript(`${leave}; throw new Error("after leaving")`, { ctx })).rejects.toThrow(
        'after leaving',
      );
      expect((await runScript(look, { ctx: other })).output).toBe(expected);
      await expect(
        runScript(`${leave.replace('RMPData.setOutput("left");', '')} for (;;) {}`, {
          ctx,
          limits: { cpuTimeMs: 50 },
        }),
      ).rejects.toMatchObject({ kind: 'cpu-time' });
      expect((await runScript(look, { ctx })).output).toBe(expected);
      expect(scriptWorkers()).toBe(1);
    } finally {
      configureScripts({ workers: before.workers });
    }
  });

  it('refuses a __proto__ key in any argument, however it is spelled', async () => {
    const e = await failure(
      'RMPUtilities.jsonPutAll({a: 1}, JSON.parse(\'{"x": {"__proto__": {"polluted": true}}}\'))',
    );
    expect(e.message).toBe(
      'RMPUtilities.jsonPutAll: argument 2 (object2) contains the key "__proto__", which is not allowed (script line 1, column 24)',
    );
    await expect(
      run('RMPUtilities.jsonPut({}, "k", JSON.parse(\'[{"\\\\u005f_proto__": 1}]\'))'),
    ).rejects.toThrow(
      'RMPUtilities.jsonPut: argument 3 (value) contains the key "__proto__", which is not allowed',
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // Values crossing into the sandbox are data only: a result never carries a host prototype.
    expect(
      await run(
        'const r = RMPUtilities.jsonPut({}, "a", 1); RMPData.setOutput(Object.getPrototypeOf(r) === Object.prototype)',
      ),
    ).toBe('true');
  });

  it('each script starts from a fresh context: nothing one script leaves is seen by the next', async () => {
    await run('globalThis.secret = "tenant A"; var leaked = 1;');
    expect(await run('RMPData.setOutput([typeof secret, typeof leaked])')).toBe('["undefined","undefined"]');
  });
});

describe('limits', () => {
  it('an endless loop ends at the CPU time limit; the event loop keeps turning meanwhile', async () => {
    const started = performance.now();
    const { ticks, result } = await ticksDuring(
      failure('let n = 0;\nwhile (true) { n++; }', { cpuTimeMs: 300 }),
    );
    const elapsed = performance.now() - started;
    expect(result).toMatchObject({
      kind: 'cpu-time',
      message: expect.stringMatching(
        /^script stopped: it ran for more than 300 ms of computing \(cpuTimeMs\) \(script line \d, column \d+\)$/,
      ),
    });
    expect(elapsed).toBeLessThan(3000);
    expect(ticks).toBeGreaterThan(5);
    expect(await run('RMPData.setOutput("still serving")')).toBe('still serving');
  });

  it('an endless chain of promise callbacks ends at the CPU time limit too', async () => {
    expect(
      await failure('function again() { return Promise.resolve().then(again); }\nagain();', {
        cpuTimeMs: 200,
      }),
    ).toMatchObject({ kind: 'cpu-time' });
  });

  it('catching the interruption does not help', async () => {
    expect(
      await failure('for (;;) { try { for (;;) {} } catch (e) { RMPData.setOutput("caught") } }', {
        cpuTimeMs: 200,
      }),
    ).toMatchObject({ kind: 'cpu-time' });
  });

  it('memory growth ends at the memory limit', async () => {
    const e = await failure('const a = [];\nfor (;;) a.push(new Array(1000).fill(a.length));', {
      memoryBytes: 8 * 1024 * 1024,
      cpuTimeMs: 10_000,
    });
    expect(e.kind).toBe('memory');
    expect(e.message).toMatch(
      /^script stopped: it needed more than 8 MiB of memory \(memoryBytes\) \(script line 2, column \d+\)$/,
    );
    // One large allocation, and many small ones.
    expect(
      await failure('RMPData.setOutput("y".repeat(20e6).length)', { memoryBytes: 8 * 1024 * 1024 }),
    ).toMatchObject({
      kind: 'memory',
    });
    expect(
      await failure('const a = [];\nfor (;;) a.push({n: a.length});', { memoryBytes: 8 * 1024 * 1024 }),
    ).toMatchObject({ kind: 'memory' });
    expect(await run('RMPData.setOutput("next one fine")')).toBe('next one fine');
  });

  it('a platform result too large for the script’s memory is refused with an error, not handed over', async () => {
    const big = defineFunction({
      name: 'P_big_text',
      group: 'Utilities',
      rights: 'none',
      doc: 'a text of n characters',
      returns: 'string',
      forms: [{ params: [{ name: 'n', type: 'integer' }], impl: (_c, [n]) => 'q'.repeat(n as number) }],
    });
    const registry = new FunctionRegistry([...defaultRegistry().list(), big]);
    const limits = { memoryBytes: 8 * 1024 * 1024 };
    const ok = await runScript('RMPData.setOutput(RMPUtilities.bigText(1e6).length)', {
      ctx,
      registry,
      limits,
    });
    expect(ok.output).toBe('1000000');
    await expect(runScript('RMPUtilities.bigText(20e6)', { ctx, registry, limits })).rejects.toThrow(
      "RMPUtilities.bigText: the result (20000003 characters of JSON) is too large for the script's memory (at most 2097152 characters with memoryBytes 8388608) (script line 1, column 21)",
    );
    // A script that filled its memory gets an error from its next call, and the sandbox stays sound.
    const full = await runScript(
      `const keep = []; try { for (;;) keep.push("x".repeat(100000) + keep.length); } catch (e) {}
       let r; try { r = RMPUtilities.bigText(1e6).length; } catch (e) { r = e.message; }
       RMPData.setOutput(r)`,
      { ctx, registry, limits },
    );
    expect(full.output).toBe("the script's memory is full: no room for the result");
    expect(await run('RMPData.setOutput(RMPUtilities.jsonPut({}, "after", 1))', limits)).toBe('{"after":1}');
  });

  it('deep recursion ends at the stack limit', async () => {
    const e = await failure('function down(n) { return down(n + 1) + 1; }\ndown(0);');
    expect(e.kind).toBe('stack');
    expect(e.message).toBe(
      'script stopped: it recursed deeper than its 256 KiB stack allows (stackBytes) (script line 1, column 31)',
    );
    // The default stack allows ordinary recursion, a platform call at the bottom included.
    expect(
      await run(
        'function down(n) { return n ? down(n - 1) : RMPUtilities.jsonPut({}, "n", 1).n; }\nRMPData.setOutput(down(500))',
      ),
    ).toBe('1');
    // The largest stack allowed is still QuickJS's to enforce, not the worker's.
    expect(
      await failure('function down(n) { return down(n + 1) + 1; }\ndown(0);', { stackBytes: 1024 * 1024 }),
    ).toMatchObject({
      kind: 'stack',
    });
  });

  it('a platform call that does not return ends at the wall time limit', async () => {
    const hang = defineFunction({
      name: 'P_hang',
      group: 'Utilities',
      rights: 'none',
      doc: 'never resolves',
      returns: 'none',
      forms: [{ params: [], impl: () => new Promise(() => undefined) }],
    });
    const registry = new FunctionRegistry([...defaultRegistry().list(), hang]);
    const started = performance.now();
    const { ticks, result } = await ticksDuring(
      runScript('RMPData.setOutput("before");\nRMPUtilities.hang();', {
        ctx,
        registry,
        limits: { wallTimeMs: 300 },
      }),
    );
    expect(result).toMatchObject({
      kind: 'wall-time',
      message: 'script stopped: it took more than 300 ms in all (wallTimeMs) (script line 2, column 18)',
    });
    expect(performance.now() - started).toBeLessThan(3000);
    expect(ticks).toBeGreaterThan(5);
    // Time waiting on the platform does not count as computing.
    const slow = defineFunction({
      name: 'P_slow',
      group: 'Utilities',
      rights: 'none',
      doc: 'resolves after 150 ms',
      returns: 'string',
      forms: [{ params: [], impl: () => new Promise((r) => setTimeout(() => r('done'), 150)) }],
    });
    const slowRegistry = new FunctionRegistry([...defaultRegistry().list(), slow]);
    const { output } = await runScript(
      'RMPData.setOutput([RMPUtilities.slow(), RMPUtilities.slow()].join())',
      {
        ctx,
        registry: slowRegistry,
        limits: { cpuTimeMs: 100 },
      },
    );
    expect(output).toBe('done,done');
  });

  it('limits are configurable per script and process-wide, within bounds', async () => {
    await expect(runScript('1', { ctx, limits: { cpuTimeMs: 0 } })).rejects.toThrow(
      'script limits: cpuTimeMs must be an integer from 1 to 600000, got 0',
    );
    await expect(runScript('1', { ctx, limits: { stackBytes: 64 * 1024 * 1024 } })).rejects.toThrow(
      'script limits: stackBytes must be an integer from 1 to 1048576, got 67108864',
    );
    const before = configureScripts();
    expect(before.limits).toEqual(DEFAULT_SCRIPT_LIMITS);
    try {
      expect(configureScripts({ limits: { cpuTimeMs: 150 } }).limits.cpuTimeMs).toBe(150);
      expect(await failure('for (;;) {}')).toMatchObject({
        kind: 'cpu-time',
        message: expect.stringContaining('150 ms'),
      });
    } finally {
      configureScripts({ limits: before.limits });
    }
  });
});

describe('the sandbox workers', () => {
  it('run scripts side by side without mixing their calls', async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        run(
          `let s = ""; for (let k = 0; k < 20; k++) s = RMPUtilities.jsonPut({}, "v", s + "k${i}", true).v; RMPData.setOutput(s)`,
        ),
      ),
    );
    expect(results).toEqual(Array.from({ length: 12 }, (_, i) => `k${i}`.repeat(20)));
    expect(scriptWorkers()).toBeLessThanOrEqual(configureScripts().workers);
  });

  it('a script whose sandbox is stopped fails cleanly, and the next one gets a new sandbox', async () => {
    const running = failure('for (;;) {}', { cpuTimeMs: 5_000 });
    await new Promise((r) => setTimeout(r, 100));
    await closeScripts();
    expect(await running).toMatchObject({ kind: 'internal', message: 'script: the sandbox was stopped' });
    expect(await run('RMPData.setOutput("recovered")')).toBe('recovered');
  });
});
