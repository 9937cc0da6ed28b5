/**
 * Issue 13: a `$regex` with a back-reference blocked /health for over a minute. Collection queries
 * run their patterns on RE2 (linear time in the input, whatever the pattern) and refuse what RE2
 * cannot run in linear time, naming the operator, the pattern and the feature.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ExecutionContext } from '../../src/functions/context.js';
import { evaluate } from '../../src/hosts/evaluate.js';
import { closeScripts } from '../../src/script/index.js';
import { describeEachEngine } from '../support/engines.js';
import { buildWorld, contextIn, type World } from '../platform/world.js';
import { call, useServer } from '../server/support.js';
import { errorOf, scriptTag } from '../script/support.js';

afterAll(() => closeScripts());

const LINEAR = 'which collection queries do not support (only patterns that run in linear time)';
/** 40 000 a's and no b: `(a+)+b` backtracks exponentially on it in a backtracking engine. */
const EVIL = 'a'.repeat(40_000) + 'c';

describeEachEngine('query regex: functions and scripts', (engine) => {
  let w: World;
  let ann: ExecutionContext;
  const json = async (expr: string) =>
    JSON.parse((await evaluate(`\${P_json_stringify(${expr})}`, ann)).output);

  beforeAll(async () => {
    w = await buildWorld(engine.store);
    ann = await contextIn(w, { user: 'ann' });
    await evaluate(
      `\${save_object([{"_id": "1", "s": "${EVIL}", "pat": "(a)\\\\1"}, {"_id": "2", "s": "Abc", "t": ["xa", "yb"]}], "r")?size}`,
      ann,
    );
  });

  it('refuses back-references, look-arounds, atomic groups and possessive quantifiers, naming each', async () => {
    const cases: Array<[string, string]> = [
      ['(a+)+\\\\1b', `list_objects: $regex "(a+)+\\\\1b" uses a back-reference, ${LINEAR}`],
      ['(?<n>a)\\\\k<n>', `list_objects: $regex "(?<n>a)\\\\k<n>" uses a back-reference, ${LINEAR}`],
      ['a(?=b)', `list_objects: $regex "a(?=b)" uses a look-ahead, ${LINEAR}`],
      ['a(?!b)', `list_objects: $regex "a(?!b)" uses a look-ahead, ${LINEAR}`],
      ['(?<=x)a', `list_objects: $regex "(?<=x)a" uses a look-behind, ${LINEAR}`],
      ['(?<!x)a', `list_objects: $regex "(?<!x)a" uses a look-behind, ${LINEAR}`],
      ['(?>a+)b', `list_objects: $regex "(?>a+)b" uses an atomic group, ${LINEAR}`],
      ['a++b', `list_objects: $regex "a++b" uses a possessive quantifier, ${LINEAR}`],
      ['a(', 'list_objects: $regex "a(" is not a valid pattern: missing closing ): `a(`'],
    ];
    for (const [pattern, message] of cases)
      expect(await errorOf(ann, `\${list_objects({"s": {"$regex": "${pattern}"}}, "r")?size}`)).toBe(message);
    expect(await errorOf(ann, '${list_objects({"s": {"$regex": "a", "$options": "x"}}, "r")?size}')).toBe(
      "list_objects: $regex option 'x' is not supported (only i, m, s and u)",
    );
    // Inside $not and $elemMatch, and in count_objects, the same.
    expect(await errorOf(ann, '${count_objects({"s": {"$not": {"$regex": "(a)\\\\1"}}}, "r")}')).toBe(
      `count_objects: $regex "(a)\\\\1" uses a back-reference, ${LINEAR}`,
    );
    expect(
      await errorOf(ann, '${list_objects({"t": {"$elemMatch": {"$regex": "(?<=x)a"}}}, "r")?size}'),
    ).toBe(`list_objects: $regex "(?<=x)a" uses a look-behind, ${LINEAR}`);
  });

  it('runs a pattern that backtracks exponentially elsewhere in linear time, with MongoDB results', async () => {
    const t0 = Date.now();
    expect(await json('list_objects({"s": {"$regex": "^(a+)+b$"}}, "r")')).toEqual([]);
    expect(await json('count_objects({"s": {"$regex": "(a|aa)+c$"}}, "r")')).toBe(1);
    expect(Date.now() - t0).toBeLessThan(5000);
    // Options, inline flags (which V8 would refuse), array elements, $not.
    expect(
      (await json('list_objects({"s": {"$regex": "^abc", "$options": "i"}}, "r")')).map(
        (d: { _id: string }) => d._id,
      ),
    ).toEqual(['2']);
    expect(
      (await json('list_objects({"s": {"$regex": "(?i)^abc"}}, "r")')).map((d: { _id: string }) => d._id),
    ).toEqual(['2']);
    expect(
      (await json('list_objects({"t": {"$regex": "^y"}}, "r")')).map((d: { _id: string }) => d._id),
    ).toEqual(['2']);
    expect(
      (await json('list_objects({"s": {"$not": {"$regex": "^A"}}}, "r")')).map((d: { _id: string }) => d._id),
    ).toEqual(['1']);
    // JavaScript's \\u escapes, in the pattern's text, are read as RE2's \\x{…}.
    expect(
      (await json('list_objects({"s": {"$regex": "^\\\\u0041b\\\\u{63}$"}}, "r")')).map(
        (d: { _id: string }) => d._id,
      ),
    ).toEqual(['2']);
  });

  it('$regexMatch, $regexFind and $regexFindAll run on RE2; a computed back-reference is refused when met', async () => {
    const only2 = '{"$match": {"_id": "2"}}';
    expect(
      await json(
        `aggregate_collection("r", ${only2}, {"$project": {"_id": 0, "m": {"$regexMatch": {"input": "$s", "regex": "^a", "options": "i"}}, "f": {"$regexFind": {"input": "$s", "regex": "(b)(z)?(c)"}}}})`,
      ),
    ).toEqual([{ m: true, f: { match: 'bc', idx: 1, captures: ['b', null, 'c'] } }]);
    // An empty match advances (mingo's own loop would never end on it).
    expect(
      await json(
        `aggregate_collection("r", ${only2}, {"$project": {"_id": 0, "m": {"$regexFindAll": {"input": "$s", "regex": "x*"}}}})`,
      ),
    ).toEqual([
      {
        m: [0, 1, 2, 3].map((idx) => ({ match: '', idx, captures: [] })),
      },
    ]);
    expect(
      await errorOf(
        ann,
        '${aggregate_collection("r", {"$project": {"m": {"$regexMatch": {"input": "$s", "regex": "a(?!b)"}}}})?size}',
      ),
    ).toBe(`aggregate_collection: $regexMatch "a(?!b)" uses a look-ahead, ${LINEAR}`);
    expect(
      await errorOf(
        ann,
        '${aggregate_collection("r", {"$project": {"m": {"$regexFindAll": {"input": "$s", "regex": "$pat"}}}})?size}',
      ),
    ).toBe(`aggregate_collection: $regexFindAll "(a)\\\\1" uses a back-reference, ${LINEAR}`);
  });

  it('update conditions ($pull) run on RE2 too', async () => {
    await evaluate('${save_object({"_id": "u", "tags": ["aa", "ab", "b"]}, "r")?size}', ann);
    expect(
      await errorOf(
        ann,
        '<#assign ch = {"$pull": {"tags": {"$regex": "(a)\\\\1"}}}>${update_objects({"_id": "u"}, "ch", "r")}',
      ),
    ).toBe(`update_objects: $regex "(a)\\\\1" uses a back-reference, ${LINEAR}`);
    await evaluate(
      '<#assign ch = {"$pull": {"tags": {"$regex": "(?i)^A"}}}>${update_objects({"_id": "u"}, "ch", "r")}',
      ann,
    );
    expect(await json('load_object({"_id": "u"}, "r").tags')).toEqual(['b']);
  });

  it('RMPCollection.find and aggregate in a JS script', async () => {
    expect(await errorOf(ann, scriptTag('RMPCollection.find({s: {$regex: "(a+)+\\\\1b"}}, "r");'))).toMatch(
      new RegExp(
        `^RMPCollection\\.find: \\$regex "\\(a\\+\\)\\+\\\\\\\\1b" uses a back-reference, .* \\(script line 1, column \\d+\\)$`,
      ),
    );
    const t0 = Date.now();
    const { output } = await evaluate(
      scriptTag('RMPData.setOutput(String(RMPCollection.count({s: {$regex: "^(a+)+b$"}}, "r")));'),
      ann,
    );
    expect(output).toBe('0');
    expect(Date.now() - t0).toBeLessThan(5000);
  });
});

describeEachEngine('query regex: REST routes', (engine) => {
  const server = useServer(engine);
  const c = '/api/v1/collections';

  it('a pattern that backtracks exponentially elsewhere answers at once and /health stays up', async () => {
    const token = server.acme.user.token;
    await call(server.url, 'POST', `${c}/r/documents`, { token, body: [{ s: EVIL }, { s: 'ab' }] });
    const t0 = Date.now();
    const during = fetch(`${server.url}/health`);
    const r = await call(server.url, 'POST', `${c}/r/find`, {
      token,
      body: { query: { s: { $regex: '^(a+)+b$' } } },
    });
    expect(r.status).toBe(200);
    expect(r.body.items.map((d: { s: string }) => d.s)).toEqual(['ab']);
    expect((await during).status).toBe(200);
    expect(Date.now() - t0).toBeLessThan(5000);
    const refused = await call(server.url, 'POST', `${c}/r/aggregate`, {
      token,
      body: { pipeline: [{ $match: { s: { $regex: '(a+)+\\1b' } } }] },
    });
    expect(refused.body).toEqual({
      status: 400,
      code: 'invalid',
      message: `$regex "(a+)+\\\\1b" uses a back-reference, ${LINEAR}`,
    });
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });
});
