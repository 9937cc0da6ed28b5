/**
 * Hostile scripts against the in-worker calls (src/script/in-worker-functions.ts): a pure function
 * run inside the script worker is bounded by the evaluation's budget and fails as it does from a
 * template; a huge result is refused as over the bridge; the worker's function table is out of the
 * script's reach (nothing to read, nothing to replace, no forged call), and what decides the path —
 * the surface's rules, a frozen clock — cannot be bypassed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecutionContext, type ExecutionContext } from '../../src/functions/context.js';
import { defaultRegistry, FunctionRegistry } from '../../src/functions/registry.js';
import { evaluate } from '../../src/hosts/evaluate.js';
import { closeScripts, runScript } from '../../src/script/index.js';
import type { ScriptLimits } from '../../src/script/limits.js';

afterAll(() => closeScripts());

const live = (fields: Partial<ExecutionContext> = {}) =>
  createExecutionContext({ clock: Date.now, ...fields });
const limited = (maxAllocBytes: number) =>
  live({ limits: { dataDocumentBytes: 5 * 1024 * 1024, evaluation: { maxAllocBytes } } });
const bridgeOnly = new FunctionRegistry(
  defaultRegistry()
    .list()
    .map((s) => ({ ...s })),
);

/** Waits until the worker (of that memory size) has loaded its function table. */
async function untilInWorker(limits?: Partial<ScriptLimits>): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const { timing } = await runScript('RMPUtilities.jsonPut({}, "a", 1)', {
      ctx: live(),
      ...(limits ? { limits } : {}),
    });
    if (timing.inWorkerCalls === 1) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the script worker did not load its function table');
}

async function templateError(
  source: string,
  ctx: ExecutionContext,
  data: Record<string, unknown>,
): Promise<string> {
  try {
    await evaluate(source, ctx, data);
  } catch (e) {
    return (e as Error).message.split('\n')[0]!;
  }
  throw new Error(`did not fail: ${source}`);
}

beforeAll(() => untilInWorker(), 60_000);

describe('a pure function given a huge argument, in the worker', () => {
  it('load of 600,000 characters of JSON under a 4 MB budget: refused before parsing, as from a template', async () => {
    await untilInWorker();
    const script = `const big = '[' + '1,'.repeat(300000) + '1]';
      try { RMPUtilities.load(big, 'JSON'); RMPData.setOutput('loaded'); } catch (e) { RMPData.setOutput(e.message); }`;
    const ctx = limited(4 * 1024 * 1024);
    const { output, timing } = await runScript(script, { ctx });
    expect(timing.inWorkerCalls).toBe(1);
    expect(output).toBe('RMPUtilities.load: the value would exceed the 4 MB limit for one evaluation');
    expect(ctx.budget!.allocated).toBe(0);
    const fromTemplate = await templateError('${load(big, "JSON")?size}', limited(4 * 1024 * 1024), {
      big: '[' + '1,'.repeat(300_000) + '1]',
    });
    expect(fromTemplate).toBe(
      'Template execution stopped: load: the value would exceed the 4 MB limit for one evaluation.',
    );
  });

  it('csv_to_json of 100,000 rows under a 1 MB budget: the same message as from a template', async () => {
    await untilInWorker();
    const ctx = limited(1024 * 1024);
    const { output, timing } = await runScript(
      `try { RMPUtilities.csvToJson('a;b\\n' + '1;2\\n'.repeat(100000)); } catch (e) { RMPData.setOutput(e.message); }`,
      { ctx },
    );
    expect(timing.inWorkerCalls).toBe(1);
    const fromTemplate = await templateError('${csv_to_json(big)?size}', limited(1024 * 1024), {
      big: 'a;b\n' + '1;2\n'.repeat(100_000),
    });
    expect(fromTemplate).toBe(
      'Template execution stopped: csv_to_json: the value would exceed the 1 MB limit for one evaluation.',
    );
    expect(output).toBe('RMPUtilities.csvToJson: the value would exceed the 1 MB limit for one evaluation');
  });

  it('an argument of more than a million characters takes the bridge, with the same message', async () => {
    await untilInWorker();
    const script = `const big = '[' + '1,'.repeat(2000000) + '1]';
      try { RMPUtilities.load(big, 'JSON'); RMPData.setOutput('loaded'); } catch (e) { RMPData.setOutput(e.message); }`;
    const { output, timing } = await runScript(script, { ctx: limited(16 * 1024 * 1024) });
    expect(timing.inWorkerCalls).toBe(0);
    expect(timing.calls).toBe(1);
    expect(output).toBe('RMPUtilities.load: the value would exceed the 16 MB limit for one evaluation');
  });

  it('a result too large for the script’s memory is refused as over the bridge', async () => {
    const limits = { memoryBytes: 4 * 1024 * 1024 };
    await untilInWorker(limits);
    // 600,000 characters in, 1.6 million out (hexadecimal of the Base64 text).
    const script = `const big = 'x'.repeat(600000);
      try { RMPUtilities.encode('BASE64', big, 'HEXA'); RMPData.setOutput('handed over'); } catch (e) { RMPData.setOutput(e.message); }`;
    const local = await runScript(script, { ctx: live(), limits });
    const bridged = await runScript(script, { ctx: live(), limits, registry: bridgeOnly });
    expect(local.timing.inWorkerCalls).toBe(1);
    expect(bridged.timing.inWorkerCalls).toBe(0);
    expect(local.output).toBe(
      "RMPUtilities.encode: the result (1600003 characters of JSON) is too large for the script's memory " +
        '(at most 1048576 characters with memoryBytes 4194304)',
    );
    expect(bridged.output).toBe(local.output);
  });

  it('a loop of in-worker calls ends at the script’s limits and leaves the worker usable', async () => {
    await untilInWorker();
    await expect(
      runScript('for (;;) RMPUtilities.generateKey("secret");', {
        ctx: live(),
        limits: { wallTimeMs: 1500 },
      }),
    ).rejects.toThrow(/^script stopped: it took more than 1500 ms in all \(wallTimeMs\)/);
    const { output } = await runScript('RMPData.setOutput(RMPUtilities.jsonPut({}, "a", 1))', {
      ctx: live(),
    });
    expect(output).toBe('{"a":1}');
  });
});

describe('an in-worker call is the worker’s computing', () => {
  it('an endless loop of in-worker calls ends at the CPU time limit (a bridged call’s time is waiting)', async () => {
    await untilInWorker();
    await expect(
      runScript('for (;;) RMPUtilities.jsonPut({}, "a", 1);', {
        ctx: live(),
        limits: { cpuTimeMs: 300, wallTimeMs: 20_000 },
      }),
    ).rejects.toThrow(
      /^script stopped: it ran for more than 300 ms of computing \(cpuTimeMs\) \(script line 1, column \d+\)$/,
    );
  });
});

describe('the worker’s function table is out of the script’s reach', () => {
  it('nothing of it is visible: no names, no require, no host function', async () => {
    await untilInWorker();
    const { output } = await runScript(
      `const names = ['platformCall', 'inWorker', 'inWorkerEntry', 'loadInWorker', 'callHost', 'openRun',
        'workerData', 'require', 'process', 'host', 'parentPort', 'import'];
      RMPData.setOutput(names.map((n) => { try { return n + ':' + typeof eval(n); } catch (e) { return n + ':' + e.name; } }).join(' '));`,
      { ctx: live() },
    );
    expect(output).toBe(
      'platformCall:ReferenceError inWorker:ReferenceError inWorkerEntry:ReferenceError loadInWorker:ReferenceError ' +
        'callHost:ReferenceError openRun:ReferenceError workerData:ReferenceError require:ReferenceError ' +
        'process:ReferenceError host:ReferenceError parentPort:ReferenceError import:SyntaxError',
    );
  });

  it('replacing the method, the object or JSON in the sandbox changes nothing the worker computes', async () => {
    await untilInWorker();
    const { output, timing } = await runScript(
      `'use strict';
      const tries = [];
      const attempt = (what, f) => { try { f(); tries.push(what + ' done'); } catch (e) { tries.push(what + ' ' + e.name); } };
      attempt('assign', () => { RMPUtilities.jsonPut = () => 'forged'; });
      attempt('define', () => Object.defineProperty(RMPUtilities, 'jsonPut', { value: () => 'forged' }));
      attempt('global', () => Object.defineProperty(globalThis, 'RMPUtilities', { value: {} }));
      attempt('proto', () => { Object.setPrototypeOf(RMPUtilities, { jsonPut: () => 'forged' }); });
      JSON.stringify = () => '[{"__proto__": 1}]';
      JSON.parse = () => 'forged';
      const r = RMPUtilities.jsonPut({ a: 1 }, 'b', 2);
      RMPData.setOutput(tries.join(', ') + ' | ' + r.a + ' ' + r.b);`,
      { ctx: live() },
    );
    expect(output).toBe('assign TypeError, define TypeError, global TypeError, proto TypeError | 1 2');
    expect(timing.inWorkerCalls).toBe(1);
    // The next script on the same worker gets the table as it was.
    const next = await runScript('RMPData.setOutput(RMPUtilities.jsonPut({ a: 1 }, "b", 2))', {
      ctx: live(),
    });
    expect(next.output).toBe('{"a":1,"b":2}');
    expect(next.timing.inWorkerCalls).toBe(1);
  });
});

describe('what keeps a call on the bridge cannot be bypassed', () => {
  it('a web interface: a function not offered there is refused, and nothing runs in the worker', async () => {
    await untilInWorker();
    const { output, timing } = await runScript(
      `try { RMPUtilities.jsonPut({}, 'a', 1); } catch (e) { RMPData.setOutput(e.message + ' / ' + RMPUtilities.toXml('r', { a: 1 })); }`,
      { ctx: live({ surface: 'web-interface' }) },
    );
    expect(output).toBe(
      'RMPUtilities.jsonPut: function P_json_put is not available in a web interface / <r><a>1</a></r>',
    );
    expect(timing.calls).toBe(1);
    expect(timing.inWorkerCalls).toBe(1);
  });

  it('a frozen clock: now and timestamp read it, over the bridge', async () => {
    await untilInWorker();
    const { output, timing } = await runScript(
      `RMPData.setOutput(RMPUtilities.now("yyyy-MM-dd HH:mm:ss.SSS") + ' ' + RMPUtilities.timestamp() + ' ' + RMPUtilities.jsonPut({}, 'a', 1).a);`,
      { ctx: createExecutionContext({ clock: () => 1_705_276_800_123 }) },
    );
    expect(output).toBe('2024-01-15 00:00:00.123 1705276800123 1');
    expect(timing.calls).toBe(2);
    expect(timing.inWorkerCalls).toBe(1);
  });
});
