/** RenderOptions.budget: one budget for the template and the functions it calls. */
import { describe, expect, it } from 'vitest';
import { Budget } from '../../src/limits/budget.js';
import { compile, TemplateError } from '../../src/template/index.js';

describe('the render budget', () => {
  it('is shared with the functions the template calls; #attempt does not catch a breach', async () => {
    const budget = new Budget({ maxAllocBytes: 1024 });
    const grab = (n: number) => {
      budget.allocate(n, 'grab');
      return n;
    };
    const t = compile('<#attempt>${grab(600)} ${grab(600)}<#recover>recovered</#attempt>');
    const e = await t.render({ grab }, { budget }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TemplateError);
    expect((e as TemplateError).kind).toBe('LimitExceeded');
    expect((e as TemplateError).message).toMatch(
      /^Template execution stopped: grab: the value would exceed the 1 KB limit for one evaluation\./,
    );
    expect(budget.allocated).toBe(600);
  });

  it('charges what the built-ins build against the same budget', async () => {
    const budget = new Budget({ maxAllocBytes: 1024 * 1024 });
    await compile('${"x"?left_pad(100000)?length}').render({}, { budget });
    expect(budget.allocated).toBe(200000);
    await expect(compile('${"x"?left_pad(600000)}').render({}, { budget })).rejects.toThrow(
      'Template execution stopped: ?left_pad: the value would exceed the 1 MB limit for one evaluation.',
    );
  });

  it('ends an endless loop at the wall time, looked at every few thousand steps', async () => {
    const started = performance.now();
    const t = compile('<#list 1.. as i><#assign x = i></#list>');
    await expect(t.render({}, { budget: new Budget({ wallTimeMs: 300, maxSteps: 1e9 }) })).rejects.toThrow(
      'Template execution stopped: the template: the evaluation exceeded its time limit of 300 ms.',
    );
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it('takes the step and output limits from the budget unless `limits` sets them', async () => {
    const budget = new Budget({ maxSteps: 100, maxOutputChars: 50 });
    await expect(compile('<#list 1..1000 as i></#list>').render({}, { budget })).rejects.toThrow(
      'Template execution stopped: the render exceeded 100 steps.',
    );
    await expect(
      compile('<#list 1..1000 as i></#list>').render({}, { budget, limits: { maxSteps: 10_000 } }),
    ).resolves.toBe('');
    await expect(compile('${"x"?left_pad(60)}').render({}, { budget })).rejects.toThrow(
      'Template execution stopped: a string of 60 characters exceeds the output limit (50).',
    );
  });
});
