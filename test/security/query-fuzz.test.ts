/**
 * Property (issue 13): random queries and pipelines built from the operators that allocate —
 * `$range` with huge bounds, `$concat`/`$concatArrays` doubling, `$replaceAll` with an empty
 * `find`, `$zip`, `$map`, `$reduce`, `$split`, `$setUnion`, `$arrayToObject`, `$push`, `$unwind`,
 * `$densify`, `$facet` — through the functions (as a template calls them) and the service. The
 * process never aborts, and each run either answers or fails with a clear error: a
 * BudgetExceededError, the function's FunctionError or the service's CollectionError, never an
 * engine RangeError ("Invalid array length", "Invalid string length", "invalid size").
 */
import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import type { ExecutionContext } from '../../src/functions/context.js';
import { FunctionError } from '../../src/functions/errors.js';
import { Budget, BudgetExceededError } from '../../src/limits/index.js';
import { CollectionError } from '../../src/platform/collections/index.js';
import { describeEachEngine } from '../support/engines.js';
import { buildWorld, call, contextIn, type World } from '../platform/world.js';

const ENGINE_LIMIT =
  /Invalid array length|Invalid string length|invalid size|call stack|Invalid typed array/i;

const number = fc.oneof(
  fc.integer({ min: -5, max: 5 }),
  fc.constantFrom(1e6, 1e8, 150_000_000, 2 ** 31, 2 ** 32, 2 ** 53, -1e9, 1e300, 0.5, -1),
);

const { array, text } = fc.letrec<{ array: unknown; text: unknown }>((tie) => ({
  array: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('$a', [1, 2, 3], []),
    fc.tuple(number, number).map(([a, b]) => ({ $range: [a, b] })),
    fc.tuple(number, number, number).map(([a, b, c]) => ({ $range: [a, b, c] })),
    fc.tuple(tie('array'), tie('array')).map(([a, b]) => ({ $concatArrays: [a, b] })),
    tie('array').map((a) => ({ $map: { input: a, in: ['$$this', '$$this'] } })),
    tie('array').map((a) => ({ $filter: { input: a, cond: true } })),
    fc
      .tuple(tie('array'), tie('array'), fc.boolean())
      .map(([a, b, l]) => ({ $zip: { inputs: [a, b], useLongestLength: l } })),
    fc.tuple(tie('array'), tie('array')).map(([a, b]) => ({ $setUnion: [a, b] })),
    tie('text').map((s) => ({ $split: [s, ''] })),
    fc.tuple(tie('array'), number).map(([a, n]) => ({ $slice: [a, n] })),
    tie('array').map((a) => ({
      $objectToArray: { $arrayToObject: { $map: { input: a, in: [{ $toString: '$$this' }, '$$this'] } } },
    })),
    fc.tuple(tie('array'), number).map(([a, n]) => ({
      $reduce: { input: { $range: [0, n] }, initialValue: a, in: { $concatArrays: ['$$value', '$$value'] } },
    })),
  ),
  text: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('$s', 'ab', ''),
    fc.tuple(tie('text'), tie('text')).map(([a, b]) => ({ $concat: [a, b] })),
    fc
      .tuple(tie('text'), tie('text'))
      .map(([a, b]) => ({ $replaceAll: { input: a, find: '', replacement: b } })),
    tie('text').map((s) => ({ $toUpper: s })),
    fc.tuple(tie('text'), number, number).map(([s, a, b]) => ({ $substrCP: [s, a, b] })),
    fc.tuple(tie('text'), number).map(([s, n]) => ({
      $reduce: { input: { $range: [0, n] }, initialValue: s, in: { $concat: ['$$value', '$$value'] } },
    })),
    tie('array').map((a) => ({ $toString: { $size: a } })),
  ),
}));

const value = fc.oneof(
  array.map((a) => ({ $size: a })),
  text.map((s) => ({ $strLenCP: s })),
);

const stage = fc.oneof(
  value.map((v) => ({ $project: { v } })),
  array.map((a) => ({ $project: { a } })),
  fc.constant({ $unwind: '$a' }),
  value.map((v) => ({ $group: { _id: 'all', p: { $push: v }, q: { $addToSet: '$a' } } })),
  fc.tuple(number, number).map(([lo, hi]) => ({
    $densify: { field: 'n', range: { step: 1, bounds: [Math.min(lo, hi), Math.max(lo, hi) + 1] } },
  })),
  fc
    .tuple(value, value)
    .map(([x, y]) => ({ $facet: { x: [{ $project: { x } }], y: [{ $project: { y } }] } })),
);

const run = fc.record({
  surface: fc.constantFrom(
    'list_objects',
    'count_objects',
    'aggregate_collection',
    'service.find',
    'service.aggregate',
  ),
  condition: value,
  pipeline: fc.array(stage, { minLength: 1, maxLength: 3 }),
});

describeEachEngine('query fuzz: allocating operators never take the process down', (engine) => {
  let w: World;
  let ann: ExecutionContext;
  beforeAll(async () => {
    w = await buildWorld(engine.store);
    ann = await contextIn(w, { user: 'ann' });
    await call(
      ann,
      'save_object',
      [
        { n: 1, s: 'ab', a: [1, 2] },
        { n: 2, s: 'cd', a: [3] },
      ],
      'fuzz',
    );
  });

  it('answers or throws a clear error for every random query and pipeline', async () => {
    const seen = { answered: 0, budget: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(run, async ({ surface, condition, pipeline }) => {
        const budget = new Budget({ maxAllocBytes: 32 * 1024 * 1024, wallTimeMs: 1500 });
        const ctx = { ...ann, budget };
        const filter = { $expr: { $gte: [condition, 0] } };
        const service = w.platform.collections;
        const t0 = Date.now();
        try {
          if (surface === 'list_objects') await call(ctx, surface, filter, 'fuzz');
          else if (surface === 'count_objects') await call(ctx, surface, filter, 'fuzz');
          else if (surface === 'aggregate_collection') await call(ctx, surface, 'fuzz', pipeline);
          else if (surface === 'service.find') await service.find(ann, 'fuzz', filter, { budget });
          else await service.aggregate(ann, 'fuzz', pipeline, { budget });
          seen.answered++;
        } catch (e) {
          if (e instanceof BudgetExceededError) seen.budget++;
          else if (e instanceof FunctionError || e instanceof CollectionError) seen.refused++;
          else throw e;
          expect((e as Error).message).not.toMatch(ENGINE_LIMIT);
        }
        expect(Date.now() - t0).toBeLessThan(5000);
      }),
      { numRuns: 120, seed: 13 },
    );
    // The property saw every outcome (a generator that only ever failed would prove little).
    expect(seen.answered).toBeGreaterThan(0);
    expect(seen.budget).toBeGreaterThan(0);
  }, 120_000);
});
