/** Helpers the Utilities functions share to check the values of their arguments and options. */
import {
  ArgumentTextTooLargeError,
  coercerFor,
  describeValue,
  explainMismatch,
  NO_MATCH,
} from '../coercion.js';
import { argumentError } from '../errors.js';
import type { ParamType, ValueOf } from '../spec.js';

/** A problem in the data a function was given (CSV, XML, EDI …); the caller names function and argument. */
export class DataError extends Error {
  override name = 'DataError';
}

/** Joins choices as `A, B or C`. */
export function listChoices(choices: readonly string[]): string {
  return choices.length === 1
    ? choices[0]
    : `${choices.slice(0, -1).join(', ')} or ${choices[choices.length - 1]}`;
}

/**
 * The canonical choice a keyword argument names (case-insensitive; `aliases` maps other spellings,
 * already upper-cased, to a choice), or the error `fn: argument i (name) expected A, B or C, got …`.
 */
export function choice<T extends string>(
  fn: string,
  index: number,
  name: string,
  value: string,
  choices: readonly T[],
  aliases: Readonly<Record<string, T>> = {},
): T {
  const key = value.trim().toUpperCase();
  const found = choices.find((c) => c.toUpperCase() === key) ?? aliases[key];
  if (found === undefined)
    throw argumentError(fn, index, name, `expected ${listChoices(choices)}, got ${describeValue(value)}`);
  return found;
}

export interface OptionSpec {
  type: ParamType;
  /** Extra check of a coerced value: returns an error text, or undefined when fine. */
  check?: (value: unknown) => string | undefined;
}

/**
 * Reads an options object (spec 2.3): every key must be known, each value is coerced like an
 * argument of its declared type. Errors: `fn: argument i (options) option "trim" expected …`.
 */
export function readOptions<S extends Readonly<Record<string, OptionSpec>>>(
  fn: string,
  index: number,
  name: string,
  options: Record<string, unknown> | undefined,
  schema: S,
): OptionsOf<S> {
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(options ?? {})) {
    if (!Object.prototype.hasOwnProperty.call(schema, key))
      throw argumentError(
        fn,
        index,
        name,
        `has an unknown option ${JSON.stringify(key)} (known: ${Object.keys(schema).join(', ')})`,
      );
    if (raw === null || raw === undefined) continue;
    const spec = schema[key];
    let value: unknown;
    try {
      value = coercerFor(spec.type)(raw);
    } catch (e) {
      if (e instanceof ArgumentTextTooLargeError)
        throw argumentError(fn, index, name, `option ${JSON.stringify(key)} ${e.message}`);
      throw e;
    }
    if (value === NO_MATCH)
      throw argumentError(
        fn,
        index,
        name,
        `option ${JSON.stringify(key)} ${explainMismatch(spec.type, raw)}`,
      );
    const problem = spec.check?.(value);
    if (problem) throw argumentError(fn, index, name, `option ${JSON.stringify(key)} ${problem}`);
    out[key] = value;
  }
  return out as OptionsOf<S>;
}

/** The options read from a schema: each one of its declared type, or undefined when not given. */
export type OptionsOf<S extends Readonly<Record<string, OptionSpec>>> = {
  [K in keyof S]?: ValueOf<S[K]['type']>;
};

/** Option check: a string of exactly one character. */
export function oneCharacter(value: unknown): string | undefined {
  return typeof value === 'string' && [...value].length === 1
    ? undefined
    : `must be a single character, got ${describeValue(value)}`;
}
