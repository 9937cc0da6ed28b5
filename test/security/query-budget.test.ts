/**
 * Issue 13: no collection query can take the process down. Queries and pipelines that would
 * build huge values, blow up strings or arrays, or run for long are refused with a clear error
 * charged to the evaluation's budget (src/limits), through every surface: the library functions
 * in a template, the REST routes and RMPCollection in a JS script.
 */
import { beforeAll, expect, it } from 'vitest';
import type { ExecutionContext } from '../../src/functions/context.js';
import { evaluate } from '../../src/hosts/eval.js';
import { Budget } from '../../src/limits/index.js';
import { describeEachEngine } from '../support/engines.js';
import { buildWorld, contextIn, type World } from '../platform/world.js';

const MEMORY = 'the value would exceed the 256 MB limit for one evaluation';

async function renderError(source: string, ctx: ExecutionContext): Promise<string> {
  try {
    await evaluate(source, ctx);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('the template rendered');
}

describeEachEngine('query budget: functions', (engine) => {
  let w: World;
  let ann: ExecutionContext;
  const fresh = () => ({ ...ann, budget: new Budget() });
  beforeAll(async () => {
    w = await buildWorld(engine.store);
    ann = await contextIn(w, { user: 'ann' });
    await evaluate('${save_object([{"n": 1}, {"n": 2}], "c")?size}', ann);
  });

  it('list_objects with $range of 150 million items in $expr', async () => {
    const t0 = Date.now();
    const message = await renderError(
      '${list_objects({"$expr": {"$gt": [{"$size": {"$range": [0, 150000000]}}, 1]}}, "c")?size}',
      fresh(),
    );
    expect(message).toContain(`list_objects: $range: ${MEMORY}`);
    expect(Date.now() - t0).toBeLessThan(5000);
  });
});
