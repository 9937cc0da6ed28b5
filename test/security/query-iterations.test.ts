/**
 * Issue 25, families 2 and 6: collection expressions that iterate millions of times while staying
 * under the memory budget (`$reduce` over a large `$range`, `$map` inside `$map`, chains of
 * `$unwind`) are charged as steps of the evaluation's budget and stop at its step limit; keys made
 * at run time that would reach a prototype (`$arrayToObject`, `$setField`, a `$mergeObjects` of
 * such an object) are refused. Through the functions in a template on every engine, and
 * GET …/documents?query= / POST …/aggregate on the real server.
 *
 * The step limit here is 200,000 (the context's evaluation limits, the server's
 * `evaluationLimits`, as FLOWMARK_EVAL_STEPS sets them), 1/25 of the default 5,000,000, and every
 * size is scaled by the same 1/25: each query overshoots the limit by the same factor as it would
 * the default, in a twenty-fifth of the time.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ExecutionContext } from '../../src/functions/context.js';
import { evaluate } from '../../src/hosts/evaluate.js';
import { closeScripts } from '../../src/script/index.js';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from '../server/support.js';
import { buildWorld, contextIn } from '../platform/world.js';
import { errorOf } from '../script/support.js';

afterAll(() => closeScripts());

const STEP_LIMIT = 200_000;
const LIMITS = { maxSteps: STEP_LIMIT };
const STEPS = `the evaluation exceeded its limit of ${STEP_LIMIT} steps`;
/** A $reduce over twice the step limit. */
const REDUCE = {
  $reduce: { input: { $range: [0, 2 * STEP_LIMIT] }, initialValue: 0, in: { $add: ['$$value', '$$this'] } },
};
const MAP_IN_MAP = {
  $map: {
    input: { $range: [0, 600] },
    in: { $size: { $map: { input: { $range: [0, 600] }, in: '$$this' } } },
  },
};
const UNWINDS = [
  { $project: { a: { $range: [0, 200] } } },
  { $unwind: '$a' },
  { $project: { b: { $range: [0, 200] } } },
  { $unwind: '$b' },
  { $project: { c: { $range: [0, 100] } } },
  { $unwind: '$c' },
  { $count: 'n' },
];
const json = (v: unknown) => JSON.stringify(v);

describeEachEngine('collection expressions: iterations are steps, run-time keys are checked', (engine) => {
  let ann: ExecutionContext;
  beforeAll(async () => {
    const world = await contextIn(await buildWorld(engine.store), { user: 'ann' });
    ann = { ...world, limits: { ...world.limits, evaluation: LIMITS } };
    await evaluate('${save_object([{"n": 1, "a": [1, 2, 3]}, {"n": 2, "a": []}], "c")?size}', ann);
  });
  const refused = async (source: string, message: string, ms = 10_000) => {
    const started = performance.now();
    expect(await errorOf(ann, source)).toBe(message);
    expect(performance.now() - started).toBeLessThan(ms);
  };

  it.each([
    [`aggregate_collection("c", ${json({ $project: { x: REDUCE } })})`, 'aggregate_collection: $reduce'],
    [
      `aggregate_collection("c", ${json({ $project: { x: { $size: MAP_IN_MAP } } })})`,
      'aggregate_collection: $map',
    ],
    [`aggregate_collection("c", ${json(UNWINDS)})`, 'aggregate_collection: $unwind'],
    [`list_objects(${json({ $expr: { $gt: [REDUCE, 1] } })}, "c")`, 'list_objects: $reduce'],
    [`count_objects(${json({ $expr: { $in: [-1, { $range: [0, 240_000] }] } })}, "c")`, 'count_objects: $in'],
  ])('%s stops at the step limit', async (expr, what) => {
    await refused(`\${${expr}?size}`, `Template execution stopped: ${what}: ${STEPS}.`);
  });

  it('the steps are the evaluation’s: queries that each fit add up', async () => {
    const q = `<#assign r = aggregate_collection("c", ${json({ $project: { x: { $reduce: { ...REDUCE.$reduce, input: { $range: [0, 28_000] } } } } })})>`;
    expect((await evaluate(q + '${r?size}', ann)).output).toBe('2');
    await refused(q + q + '${r?size}', `Template execution stopped: aggregate_collection: $add: ${STEPS}.`);
  });

  it('the same operators over ordinary sizes still give their results', async () => {
    const out = await evaluate(
      `\${P_json_stringify(aggregate_collection("c", ${json([
        {
          $project: {
            _id: 0,
            n: 1,
            sum: { $reduce: { input: '$a', initialValue: 0, in: { $add: ['$$value', '$$this'] } } },
            doubled: { $map: { input: '$a', in: { $multiply: ['$$this', 2] } } },
            has2: { $in: [2, '$a'] },
            total: { $sum: '$a' },
            o: { $arrayToObject: { $literal: [{ k: 'x', v: 1 }] } },
            f: { $setField: { field: 'q', input: { r: 1 }, value: 2 } },
          },
        },
        { $unwind: { path: '$doubled', preserveNullAndEmptyArrays: true } },
      ])}))}`,
      ann,
    );
    expect(JSON.parse(out.output)).toEqual([
      { n: 1, sum: 6, doubled: 2, has2: true, total: 6, o: { x: 1 }, f: { r: 1, q: 2 } },
      { n: 1, sum: 6, doubled: 4, has2: true, total: 6, o: { x: 1 }, f: { r: 1, q: 2 } },
      { n: 1, sum: 6, doubled: 6, has2: true, total: 6, o: { x: 1 }, f: { r: 1, q: 2 } },
      { n: 2, sum: 0, has2: false, total: 0, o: { x: 1 }, f: { r: 1, q: 2 } },
    ]);
  });

  it.each([
    [{ $arrayToObject: [[['__proto__', { polluted: 1 }]]] }, '$arrayToObject', '__proto__'],
    [{ $arrayToObject: { $literal: [{ k: 'constructor', v: 1 }] } }, '$arrayToObject', 'constructor'],
    [{ $setField: { field: '__proto__', input: {}, value: { p: 1 } } }, '$setField', '__proto__'],
    [{ $setField: { field: 'prototype', input: {}, value: 1 } }, '$setField', 'prototype'],
    [
      { $mergeObjects: [{ $arrayToObject: { $literal: [{ k: '__proto__', v: { p: 1 } }] } }, { a: 1 }] },
      '$arrayToObject',
      '__proto__',
    ],
  ])('a key made at run time (case %#) is refused', async (expr, op, key) => {
    await refused(
      `\${aggregate_collection("c", ${json({ $project: { x: expr } })})?size}`,
      `aggregate_collection: ${op}: the key "${key}" is not allowed`,
    );
    await refused(
      `\${aggregate_collection("c", ${json({ $replaceRoot: { newRoot: { $mergeObjects: [expr, { a: 1 }] } } })})?size}`,
      `aggregate_collection: ${op}: the key "${key}" is not allowed`,
    );
  });
});

describeEachEngine('collection expressions over REST: iterations are steps', (engine) => {
  const server = useServer(engine, { evaluationLimits: LIMITS });
  const c = '/api/v1/collections';
  beforeAll(async () => {
    const r = await call(server.url, 'POST', `${c}/it/documents`, {
      token: server.acme.user.token,
      body: [{ n: 1 }, { n: 2 }],
    });
    expect(r.status).toBe(201);
  });

  it('GET …/documents?query= with $expr over a $reduce of twice the limit: refused at the step limit', async () => {
    const started = performance.now();
    const query = encodeURIComponent(json({ $expr: { $gt: [REDUCE, 1] } }));
    const r = await call(server.url, 'GET', `${c}/it/documents?query=${query}`, {
      token: server.acme.user.token,
    });
    expect(r.body).toEqual({ status: 422, code: 'step-limit', message: `$reduce: ${STEPS}` });
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('POST …/aggregate: $map in $map, $unwind chains, and a run-time __proto__ key', async () => {
    for (const [pipeline, body] of [
      [
        [{ $project: { x: { $size: MAP_IN_MAP } } }],
        { status: 422, code: 'step-limit', message: `$map: ${STEPS}` },
      ],
      [UNWINDS, { status: 422, code: 'step-limit', message: `$unwind: ${STEPS}` }],
      [
        [{ $project: { x: { $arrayToObject: [[['__proto__', { p: 1 }]]] } } }],
        { status: 400, code: 'not-allowed', message: '$arrayToObject: the key "__proto__" is not allowed' },
      ],
    ] as const) {
      const r = await call(server.url, 'POST', `${c}/it/aggregate`, {
        token: server.acme.user.token,
        body: { pipeline },
      });
      expect(r.body).toEqual(body);
    }
  });
});
