/**
 * parseDefinition's errors name their path; one answer names the first error of every step (one
 * line each, at most 20), so the console can show each at its place.
 */
import { describe, expect, it } from 'vitest';
import { parseDefinition } from '../../../src/platform/processes/definition.js';

const refused = (value: unknown): string => {
  try {
    parseDefinition(value);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('accepted');
};

describe('process definitions: errors at their path', () => {
  it('names one error as before', () => {
    expect(refused({ name: 'a', steps: [{ id: 1 }, { id: 2, lane: 'x' }] })).toBe(
      'process definition.steps[1].lane: must be a positive integer, not "x"',
    );
    expect(refused({ name: 'a', steps: [] })).toBe(
      'process definition.steps: must be a non-empty array of steps',
    );
    expect(refused([])).toBe('process definition: must be an object');
  });

  it('names the first error of every step, and of the name, one per line', () => {
    expect(
      refused({
        name: '',
        steps: [
          { id: 1, input: { P_user: 'x' }, lane: 0 },
          { id: 2 },
          { id: 2, type: 'manual', on_timeout: 2 },
          { id: 4, type: 'subprocess', process: { name: 'c', steps: [{ id: 'one' }, { id: 2, wait: 1 }] } },
        ],
      }).split('\n'),
    ).toEqual([
      'process definition.name: must be a text of 1 to 255 characters',
      'process definition.steps[0].lane: must be a positive integer, not 0',
      'process definition.steps[2].id: step id 2 is used twice',
      'process definition.steps[3].process.steps[0].id: must be a positive integer, not "one"',
      'process definition.steps[3].process.steps[1]: unknown field "wait" (known: id, type, name, lane, input, output, loop, retry, script)',
    ]);
  });

  it('checks on_timeout once the steps are valid, and bounds the lines', () => {
    expect(refused({ name: 'a', steps: [{ id: 1, type: 'manual', on_timeout: 2 }] })).toBe(
      'process definition.steps[0].on_timeout: needs a deadline',
    );
    const steps = Array.from({ length: 30 }, (_, i) => ({ id: i + 1, lane: -1 }));
    const lines = refused({ name: 'a', steps }).split('\n');
    expect(lines).toHaveLength(21);
    expect(lines[19]).toBe('process definition.steps[19].lane: must be a positive integer, not -1');
    expect(lines[20]).toBe('… and 10 more');
  });
});
