/**
 * Checks that narrow a value read from outside the type system (parsed JSON, a database row, an
 * options object) to the type the code needs: each one looks at the value, so a wrong value is
 * refused where it is read instead of flowing on under an assertion. A leaf like the rest of
 * safety/: it imports nothing.
 */

/** An object that is not an array (null-prototype objects included). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `value[key]` when value is an object (an array too), else undefined: a property of unknown input. */
export function propertyOf(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' ? Reflect.get(value, key) : undefined;
}

/** Is `value` one of `values` (a union's members listed once as a constant)? */
export function isOneOf<T extends string | number>(values: readonly T[], value: unknown): value is T {
  return values.some((v) => v === value);
}

/** `value` as one of `values`, else an Error: `<what>: "X" is not one of A, B, C`. */
export function oneOf<T extends string | number>(values: readonly T[], value: unknown, what: string): T {
  if (isOneOf(values, value)) return value;
  throw new Error(`${what}: ${JSON.stringify(value)} is not one of ${values.join(', ')}`);
}

/** An array of strings. */
export function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/** An empty object with no prototype, to fill as a dictionary (an empty object is any Record). */
export function dictionary<T>(): Record<string, T> {
  return Object.create(null);
}
