/**
 * Hostile scripts against the shared QuickJS runtime (src/script/worker/quickjs.ts): a worker keeps
 * one runtime for one account's scripts, each script in a fresh context. Nothing a script leaves —
 * promise jobs, objects for the garbage collector, memory, a CPU stop half-way — may reach the
 * next script on the same worker, of the same account or another. One worker throughout, so
 * every script below runs where the previous one ran.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecutionContext } from '../../src/functions/context.js';
import { closeScripts, configureScripts, runScript, scriptWorkers } from '../../src/script/index.js';

const mine = createExecutionContext({ accountId: 'acme' });
const other = createExecutionContext({ accountId: 'other' });
const MiB = 1024 * 1024;

let workersBefore = 4;
beforeAll(async () => {
  workersBefore = configureScripts().workers;
  await closeScripts();
  configureScripts({ workers: 1 });
});
afterAll(async () => {
  await closeScripts();
  configureScripts({ workers: workersBefore });
});

const out = async (source: string, ctx = mine, limits = {}) =>
  (await runScript(source, { ctx, limits })).output;

/** What the next script sees of the global and the intrinsics (a script that changed them sees otherwise). */
const LOOK = `RMPData.setOutput([typeof leaked, typeof late, typeof ({}).polluted, [1].map((x) => x + 1),
  JSON.stringify({a: 1}), typeof WeakRef, typeof FinalizationRegistry, RMPUtilities.jsonPut({}, "b", 2).b])`;
const CLEAN = '["undefined","undefined","undefined",[2],"{\\"a\\":1}","undefined","undefined",2]';

describe('the shared runtime: nothing a script leaves reaches the next one', () => {
  it('has no WeakRef or FinalizationRegistry: nothing can be scheduled for after the script', async () => {
    expect(
      await out(`RMPData.setOutput([typeof WeakRef, typeof FinalizationRegistry, "WeakRef" in globalThis,
        "FinalizationRegistry" in globalThis, Object.getOwnPropertyNames(globalThis).filter((n) => /^(WeakRef|FinalizationRegistry)$/.test(n))])`),
    ).toBe('["undefined","undefined",false,false,[]]');
    // The legacy engine's globals too.
    const legacy = await runScript('print(typeof WeakRef, typeof FinalizationRegistry)', {
      ctx: mine,
      legacy: true,
    });
    expect(legacy.output).toBe('undefined undefined');
    // WeakMap and WeakSet stay: they schedule nothing.
    expect(
      await out('const k = {}; RMPData.setOutput(new WeakMap([[k, 1]]).get(k) + new WeakSet([k]).has(k))'),
    ).toBe('2');
  });

  it('promise jobs left behind by a failing script never run in the next one, of either account', async () => {
    // The script throws before its jobs run: they stay queued in the runtime. Were they run with
    // the next script's, the endless one would stop it at its CPU time, and the other would call
    // the platform from the dead context.
    const leave = `Promise.resolve().then(() => { globalThis.late = 1; for (;;) {} });
      Promise.resolve().then(() => RMPUtilities.jsonPut({}, "late", 1));
      new Promise(() => {}).then(() => RMPData.setOutput("never"));
      globalThis.leaked = 1; throw new Error("leaving jobs behind");`;
    await expect(runScript(leave, { ctx: mine })).rejects.toThrow(
      'leaving jobs behind (script line 4, column 45)',
    );
    expect(await out(LOOK, mine, { cpuTimeMs: 500 })).toBe(CLEAN);
    await expect(runScript(leave, { ctx: mine })).rejects.toThrow('leaving jobs behind');
    expect(await out(LOOK, other, { cpuTimeMs: 500 })).toBe(CLEAN);
    // A chain that never settles leaves nothing either, after a success.
    expect(
      await out(
        `new Promise(() => {}).then(() => { for (;;) {} }); globalThis.leaked = 1; RMPData.setOutput("ok")`,
      ),
    ).toBe('ok');
    expect(await out(LOOK, mine, { cpuTimeMs: 500 })).toBe(CLEAN);
    expect(scriptWorkers()).toBe(1);
  });

  it('memory a script leaves reachable from its global is not taken from the next script’s budget', async () => {
    const limits = { memoryBytes: 8 * MiB };
    // Each takes about 12 MB of a heap capped near 24 MiB (16 MiB base + memoryBytes): two at
    // once do not fit, so the second fits only once the first script's context is collected.
    const keep = 'globalThis.kept = "k".repeat(12e6); const also = [kept]; RMPData.setOutput(kept.length)';
    const grow = 'const mine = "m".repeat(12e6); RMPData.setOutput(mine.length)';
    // In one script the two do not fit: the checks below can fail.
    await expect(runScript(`${keep}; ${grow}`, { ctx: mine, limits })).rejects.toMatchObject({
      kind: 'memory',
    });
    expect(await out(keep, mine, limits)).toBe('12000000');
    expect(await out(grow, mine, limits)).toBe('12000000');
    expect(await out(keep, mine, limits)).toBe('12000000');
    expect(await out(grow, other, limits)).toBe('12000000');
    // After a script that left many objects (the collector's next turn is then far off), one that
    // leaves a large string: only the check before each script frees it in time.
    const many =
      'globalThis.many = Array.from({length: 30000}, (_, i) => ({i})); RMPData.setOutput(many.length)';
    expect(await out(many, mine, limits)).toBe('30000');
    expect(await out(keep, mine, limits)).toBe('12000000');
    expect(await out(grow, mine, limits)).toBe('12000000');
    // Many small objects in a cycle with the global, then a script needing the room.
    expect(
      await out(
        'globalThis.ring = []; for (let i = 0; i < 150000; i++) ring.push({ring, i}); RMPData.setOutput(ring.length)',
        mine,
        limits,
      ),
    ).toBe('150000');
    expect(await out(grow, mine, limits)).toBe('12000000');
  });

  it('a CPU stop half-way leaves nothing for another account’s script on the same worker', async () => {
    const stopped = `globalThis.leaked = 1; Object.prototype.polluted = 1; Array.prototype.map = () => "patched";
      JSON.stringify = () => "patched"; Promise.resolve().then(() => { globalThis.late = 1; });
      for (;;) {}`;
    await expect(runScript(stopped, { ctx: mine, limits: { cpuTimeMs: 100 } })).rejects.toMatchObject({
      kind: 'cpu-time',
    });
    expect(await out(LOOK, other, { cpuTimeMs: 500 })).toBe(CLEAN);
    await expect(runScript(stopped, { ctx: other, limits: { cpuTimeMs: 100 } })).rejects.toMatchObject({
      kind: 'cpu-time',
    });
    expect(await out(LOOK, other, { cpuTimeMs: 500 })).toBe(CLEAN);
    expect(scriptWorkers()).toBe(1);
  });

  it('the RMP* objects keep the intrinsics they captured before the script replaced them', async () => {
    const source = `"use strict";
      JSON.stringify = () => '"forged"'; JSON.parse = () => ({forged: true}); Array.of = () => ["forged"];
      Object.freeze = (o) => o; globalThis.Error = function () { return {message: "forged"}; };
      Object.defineProperty(Object.prototype, "jsonPut", { set() { throw new Error("setter ran"); } });
      let caught; try { RMPUtilities.getTime("soon"); } catch (e) { caught = [Object.prototype.toString.call(e) === "[object Error]", e.message, e.stack.includes("script.js:5")]; }
      const r = RMPUtilities.jsonPut({a: 1}, "b", [2]);
      RMPData.setOutput({r, frozen: Object.isFrozen(RMPUtilities), caught})`;
    // setOutput itself uses the captured JSON.stringify: the output is not "forged".
    expect(JSON.parse(await out(source))).toEqual({
      r: { a: 1, b: [2] },
      frozen: true,
      caught: [true, 'RMPUtilities.getTime: argument 1 (date) Unparseable date: "soon"', true],
    });
    expect(await out(LOOK, mine, { cpuTimeMs: 500 })).toBe(CLEAN);
  });

  it('a method called while another one serialises its arguments (toJSON) answers both', async () => {
    expect(
      await out(`const inner = {toJSON() { return RMPUtilities.jsonPut({}, "x", [1, 2]); }};
        RMPData.setOutput(RMPUtilities.jsonPut({a: inner}, "b", 2, undefined, undefined))`),
    ).toBe('{"a":{"x":[1,2]},"b":2}');
    await expect(
      runScript('RMPUtilities.jsonPut({toJSON() { throw new RangeError("from toJSON"); }}, "b", 1)', {
        ctx: mine,
      }),
    ).rejects.toThrow('RangeError: from toJSON (script line 1, column 54)');
  });

  it('each script sees its own RMP* objects, not the previous context’s', async () => {
    await out('globalThis.previous = RMPData; RMPData.setOutput(1)');
    expect(
      await out(`const d = Object.getOwnPropertyDescriptor(globalThis, "RMPData");
        RMPData.setOutput([typeof previous, RMPData === d.get(), Object.getPrototypeOf(RMPData) === Object.prototype,
          RMPData.setOutput.name, RMPData.setOutput.length, RMPData.getVariable.length, "prototype" in RMPData.setOutput, Object.keys(RMPData).length])`),
    ).toBe('["undefined",true,true,"setOutput",1,0,false,8]');
    // Not a constructor, like a method definition.
    await expect(runScript('new RMPData.setOutput(1)', { ctx: mine })).rejects.toThrow(
      'TypeError: setOutput is not a constructor (script line 1, column 22)',
    );
  });
});
