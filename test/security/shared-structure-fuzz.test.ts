/**
 * Issue 25: a fast-check property over random templates that build shared structure (`[h, h]`,
 * `h + {"a": h, "b": h}`, mixed, 20 to 64 levels) and hand it to a random sink — printing,
 * concatenation, the sequence built-ins, the converting functions, a legacy script — through the
 * eval host's `evaluate`: every render ends with its output or a TemplateError (never another
 * error, a crash or a hang), within a few seconds and without the heap growing by gigabytes.
 * FUZZ_RUNS scales it; FUZZ_SEED varies it.
 */
import fc from 'fast-check';
import { afterAll, expect, it } from 'vitest';
import { createExecutionContext } from '../../src/functions/context.js';
import { evaluate } from '../../src/hosts/evaluate.js';
import { closeScripts } from '../../src/script/index.js';
import { TemplateError } from '../../src/template/index.js';

afterAll(() => closeScripts());

const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const SEED = Number(process.env.FUZZ_SEED ?? 20261129);
const MAX_MS = 8_000;

const builders = {
  seq: (levels: number, leaf: string) =>
    `<#assign h = [${leaf}]><#list 1..${levels} as i><#assign h = [h, h]></#list>`,
  hash: (levels: number, leaf: string) =>
    `<#assign h = {"v": ${leaf}}><#list 1..${levels} as i><#assign h = h + {"a": h, "b": h}></#list>`,
  mixed: (levels: number, leaf: string) =>
    `<#assign h = [${leaf}]><#list 1..${levels} as i><#if i % 2 == 0><#assign h = [h, h]><#else><#assign h = {"a": h, "b": [h]}></#if></#list>`,
};

const SINKS = [
  '${h}',
  '${"x" + h}',
  '${P_json_stringify(h)?length}',
  '${to_xml("r", {"h": h})?length}',
  '${json_to_csv([h])?length}',
  '${csv_to_json(h)?size}',
  '${P_to_array({"k": h}, "k")?size}',
  '<#if h?is_sequence>${h?size} ${h?reverse?size} ${h?chunk(1)?size} ${(h?map(x -> x))?size} ${h?join(",")?length}</#if>',
  '<#if h?is_hash>${h?keys?size} ${h?values?size}</#if>',
  '<#assign g = h + h>${g?size}',
  '<#list 1..3 as i><#assign h = [h, h]></#list>${h?size}',
  '${P_json_parse(P_json_stringify(h))?size}',
  '<@script env="javascript"><#noparse>var x = []; for (var i = 0; i < 60; i++) x = [x, x]; setVariable("y", x);</#noparse></@script>${y?size}',
  '<@script env="js"><#noparse>RMPData.setOutput(String(JSON.stringify(RMPData.getVariable("h")).length));</#noparse></@script>',
];

it('random shared-structure templates end with output or a TemplateError, bounded', async () => {
  const ctx = createExecutionContext();
  const heapStart = process.memoryUsage().heapUsed;
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...(Object.keys(builders) as (keyof typeof builders)[])),
      fc.integer({ min: 20, max: 64 }),
      fc.constantFrom('1', '"text"', '[]', '{}', 'true'),
      fc.subarray(SINKS, { minLength: 1, maxLength: 3 }),
      async (kind, levels, leaf, sinks) => {
        const source = builders[kind](levels, leaf) + sinks.join('');
        const started = performance.now();
        try {
          await evaluate(source, ctx, {});
        } catch (e) {
          if (!(e instanceof TemplateError))
            throw new Error(`not a TemplateError for ${source}: ${String(e)}`, { cause: e });
        }
        expect(performance.now() - started).toBeLessThan(MAX_MS);
        expect(process.memoryUsage().heapUsed - heapStart).toBeLessThan(1.5 * 1024 ** 3);
      },
    ),
    { numRuns: RUNS, seed: SEED },
  );
}, 600_000);
