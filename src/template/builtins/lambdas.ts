/** Built-ins taking a lambda or function (?filter, ?map, ?take_while, ?drop_while …), lazily where FreeMarker is. */
import type * as A from '../ast.js';
import type { ExprContext } from '../compile-expr.js';
import { callMethod } from '../calls.js';

import { ParseError, TemplateError } from '../errors.js';
import {
  type Env,
  type Ev,
  LimitError,
  LoopCtx,
  MacroValue,
  blamedError,
  describeType,
  elError,
  missingError,
  typeError,
} from '../runtime.js';
import {
  type FmIterator,
  LazySeq,
  drain,
  isLazyEnabled,
  iteratorOf,
  lazyDropWhile,
  lazyFilter,
  lazyMap,
  lazyTakeWhile,
  sizeWithoutListing,
} from '../lazy.js';
import { FmMethod } from '../values.js';
import { builtInFamily } from './registry.js';

const { def, records } = builtInFamily();

// ------------------------------------------------------------------ lambdas: ?filter ?map ?take_while ?drop_while

type Fn = (env: Env, v: unknown) => unknown;

function compileFunctionArg(
  node: A.BuiltInExpr,
  cx: ExprContext,
  compile: (e: A.Expr, cx: ExprContext) => Ev,
): Fn {
  const args = node.args ?? [];
  if (args.length !== 1) {
    throw new ParseError(
      `?${node.name}(...) expects exactly 1 argument, but had ${args.length}.`,
      cx.name,
      node.beginLine,
      node.beginColumn,
    );
  }
  const a = args[0];
  if (a.kind === 'lambda') {
    if (a.params.length !== 1) {
      throw new ParseError(
        `?${node.name}(...) parameter lambda expression must declare exactly 1 parameter, but it declared ${a.params.length}.`,
        cx.name,
        a.beginLine,
        a.beginColumn,
      );
    }
    a.templateName = cx.name;
    const body = compile(a.body, cx);
    const pname = a.params[0];
    return (env, v) => {
      const ctx = new LoopCtx(pname, null);
      ctx.value = v;
      env.loops.push(ctx);
      try {
        return body(env);
      } finally {
        const i = env.loops.lastIndexOf(ctx);
        if (i >= 0) env.loops.splice(i, 1);
      }
    };
  }
  const f = compile(a, cx);
  return (env, v) => {
    const fn = f(env);
    if (fn === undefined) throw missingError(a);
    if (
      typeof fn === 'function' ||
      fn instanceof FmMethod ||
      (fn instanceof MacroValue && fn.def.isFunction)
    ) {
      return callMethod(env, fn, [v], node, a);
    }
    const err = typeError(
      a,
      `For "?${node.name}(...)" argument value`,
      'method or function or lambda expression',
      fn,
    );
    err.kind = 'NonMethodException';
    throw err;
  };
}

/** "a number (wrapper: f.t.SimpleNumber)": FreeMarker's _DelayedAOrAn of a type description. */
function aType(v: unknown): string {
  const d = describeType(v);
  return `${/^[aeiou]/i.test(d) ? 'an' : 'a'} ${d}`;
}

/** The lambda (or function) of ?filter, ?take_while, ?drop_while must answer a boolean. */
function predicate(env: Env, f: Fn, v: unknown, arg: A.Expr): boolean {
  const r = f(env, v);
  if (typeof r === 'boolean') return r;
  if (r === undefined) {
    throw blamedError(
      '_TemplateModelException',
      'The filter expression has returned no value (has returned null), rather than a boolean.',
      arg,
    );
  }
  throw blamedError(
    '_TemplateModelException',
    `The filter expression had to return a boolean value, but it returned ${aType(r)} instead.`,
    arg,
  );
}

function mapped(env: Env, f: Fn, v: unknown, arg: A.Expr): unknown {
  const r = f(env, v);
  if (r === undefined) {
    throw blamedError(
      '_TemplateModelException',
      'The element mapper function has returned no return value (has returned null).',
      arg,
    );
  }
  return r;
}

type LazyOp = (src: FmIterator, step: (v: unknown) => unknown, wrap: (e: unknown) => unknown) => FmIterator;

/**
 * ?filter, ?map, ?take_while, ?drop_while (IntermediateStreamOperationLikeBuiltIn): lazy when what
 * consumes the result enabled it (lazy.ts), else a sequence computed at once. `eager` is the plain
 * loop over an array; other sources are listed through the lazy iterator, like FreeMarker does.
 */
function lambdaBuiltin(
  name: string,
  lazyOp: LazyOp,
  eager: (env: Env, list: readonly unknown[], step: (v: unknown) => unknown) => unknown[],
  isMap = false,
): void {
  def(name, {
    custom: (node, cx, compile) => {
      const f = compileFunctionArg(node, cx, compile);
      const arg = node.args![0];
      const T = compile(node.target, cx);
      const tn = node.target;
      const lazy = isLazyEnabled(node);
      const wrap = (e: unknown): unknown =>
        e instanceof TemplateError && !(e instanceof LimitError)
          ? elError('_TemplateModelException', 'Failed to transform element', node, [], e)
          : e;
      const noWrap = (e: unknown): unknown => e;
      return (env) => {
        const t = T(env);
        if (t === undefined) throw missingError(tn);
        const step = isMap
          ? (v: unknown): unknown => mapped(env, f, v, arg)
          : (v: unknown): unknown => predicate(env, f, v, arg);
        if (!lazy && Array.isArray(t)) return eager(env, t, step);
        const src = iteratorOf(env, t);
        if (src === null) {
          const err = typeError(tn, `For "?${name}(...)" left-hand operand`, 'sequence or collection', t);
          err.kind = 'NonSequenceOrCollectionException';
          throw err;
        }
        if (lazy) return new LazySeq(lazyOp(src, step, wrap), isMap ? sizeWithoutListing(t) : null);
        return drain(lazyOp(src, step, noWrap));
      };
    },
  });
}

lambdaBuiltin(
  'filter',
  (src, step, wrap) => lazyFilter(src, step as (v: unknown) => boolean, wrap),
  (env, list, step) => {
    const out: unknown[] = [];
    for (let i = 0; i < list.length; i++) {
      env.tick();
      const v = list[i] === null ? undefined : list[i];
      if (step(v)) out.push(v);
    }
    return out;
  },
);
lambdaBuiltin(
  'map',
  lazyMap,
  (env, list, step) => {
    env.allocateSlots(list.length, '?map');
    const out = new Array<unknown>(list.length);
    for (let i = 0; i < list.length; i++) {
      env.tick();
      out[i] = step(list[i] === null ? undefined : list[i]);
    }
    return out;
  },
  true,
);
lambdaBuiltin(
  'take_while',
  (src, step, wrap) => lazyTakeWhile(src, step as (v: unknown) => boolean, wrap),
  (env, list, step) => {
    const out: unknown[] = [];
    for (let i = 0; i < list.length; i++) {
      env.tick();
      const v = list[i] === null ? undefined : list[i];
      if (!step(v)) break;
      out.push(v);
    }
    return out;
  },
);
lambdaBuiltin(
  'drop_while',
  (src, step, wrap) => lazyDropWhile(src, step as (v: unknown) => boolean, wrap),
  (env, list, step) => {
    let i = 0;
    while (i < list.length) {
      env.tick();
      if (!step(list[i] === null ? undefined : list[i])) break;
      i++;
    }
    return list.slice(i);
  },
);

export const LAMBDA_BUILT_INS = records;
