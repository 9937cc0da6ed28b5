/**
 * The P_json_* family and P_to_array. Every function returns a new value (the argument is never
 * changed), and refuses a key or path segment __proto__, constructor or prototype.
 */
import { boundedJson, textRoom } from '../../limits/index.js';
import { isHash, parseJsonText } from '../coercion.js';
import { budgetOf } from '../context.js';
import { argumentError, messageOf } from '../errors.js';
import { defineFunction, type FunctionSpec, type ParamSpec } from '../spec.js';
import { PROTOTYPE_KEYS as FORBIDDEN } from '../../safety/index.js';

type Json = Record<string, unknown>;
const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

function checkKey(fn: string, index: number, name: string, key: string): void {
  if (FORBIDDEN.has(key))
    throw argumentError(fn, index, name, `the key ${JSON.stringify(key)} is not allowed`);
}

function pathOf(fn: string, path: string): string[] {
  const segments = path.split('.');
  for (const s of segments) {
    if (s === '')
      throw argumentError(fn, 2, 'field', `has an empty segment in the path ${JSON.stringify(path)}`);
    checkKey(fn, 2, 'field', s);
  }
  return segments;
}

const JSON_LIKE = /^\s*(?:[{["\-0-9]|true\s*$|false\s*$)/;

/**
 * The value a P_json_* function stores. forceString: always text (hashes and sequences as their
 * JSON). Otherwise a string holding JSON (object, array, number, boolean, quoted string) is stored
 * as that JSON value, any other string as itself.
 */
export function storedValue(value: unknown, forceString: boolean): unknown {
  if (forceString) {
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    return JSON.stringify(value);
  }
  if (typeof value === 'string' && JSON_LIKE.test(value)) {
    try {
      return parseJsonText(value);
    } catch {
      return value;
    }
  }
  return value;
}

function accumulate(target: Json, key: string, value: unknown): void {
  if (!has(target, key)) target[key] = value;
  else {
    const old = target[key];
    target[key] = Array.isArray(old) ? [...old, value] : [old, value];
  }
}

/** Copies of the containers along `segments`, creating missing levels; returns the parent of the last. */
function descendForWrite(fn: string, root: Json, segments: string[]): Json | unknown[] {
  let node: Json | unknown[] = root;
  for (let i = 0; i < segments.length - 1; i++) {
    const seg = segments[i];
    const next: unknown = getChild(node, seg);
    let copy: Json | unknown[];
    if (Array.isArray(next)) copy = [...next];
    else if (isHash(next)) copy = { ...next };
    else if (next === undefined || next === null) copy = {};
    else
      throw argumentError(
        fn,
        2,
        'field',
        `cannot go through ${JSON.stringify(segments.slice(0, i + 1).join('.'))}: it holds ${typeof next === 'string' ? 'a string' : `a ${typeof next}`}`,
      );
    setChild(fn, node, seg, copy);
    node = copy;
  }
  return node;
}

function arrayIndex(seg: string): number | undefined {
  return /^\d+$/.test(seg) ? Number(seg) : undefined;
}

function getChild(node: Json | unknown[], seg: string): unknown {
  if (Array.isArray(node)) {
    const i = arrayIndex(seg);
    return i === undefined ? undefined : node[i];
  }
  return has(node, seg) ? node[seg] : undefined;
}

function setChild(fn: string, node: Json | unknown[], seg: string, value: unknown): void {
  if (Array.isArray(node)) {
    const i = arrayIndex(seg);
    if (i === undefined || i > node.length)
      throw argumentError(
        fn,
        2,
        'field',
        `${JSON.stringify(seg)} is not an index of the array there (0 to ${node.length})`,
      );
    node[i] = value;
  } else node[seg] = value;
}

const objectParam = { name: 'object', type: 'object' } satisfies ParamSpec;
const fieldParam = { name: 'field', type: 'string' } satisfies ParamSpec;
const valueParam = { name: 'value', type: 'any' } satisfies ParamSpec;
const forceStringParam = {
  name: 'forceString',
  type: 'boolean',
  optional: true,
  default: false,
} satisfies ParamSpec;

const jsonFunctions: FunctionSpec[] = [
  defineFunction({
    name: 'P_json_accumulate',
    group: 'Utilities',
    rights: 'none',
    flags: { pure: true },
    doc: 'A copy of `object` where `value` is added to `field`: set when absent; when present the field becomes an array (or stays one) and the value is appended.',
    returns: 'object',
    forms: [
      {
        params: [objectParam, fieldParam, valueParam, forceStringParam],
        impl(_ctx, args, _call, fn) {
          const [object, field, value, force] = args;
          checkKey(fn, 2, 'field', field);
          const out = { ...object };
          accumulate(out, field, storedValue(value, force));
          return out;
        },
      },
    ],
  }),
  defineFunction({
    name: 'P_json_accumulateAll',
    group: 'Utilities',
    rights: 'none',
    flags: { pure: true },
    doc: 'A copy of `object` with every field of `object2` accumulated into it (fields present in both become arrays).',
    returns: 'object',
    forms: [
      {
        params: [objectParam, { name: 'object2', type: 'object' }],
        impl(_ctx, args, _call, fn) {
          const [object, object2] = args;
          const out = { ...object };
          for (const [k, v] of Object.entries(object2)) {
            checkKey(fn, 2, 'object2', k);
            accumulate(out, k, v);
          }
          return out;
        },
      },
    ],
  }),
  defineFunction({
    name: 'P_json_parse',
    group: 'Utilities',
    rights: 'none',
    flags: { pure: true },
    doc: 'Parses JSON text (an object, or any JSON value).',
    returns: 'object',
    forms: [
      {
        params: [{ name: 'value', type: 'string' }],
        impl(_ctx, args) {
          try {
            return parseJsonText(args[0]);
          } catch (e) {
            throw argumentError('P_json_parse', 1, 'value', `is not valid JSON: ${messageOf(e)}`);
          }
        },
      },
    ],
  }),
  defineFunction({
    name: 'P_json_put',
    group: 'Utilities',
    rights: 'none',
    flags: { pure: true },
    doc:
      'A copy of `object` with `field` set to `value`. Without forceString, a string holding JSON (number, boolean, object, array) is stored as that value; ' +
      'with forceString true the value is stored as text.',
    returns: 'object',
    forms: [
      {
        params: [objectParam, fieldParam, valueParam, forceStringParam],
        impl(_ctx, args, _call, fn) {
          const [object, field, value, force] = args;
          checkKey(fn, 2, 'field', field);
          return { ...object, [field]: storedValue(value, force) };
        },
      },
    ],
  }),
  defineFunction({
    name: 'P_json_put_ext',
    group: 'Utilities',
    rights: 'none',
    flags: { pure: true },
    doc: 'Like P_json_put, `field` being a dot-separated path; missing levels are created as objects, numeric segments index existing arrays.',
    returns: 'object',
    forms: [
      {
        params: [objectParam, fieldParam, valueParam, forceStringParam],
        impl(_ctx, args, _call, fn) {
          const [object, field, value, force] = args;
          const segments = pathOf(fn, field);
          const out = { ...object };
          const parent = descendForWrite(fn, out, segments);
          setChild(fn, parent, segments[segments.length - 1], storedValue(value, force));
          return out;
        },
      },
    ],
  }),
  defineFunction({
    name: 'P_json_putAll',
    group: 'Utilities',
    rights: 'none',
    flags: { pure: true },
    doc: 'A copy of `object` with every field of `object2`; fields present in both take the value of object2.',
    returns: 'object',
    forms: [
      {
        params: [objectParam, { name: 'object2', type: 'object' }],
        impl(_ctx, args, _call, fn) {
          const [object, object2] = args;
          const out = { ...object };
          for (const [k, v] of Object.entries(object2)) {
            checkKey(fn, 2, 'object2', k);
            out[k] = v;
          }
          return out;
        },
      },
    ],
  }),
  defineFunction({
    name: 'P_json_remove',
    group: 'Utilities',
    rights: 'none',
    flags: { pure: true },
    doc: 'A copy of `object` without `field` (the same content when the field is absent).',
    returns: 'object',
    forms: [
      {
        params: [objectParam, fieldParam],
        impl(_ctx, args, _call, fn) {
          const [object, field] = args;
          checkKey(fn, 2, 'field', field);
          const out = { ...object };
          delete out[field];
          return out;
        },
      },
    ],
  }),
  defineFunction({
    name: 'P_json_remove_ext',
    group: 'Utilities',
    rights: 'none',
    flags: { pure: true },
    doc: 'Like P_json_remove, `field` being a dot-separated path (numeric segments index arrays); nothing is done when a level is missing.',
    returns: 'object',
    forms: [
      {
        params: [objectParam, fieldParam],
        impl(_ctx, args, _call, fn) {
          const [object, field] = args;
          const segments = pathOf(fn, field);
          // Check the path exists before copying anything.
          let node: unknown = object;
          for (const seg of segments.slice(0, -1)) {
            node = isHash(node) || Array.isArray(node) ? getChild(node, seg) : undefined;
            if (node === undefined) return object;
          }
          const last = segments[segments.length - 1];
          if (!(isHash(node) || Array.isArray(node)) || getChild(node, last) === undefined) return object;
          const out = { ...object };
          const parent = descendForWrite(fn, out, segments);
          if (Array.isArray(parent)) parent.splice(arrayIndex(last)!, 1);
          else delete parent[last];
          return out;
        },
      },
    ],
  }),
  defineFunction({
    name: 'P_json_stringify',
    group: 'Utilities',
    rights: 'none',
    flags: { pure: true },
    doc: 'Compact JSON text of a hash or sequence (JSON text given as a string is normalised; other text becomes a JSON string).',
    returns: 'string',
    forms: [
      {
        params: [{ name: 'object', type: 'any' }],
        impl(ctx, args, _call, fn) {
          const value = args[0];
          const budget = budgetOf(ctx);
          const room = textRoom(budget, fn);
          const stringify = (v: unknown): string | undefined => boundedJson(v, room.maxChars, room.tooLarge);
          if (typeof value === 'string') {
            let parsed: unknown;
            try {
              parsed = parseJsonText(value);
            } catch {
              return stringify(value);
            }
            return stringify(parsed);
          }
          return stringify(value instanceof Map ? Object.fromEntries(value) : value);
        },
      },
    ],
  }),
  defineFunction({
    name: 'P_to_array',
    group: 'Utilities',
    rights: 'none',
    flags: { pure: true },
    doc: 'The array under `key` of `json_object`: an array as it is, a single value as a one-element array, a missing key as an empty array.',
    returns: 'array',
    forms: [
      {
        params: [
          { name: 'json_object', type: 'object' },
          { name: 'key', type: 'string' },
        ],
        impl(_ctx, args) {
          const [object, key] = args;
          const value = has(object, key) ? object[key] : undefined;
          if (value === undefined || value === null) return [];
          return Array.isArray(value) ? value : [value];
        },
      },
    ],
  }),
];

export { jsonFunctions };
