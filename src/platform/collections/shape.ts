/**
 * The shape of a collection: for each field path seen in any of its documents, which JSON types
 * occur there. It only grows (removing documents never shrinks it), so a plan made from an older
 * shape version is checked against the current version in the same statement that reads the
 * documents (see service.ts). Query pushdown relies on it:
 * - a path with an array at it or above it is never pushed down (MongoDB matches array elements);
 * - the types decide which SQL comparisons are exact and whether a sort can be done by SQL.
 * Arrays are not descended into. Past `maxPaths` paths the shape stops recording new ones and
 * marks itself `overflow`: unrecorded paths are then treated as unknown (not pushed down).
 */
import {
  JSON_ARRAY,
  JSON_BOOLEAN,
  JSON_HIGH_STRING,
  JSON_NULL,
  JSON_NUMBER,
  JSON_OBJECT,
  JSON_STRING,
} from '../../store/index.js';
import { dictionary, isRecord, propertyOf } from '../../safety/narrow.js';

/** The type bits are the document dialect's (src/store/documents.ts), which reads them. */
export const NULL = JSON_NULL;
export const NUMBER = JSON_NUMBER;
export const STRING = JSON_STRING;
export const BOOLEAN = JSON_BOOLEAN;
export const OBJECT = JSON_OBJECT;
export const ARRAY = JSON_ARRAY;
/** A string with a UTF-16 surrogate or a character ≥ U+E000, where code-point and UTF-16 order differ. */
export const HIGH_STRING = JSON_HIGH_STRING;

export interface Shape {
  paths: Record<string, number>;
  overflow: boolean;
}

export function emptyShape(): Shape {
  return { paths: dictionary<number>(), overflow: false };
}

export function parseShape(text: string): Shape {
  const raw: unknown = JSON.parse(text || '{}');
  const paths = dictionary<number>();
  const stored = propertyOf(raw, 'paths');
  if (isRecord(stored)) for (const [k, v] of Object.entries(stored)) if (typeof v === 'number') paths[k] = v;
  return { paths, overflow: propertyOf(raw, 'overflow') === true };
}

export function serializeShape(shape: Shape): string {
  return JSON.stringify({ paths: shape.paths, overflow: shape.overflow });
}

const HIGH = /[\uD800-\uFFFF]/;

export function typeBits(value: unknown): number {
  if (value === null || value === undefined) return NULL;
  switch (typeof value) {
    case 'number':
      return NUMBER;
    case 'string':
      return HIGH.test(value) ? STRING | HIGH_STRING : STRING;
    case 'boolean':
      return BOOLEAN;
    default:
      return Array.isArray(value) ? ARRAY : OBJECT;
  }
}

/**
 * Adds the types of one document to `shape` (in place). Returns true when something changed.
 */
export function addToShape(shape: Shape, doc: Record<string, unknown>, maxPaths: number): boolean {
  let changed = false;
  let count = -1;
  const visit = (obj: Record<string, unknown>, prefix: string) => {
    for (const key of Object.keys(obj)) {
      const value = obj[key];
      const path = prefix ? `${prefix}.${key}` : key;
      const bits = typeBits(value);
      const known = shape.paths[path];
      if (known === undefined) {
        if (count < 0) count = Object.keys(shape.paths).length;
        if (count >= maxPaths) {
          if (!shape.overflow) changed = true;
          shape.overflow = true;
          continue;
        }
        shape.paths[path] = bits;
        count++;
        changed = true;
      } else if ((known | bits) !== known) {
        shape.paths[path] = known | bits;
        changed = true;
      }
      if (bits === OBJECT && isRecord(value)) visit(value, path);
    }
  };
  visit(doc, '');
  return changed;
}

/** What the shape says about a dotted field path. */
export interface PathInfo {
  /** False when an array may occur at or above the path, or the path is unknown after overflow. */
  scalar: boolean;
  /** The types seen at the path (0: never present). */
  bits: number;
}

export function pathInfo(shape: Shape, path: string): PathInfo {
  const segments = path.split('.');
  let prefix = '';
  for (let i = 0; i < segments.length; i++) {
    prefix = i === 0 ? segments[0]! : `${prefix}.${segments[i]}`;
    const bits = shape.paths[prefix];
    if (bits === undefined) {
      // Never seen: absent from every document, unless the shape stopped recording.
      return shape.overflow ? { scalar: false, bits: 0 } : { scalar: true, bits: 0 };
    }
    if (bits & ARRAY) return { scalar: false, bits };
    if (i < segments.length - 1 && !(bits & OBJECT)) {
      // Nothing deeper exists below a scalar; mingo and SQL both see the deeper path as missing.
      return { scalar: true, bits: 0 };
    }
  }
  return { scalar: true, bits: shape.paths[path] ?? 0 };
}
