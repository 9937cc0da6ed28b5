/**
 * Pure library functions (FunctionFlags.pure) called from a script run inside the script worker
 * (src/script/in-worker-functions.ts), not over the bridge. Both paths must give the same values
 * and the same errors, word for word: every pure function is called with good and bad arguments
 * on the in-worker path and on the bridge (a registry holding copies of the declarations, which
 * the worker does not take as its own) and through the template's callable; the Java fixtures of
 * the Utilities group are replayed in the worker; and the budget is charged as for a template.
 */
import { declarationOf, isLibraryDeclaration } from '../../src/functions/lazy.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecutionContext, type ExecutionContext } from '../../src/functions/context.js';
import { FunctionRegistry, defaultRegistry, type FunctionSpec } from '../../src/functions/registry.js';
import { evaluate } from '../../src/hosts/evaluate.js';
import { Budget } from '../../src/limits/index.js';
import { closeScripts, jsMethodName, runScript, scriptApi } from '../../src/script/index.js';
import { inWorkerTable } from '../../src/script/in-worker-plan.js';
import type { InWorkerMethod } from '../../src/script/worker/messages.js';
import { WORKER_GROUPS } from '../../src/script/in-worker-functions.js';
import {
  call,
  caseName,
  contextOf,
  envWith,
  fixture,
  groupByContext,
  testContext,
  UTILITY_FIXTURES,
  type JavaCase,
} from '../functions/helpers.js';

afterAll(() => closeScripts());

type Outcome = { v: unknown } | { e: string };

const registry = defaultRegistry();
const pureSpecs = registry.list().filter((s) => s.flags?.pure);
/** The same functions as copies: not the worker's declarations, so every call takes the bridge. */
const bridgeOnly = new FunctionRegistry(registry.list().map((s) => ({ ...s })));

/** A context on the system clock (so `pure: 'clock'` functions run in the worker too). */
function liveContext(fields: Partial<ExecutionContext> = {}): ExecutionContext {
  return createExecutionContext({ clock: Date.now, ...fields });
}

/**
 * Waits until the worker has loaded its function table (it does so in the background, the first
 * time a script calls a pure function): a call then reports itself as made in the worker.
 */
async function untilInWorker(): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const { timing } = await runScript('RMPUtilities.jsonPut({}, "a", 1)', { ctx: liveContext() });
    if (timing.inWorkerCalls === 1) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the script worker did not load its function table');
}

/** Runs calls `[RMPUtilities method, args]` in one script; the outcomes and where the calls ran. */
async function scriptOutcomes(
  calls: Array<[string, unknown[]]>,
  ctx: ExecutionContext,
  reg: FunctionRegistry = registry,
): Promise<{ outcomes: Outcome[]; inWorker: number; bridged: number }> {
  const { output, timing } = await runScript(
    `const calls = JSON.parse(${JSON.stringify(JSON.stringify(calls))});
     RMPData.setOutput(calls.map(([method, args]) => {
       try { const v = RMPUtilities[method](...args); return { v: v === undefined ? null : v }; }
       catch (e) { return { e: e.message }; }
     }));`,
    { ctx, registry: reg },
  );
  return {
    outcomes: JSON.parse(output) as Outcome[],
    inWorker: timing.inWorkerCalls ?? 0,
    bridged: timing.calls,
  };
}

/** The template's callable, its error named as the script names it. */
function templateOutcome(spec: FunctionSpec, args: unknown[], ctx: ExecutionContext): Outcome {
  try {
    const v = call(spec.name, args, ctx, envWith());
    return { v: v === undefined ? null : JSON.parse(JSON.stringify(v)) };
  } catch (e) {
    const message = (e as Error).message;
    return { e: message.replace(new RegExp(`^${spec.name}: `), `RMPUtilities.${jsMethodName(spec.name)}: `) };
  }
}

const AES = fixture<Record<string, JavaCase[]>>('aes');
const RSA = fixture<{ cases: JavaCase[] }>('rsa').cases;
const goodFixture = (cases: JavaCase[], name: string): unknown[] =>
  cases.find((c) => c.call[0] === name && c.expect !== undefined)!.call.slice(1);

/** One good call of every pure function (a new pure function needs its line here). */
const GOOD: Record<string, unknown[]> = {
  date_format: ['2024-01-15', 'yyyy-MM-dd', 'dd/MM/yyyy'],
  date_offset: ['2024-01-15', 3],
  get_date: [1705276800, 'yyyy-MM-dd HH:mm'],
  get_time: ['2024-01-15'],
  now: ['yyyy'],
  timestamp: ['SECOND'],
  decipher: goodFixture(AES.decipher!, 'decipher'),
  generate_key: ['secret'],
  encrypt: ['SHA-256', 'abc'],
  password_digest: ['pw'],
  R_hmac_hash: ['data', 'key'],
  R_rsa_hash: goodFixture(RSA, 'R_rsa_hash'),
  R_encode: ['BASE64', 'héllo'],
  decode: ['Base64', 'Zm9vYmFy'],
  bubble_babble: ['abc'],
  csv_to_json: ['a;b\n1;2'],
  json_to_csv: [[{ a: 1, b: 'x' }]],
  load: ['{"a":[1,2]}', 'JSON'],
  to_xml: ['root', { a: 1, b: ['x', 'y'] }],
  P_json_accumulate: [{ a: 1 }, 'a', 2],
  P_json_accumulateAll: [{ a: 1 }, { a: 2, b: 3 }],
  P_json_parse: ['{"a":[1,2]}'],
  P_json_put: [{ a: 1 }, 'b', '{"c":2}'],
  P_json_put_ext: [{ a: {} }, 'a.b', 2],
  P_json_putAll: [{ a: 1 }, { b: 2 }],
  P_json_remove: [{ a: 1, b: 2 }, 'a'],
  P_json_remove_ext: [{ a: { b: 1, c: 2 } }, 'a.b'],
  P_json_stringify: [{ a: [1, 'x', null] }],
  P_to_array: [{ k1: { x: 1 }, k2: { x: 2 } }, 'key'],
  transpose: [[{ a: 1 }, { a: 2 }]],
  P_quoted: ["it's"],
};

/** Results that depend on the moment of the call. */
const MOMENT = new Set(['timestamp', 'now']);

/** Good and bad argument lists for a function: its good call, none, one too many, wrong values, a __proto__ key. */
function argumentCases(spec: FunctionSpec): unknown[][] {
  const good = GOOD[spec.name]!;
  const max = Math.max(...spec.forms.map((f) => (f.params.at(-1)?.variadic ? Infinity : f.params.length)));
  const cases: unknown[][] = [good, []];
  if (max !== Infinity) cases.push([...good, ...Array<string>(max + 1 - good.length).fill('x')]);
  for (const bad of [true, { x: [1] }, 'not json {', -1.5, '']) cases.push([bad, ...good.slice(1)]);
  if (good.length > 1) cases.push([good[0], { x: 1 }, ...good.slice(2)]);
  cases.push([JSON.parse('{"__proto__": {"polluted": 1}}'), ...good.slice(1)]);
  return cases;
}

beforeAll(() => untilInWorker(), 60_000);

describe('the in-worker function table', () => {
  it('holds every pure function of the library, each with a good call here; pure functions check no rights', () => {
    const inWorker = new Map(WORKER_GROUPS.flat().map((s) => [s.name, s]));
    expect(pureSpecs.length).toBeGreaterThanOrEqual(30);
    for (const spec of pureSpecs) {
      const own = inWorker.get(spec.name);
      expect(
        own !== undefined &&
          own.flags?.pure !== undefined &&
          isLibraryDeclaration(spec) &&
          JSON.stringify(declarationOf(spec)) === JSON.stringify(declarationOf(own)),
        `${spec.name} is declared pure in a group the worker does not load`,
      ).toBe(true);
      expect(spec.rights).toBe('none');
      expect(GOOD[spec.name], `a good call of ${spec.name}`).toBeDefined();
    }
    expect(Object.keys(GOOD).sort()).toEqual(pureSpecs.map((s) => s.name).sort());
  });

  it('lists for a run exactly the pure methods the surface and the clock allow', () => {
    const api = scriptApi(registry);
    const names = (ctx: ExecutionContext) =>
      (JSON.parse(inWorkerTable(api, registry, ctx)) as InWorkerMethod[]).map((r) => r.label);
    const live = names(liveContext());
    expect(live).toContain('RMPUtilities.jsonPut');
    expect(live).toContain('RMPUtilities.now');
    expect(live).not.toContain('RMPUtilities.uuid');
    expect(live).not.toContain('RMPUtilities.cipher');
    expect(live).not.toContain('RMPUtilities.safeGet');
    expect(live).not.toContain('RMPCollection.find');
    // A frozen clock keeps the clock's functions on the bridge.
    const frozen = names(testContext());
    expect(frozen).toContain('RMPUtilities.jsonPut');
    expect(frozen).not.toContain('RMPUtilities.now');
    expect(frozen).not.toContain('RMPUtilities.dateFormat');
    // A web interface offers only the functions flagged for it.
    const web = names(liveContext({ surface: 'web-interface' }));
    expect(web).toContain('RMPUtilities.toXml');
    expect(web).not.toContain('RMPUtilities.jsonPut');
    // Copies of the declarations are not the worker's: all on the bridge.
    expect(inWorkerTable(scriptApi(bridgeOnly), bridgeOnly, liveContext())).toBe('[]');
  });
});

describe('every pure function: the same values and errors in the worker, over the bridge and from a template', () => {
  for (const spec of pureSpecs) {
    it(spec.name, async () => {
      await untilInWorker();
      const method = jsMethodName(spec.name);
      const cases = argumentCases(spec);
      const calls = cases.map((args): [string, unknown[]] => [method, args]);
      const ctx = liveContext();
      const local = await scriptOutcomes(calls, ctx);
      expect(local.inWorker).toBe(cases.length);
      expect(local.bridged).toBe(0);
      const bridged = await scriptOutcomes(calls, liveContext(), bridgeOnly);
      expect(bridged.inWorker).toBe(0);
      expect(bridged.bridged).toBe(cases.length);
      cases.forEach((args, i) => {
        const label = `${spec.name}(${JSON.stringify(args).slice(0, 200)})`;
        const got = local.outcomes[i]!;
        if (i === 0) expect('v' in got, `${label}: ${JSON.stringify(got)}`).toBe(true);
        if (i === 1 && spec.forms.some((f) => f.params.some((p) => !p.optional)))
          expect('e' in got, label).toBe(true);
        if (MOMENT.has(spec.name) && 'v' in got) return;
        expect(got, label).toEqual(bridged.outcomes[i]);
        // A template passes a __proto__ key to the function; a script's call refuses it first.
        if (i === cases.length - 1)
          expect(got, label).toEqual({
            e: `RMPUtilities.${method}: argument 1 (${spec.forms[0]!.params[0]!.name}) contains the key "__proto__", which is not allowed`,
          });
        else expect(got, label).toEqual(templateOutcome(spec, args, ctx));
      });
    });
  }

  it('exact results and messages, in the worker', async () => {
    await untilInWorker();
    const { outcomes, inWorker } = await scriptOutcomes(
      [
        ['jsonPut', [{ a: 1 }, 'b', '{"c":2}']],
        ['jsonPut', ['x', 'b', 1]],
        ['jsonPut', [{ a: 1 }]],
        ['jsonPut', [{ a: 1 }, 'b', 1, false, 5]],
        ['jsonPut', [JSON.parse('{"__proto__": {"p": 1}}'), 'b', 1]],
        ['jsonPut', [{}, 'constructor', 1]],
        ['dateFormat', ['2024-01-15', 'yyyy-MM-dd', 'EEEE d MMMM yyyy']],
        ['getTime', ['15/01/2024']],
        ['quoted', ["it's"]],
      ],
      liveContext({ locale: 'fr_FR', timeZone: 'Europe/Paris' }),
    );
    expect(inWorker).toBe(9);
    expect(outcomes).toEqual([
      { v: { a: 1, b: { c: 2 } } },
      {
        e: 'RMPUtilities.jsonPut: argument 1 (object) expected a hash or the JSON text of an object, got the string "x" (not valid JSON: Unexpected token \'x\', "x" is not valid JSON)',
      },
      { e: 'RMPUtilities.jsonPut: argument 2 (field) is missing: expected a string' },
      {
        e: 'RMPUtilities.jsonPut: argument 5 is not expected: P_json_put takes 3 to 4 arguments, got 5',
      },
      { e: 'RMPUtilities.jsonPut: argument 1 (object) contains the key "__proto__", which is not allowed' },
      { e: 'RMPUtilities.jsonPut: argument 2 (field) the key "constructor" is not allowed' },
      { v: 'lundi 15 janvier 2024' },
      {
        e: 'RMPUtilities.getTime: argument 1 (date) Unparseable date: "15/01/2024"',
      },
      { v: "'it\\'s'" },
    ]);
  });
});

describe('the Java fixtures of the Utilities group, replayed in the worker', () => {
  for (const [file, load] of UTILITY_FIXTURES) {
    it(`${file}.json`, async () => {
      await untilInWorker();
      const cases = load().filter((c) => registry.get(c.call[0])?.flags?.pure);
      if (file === 'numbers') expect(cases.length).toBeGreaterThan(0);
      for (const group of groupByContext(cases)) {
        // The fixture's frozen clock, or the system clock when the case does not depend on one.
        const ctx = (clock: boolean) =>
          clock ? contextOf(group[0]!) : { ...contextOf(group[0]!), clock: Date.now };
        const calls = group.map((c): [string, unknown[]] => [jsMethodName(c.call[0]), c.call.slice(1)]);
        for (const frozen of [true, false]) {
          if (!frozen && group[0]!.context?.clock !== undefined) continue;
          const { outcomes, inWorker, bridged } = await scriptOutcomes(calls, ctx(frozen));
          const clockCalls = group.filter((c) => registry.get(c.call[0])!.flags!.pure === 'clock').length;
          expect(inWorker).toBe(frozen ? group.length - clockCalls : group.length);
          expect(bridged).toBe(frozen ? clockCalls : 0);
          group.forEach((c, i) => {
            const spec = registry.get(c.call[0])!;
            if (frozen && c.expect !== undefined && !MOMENT.has(spec.name))
              expect(outcomes[i], caseName(c)).toEqual({ v: c.expect });
            if (!MOMENT.has(spec.name))
              expect(outcomes[i], caseName(c)).toEqual(templateOutcome(spec, c.call.slice(1), ctx(frozen)));
          });
        }
      }
    });
  }
});

describe('the budget', () => {
  const limited = (maxAllocBytes: number) =>
    liveContext({ limits: { dataDocumentBytes: 5 * 1024 * 1024, evaluation: { maxAllocBytes } } });

  it('a charge made in the worker counts as the same call from a template', async () => {
    await untilInWorker();
    const csv = 'a;b\n' + '1;2\n'.repeat(500);
    const viaScript = limited(64 * 1024 * 1024);
    const { timing } = await runScript(
      `RMPUtilities.csvToJson(${JSON.stringify(csv)}); RMPUtilities.load('{"a": [1, 2, 3]}', 'JSON');`,
      {
        ctx: viaScript,
      },
    );
    expect(timing.inWorkerCalls).toBe(2);
    const viaTemplate = limited(64 * 1024 * 1024);
    call('csv_to_json', [csv], viaTemplate);
    call('load', ['{"a": [1, 2, 3]}', 'JSON'], viaTemplate);
    expect(viaTemplate.budget!.allocated).toBeGreaterThan(10_000);
    expect(viaScript.budget!.allocated).toBe(viaTemplate.budget!.allocated);
  });

  it('the worker sees what the template charged before the script, and the template what the worker charged', async () => {
    await untilInWorker();
    const big = 'x'.repeat(100_000);
    // load charges 16 bytes a character of JSON: 1.6 MB a call; the limit lets two through, not three.
    const template = (before: number, inScript: number, after: number) =>
      '<#assign r = load(big, "JSON")>'.repeat(before) +
      `<@script env="js">const big = ${JSON.stringify(JSON.stringify(big))}; let n = 0;
        try { for (let i = 0; i < ${inScript}; i++) { RMPUtilities.load(big, 'JSON'); n++; } RMPData.setOutput('ok ' + n); }
        catch (e) { RMPData.setOutput(n + ' ' + e.message); }</@script>` +
      '<#assign r = load(big, "JSON")>'.repeat(after);
    const data = { big: JSON.stringify(big) };
    const perCall = (() => {
      const ctx = limited(64 * 1024 * 1024);
      call('load', [JSON.stringify(big), 'JSON'], ctx);
      return ctx.budget!.allocated;
    })();
    const limit = Math.floor(perCall * 2.5);
    const message = (what: string) => new Budget({ maxAllocBytes: limit }).memoryError(what).message;
    expect((await evaluate(template(1, 5, 0), limited(limit), data)).output).toBe(
      `1 ${message('RMPUtilities.load')}`,
    );
    expect((await evaluate(template(0, 5, 0), limited(limit), data)).output).toBe(
      `2 ${message('RMPUtilities.load')}`,
    );
    await expect(evaluate(template(0, 2, 1), limited(limit), data)).rejects.toThrow(message('load'));
  });
});
