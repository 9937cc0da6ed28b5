/**
 * The variables an evaluation reports (POST /api/v1/eval, docs/server.md): data only. A template's
 * `#function` and `#macro`, a library function assigned to a variable (`<#assign f = has_right>`),
 * built-in methods and directives are callables, not data: they are left out, at any depth, so the
 * variables can always be written as JSON. A container shared by several variables (or by itself)
 * is looked at once: `<#assign h=[h,h]>` thirty times is 30 containers, not 2^30.
 */
import { FmDate } from '../template/index.js';

/** The data among an evaluation's variables: callables (and other engine objects) left out. */
export function dataVariables(globals: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const seen = new Map<object, unknown>();
  for (const [name, value] of Object.entries(globals)) {
    const data = dataOf(value, 0, seen);
    if (data !== LEFT_OUT) define(out, name, data);
  }
  return out;
}

const LEFT_OUT: unique symbol = Symbol('left out');
const MAX_DEPTH = 100;

function dataOf(v: unknown, depth: number, seen: Map<object, unknown>): unknown {
  if (v === null || v === undefined) return v;
  switch (typeof v) {
    case 'string':
    case 'number':
    case 'boolean':
      return v;
    case 'object':
      break;
    default:
      return LEFT_OUT;
  }
  if (depth > MAX_DEPTH) return LEFT_OUT;
  if (seen.has(v)) return seen.get(v);
  // While it is being looked at, a container stands for itself (a cycle is the printer's business).
  seen.set(v, v);
  const data = containerData(v, depth, seen);
  seen.set(v, data);
  return data;
}

function containerData(v: object, depth: number, seen: Map<object, unknown>): unknown {
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const item = dataOf(v[i], depth + 1, seen);
      if (out === undefined && item !== v[i]) out = v.slice(0, i);
      // A callable inside a sequence becomes null: the sequence keeps its length and indexes.
      if (out !== undefined) out.push(item === LEFT_OUT ? null : item);
    }
    return out ?? v;
  }
  if (v instanceof FmDate) return v;
  // Values that say how they are written as JSON (a string+boolean such as has_right's result).
  if ('toJSON' in v && typeof v.toJSON === 'function') return v;
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return LEFT_OUT;
  let out: Record<string, unknown> | undefined;
  const entries = Object.entries(v);
  for (let i = 0; i < entries.length; i++) {
    const [key, value] = entries[i]!;
    const data = dataOf(value, depth + 1, seen);
    if (out === undefined && data !== value) {
      out = {};
      for (let j = 0; j < i; j++) define(out, entries[j]![0], entries[j]![1]);
    }
    if (out !== undefined && data !== LEFT_OUT) define(out, key, data);
  }
  return out ?? v;
}

function define(o: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}
