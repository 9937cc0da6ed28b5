/**
 * One source per table (issue 31): the 177 built-in names of FreeMarker 2.3.31 the parser accepts
 * are exactly the built-ins the families implement plus the ones refused as unsupported, and no
 * name is implemented by two families (Object.assign would let the later one win silently).
 */
import { describe, expect, it } from 'vitest';
import { BUILTIN_NAMES, UNSUPPORTED_BUILTINS } from '../../src/template/builtin-names.js';
import { BUILTINS, STRING_CONVERSION_BUILT_INS } from '../../src/template/builtins/index.js';
import { NUMBER_BUILT_INS } from '../../src/template/builtins/numbers.js';
import { DATE_BUILT_INS } from '../../src/template/builtins/dates.js';
import { SEQUENCE_BUILT_INS } from '../../src/template/builtins/sequences.js';
import { STRING_BUILT_INS } from '../../src/template/builtins/strings.js';
import { TRUNCATE_BUILT_INS } from '../../src/template/builtins/truncate.js';
import { CONDITIONAL_BUILT_INS } from '../../src/template/builtins/conditionals.js';
import { LAMBDA_BUILT_INS } from '../../src/template/builtins/lambdas.js';
import { LOOP_VARIABLE_BUILT_INS } from '../../src/template/builtins/loop-variables.js';
import { EXISTENCE_BUILT_INS } from '../../src/template/builtins/existence.js';
import { TYPE_TEST_BUILT_INS } from '../../src/template/builtins/type-tests.js';
import { OUTPUT_FORMAT_BUILT_INS } from '../../src/template/builtins/output-formats.js';
import { EXPERT_BUILT_INS } from '../../src/template/builtins/expert.js';

const FAMILIES = {
  numbers: NUMBER_BUILT_INS,
  dates: DATE_BUILT_INS,
  sequences: SEQUENCE_BUILT_INS,
  strings: STRING_BUILT_INS,
  truncate: TRUNCATE_BUILT_INS,
  'string conversions': STRING_CONVERSION_BUILT_INS,
  conditionals: CONDITIONAL_BUILT_INS,
  lambdas: LAMBDA_BUILT_INS,
  'loop variables': LOOP_VARIABLE_BUILT_INS,
  existence: EXISTENCE_BUILT_INS,
  'type tests': TYPE_TEST_BUILT_INS,
  'output formats': OUTPUT_FORMAT_BUILT_INS,
  expert: EXPERT_BUILT_INS,
};

describe('the built-in tables', () => {
  it('list 177 names, none twice', () => {
    expect(BUILTIN_NAMES).toHaveLength(177);
    expect(new Set(BUILTIN_NAMES).size).toBe(BUILTIN_NAMES.length);
  });

  it('implement every name but the unsupported ones, and nothing else', () => {
    const implemented = Object.keys(BUILTINS).sort();
    const expected = BUILTIN_NAMES.filter((n) => !UNSUPPORTED_BUILTINS.has(n)).sort();
    expect(implemented).toEqual(expected);
    expect([...UNSUPPORTED_BUILTINS].filter((n) => !BUILTIN_NAMES.includes(n))).toEqual([]);
    expect([...UNSUPPORTED_BUILTINS].filter((n) => n in BUILTINS)).toEqual([]);
  });

  it('have each name in one family only', () => {
    const owners = new Map<string, string[]>();
    for (const [family, table] of Object.entries(FAMILIES))
      for (const name of Object.keys(table)) owners.set(name, [...(owners.get(name) ?? []), family]);
    expect([...owners].filter(([, families]) => families.length > 1)).toEqual([]);
  });
});
