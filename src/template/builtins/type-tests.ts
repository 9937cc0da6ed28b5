/** Type tests (?is_string, ?is_sequence, ?is_directive …). */

import { Transform } from '../transforms.js';
import { MacroValue } from '../runtime.js';
import {
  FmCollection,
  FmDate,
  FmMethod,
  MarkupOutput,
  MatchItem,
  MatchResult,
  StringBoolean,
  isDirectiveObject,
  isHash,
  isNumber,
  isSequence,
} from '../values.js';
import { builtInFamily } from './registry.js';
import { isEnumerable } from './sequences.js';
import { InterpretedTemplate } from './expert.js';

const { def, records } = builtInFamily();

// ------------------------------------------------------------------ type tests

function isTest(name: string, test: (v: unknown) => boolean): void {
  def(name, { value: (_env, t) => test(t) });
}
const isStr = (v: unknown): boolean => typeof v === 'string' || v instanceof MatchItem;
isTest('is_string', isStr);
isTest('is_number', isNumber);
isTest('is_boolean', (v) => typeof v === 'boolean' || v instanceof MatchResult || v instanceof StringBoolean);
isTest('is_date', (v) => v instanceof FmDate);
isTest('is_date_like', (v) => v instanceof FmDate);
isTest('is_date_only', (v) => v instanceof FmDate && v.kind === 'date');
isTest('is_time', (v) => v instanceof FmDate && v.kind === 'time');
isTest('is_datetime', (v) => v instanceof FmDate && v.kind === 'datetime');
isTest('is_unknown_date_like', (v) => v instanceof FmDate && v.kind === 'unknown');
isTest('is_method', (v) => typeof v === 'function' || v instanceof FmMethod);
isTest('is_macro', (v) => v instanceof MacroValue);
isTest('is_transform', (v) => v instanceof Transform);
isTest(
  'is_directive',
  (v) => v instanceof MacroValue || isDirectiveObject(v) || v instanceof InterpretedTemplate,
);
isTest('is_sequence', (v) => isSequence(v));
isTest('is_indexable', (v) => isSequence(v));
isTest('is_collection', (v) => v instanceof FmCollection);
isTest('is_collection_ex', (v) => v instanceof FmCollection);
isTest('is_enumerable', (v) => isEnumerable(v) || v instanceof FmCollection);
isTest('is_hash', (v) => isHash(v));
isTest('is_hash_ex', (v) => isHash(v) && !(v?.constructor?.name === 'LookupHash'));
isTest('is_node', () => false);
isTest('is_markup_output', (v) => v instanceof MarkupOutput);

export const TYPE_TEST_BUILT_INS = records;
