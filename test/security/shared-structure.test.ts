/**
 * Issue 25, family 1: a shared-structure value (`h = [h, h]` repeated 60 times: 2^60 leaves in 60
 * arrays) handed to a function that stores or converts it is refused at once with an error naming
 * the function and argument, instead of being expanded until the worker runs out of heap: saving
 * documents, query and pipeline arguments, text arguments, the legacy engine's setVariable and
 * values a script reads through the bridge. Through `render` (hosts/evaluate) on every engine, and
 * the built CLI for the functions that need no storage.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ExecutionContext } from '../../src/functions/context.js';
import { evaluate } from '../../src/hosts/evaluate.js';
import { closeScripts } from '../../src/script/index.js';
import { describeEachEngine } from '../support/engines.js';
import { buildWorld, contextIn } from '../platform/world.js';
import { errorOf } from '../script/support.js';
import { firstLine, renderCli } from './support.js';

afterAll(() => closeScripts());

/** [h, h] nested 60 times. */
const SEQ = '<#assign h = []><#list 1..60 as i><#assign h = [h, h]></#list>';
/** The same with hashes. */
const HASH = '<#assign h = {}><#list 1..60 as i><#assign h = h + {"a": h, "b": h}></#list>';
const stopped = (what: string) =>
  `Template execution stopped: ${what} is too large: a copy of it would exceed the 256 MB limit for one evaluation.`;
const js = (body: string) => `<@script env="js"><#noparse>${body}</#noparse></@script>`;
const legacy = (body: string) => `<@script env="javascript"><#noparse>${body}</#noparse></@script>`;

describeEachEngine('shared structure handed to functions', (engine) => {
  let ann: ExecutionContext;
  beforeAll(async () => {
    ann = await contextIn(await buildWorld(engine.store), { user: 'ann' });
  });
  const refused = async (source: string, message: string) => {
    const started = performance.now();
    expect(await errorOf(ann, source)).toBe(message);
    expect(performance.now() - started).toBeLessThan(5000);
  };

  it.each([
    [`${SEQ}\${save_object({"h": h}, "c")?size}`, 'save_object: argument 1 (object)'],
    [`${SEQ}\${save_object([{"h": h}], "c")?size}`, 'save_object: argument 1 (object)'],
    [`${HASH}\${save_object(h, "c")?size}`, 'save_object: argument 1 (object)'],
    [`${SEQ}\${list_objects({"a": {"$in": h}}, "c")?size}`, 'list_objects: argument 1 (query)'],
    [`${SEQ}\${count_objects({"a": h}, "c")}`, 'count_objects: argument 1 (where)'],
    [`${SEQ}\${update_objects({"a": 1}, {"$set": {"b": h}}, "c")}`, 'update_objects: argument 2 (variable)'],
    [
      `${SEQ}\${aggregate_collection("c", {"$project": {"x": {"$literal": h}}})?size}`,
      'aggregate_collection: argument 2 (pipeline)',
    ],
  ])('%s is refused', async (source, what) => {
    await refused(source, stopped(what));
  });

  it('the same functions still take shared structure that fits, and store it expanded', async () => {
    const out = await evaluate(
      '<#assign h = [1]><#list 1..3 as i><#assign h = [h, h]></#list>' +
        '<#assign s = save_object({"k": "dag", "h": h}, "c")>${P_json_stringify(load_object({"k": "dag"}, "c").h)}',
      ann,
    );
    expect(out.output).toBe('[[[[1],[1]],[[1],[1]]],[[[1],[1]],[[1],[1]]]]');
  });

  it('a hash or sequence passed as text is written within the per-string limit', async () => {
    await refused(
      `${SEQ}\${csv_to_json(h)?size}`,
      'csv_to_json: argument 1 (input) is too large: its JSON text would exceed 20000000 characters',
    );
  });

  it('a script reading a shared-structure variable gets a clear error, not a stalled bridge', async () => {
    await refused(
      `${SEQ}${js('const v = RMPData.getVariable("h"); RMPData.setOutput(String(v.length));')}`,
      "RMPData.getVariable: the result (more than 8388608 characters of JSON) is too large for the script's memory (at most 8388608 characters with memoryBytes 33554432) (script line 1, column 30)",
    );
    const small = await evaluate(
      `<#assign h = [1]><#assign h = [h, h]>${js('RMPData.setOutput(JSON.stringify(RMPData.getVariable("h")));')}`,
      ann,
    );
    expect(small.output).toBe('[[1],[1]]');
  });

  it('legacy setVariable of shared structure stops at its cap at once; small shared values still work', async () => {
    await refused(
      legacy('var h = []; for (var i = 0; i < 60; i++) h = [h, h]; setVariable("x", h);') + '${x?size}',
      'setVariable: the printed text and variables of this script would exceed 4194304 characters (an eighth of its memoryBytes) (script line 1, column 65)',
    );
    const small = await evaluate(
      legacy(
        'var h = [1]; for (var i = 0; i < 3; i++) h = [h, h]; setVariable("x", h); setVariable("y", {a: "b"});',
      ) + '${P_json_stringify(x)} ${y.a}',
      ann,
    );
    expect(small.output).toBe('[[[[1],[1]],[[1],[1]]],[[[1],[1]],[[1],[1]]]] b');
  });
});

it('flowmark render: to_xml, json_to_csv and text arguments refuse 60 levels of shared structure', async () => {
  const text = (fn: string) =>
    `Template execution stopped: ${fn}: the output would exceed the limit of 20000000 characters for one evaluation.`;
  for (const [template, message] of [
    [`${SEQ}\${to_xml("r", {"h": h})?length}`, text('to_xml')],
    [`${HASH}\${to_xml("r", h)?length}`, text('to_xml')],
    [`${SEQ}\${json_to_csv([h])?length}`, text('json_to_csv')],
    [
      `${SEQ}\${csv_to_json(h)?size}`,
      'csv_to_json: argument 1 (input) is too large: its JSON text would exceed 20000000 characters',
    ],
  ]) {
    const r = await renderCli(template!);
    expect(firstLine(r.err)).toBe(message);
    expect(r.ms).toBeLessThan(5000);
  }
});
