/**
 * The edit of P_change_metadata / P_change_preferences: set one value inside a user's JSON
 * document at a dot-separated path whose numeric segments index arrays. Errors carry the
 * platform's wordings: `Expected value` (no input), `Malformed Object` (input text or path that
 * does not parse), `CastClassException` (a path going through a value of the wrong kind).
 */
import { PlatformError } from '../errors.js';
import { isForbiddenKey, isPlainObject, toJsonValue } from '../model.js';

export const EXPECTED_VALUE = 'Expected value';
export const MALFORMED_OBJECT = 'Malformed Object';
export const CAST_CLASS_EXCEPTION = 'CastClassException';

/** Largest array index a path may create (arrays are padded with null up to it). */
export const MAX_PATH_INDEX = 9999;

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * The new value an edit sets, from what the script passed: a hash, sequence, number or boolean
 * as it is; text is read as JSON when it parses, kept as a plain string when it does not look
 * like JSON, and refused (`Malformed Object`) when it starts like JSON but does not parse.
 */
export function editInput(input: unknown): Json {
  if (input === undefined || input === null) throw new PlatformError('invalid', EXPECTED_VALUE);
  if (typeof input !== 'string') return toJsonValue(input, 'the input') as Json;
  const text = input.trim();
  if (text === '') throw new PlatformError('invalid', EXPECTED_VALUE);
  try {
    return toJsonValue(JSON.parse(text), 'the input') as Json;
  } catch (e) {
    if (e instanceof PlatformError) throw e;
    if (/^[[{"]/.test(text)) throw new PlatformError('invalid', MALFORMED_OBJECT);
    return input;
  }
}

/**
 * A copy of `root` with `value` set at `path` (empty path: `value` replaces the whole document,
 * which must then be an object). Missing levels are created: an array when the next segment is
 * numeric, an object otherwise.
 */
export function setAtPath(root: Record<string, unknown>, path: string, value: Json): Record<string, unknown> {
  const trimmed = path.trim();
  if (trimmed === '') {
    if (!isPlainObject(value)) throw new PlatformError('invalid', CAST_CLASS_EXCEPTION);
    return value;
  }
  const segments = trimmed.split('.');
  for (const s of segments) {
    if (s === '') throw new PlatformError('invalid', MALFORMED_OBJECT);
    if (isForbiddenKey(s)) throw new PlatformError('not-allowed', `path segment ${s} is not allowed`);
  }
  const copy = structuredClone(root) as Record<string, Json>;
  let node: Json = copy;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const last = i === segments.length - 1;
    const next: Json | undefined = last ? value : undefined;
    if (Array.isArray(node)) {
      if (!/^\d+$/.test(segment)) throw new PlatformError('invalid', CAST_CLASS_EXCEPTION);
      const index = Number(segment);
      if (index > MAX_PATH_INDEX)
        throw new PlatformError('invalid', `array index ${segment} is over ${MAX_PATH_INDEX}`);
      while (node.length < index) node.push(null);
      if (last) node[index] = next!;
      else node[index] = container(node[index], segments[i + 1]!);
      node = node[index]!;
    } else if (isPlainObject(node)) {
      const object = node as { [key: string]: Json };
      if (last) object[segment] = next!;
      else
        object[segment] = container(
          Object.hasOwn(object, segment) ? object[segment]! : null,
          segments[i + 1]!,
        );
      node = object[segment]!;
    } else {
      throw new PlatformError('invalid', CAST_CLASS_EXCEPTION);
    }
  }
  return copy;
}

/** The existing container at a level, or a new one fit for the next segment; a scalar cannot be walked into. */
function container(existing: Json | undefined, nextSegment: string): Json {
  if (existing === undefined || existing === null) return /^\d+$/.test(nextSegment) ? [] : {};
  if (typeof existing === 'object') return existing;
  throw new PlatformError('invalid', CAST_CLASS_EXCEPTION);
}
