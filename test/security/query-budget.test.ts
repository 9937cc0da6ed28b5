/**
 * Issue 13: no collection query can take the process down. Queries and pipelines that would
 * build huge values (a `$range` of 150 million items aborted Node with "invalid size error"),
 * double strings or arrays, or generate documents without end are refused with a clear error
 * charged to the evaluation's budget (src/limits), before the value exists: through the library
 * functions in a template, RMPCollection in a JS script (this file) and the REST routes
 * (query-budget-server.test.ts).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ExecutionContext } from '../../src/functions/context.js';
import { evaluate } from '../../src/hosts/evaluate.js';
import { Budget, BudgetExceededError } from '../../src/limits/index.js';
import { closeScripts } from '../../src/script/index.js';
import { describeEachEngine } from '../support/engines.js';
import { buildWorld, contextIn, type World } from '../platform/world.js';
import { errorOf, scriptTag } from '../script/support.js';

afterAll(() => closeScripts());

const MEMORY = 'the value would exceed the 256 MB limit for one evaluation';
/**
 * A smaller budget for the queries that would build their values up to the limit (doubling a
 * string, three ranges to zip, two facets): refused at 32 MB in an eighth of the work, the sizes
 * scaled to it.
 */
const SMALL = 32 * 1024 * 1024;
const SMALL_MEMORY = 'the value would exceed the 32 MB limit for one evaluation';
/** A string doubled 40 times (a trillion characters) unless something stops it. */
const DOUBLED_STRING =
  '{"$reduce": {"input": {"$range": [0, 40]}, "initialValue": "ab", "in": {"$concat": ["$$value", "$$value"]}}}';
const DOUBLED_ARRAY =
  '{"$reduce": {"input": {"$range": [0, 40]}, "initialValue": [1, 2], "in": {"$concatArrays": ["$$value", "$$value"]}}}';

/** The error of a template and the time it took. */
async function failing(ctx: ExecutionContext, source: string): Promise<{ message: string; ms: number }> {
  const t0 = Date.now();
  const message = await errorOf(ctx, source);
  return { message, ms: Date.now() - t0 };
}

describeEachEngine('query budget: functions and scripts', (engine) => {
  let w: World;
  let ann: ExecutionContext;
  /** A context whose evaluations get these limits (the host starts one budget per evaluation). */
  const evaluation = (limits: ConstructorParameters<typeof Budget>[0] = {}): ExecutionContext => ({
    ...ann,
    limits: { ...ann.limits, evaluation: limits },
  });
  const expectRefused = async (source: string, message: string, ctx = evaluation()) => {
    const r = await failing(ctx, source);
    // A budget breach ends the render (LimitExceeded, which #attempt does not catch).
    const budgetBreach = / for one evaluation$|exceeded its time limit of /.test(message);
    expect(r.message).toBe(budgetBreach ? `Template execution stopped: ${message}.` : message);
    expect(r.ms).toBeLessThan(5000);
  };

  beforeAll(async () => {
    w = await buildWorld(engine.store);
    ann = await contextIn(w, { user: 'ann' });
    await evaluate(
      '${save_object([{"n": 1, "s": "ab", "a": [1, 2]}, {"n": 2, "s": "cd", "a": []}], "c")?size}',
      ann,
    );
  });

  it('list_objects: $range of 150 million items in $expr (the process abort) is refused before it is built', async () => {
    await expectRefused(
      '${list_objects({"$expr": {"$gt": [{"$size": {"$range": [0, 150000000]}}, 1]}}, "c")?size}',
      `list_objects: $range: ${MEMORY}`,
    );
    // count_objects and load_object run the same filter.
    await expectRefused(
      '${count_objects({"$expr": {"$gt": [{"$size": {"$range": [0, 150000000]}}, 1]}}, "c")}',
      `count_objects: $range: ${MEMORY}`,
    );
    await expectRefused(
      '${load_object({"$expr": {"$in": [-1, {"$range": [0, 150000000]}]}}, "c")?size}',
      `load_object: $range: ${MEMORY}`,
    );
  });

  it('aggregate_collection: $project with $range, a huge negative step, and $range beside its budget', async () => {
    await expectRefused(
      '${aggregate_collection("c", {"$project": {"r": {"$range": [0, 150000000]}}})?size}',
      `aggregate_collection: $range: ${MEMORY}`,
    );
    await expectRefused(
      '${aggregate_collection("c", {"$project": {"r": {"$range": [1000000000000, 0, -1]}}})?size}',
      `aggregate_collection: $range: ${MEMORY}`,
    );
    // A range that fits is answered as MongoDB does.
    const { output } = await evaluate(
      '${aggregate_collection("c", {"$match": {"n": 1}}, {"$project": {"_id": 0, "r": {"$range": [0, 10, 3]}}})[0].r?join(",")}',
      evaluation(),
    );
    expect(output).toBe('0,3,6,9');
  });

  it('$reduce doubling a string or an array fails fast, charged for each value it builds', async () => {
    const small = evaluation({ maxAllocBytes: SMALL });
    await expectRefused(
      `\${aggregate_collection("c", {"$project": {"r": ${DOUBLED_STRING}}})?size}`,
      `aggregate_collection: $concat: ${SMALL_MEMORY}`,
      small,
    );
    await expectRefused(
      `\${aggregate_collection("c", {"$project": {"r": ${DOUBLED_ARRAY}}})?size}`,
      `aggregate_collection: $concatArrays: ${SMALL_MEMORY}`,
      small,
    );
    await expectRefused(
      `\${list_objects({"$expr": {"$gt": [{"$strLenCP": ${DOUBLED_STRING}}, 1]}}, "c")?size}`,
      `list_objects: $concat: ${SMALL_MEMORY}`,
      small,
    );
  });

  it('string and array operators whose result size comes from their arguments', async () => {
    const big =
      '{"$reduce": {"input": {"$range": [0, 20]}, "initialValue": "ab", "in": {"$concat": ["$$value", "$$value"]}}}';
    await expectRefused(
      `\${aggregate_collection("c", {"$project": {"r": {"$replaceAll": {"input": ${big}, "find": "", "replacement": "${'x'.repeat(200)}"}}}})?size}`,
      `aggregate_collection: $replaceAll: ${MEMORY}`,
    );
    await expectRefused(
      '${aggregate_collection("c", {"$project": {"z": {"$zip": {"inputs": [{"$range": [0, 625000]}, {"$range": [0, 625000]}, {"$range": [0, 625000]}], "useLongestLength": true}}}})?size}',
      `aggregate_collection: $zip: ${SMALL_MEMORY}`,
      evaluation({ maxAllocBytes: SMALL }),
    );
    // Small values built many times add up (a smaller budget keeps the test short).
    const small = evaluation({ maxAllocBytes: 1024 * 1024 });
    await expectRefused(
      '${aggregate_collection("c", {"$project": {"m": {"$map": {"input": {"$range": [0, 75000]}, "in": {"$concat": ["$s", "$s", "$s", "$s", "$s", "$s", "$s", "$s", "$s", "$s", "$s", "$s", "$s", "$s", "$s", "$s", "$s", "$s", "$s", "$s"]}}}}})?size}',
      'aggregate_collection: $concat: the value would exceed the 1 MB limit for one evaluation',
      small,
    );
    await expectRefused(
      '${aggregate_collection("c", {"$project": {"o": {"$objectToArray": {"$arrayToObject": {"$map": {"input": {"$range": [0, 50000]}, "in": [{"$toString": "$$this"}, "$$this"]}}}}}})?size}',
      'aggregate_collection: $arrayToObject: the value would exceed the 1 MB limit for one evaluation',
      small,
    );
  });

  it('pipeline stages that make documents: $densify over huge bounds, $unwind of a huge array, $push accumulators', async () => {
    await expectRefused(
      '${aggregate_collection("c", {"$densify": {"field": "n", "range": {"step": 1, "bounds": [0, 1000000000]}}})?size}',
      `aggregate_collection: $densify: ${MEMORY}`,
    );
    await expectRefused(
      '${aggregate_collection("c", {"$project": {"r": {"$range": [0, 50000]}}}, {"$unwind": "$r"})?size}',
      'aggregate_collection: $unwind: the value would exceed the 2 MB limit for one evaluation',
      evaluation({ maxAllocBytes: 2 * 1024 * 1024 }),
    );
    await expectRefused(
      '${aggregate_collection("c", {"$group": {"_id": "all", "all": {"$push": {"$range": [0, 500000]}}}})?size}',
      'aggregate_collection: $range: the value would exceed the 4 MB limit for one evaluation',
      evaluation({ maxAllocBytes: 4 * 1024 * 1024 }),
    );
  });

  it('$facet is charged for every sub-pipeline', async () => {
    await expectRefused(
      '${aggregate_collection("c", {"$facet": {"a": [{"$project": {"r": {"$range": [0, 2500000]}}}], "b": [{"$project": {"r": {"$range": [0, 2500000]}}}]}})?size}',
      `aggregate_collection: $range: ${SMALL_MEMORY}`,
      evaluation({ maxAllocBytes: SMALL }),
    );
  });

  it("the budget is the evaluation's: queries that each fit add up", async () => {
    const ctx = evaluation({ maxAllocBytes: 10 * 1024 * 1024 });
    const q =
      '${aggregate_collection("c", {"$match": {"n": 1}}, {"$project": {"r": {"$size": {"$range": [0, 400000]}}}})[0].r?c}';
    expect((await evaluate(q, ctx)).output).toBe('400000');
    expect(ctx.budget!.allocated).toBeGreaterThan(3_200_000);
    // Each evaluation starts a budget of its own: the same query fits again …
    expect((await evaluate(q, ctx)).output).toBe('400000');
    // … but four of them in one evaluation do not.
    const r = await failing(ctx, q + q + q + q);
    expect(r.message).toBe(
      'Template execution stopped: aggregate_collection: $range: the value would exceed the 10 MB limit for one evaluation.',
    );
  });

  it('past an engine limit (a deployment budget larger than V8 allows), a clear error, not a RangeError', async () => {
    await expectRefused(
      `\${aggregate_collection("c", {"$project": {"r": {"$strLenCP": ${DOUBLED_STRING}}}})?size}`,
      'aggregate_collection: the query would build a value larger than one evaluation may hold (an array or string over the engine limit)',
      evaluation({ maxAllocBytes: 64 * 1024 * 1024 * 1024 }),
    );
  });

  it('the error is a BudgetExceededError naming the function and the operator', async () => {
    const ctx = evaluation();
    let caught: unknown;
    try {
      await evaluate(
        '${aggregate_collection("c", {"$project": {"r": {"$range": [0, 150000000]}}})?size}',
        ctx,
      );
    } catch (e) {
      caught = (e as { cause?: unknown }).cause ?? e;
    }
    expect(caught).toBeInstanceOf(BudgetExceededError);
    expect((caught as BudgetExceededError).limit).toBe('memory');
    expect((caught as BudgetExceededError).what).toBe('aggregate_collection: $range');
  });

  it("a long scan stops at the evaluation's wall time", async () => {
    const docs = Array.from({ length: 3000 }, (_, i) => `{"i": ${i}}`).join(',');
    await evaluate(`\${save_object([${docs}], "slow")?size}`, ann);
    const r = await failing(
      evaluation({ wallTimeMs: 200 }),
      '${count_objects({"$expr": {"$gt": [{"$size": {"$range": [0, 20000]}}, 1]}}, "slow")}',
    );
    // The scan looks at the clock before each document, the operators every few hundred calls.
    expect(r.message).toMatch(
      /^Template execution stopped: count_objects: (query on collection 'slow'|\$range|\$size|\$gt): the evaluation exceeded its time limit of 200 ms\.$/,
    );
    expect(r.ms).toBeLessThan(5000);
  });

  it('RMPCollection.aggregate and find in a JS script get the same errors', async () => {
    const ctx = evaluation();
    const agg = await failing(
      ctx,
      scriptTag('RMPCollection.aggregate("c", {$project: {r: {$range: [0, 150000000]}}});'),
    );
    expect(agg.message).toMatch(
      new RegExp(`^RMPCollection\\.aggregate: \\$range: ${MEMORY} \\(script line 1, column \\d+\\)$`),
    );
    const find = await failing(
      evaluation(),
      scriptTag('RMPCollection.find({$expr: {$gt: [{$size: {$range: [0, 150000000]}}, 1]}}, "c");'),
    );
    expect(find.message).toMatch(
      new RegExp(`^RMPCollection\\.find: \\$range: ${MEMORY} \\(script line 1, column \\d+\\)$`),
    );
    const doubled = await failing(
      evaluation({ maxAllocBytes: SMALL }),
      scriptTag(`RMPCollection.aggregate("c", {$project: {r: ${DOUBLED_STRING}}});`),
    );
    expect(doubled.message).toMatch(/^RMPCollection\.aggregate: \$concat: the value would exceed/);
    expect(doubled.ms).toBeLessThan(5000);
  });
});
