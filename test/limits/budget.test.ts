import { describe, expect, it } from 'vitest';
import { Budget, BudgetExceededError, evaluationLimitsFromEnv } from '../../src/limits/index.js';

describe('Budget', () => {
  it('charges allocations and refuses the one that would pass the limit, before it is counted', () => {
    const b = new Budget({ maxAllocBytes: 1024 * 1024 });
    b.allocate(1000, 'x');
    expect(b.allocated).toBe(1000);
    expect(() => b.allocateString(600_000, '?split')).toThrow(
      '?split: the value would exceed the 1 MB limit for one evaluation',
    );
    expect(b.allocated).toBe(1000);
    b.allocateSlots(10, 'y');
    expect(b.allocated).toBe(1080);
  });

  it('names the limit in its error', () => {
    const b = new Budget({ maxAllocBytes: 10 });
    try {
      b.allocate(11, '$range');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(BudgetExceededError);
      expect((e as BudgetExceededError).limit).toBe('memory');
      expect((e as BudgetExceededError).what).toBe('$range');
    }
  });

  it('ends an evaluation past its wall time', () => {
    let t = 0;
    const b = new Budget({ wallTimeMs: 1500 }, () => t);
    b.checkTime('render');
    t = 1501;
    expect(() => b.checkTime('list_objects')).toThrow(
      'list_objects: the evaluation exceeded its time limit of 1500 ms',
    );
    expect(b.remainingMs()).toBe(0);
  });

  it('reads the deployment limits from the environment and names a bad variable', () => {
    expect(
      evaluationLimitsFromEnv({ FLOWMARK_EVAL_MEMORY: '64MiB', FLOWMARK_EVAL_TIME_MS: '5000' }),
    ).toMatchObject({
      maxAllocBytes: 64 * 1024 * 1024,
      wallTimeMs: 5000,
      maxSteps: 5_000_000,
      regexTimeMs: 5000,
    });
    expect(evaluationLimitsFromEnv({ FLOWMARK_REGEX_TIME_MS: '1500' }).regexTimeMs).toBe(1500);
    expect(() => evaluationLimitsFromEnv({ FLOWMARK_EVAL_STEPS: 'lots' })).toThrow(
      'FLOWMARK_EVAL_STEPS: expected an integer from 1 to 1000000000, got "lots"',
    );
  });
});
