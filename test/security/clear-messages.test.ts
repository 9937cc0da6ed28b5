/**
 * Issue 25, the smaller findings: clear messages instead of library internals. `{"$in": <object>}`
 * names `$in`; `$lookup` inside `$facet` is refused like `$lookup` itself; the eval answer gives a
 * number beyond a double's range as its text, not `null`; `?url` without a charset tells a
 * template author what to write; `SharedArrayBuffer` is the sandbox's own (docs/script.md).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ExecutionContext } from '../../src/functions/context.js';
import { evaluate } from '../../src/hosts/evaluate.js';
import { evalHost } from '../../src/hosts/eval-host.js';
import { closeScripts } from '../../src/script/index.js';
import { describeEachEngine } from '../support/engines.js';
import { useServer } from '../server/support.js';
import { buildWorld, contextIn } from '../platform/world.js';
import { errorOf } from '../script/support.js';
import { evalOnServer, firstLine, renderCli } from './support.js';

afterAll(() => closeScripts());

describeEachEngine('clear messages: collection queries', (engine) => {
  let ann: ExecutionContext;
  beforeAll(async () => {
    ann = await contextIn(await buildWorld(engine.store), { user: 'ann' });
    await evaluate('${save_object([{"n": 1}, {"n": 2}], "c")?size}', ann);
  });

  it.each([
    [
      '${list_objects({"n": {"$in": {"a": 1}}}, "c")?size}',
      'list_objects: $in needs an array, not an object',
    ],
    ['${count_objects({"n": {"$nin": "x"}}, "c")}', 'count_objects: $nin needs an array, not a string'],
    ['${count_objects({"n": {"$all": 1}}, "c")}', 'count_objects: $all needs an array, not a number'],
    [
      '${list_objects({"$expr": {"$in": [1, {"a": 1}]}}, "c")?size}',
      'list_objects: $in requires an array as a second argument, found: object',
    ],
    [
      '${aggregate_collection("c", {"$project": {"x": {"$in": [1, "$missing"]}}})?size}',
      'aggregate_collection: $in requires an array as a second argument, found: missing',
    ],
    [
      '${aggregate_collection("c", {"$facet": {"joined": [{"$lookup": {"from": "c", "localField": "n", "foreignField": "n", "as": "y"}}]}})?size}',
      "aggregate_collection: operator $lookup is not supported (in the sub-pipeline 'joined' of $facet)",
    ],
  ])('%s', async (source, message) => {
    expect(await errorOf(ann, source)).toBe(message);
  });

  it('the same operators with arrays still work', async () => {
    const out = await evaluate(
      '${list_objects({"n": {"$in": [1]}}, "c")?size} ${count_objects({"n": {"$nin": [1]}}, "c")} ' +
        '${P_json_stringify(aggregate_collection("c", {"$facet": {"all": [{"$count": "k"}]}}))}',
      ann,
    );
    expect(out.output).toBe('1 1 [{"all":[{"k":2}]}]');
  });
});

describeEachEngine('clear messages: POST /api/v1/eval', (engine) => {
  const server = useServer(engine, (platform) => ({ hosts: evalHost(platform) }));

  it('a 99,999-digit number in the variables is its text, not null', async () => {
    const r = await evalOnServer(
      server,
      '<#assign s = "9"><#list 1..17 as i><#assign s = s + s></#list><#assign n = s[0..99998]?number><#assign small = 2.5>${n?c?length?c}',
    );
    expect(r.error).toBeUndefined();
    expect(r.output).toBe('99999');
    expect(r.variables.small).toBe(2.5);
    expect(r.variables.n).toBe('9'.repeat(99999));
  });
});

it('?url without a charset: FreeMarker’s message, then what a flowmark template can write', async () => {
  const r = await renderCli('${"a b"?url}');
  expect(firstLine(r.err)).toBe(
    'To do URL encoding, the framework that encloses FreeMarker must specify the "output_encoding" setting or the "url_escaping_charset" setting, so ask the programmers to set them. ' +
      "Or, as a last chance, you can set the url_encoding_charset setting in the template, e.g. <#setting url_escaping_charset='ISO-8859-1'>, or give the charset explicitly to the built-in, e.g. foo?url('ISO-8859-1'). " +
      "(flowmark sets neither for a template: give the charset to the built-in, e.g. foo?url('UTF-8'), or set it once at the top of the template: <#setting url_escaping_charset='UTF-8'>)",
  );
  expect((await renderCli('<#setting url_escaping_charset="UTF-8">${"a b"?url}')).out).toBe('a%20b');
});
