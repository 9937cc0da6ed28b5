/**
 * What both ends of a script's platform call share — the bridge on the main thread (bridge.ts)
 * and the script worker's own function table (in-worker-functions.ts): reading the arguments' JSON,
 * wording an error as the script sees it, writing the reply text (`v<json>`, `u`, `e<json>`).
 * Both paths answer a call through these functions, so their results and errors are the same.
 * The worker loads this module: it imports nothing but leaves.
 */
import { FunctionError } from '../functions/errors.js';
import { DIRECTIVE, FmDate } from '../template/values.js';
import { boundedJson } from '../limits/index.js';
import { propertyOf } from '../safety/narrow.js';

/** A parameter as the errors name it. */
export interface NamedParam {
  readonly name: string;
  readonly variadic?: boolean;
}

/**
 * A call's arguments, parsed from the prelude's JSON: an array, no `__proto__` key anywhere, JSON
 * null as a missing argument (as `undefined` is for a template).
 */
export function checkArguments(label: string, params: readonly NamedParam[], args: unknown): unknown[] {
  if (!Array.isArray(args)) throw new Error('arguments must be an array');
  for (let i = 0; i < args.length; i++) {
    if (hasForbiddenKey(args[i])) {
      throw new Error(
        `${label}: argument ${i + 1}${paramName(params, i)} contains the key "__proto__", which is not allowed`,
      );
    }
    if (args[i] === null) args[i] = undefined;
  }
  return args;
}

/** ` (name)` of the parameter at `index` (the variadic one for those past it), or ''. */
export function paramName(params: readonly NamedParam[], index: number): string {
  const last = params[params.length - 1];
  const p = params[index] ?? (last?.variadic ? last : undefined);
  return p ? ` (${p.name})` : '';
}

/** Is there an own `__proto__` key anywhere in a JSON value? (Iterative: depth is the sandbox's to bound.) */
export function hasForbiddenKey(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (const x of v) if (x !== null && typeof x === 'object') stack.push(x);
      continue;
    }
    for (const key of Object.keys(v)) {
      if (key === '__proto__') return true;
      const x = propertyOf(v, key);
      if (x !== null && typeof x === 'object') stack.push(x);
    }
  }
  return false;
}

/**
 * The message the script's Error carries for an error of the function `fn`, named as the script
 * called it (`label`, e.g. `RMPUtilities.jsonPut`). The bridge words its own classes first.
 */
export function functionErrorMessage(label: string, fn: string | undefined, e: unknown): string {
  if (e instanceof FunctionError && e.functionName === fn)
    return `${label}: ${e.qualified.slice(e.functionName.length + 2)}`;
  // Errors that keep their own class but carry the function's name (BudgetExceededError).
  if (fn && e instanceof Error && e.message.startsWith(`${fn}: `))
    return `${label}: ${e.message.slice(fn.length + 2)}`;
  if (e instanceof Error) return e.message.startsWith(`${label}: `) ? e.message : `${label}: ${e.message}`;
  return `${label}: ${String(e)}`;
}

export function errorReply(message: string): string {
  return 'e' + JSON.stringify({ message });
}

export function valueReply(value: unknown): string {
  const json = jsonText(value);
  return json === undefined ? 'u' : 'v' + json;
}

/**
 * A result becomes, in the sandbox, UTF-8 bytes, a string and the parsed value: one larger than a
 * quarter of the script's memory is refused, with a clear error, rather than exhausting it.
 */
const RESULT_SHARE_OF_MEMORY = 4;

/** The reply text, or the error a result too large for the script's memory gets instead. */
export function boundedReply(label: string, text: string, memoryBytes: number): string {
  const maxChars = Math.floor(memoryBytes / RESULT_SHARE_OF_MEMORY);
  if (text.length <= maxChars) return text;
  return errorReply(
    `${label}: the result (${text.length} characters of JSON) is too large for the script's memory ` +
      `(at most ${maxChars} characters with memoryBytes ${memoryBytes})`,
  );
}

/**
 * A reply carrying `value`, or the error a result too large for the script's memory gets: the
 * text is written by the bounded writer (limits/json-text.ts), so shared structure (`[h, h]`
 * nested 60 times) is refused when its text passes the limit instead of being expanded.
 */
export function boundedValueReply(label: string, value: unknown, memoryBytes: number): string {
  const maxChars = Math.floor(memoryBytes / RESULT_SHARE_OF_MEMORY);
  let json: string | undefined;
  try {
    json = jsonText(value, maxChars);
  } catch (e) {
    if (!(e instanceof ResultTooLargeError)) throw e;
    return errorReply(
      `${label}: the result (more than ${maxChars} characters of JSON) is too large for the script's memory ` +
        `(at most ${maxChars} characters with memoryBytes ${memoryBytes})`,
    );
  }
  return boundedReply(label, json === undefined ? 'u' : 'v' + json, memoryBytes);
}

class ResultTooLargeError extends Error {}

/**
 * JSON text of a value the template layer produced: dates as ISO-8601, no functions or directives;
 * past `maxChars` a ResultTooLargeError.
 */
export function jsonText(value: unknown, maxChars = Infinity): string | undefined {
  // Plain data (the usual result) needs no replacer, which costs a call per key.
  if (isPlainData(value)) return JSON.stringify(value);
  return boundedJson(value, maxChars, () => new ResultTooLargeError(), templateReplacer);
}

function templateReplacer(v: unknown): unknown {
  if (v instanceof FmDate) return new Date(v.epochMs).toISOString();
  if (v instanceof Map) return Object.fromEntries(v);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'function' || (v !== null && typeof v === 'object' && DIRECTIVE in v)) return undefined;
  return v;
}

/** Nodes looked at before giving up on the plain path (the replacer's path then writes the value). */
const PLAIN_NODES = 1000;
const PLAIN_PROTO = Object.prototype;

/**
 * Is the value only primitives, plain objects and arrays (no date, Map, bigint, directive, toJSON),
 * within PLAIN_NODES containers and values? JSON.stringify then writes it as the replacer would.
 */
function isPlainData(value: unknown): boolean {
  const stack: unknown[] = [value];
  let seen = 0;
  while (stack.length > 0) {
    const v = stack.pop();
    if (++seen > PLAIN_NODES) return false;
    if (typeof v === 'bigint') return false;
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      if (seen + stack.length + v.length > PLAIN_NODES) return false;
      for (let i = 0; i < v.length; i++) stack.push(v[i]);
      continue;
    }
    const proto: unknown = Object.getPrototypeOf(v);
    if (proto !== PLAIN_PROTO && proto !== null) return false;
    if (DIRECTIVE in v || typeof propertyOf(v, 'toJSON') === 'function') return false;
    for (const k in v) {
      if (seen + stack.length >= PLAIN_NODES) return false;
      stack.push(propertyOf(v, k));
    }
  }
  return true;
}

export function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof propertyOf(v, 'then') === 'function';
}
