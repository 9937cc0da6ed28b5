import type { ExecutionContext } from './context.js';
import { coercerFor, describeType, explainMismatch, NO_MATCH, type Coercer } from './coercion.js';
import { argumentError, FunctionError } from './errors.js';
import { arityOf, type FunctionForm, type FunctionSpec, type ParamSpec } from './spec.js';
import type { CallEnv } from './template-types.js';

/** Runs one function: checks the arity, coerces the arguments, picks the overload, calls impl. */
export type Invoker = (ctx: ExecutionContext, env: CallEnv, args: unknown[]) => unknown;

interface CompiledForm {
  min: number;
  max: number;
  form: FunctionForm;
  /** Coerces `args` in place (filling defaults) or throws the FunctionError a user sees. */
  prepare(args: unknown[]): unknown[];
}

function compileForm(fn: string, form: FunctionForm): CompiledForm {
  const { min, max } = arityOf(form);
  const params = form.params;
  const count = params.length;
  const coercers: Coercer[] = params.map((p) => coercerFor(p.type));
  const defaults = params.map((p) => p.default);
  const fail = (i: number, p: ParamSpec, v: unknown) =>
    argumentError(fn, i + 1, p.name, explainMismatch(p.type, v));

  return {
    min,
    max,
    form,
    prepare(args) {
      const len = args.length;
      for (let i = 0; i < count; i++) {
        const p = params[i]!;
        if (p.variadic) {
          if (len <= i && !p.optional) throw missing(fn, i, p);
          for (let j = i; j < len; j++) {
            const v = args[j];
            const c = v === undefined || v === null ? NO_MATCH : coercers[i]!(v);
            if (c === NO_MATCH) throw argumentError(fn, j + 1, p.name, explainMismatch(p.type, v));
            args[j] = c;
          }
          break;
        }
        const v = args[i];
        if (v === undefined || v === null) {
          if (!p.optional) throw missing(fn, i, p);
          args[i] = defaults[i];
          continue;
        }
        const c = coercers[i]!(v);
        if (c === NO_MATCH) throw fail(i, p, v);
        args[i] = c;
      }
      return args;
    },
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
  if (sorted.length === 1) return sorted[0] === 0 ? 'no arguments' : `${sorted[0]} ${plural(sorted[0]!)}`;
  const lo = sorted[0]!;
  const hi = sorted[sorted.length - 1]!;
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

/** The invoker of a function under the name it is called by (a name or an alias). */
export function compileInvoker(spec: FunctionSpec, calledName: string): Invoker {
  const forms = spec.forms.map((f) => compileForm(calledName, f));
  if (forms.length === 1) {
    const only = forms[0]!;
    const impl = only.form.impl;
    const max = only.max;
    return (ctx, env, args) => {
      if (args.length > max) throw tooMany(calledName, forms, args.length);
      return impl(ctx, only.prepare(args), env);
    };
  }
  return (ctx, env, args) => {
    const len = args.length;
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
      return f.form.impl(ctx, prepared, env);
    }
    if (firstError) throw firstError;
    const smallest = forms.reduce((a, b) => (b.min < a.min ? b : a));
    // Too few for every form: the first missing argument of the smallest form.
    if (len < smallest.min) throw missing(calledName, len, smallest.form.params[len]!);
    if (forms.every((f) => len > f.max)) throw tooMany(calledName, forms, len);
    throw new FunctionError(calledName, `${calledName} takes ${arityText(forms)}, got ${len}`);
  };
}
