/**
 * The main-thread side of a script's platform calls: decodes the JSON arguments the sandbox sent,
 * calls the registry function bound to the evaluation's context (the template's own callable,
 * with the template's CallEnv), adapts the few documented results, and encodes the reply as
 * text for the prelude: `v<json>`, `u` or `e<json {message}>`.
 *
 * Values cross as JSON only: arguments are parsed here with JSON.parse and refused when they
 * carry a `__proto__` key; results are serialised with dates as ISO-8601 text and without
 * functions, so no host object (nor its prototype) ever reaches the script.
 */
import type { ExecutionContext } from '../functions/context.js';
import { INTERNAL_PARAMETERS, internalParameters, ScriptThrownError } from '../functions/request/index.js';
import {
  FunctionError,
  FunctionUnavailableError,
  type BoundFunction,
  type CallEnv,
  type FunctionRegistry,
} from '../functions/registry.js';
import { MESSAGES } from '../platform/errors.js';
import { DIRECTIVE, FmDate, isRequestInput, markAsRequestInput } from '../template/index.js';
import type { DataAccessor, ScriptApi, ScriptMethod } from './api.js';
import {
  checkArguments,
  errorReply,
  functionErrorMessage,
  hasForbiddenKey,
  isThenable,
  paramName as namedParam,
  boundedValueReply,
  valueReply,
} from './call-codec.js';
import { isRecord, propertyOf } from '../safety/narrow.js';

export { hasForbiddenKey, jsonText } from './call-codec.js';

export interface BridgeOptions {
  ctx: ExecutionContext;
  env: CallEnv;
  registry: FunctionRegistry;
  api: ScriptApi;
  /** Names of the evaluation's data variables (RMPData.getAllVariables). */
  variableNames?: () => Iterable<string>;
  /** The script's memory (limits.memoryBytes): a result must fit in it several times over. */
  memoryBytes: number;
}

/** The handler of one script's calls. */
export function callBridge(
  options: BridgeOptions,
): (method: number, args: string) => string | Promise<string> {
  const { ctx, env, registry, api } = options;
  const bound = new Map<string, BoundFunction>();
  const callableOf = (name: string): BoundFunction => {
    let fn = bound.get(name);
    if (!fn) {
      fn = registry.callable(ctx, name);
      if (!fn) throw new Error(`the function ${name} is not in the library`);
      bound.set(name, fn);
    }
    return fn;
  };

  return (id, text) => {
    const method = api.methods[id];
    if (!method) return errorReply(`unknown method ${id}`);
    const label = `${method.object}.${method.name}`;
    let result: unknown;
    try {
      const args = adaptArguments(label, method, decodeArguments(label, method, text));
      result = method.function
        ? callableOf(method.function).apply(env, args)
        : accessor(method.accessor!, label, args, options);
    } catch (e) {
      return failure(label, method, e);
    }
    const reply = (value: unknown): string =>
      carriesVariables(method)
        ? variableReply(label, value, options.memoryBytes)
        : boundedValueReply(label, adapt(method, value), options.memoryBytes);
    if (isThenable(result))
      return Promise.resolve(result).then(reply, (e: unknown) => failure(label, method, e));
    return reply(result);
  };
}

function decodeArguments(label: string, method: ScriptMethod, text: string): unknown[] {
  let args: unknown;
  let marks: unknown;
  if (text.startsWith('m')) [args, marks] = JSON.parse(text.slice(1)) as [unknown, unknown];
  else args = JSON.parse(text);
  const checked = checkArguments(label, method.forms[0] ?? [], args);
  if (Array.isArray(marks)) markPaths(checked, marks);
  return checked;
}

/**
 * Request input keeps its mark (template/provenance.ts) across the sandbox: a reply that holds
 * marked objects lists their paths, the prelude marks the parsed copies, and sends the paths of
 * those it meets in a call's arguments back, for the objects decoded here to be marked again.
 */
function markPaths(root: unknown, paths: unknown[]): void {
  for (const path of paths) {
    if (!Array.isArray(path)) continue;
    let v = root;
    for (const key of path) {
      if (v === null || typeof v !== 'object' || (typeof key !== 'string' && typeof key !== 'number')) break;
      v = Object.prototype.hasOwnProperty.call(v, key) ? propertyOf(v, String(key)) : undefined;
    }
    if (v !== null && typeof v === 'object') markAsRequestInput(v);
  }
}

/** The paths of the request-input objects in a value, as JSON text will lay it out. */
function markedPaths(value: unknown): (string | number)[][] {
  const paths: (string | number)[][] = [];
  const seen = new Set<object>();
  const stack: [unknown, (string | number)[]][] = [[value, []]];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (v === null || typeof v !== 'object' || seen.has(v) || v instanceof FmDate) continue;
    seen.add(v);
    if (isRequestInput(v)) paths.push(path);
    if (Array.isArray(v)) v.forEach((item, i) => stack.push([item, [...path, i]]));
    else if (v instanceof Map) for (const [k, item] of v) stack.push([item, [...path, String(k)]]);
    else for (const k of Object.keys(v)) stack.push([propertyOf(v, k), [...path, k]]);
  }
  return paths;
}

function paramName(method: ScriptMethod, index: number): string {
  return namedParam(method.forms[0] ?? [], index);
}

/** A platform variant's arguments as its function takes them (api.ts, ArgumentAdapter). */
function adaptArguments(label: string, method: ScriptMethod, args: unknown[]): unknown[] {
  const a = method.args;
  if (!a) return args;
  if (a.kind === 'fixed') {
    if (args.length > a.index)
      throw new Error(
        `${label}: takes at most ${a.index} argument${a.index === 1 ? '' : 's'}, got ${args.length}`,
      );
    const out = args.slice();
    while (out.length < a.index) out.push(undefined);
    out.push(a.value);
    return out;
  }
  const out = args.slice();
  let options = out[a.index];
  if (typeof options === 'string' && options.trim().startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(options);
      options = parsed;
    } catch {
      // left as it is: the function reports its own error about it
    }
  }
  if (options === undefined) options = {};
  if (hasForbiddenKey(options))
    throw new Error(
      `${label}: argument ${a.index + 1}${paramName(method, a.index)} contains the key "__proto__", which is not allowed`,
    );
  if (isRecord(options)) {
    const given = options[a.key];
    if (given !== undefined && String(given).toUpperCase() !== a.value)
      throw new Error(
        `${label}: argument ${a.index + 1}${paramName(method, a.index)} sets ${a.key} to "${String(given)}", but ${method.name} imports ${a.value}`,
      );
    out[a.index] = { ...options, [a.key]: a.value };
  }
  return out;
}

function adapt(method: ScriptMethod, value: unknown): unknown {
  switch (method.result) {
    case 'lock-obtained':
    case 'done':
      return true;
    case 'string-ids':
      return Array.isArray(value)
        ? value.map((item: unknown) =>
            isRecord(item) && 'id' in item ? { ...item, id: String(item.id) } : item,
          )
        : value;
    default:
      return value;
  }
}

function failure(label: string, method: ScriptMethod, e: unknown): string {
  if (
    method.result === 'lock-obtained' &&
    e instanceof FunctionError &&
    e.functionName === method.function &&
    e.detail === MESSAGES.lockTimeout
  )
    return valueReply(false);
  return errorReply(errorMessage(label, method, e));
}

/** The message the script's Error carries: the function's, named as the script called it. */
function errorMessage(label: string, method: ScriptMethod, e: unknown): string {
  if (e instanceof ScriptThrownError) return e.message;
  if (e instanceof FunctionUnavailableError) return `${label}: ${e.message}`;
  return functionErrorMessage(label, method.function, e);
}

function carriesVariables(method: ScriptMethod): boolean {
  return method.accessor === 'getVariable' || method.accessor === 'getAllVariables';
}

/** A variable's value, with the paths of the request-input objects in it when there are any. */
function variableReply(label: string, value: unknown, memoryBytes: number): string {
  const paths = markedPaths(value);
  if (paths.length === 0) return boundedValueReply(label, value, memoryBytes);
  const reply = boundedValueReply(label, [value, paths], memoryBytes);
  return reply.startsWith('v') ? 'm' + reply.slice(1) : reply;
}

function accessor(kind: DataAccessor, label: string, args: unknown[], options: BridgeOptions): unknown {
  const { ctx, env } = options;
  const expectArgs = (n: number): void => {
    if (args.length > n)
      throw new Error(
        `${label}: takes ${n === 0 ? 'no arguments' : n === 1 ? '1 argument' : `${n} arguments`}, got ${args.length}`,
      );
  };
  const nameArgument = (): string => {
    expectArgs(1);
    const name = args[0];
    if (typeof name !== 'string') throw new Error(`${label}: argument 1 (name) must be a string`);
    return name;
  };
  const orNull = (v: unknown) => (v === undefined ? null : v);
  switch (kind) {
    case 'getCurrentUser':
      expectArgs(0);
      return internalParameters(ctx).then((p) => orNull(p.get('P_user')));
    case 'getExecutionMode':
      expectArgs(0);
      return ctx.mode;
    case 'getInternalParameter': {
      const name = nameArgument();
      if (!(INTERNAL_PARAMETERS as readonly string[]).includes(name))
        throw new Error(
          `${label}: argument 1 (name) must be one of ${INTERNAL_PARAMETERS.join(', ')}, got "${name}"`,
        );
      return internalParameters(ctx).then((p) => orNull(p.get(name)));
    }
    case 'getVariable':
      return orNull(variableValue(env, nameArgument()));
    case 'getAllVariables': {
      expectArgs(0);
      const out: Record<string, unknown> = {};
      for (const name of options.variableNames?.() ?? []) {
        const value = variableValue(env, name);
        if (value !== undefined)
          Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    case 'getRequestId':
      expectArgs(0);
      return orNull(ctx.requestId);
    case 'getProjectId':
      expectArgs(0);
      return orNull(ctx.projectId);
  }
}

function variableValue(env: CallEnv, name: string): unknown {
  const v = env.getVariable(name);
  if (typeof v === 'function' || (v !== null && typeof v === 'object' && DIRECTIVE in v)) return undefined;
  return v;
}
