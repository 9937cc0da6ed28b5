import type { ExecutionContext } from './context.js';
import {
  ArgumentTextTooLargeError,
  coercerFor,
  describeType,
  explainMismatch,
  NO_MATCH,
  type Coercer,
} from './coercion.js';
import { argumentError, FunctionError } from './errors.js';
import { arityOf, type FunctionForm, type FunctionSpec, type ParamSpec, type ParamType } from './spec.js';
import type { CallEnv } from './template-types.js';

// A module-local copy: the hot path then reads a constant, not an imported binding (which some
// loaders, tsx among them, turn into a getter call).
const NO_VALUE = NO_MATCH;

/** Runs one function: checks the arity, coerces the arguments, picks the overload, calls impl. */
export type Invoker = (ctx: ExecutionContext, env: CallEnv, args: unknown[]) => unknown;

interface CompiledForm {
  min: number;
  max: number;
  form: FunctionForm;
  /** Coerces `args` in place (filling defaults) or throws the FunctionError a user sees. */
  prepare(args: unknown[]): unknown[];
}

// The fast path: a value already of the declared type is kept without calling its coercer.
const UNION = 0;
const KIND: Record<ParamType, number> = {
  string: 1,
  integer: 2,
  number: 3,
  boolean: 4,
  object: 5,
  array: 6,
  any: 7,
};
const PLAIN = Object.prototype;

function alreadyOfType(kind: number, v: unknown): boolean {
  switch (kind) {
    case 1:
      return typeof v === 'string';
    case 2:
      return typeof v === 'number' && Number.isInteger(v);
    case 3:
      return typeof v === 'number';
    case 4:
      return typeof v === 'boolean';
    case 5:
      return typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === PLAIN;
    case 6:
      return Array.isArray(v);
    case 7:
      return true;
    default:
      return false;
  }
}

function compileForm(fn: string, form: FunctionForm): CompiledForm {
  const { min, max } = arityOf(form);
  const params = form.params;
  const last = params[params.length - 1];
  const variadic = last?.variadic ? last : undefined;
  /** Parameters before the variadic one. */
  const fixed = variadic ? params.length - 1 : params.length;
  const coercers: Coercer[] = params.map((p, i) => naming(fn, i, p, coercerFor(p.type)));
  const defaults = params.map((p) => p.default);
  const optional = params.map((p) => p.optional === true);
  const kinds = params.map((p) =>
    Array.isArray(p.type) ? (p.type.length === 1 ? KIND[p.type[0]] : UNION) : KIND[p.type],
  );
  const fail = (i: number, p: ParamSpec, v: unknown) =>
    argumentError(fn, i + 1, p.name, explainMismatch(p.type, v));

  return {
    min,
    max,
    form,
    prepare(args) {
      const len = args.length;
      for (let i = 0; i < fixed; i++) {
        const v = args[i];
        if (v === undefined || v === null) {
          if (!optional[i]) throw missing(fn, i, params[i]);
          args[i] = defaults[i];
          continue;
        }
        if (alreadyOfType(kinds[i], v)) continue;
        const c = coercers[i](v);
        if (c === NO_VALUE) throw fail(i, params[i], v);
        args[i] = c;
      }
      if (variadic) {
        if (len <= fixed && !variadic.optional) throw missing(fn, fixed, variadic);
        const coerce = coercers[fixed];
        for (let j = fixed; j < len; j++) {
          const v = args[j];
          const c = v === undefined || v === null ? NO_VALUE : coerce(v);
          if (c === NO_VALUE) throw fail(j, variadic, v);
          args[j] = c;
        }
      }
      return args;
    },
  };
}

/** A text coercer whose too-large refusal names the function and argument. */
function naming(fn: string, i: number, p: ParamSpec, coerce: Coercer): Coercer {
  const types = Array.isArray(p.type) ? p.type : [p.type];
  if (!types.includes('string')) return coerce;
  return (v) => {
    try {
      return coerce(v);
    } catch (e) {
      if (e instanceof ArgumentTextTooLargeError) throw argumentError(fn, i + 1, p.name, e.message);
      throw e;
    }
  };
}

function missing(fn: string, i: number, p: ParamSpec): FunctionError {
  return argumentError(fn, i + 1, p.name, `is missing: expected ${describeType(p.type)}`);
}

function arityText(forms: CompiledForm[]): string {
  const counts = new Set<number>();
  let unbounded = Infinity;
  for (const f of forms) {
    if (f.max === Infinity) unbounded = Math.min(unbounded, f.min);
    else for (let n = f.min; n <= f.max; n++) counts.add(n);
  }
  const plural = (n: number) => (n === 1 ? 'argument' : 'arguments');
  if (unbounded !== Infinity) return `at least ${unbounded} ${plural(unbounded)}`;
  const sorted = [...counts].sort((a, b) => a - b);
  if (sorted.length === 1) return sorted[0] === 0 ? 'no arguments' : `${sorted[0]} ${plural(sorted[0])}`;
  const lo = sorted[0];
  const hi = sorted[sorted.length - 1];
  if (hi - lo + 1 === sorted.length) return `${lo} to ${hi} arguments`;
  return `${sorted.slice(0, -1).join(', ')} or ${hi} arguments`;
}

function tooMany(fn: string, forms: CompiledForm[], len: number): FunctionError {
  const max = Math.max(...forms.map((f) => f.max));
  return new FunctionError(
    fn,
    `argument ${max + 1} is not expected: ${fn} takes ${arityText(forms)}, got ${len}`,
  );
}

/** A callable bound to a context: `fn.call(env, ...args)`; without an env, one with no variables. */
export type BoundFunction = (this: CallEnv | undefined, ...args: unknown[]) => unknown;

/** A compiled function: its invoker, and a maker of callables bound to a context. */
export interface CompiledFunction {
  invoke: Invoker;
  bindTo(ctx: ExecutionContext): BoundFunction;
}

/** The env of a callable called without one (directly from JS): no variables. */
export function detachedEnv(ctx: ExecutionContext): CallEnv {
  return {
    getVariable: () => undefined,
    templateName: 'template',
    locale: ctx.locale,
    timeZone: ctx.timeZone,
  };
}

/**
 * Runs around every call of the functions compiled from now on: the span of each call when
 * tracing is on (set by an evaluation thread before its library compiles; isolation/thread-main.ts).
 * Kept here rather than imported, so that a render loads no module more.
 */
let aroundCalls: ((name: string, call: () => unknown) => unknown) | undefined;

export function wrapCalls(around: (name: string, call: () => unknown) => unknown): void {
  aroundCalls = around;
}

/** Compiles a function under the name it is called by (a name or an alias). */
export function compileFunction(spec: FunctionSpec, calledName: string): CompiledFunction {
  const around = aroundCalls;
  if (around)
    spec = {
      ...spec,
      forms: spec.forms.map((form) => ({
        ...form,
        impl: (ctx, args, env, fn) => around(spec.name, () => form.impl(ctx, args, env, fn)),
      })),
    };
  // impl's own errors name the function as declared (an alias's argument errors name the alias)
  const declared = spec.name;
  const forms = spec.forms.map((f) => compileForm(calledName, f));
  const invoke = compileInvoker(calledName, declared, forms);
  if (forms.length === 1) {
    // One form: the callable does the whole call itself (this is the hot path of every script).
    const { prepare, max } = forms[0];
    const impl = forms[0].form.impl;
    const fixedArity = fixedArityCallable(calledName, declared, forms, prepare, impl, max);
    if (fixedArity) return { invoke, bindTo: fixedArity };
    return {
      invoke,
      bindTo: (ctx) =>
        function (this: CallEnv | undefined, ...args: unknown[]) {
          if (args.length > max) throw tooMany(calledName, forms, args.length);
          return impl(ctx, prepare(args), this ?? detachedEnv(ctx), declared);
        },
    };
  }
  return {
    invoke,
    bindTo: (ctx) =>
      function (this: CallEnv | undefined, ...args: unknown[]) {
        return invoke(ctx, this ?? detachedEnv(ctx), args);
      },
  };
}

/**
 * Callables of forms with at most 4 parameters and no variadic one take their arguments as
 * named parameters (no rest array), the cheapest call V8 has; arguments.length still catches
 * extra arguments.
 */
function fixedArityCallable(
  calledName: string,
  declared: string,
  forms: CompiledForm[],
  prepare: (args: unknown[]) => unknown[],
  impl: FunctionForm['impl'],
  max: number,
): ((ctx: ExecutionContext) => BoundFunction) | undefined {
  const tooManyFor = (n: number) => tooMany(calledName, forms, n);
  switch (max) {
    case 0:
      return (ctx) =>
        function (this: CallEnv | undefined) {
          if (arguments.length > 0) throw tooManyFor(arguments.length);
          return impl(ctx, [], this ?? detachedEnv(ctx), declared);
        };
    case 1:
      return (ctx) =>
        function (this: CallEnv | undefined, a: unknown) {
          if (arguments.length > 1) throw tooManyFor(arguments.length);
          return impl(ctx, prepare([a]), this ?? detachedEnv(ctx), declared);
        };
    case 2:
      return (ctx) =>
        function (this: CallEnv | undefined, a: unknown, b: unknown) {
          if (arguments.length > 2) throw tooManyFor(arguments.length);
          return impl(ctx, prepare([a, b]), this ?? detachedEnv(ctx), declared);
        };
    case 3:
      return (ctx) =>
        function (this: CallEnv | undefined, a: unknown, b: unknown, c: unknown) {
          if (arguments.length > 3) throw tooManyFor(arguments.length);
          return impl(ctx, prepare([a, b, c]), this ?? detachedEnv(ctx), declared);
        };
    case 4:
      return (ctx) =>
        function (this: CallEnv | undefined, a: unknown, b: unknown, c: unknown, d: unknown) {
          if (arguments.length > 4) throw tooManyFor(arguments.length);
          return impl(ctx, prepare([a, b, c, d]), this ?? detachedEnv(ctx), declared);
        };
    default:
      return undefined;
  }
}

function compileInvoker(calledName: string, declared: string, forms: CompiledForm[]): Invoker {
  if (forms.length === 1) {
    const only = forms[0];
    const impl = only.form.impl;
    const max = only.max;
    return (ctx, env, args) => {
      if (args.length > max) throw tooMany(calledName, forms, args.length);
      return impl(ctx, only.prepare(args), env, declared);
    };
  }
  // Per argument count, the forms that accept it: when only one does, no trial is needed.
  const byCount = (len: number) => forms.filter((f) => len >= f.min && len <= f.max);
  const single: Array<CompiledForm | undefined> = [];
  for (let n = 0; n <= 8; n++) {
    const fitting = byCount(n);
    single[n] = fitting.length === 1 ? fitting[0] : undefined;
  }
  return (ctx, env, args) => {
    const len = args.length;
    const only = single[len];
    if (only) return only.form.impl(ctx, only.prepare(args), env, declared);
    let firstError: unknown;
    for (const f of forms) {
      if (len < f.min || len > f.max) continue;
      let prepared: unknown[];
      try {
        prepared = f.prepare(args.slice());
      } catch (e) {
        firstError ??= e;
        continue;
      }
      return f.form.impl(ctx, prepared, env, declared);
    }
    if (firstError) throw firstError;
    const smallest = forms.reduce((a, b) => (b.min < a.min ? b : a));
    // Too few for every form: the first missing argument of the smallest form.
    if (len < smallest.min) throw missing(calledName, len, smallest.form.params[len]);
    if (forms.every((f) => len > f.max)) throw tooMany(calledName, forms, len);
    throw new FunctionError(calledName, `${calledName} takes ${arityText(forms)}, got ${len}`);
  };
}
