/** The console's JSON path locator (validation errors shown at their place), without a browser. */
import { describe, expect, it } from 'vitest';
import { locate, parsePath, splitDefinitionError } from '../../src/console/json-path.js';

const TEXT = `{
  "name": "order",
  "steps": [
    { "id": 1, "input": { "total": "\${a}" } },
    { "id": 2, "type": "manual", "lane": "x",
      "fields": ["a", "P_b"] }
  ]
}`;

describe('console: JSON paths', () => {
  it('splits a definition error into its path and text', () => {
    expect(
      splitDefinitionError('process definition.steps[1].lane: must be a positive integer, not "x"'),
    ).toEqual({
      path: ['steps', 1, 'lane'],
      pathText: 'steps[1].lane',
      text: 'must be a positive integer, not "x"',
    });
    expect(splitDefinitionError('process definition: must be an object')).toEqual({
      path: [],
      pathText: '(the definition)',
      text: 'must be an object',
    });
    expect(splitDefinitionError('Request not found.')).toEqual({ text: 'Request not found.' });
    expect(parsePath('steps[0].input.total')).toEqual(['steps', 0, 'input', 'total']);
    expect(parsePath('steps[x]')).toBeUndefined();
  });

  it('locates a value, a missing field at its object, and array elements', () => {
    expect(locate(TEXT, ['steps', 1, 'lane'])).toEqual({ line: 5, column: 42 });
    expect(locate(TEXT, ['steps', 0, 'input', 'total'])).toEqual({ line: 4, column: 36 });
    expect(locate(TEXT, ['steps', 1, 'fields', 1])).toEqual({ line: 6, column: 23 });
    expect(locate(TEXT, ['steps', 0, 'script'])).toEqual({ line: 4, column: 5 });
    expect(locate(TEXT, ['steps', 5])).toEqual({ line: 3, column: 12 });
    expect(locate(TEXT, [])).toEqual({ line: 1, column: 1 });
    expect(locate('{"steps": [1, ', ['steps', 3])).toEqual({ line: 1, column: 11 });
  });
});
