/**
 * Property: the library functions — list_objects (with $query/$orderby, first, limit),
 * count_objects and aggregate_collection, bound through the registry and called as a template
 * calls them (hashes or JSON text, numbers or integer text) — answer exactly what plain mingo
 * answers over the same documents, on every engine. The documents go in with save_object and the
 * indexes with R_create_index, so the whole public path is exercised, pushdown included.
 */
import fc from 'fast-check';
import { aggregate as mingoAggregate, find as mingoFind } from 'mingo';
import { beforeAll, expect, it } from 'vitest';
import type { ExecutionContext } from '../../../src/functions/context.js';
import type { SortSpec } from '../../../src/platform/collections/index.js';
import { describeEachEngine } from '../../support/engines.js';
import { buildWorld, call, contextIn } from '../world.js';
import { scenario, toObject } from './arbitraries.js';

/** How one query is written in the calls (the answer must not depend on it). */
const callShape = fc.record({
  /** Query, condition and pipeline arguments as JSON text rather than hashes. */
  text: fc.boolean(),
  /** list_objects with `{"$query": …}` even when there is no $orderby. */
  wrap: fc.boolean(),
  /** `$orderby` as an array of one-key objects rather than one object. */
  orderbyArray: fc.boolean(),
  first: fc.constantFrom('number', 'text', 'omitted'),
  /** An absent limit is passed as nothing or as 0 (both mean 1000). */
  limit: fc.constantFrom('number', 'text', 'zero'),
  /** Where the pipeline is cut into aggregate_collection arguments, and lone stages left unwrapped. */
  cuts: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
  bare: fc.boolean(),
});

const MAX_RESULT = 1000;

type Shape = typeof callShape extends fc.Arbitrary<infer T> ? T : never;

function listArguments(
  filter: Record<string, unknown>,
  sort: SortSpec,
  skip: number,
  limit: number | undefined,
  shape: Shape,
): unknown[] {
  let query: Record<string, unknown> = filter;
  if (sort.length) {
    const orderby = shape.orderbyArray ? sort.map(([p, d]) => ({ [p]: d })) : toObject(sort);
    query = { $query: filter, $orderby: orderby };
  } else if (shape.wrap) query = { $query: filter };
  const args: unknown[] = [shape.text ? JSON.stringify(query) : query];
  const asGiven = (n: number) => (shape.text ? String(n) : n);
  const limitArg =
    limit !== undefined
      ? shape.limit === 'text'
        ? String(limit)
        : limit
      : shape.limit === 'zero'
        ? asGiven(0)
        : undefined;
  if (skip !== 0 || shape.first !== 'omitted' || limitArg !== undefined)
    args.push(shape.first === 'text' ? String(skip) : skip);
  if (limitArg !== undefined) args.push(limitArg);
  return args;
}

function pipelineArguments(stages: Array<Record<string, unknown>>, shape: Shape): unknown[] {
  const parts: Array<Array<Record<string, unknown>>> = [];
  stages.forEach((stage, i) => {
    if (i === 0 || shape.cuts[i % shape.cuts.length]) parts.push([stage]);
    else parts[parts.length - 1]!.push(stage);
  });
  return parts.map((part) => {
    const value = part.length === 1 && shape.bare ? part[0] : part;
    return shape.text ? JSON.stringify(value) : value;
  });
}

describeEachEngine('collection functions agree with mingo', (engine) => {
  let ctx: ExecutionContext;
  beforeAll(async () => {
    const world = await buildWorld(engine.store);
    ctx = await contextIn(world, { user: 'ann' });
  });

  let run = 0;
  it('for list_objects, count_objects and aggregate_collection over random documents and queries', async () => {
    await fc.assert(
      fc.asyncProperty(
        scenario,
        fc.array(callShape, { minLength: 4, maxLength: 4 }),
        async ({ docs, indexes, queries }, shapes) => {
          const name = `f${run++}`;
          const stored = await call(
            ctx,
            'save_object',
            (docs as Array<Record<string, unknown>>).map((d, i) => ({ _id: `d${i}`, ...d })),
            name,
          );
          for (const key of indexes)
            expect(await call(ctx, 'R_create_index', name, `ix_${key}`, [key])).toBe(true);
          const plain = JSON.parse(JSON.stringify(stored)) as Record<string, unknown>[];
          for (const [i, q] of queries.entries()) {
            const shape = shapes[i]!;

            let cursor = mingoFind(plain, q.filter);
            if (q.sort.length) cursor = cursor.sort(toObject(q.sort));
            cursor = cursor.skip(q.skip).limit(q.limit ?? MAX_RESULT);
            const listArgs = listArguments(q.filter, q.sort, q.skip, q.limit, shape);
            expect(await call(ctx, 'list_objects', listArgs[0], name, ...listArgs.slice(1))).toEqual(
              cursor.all(),
            );

            const where = shape.text ? JSON.stringify(q.filter) : q.filter;
            expect(await call(ctx, 'count_objects', where, name)).toBe(
              mingoFind(plain, q.filter).all().length,
            );

            const stages: Array<Record<string, unknown>> = [{ $match: q.filter }];
            if (q.sort.length) stages.push({ $sort: toObject(q.sort) });
            if (q.skip) stages.push({ $skip: q.skip });
            if (q.limit !== undefined) stages.push({ $limit: q.limit });
            stages.push(...q.tail);
            expect(
              await call(ctx, 'aggregate_collection', name, ...pipelineArguments(stages, shape)),
            ).toEqual(mingoAggregate(plain, stages).slice(0, MAX_RESULT));
          }
          expect(await call(ctx, 'remove_collection', name)).toBe(true);
        },
      ),
      { numRuns: Number(process.env.FLOWMARK_PROPERTY_RUNS ?? 100) },
    );
  }, 120_000);
});
