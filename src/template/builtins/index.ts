/**
 * Built-in dispatch: the generic compile of `x?name` / `x?name(args)` plus the built-ins that need
 * their own compile (lazy ?then/?switch, lambdas, loop variables, ?string's many targets, ?eval,
 * ?interpret, the existence built-ins, output-format bound ones).
 */
import type * as A from '../ast.js';
import type { ExprContext } from '../compile-expr.js';
import { UNSUPPORTED_BUILTINS } from '../builtin-names.js';
import { callMethod } from '../calls.js';
import { BoundCallable } from '../values.js';

export { BoundCallable };
import { ParseError, TemplateError, jQuote } from '../errors.js';
import { escaperOf } from '../output-formats.js';
import { Transform, UTILITY_CLASSES } from '../transforms.js';
import { compareValues, stringTarget, toBoolean } from '../ops.js';
import {
  type Env,
  type Ev,
  type TemplateUnit,
  LimitError,
  LoopCtx,
  MacroValue,
  blamedError,
  describeType,
  elError,
  exprError,
  missingError,
  typeError,
  typeName,
} from '../runtime.js';
import {
  type FmIterator,
  LazySeq,
  drain,
  enableLazy,
  isLazyEnabled,
  iteratorOf,
  lazyDropWhile,
  lazyFilter,
  lazyMap,
  lazyTakeWhile,
  sizeWithoutListing,
} from '../lazy.js';
import {
  FmCollection,
  FmDate,
  FmMethod,
  FmRange,
  MarkupOutput,
  MatchItem,
  MatchResult,
  StringBoolean,
  Namespace,
  hashKeys,
  hashSize,
  isDirectiveObject,
  isHash,
  isNumber,
  isSequence,
  seqItems,
} from '../values.js';
import { BUILTINS, argString, biError, checkArgs, def, targetTypeError } from './registry.js';
import { booleanString, numberString } from './numbers.js';
import { dateString, formatDateChecked } from './dates.js';
import { isEnumerable } from './sequences.js';
import { parseJson } from './json.js';
import './strings.js';

export { BUILTINS };

/** The value ?interpret returns: a directive that runs the parsed template in the current namespace. */
export class InterpretedTemplate {
  constructor(readonly unit: TemplateUnit) {}
}

/** Built-ins that can consume a lazily generated sequence (FreeMarker's enableLazilyGeneratedResult callers). */
const LAZY_CONSUMERS = new Set([
  'filter',
  'map',
  'take_while',
  'drop_while',
  'first',
  'join',
  'seq_contains',
  'seq_index_of',
  'seq_last_index_of',
  'min',
  'max',
  'size',
  'sequence',
]);

export function compileBuiltIn(
  node: A.BuiltInExpr,
  cx: ExprContext,
  compile: (e: A.Expr, cx: ExprContext) => Ev,
): Ev {
  node.templateName = cx.name;
  const name = node.name;
  if (UNSUPPORTED_BUILTINS.has(name)) {
    const t = compile(node.target, cx);
    return (env) => {
      t(env);
      throw elError(
        '_TemplateModelException',
        `?${name} is not supported by flowmark: it needs the Java runtime${['new', 'api', 'has_api'].includes(name) ? '' : ' (XML DOM nodes)'}.`,
        node,
      );
    };
  }
  const d = BUILTINS[name];
  if (!d) throw new ParseError(`?${name} is not implemented.`, cx.name, node.beginLine, node.beginColumn);
  if (LAZY_CONSUMERS.has(name)) enableLazy(node.target);
  if (d.custom) return d.custom(node, cx, compile);
  const T = compile(node.target, cx);
  const tn = node.target;
  const missingOk = d.missingOk === true;
  if (node.args) {
    const A = node.args.map((a) => compile(a, cx));
    if (d.call) {
      const call = d.call;
      return (env) => {
        const t = T(env);
        if (t === undefined && !missingOk) throw missingError(tn);
        const args = new Array(A.length);
        for (let i = 0; i < A.length; i++) {
          const v = A[i](env);
          if (v === undefined) throw missingError(node.args![i]);
          args[i] = v;
        }
        return call(env, t, args, node);
      };
    }
    const value = d.value!;
    // what FreeMarker blames when the value is not callable: the built-in without its arguments
    const callee: A.BuiltInExpr = { ...node, args: undefined };
    return (env) => {
      const t = T(env);
      if (t === undefined && !missingOk) throw missingError(tn);
      const fn = value(env, t, node);
      const args = A.map((a) => a(env));
      return callMethod(env, fn, args, node, callee);
    };
  }
  if (d.value) {
    const value = d.value;
    return (env) => {
      const t = T(env);
      if (t === undefined && !missingOk) throw missingError(tn);
      return value(env, t, node);
    };
  }
  const call = d.call!;
  return (env) => {
    const t = T(env);
    if (t === undefined && !missingOk) throw missingError(tn);
    return new FmMethod((args, e2) => call(e2 as Env, t, args, node), `?${name}`);
  };
}

function isParen(e: A.Expr): boolean {
  return e.k === 'paren';
}

/** Evaluates the target of an existence built-in: missing (or, in parentheses, an invalid reference) is undefined. */
function existenceTarget(
  node: A.BuiltInExpr,
  cx: ExprContext,
  compile: ((e: A.Expr, cx: ExprContext) => Ev) & { lenient?: (e: A.Expr, cx: ExprContext) => Ev },
): Ev {
  if (!isParen(node.target)) return compile(node.target, cx);
  // a missing parent in a plain (a.b.c) chain is undefined without an exception (compileLenient)
  const T = compile.lenient ? compile.lenient(node.target, cx) : compile(node.target, cx);
  return (env) => {
    try {
      return T(env);
    } catch (e) {
      if (e instanceof TemplateError && e.kind === 'InvalidReferenceException') return undefined;
      throw e;
    }
  };
}

// ------------------------------------------------------------------ ?string (numbers, booleans, dates, strings)

def('string', {
  value: (env, t, node) => {
    if (isNumber(t)) return numberString(env, t, undefined, node);
    if (typeof t === 'boolean') return booleanString(env, t, [], node);
    if (t instanceof MatchResult) return booleanString(env, t.matched, [], node);
    if (t instanceof StringBoolean) return booleanString(env, t.value, [], node);
    if (t instanceof FmDate) return formatDateChecked(env, t, undefined, node);
    return stringTarget(env, t, node.target, 'string');
  },
  call: (env, t, args, node) => {
    if (isNumber(t)) {
      checkArgs(node, args, 1);
      return numberString(env, t, argString(node, args, 0), node);
    }
    if (typeof t === 'boolean') return booleanString(env, t, args, node);
    if (t instanceof MatchResult) return booleanString(env, t.matched, args, node);
    if (t instanceof StringBoolean) return booleanString(env, t.value, args, node);
    if (t instanceof FmDate) return dateString(env, t, args, node);
    const s = stringTarget(env, t, node.target, 'string');
    return callMethod(env, s, args, node, { ...node, args: undefined });
  },
});

/** `x?string.short`, `x?string.currency`, `d?date.iso` …: the format given after the dot. */
export function compileFormatDot(
  dot: A.Dot,
  bi: A.BuiltInExpr,
  cx: ExprContext,
  compile: (e: A.Expr, cx: ExprContext) => Ev,
): Ev {
  bi.templateName = cx.name;
  dot.templateName = cx.name;
  const T = compile(bi.target, cx);
  const fmt = dot.name;
  const kind = bi.name;
  return (env) => {
    const t = T(env);
    if (t === undefined) throw missingError(bi.target);
    if (kind === 'string') {
      if (isNumber(t)) return numberString(env, t, fmt, bi);
      if (t instanceof FmDate) return formatDateChecked(env, t, fmt, bi);
      throw exprError(
        '_TemplateModelException',
        `Expected a number or date before ?string.${fmt}, but this has evaluated to ${typeName(t)}:`,
        bi.target,
      );
    }
    // ?date.xs, ?datetime.iso … on strings: parse with that format
    const s = stringTarget(env, t, bi.target, kind);
    return parseDateWith(env, s, kind as 'date', fmt, bi);
  };
}

import { parseDate } from './dates.js';
function parseDateWith(
  env: Env,
  s: string,
  kind: 'date' | 'time' | 'datetime',
  fmt: string,
  node: A.BuiltInExpr,
): FmDate {
  return parseDate(env, s, kind, fmt, node);
}

// ------------------------------------------------------------------ booleans

def('then', {
  custom: (node, cx, compile) => {
    const args = node.args ?? [];
    if (args.length !== 2) {
      throw new ParseError(
        `?then(...) expects exactly 2 arguments, but had ${args.length}.`,
        cx.name,
        node.beginLine,
        node.beginColumn,
      );
    }
    const T = compile(node.target, cx);
    const a = compile(args[0], cx);
    const b = compile(args[1], cx);
    const tn = node.target;
    return (env) => (toBoolean(T(env), tn, 'For "?then" left-hand operand') ? a(env) : b(env));
  },
});

def('switch', {
  custom: (node, cx, compile) => {
    const args = node.args ?? [];
    if (args.length < 2) {
      throw new ParseError(
        `?switch(...) expects at least 2 arguments, but had ${args.length}.`,
        cx.name,
        node.beginLine,
        node.beginColumn,
      );
    }
    const T = compile(node.target, cx);
    const A = args.map((x) => compile(x, cx));
    const tn = node.target;
    return (env) => {
      const v = T(env);
      if (v === undefined) throw missingError(tn);
      const pairs = Math.floor(A.length / 2);
      for (let i = 0; i < pairs; i++) {
        const c = A[i * 2](env);
        if (compareValues(env, v, c, 'eq', tn, args[i * 2], args[i * 2], '==')) return A[i * 2 + 1](env);
      }
      if (A.length % 2 === 1) return A[A.length - 1](env);
      throw blamedError(
        '_MiscTemplateException',
        "The value before ?switch(case1, value1, case2, value2, ...) didn't match any of the case parameters, and there was no default value parameter (an additional last parameter) eithter.",
        node,
      );
    };
  },
});

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
  if (a.k === 'lambda') {
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

// ------------------------------------------------------------------ loop variables

function loopBuiltin(
  name: string,
  f: (ctx: LoopCtx, args: unknown[], node: A.BuiltInExpr) => unknown,
  withArgs = false,
): void {
  def(name, {
    custom: (node, cx, compile) => {
      node.templateName = cx.name;
      const varName = (node.target as A.Ident).name;
      const A2 = (node.args ?? []).map((a) => compile(a, cx));
      const find = (env: Env): LoopCtx => {
        const loops = env.loops;
        for (let i = loops.length - 1; i >= 0; i--) {
          const c = loops[i];
          if (c instanceof LoopCtx && c.isLoop && c.has(varName)) return c;
        }
        throw elError(
          '_MiscTemplateException',
          `There's no iteration in context that uses loop variable ${JSON.stringify(varName)}.`,
          node,
        );
      };
      if (withArgs) {
        if (!node.args) {
          return (env) => {
            const ctx = find(env);
            return new FmMethod((args) => f(ctx, args, node), `?${name}`);
          };
        }
        return (env) =>
          f(
            find(env),
            A2.map((a) => a(env)),
            node,
          );
      }
      if (node.args) {
        return (env) =>
          callMethod(
            env,
            f(find(env), [], node),
            A2.map((a) => a(env)),
            node,
            node,
          );
      }
      return (env) => f(find(env), [], node);
    },
  });
}

loopBuiltin('index', (c) => c.index);
loopBuiltin('counter', (c) => c.index + 1);
loopBuiltin('has_next', (c) => c.hasNext);
loopBuiltin('is_last', (c) => !c.hasNext);
loopBuiltin('is_first', (c) => c.index === 0);
loopBuiltin('is_odd_item', (c) => c.index % 2 === 0);
loopBuiltin('is_even_item', (c) => c.index % 2 === 1);
loopBuiltin('item_parity', (c) => (c.index % 2 === 0 ? 'odd' : 'even'));
loopBuiltin('item_parity_cap', (c) => (c.index % 2 === 0 ? 'Odd' : 'Even'));
loopBuiltin(
  'item_cycle',
  (c, args, node) => {
    if (args.length === 0)
      throw biError(node, '?item_cycle(...) expects 1 or more arguments, but has received none.');
    const v = args[c.index % args.length];
    if (v === undefined)
      throw biError(
        node,
        `?item_cycle(...) argument #${(c.index % args.length) + 1} had null/missing value.`,
      );
    return v;
  },
  true,
);

// ------------------------------------------------------------------ existence

def(['has_content'], {
  custom: (node, cx, compile) => {
    const T = existenceTarget(node, cx, compile);
    return (env) => hasContent(T(env));
  },
});

export function hasContent(v: unknown): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v === 'string') return v.length > 0;
  if (v instanceof MatchItem) return v.text.length > 0;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof FmRange) return v.size > 0;
  if (v instanceof MatchResult) return v.items.length > 0;
  if (v instanceof FmCollection) return v.items.length > 0;
  if (v instanceof MarkupOutput) return v.markup.length > 0;
  if (isHash(v) && !(v instanceof Namespace)) return hashSize(v) > 0;
  return true;
}

def(['exists'], {
  custom: (node, cx, compile) => {
    const T = existenceTarget(node, cx, compile);
    return (env) => T(env) !== undefined;
  },
});

def(['if_exists'], {
  custom: (node, cx, compile) => {
    const T = existenceTarget(node, cx, compile);
    return (env) => {
      const v = T(env);
      return v === undefined ? '' : v;
    };
  },
});

def(['default'], {
  custom: (node, cx, compile) => {
    const T = existenceTarget(node, cx, compile);
    const A2 = (node.args ?? []).map((a) => compile(a, cx));
    return (env) => {
      const v = T(env);
      if (!node.args) {
        return new FmMethod((args) => (v !== undefined ? v : args.find((a) => a !== undefined)), '?default');
      }
      if (v !== undefined) return v;
      for (const a of A2) {
        const d = a(env);
        if (d !== undefined) return d;
      }
      return undefined;
    };
  },
});

// ------------------------------------------------------------------ type tests

function isTest(name: string, test: (v: unknown) => boolean): void {
  def(name, { value: (_env, t) => test(t) });
}
const isStr = (v: unknown): boolean => typeof v === 'string' || v instanceof MatchItem;
isTest('is_string', isStr);
isTest('is_number', isNumber);
isTest('is_boolean', (v) => typeof v === 'boolean' || v instanceof MatchResult || v instanceof StringBoolean);
isTest('is_date', (v) => v instanceof FmDate);
isTest('is_date_like', (v) => v instanceof FmDate);
isTest('is_date_only', (v) => v instanceof FmDate && v.kind === 'date');
isTest('is_time', (v) => v instanceof FmDate && v.kind === 'time');
isTest('is_datetime', (v) => v instanceof FmDate && v.kind === 'datetime');
isTest('is_unknown_date_like', (v) => v instanceof FmDate && v.kind === 'unknown');
isTest('is_method', (v) => typeof v === 'function' || v instanceof FmMethod);
isTest('is_macro', (v) => v instanceof MacroValue);
isTest('is_transform', (v) => v instanceof Transform);
isTest(
  'is_directive',
  (v) => v instanceof MacroValue || isDirectiveObject(v) || v instanceof InterpretedTemplate,
);
isTest('is_sequence', (v) => isSequence(v));
isTest('is_indexable', (v) => isSequence(v));
isTest('is_collection', (v) => v instanceof FmCollection);
isTest('is_collection_ex', (v) => v instanceof FmCollection);
isTest('is_enumerable', (v) => isEnumerable(v) || v instanceof FmCollection);
isTest('is_hash', (v) => isHash(v));
isTest('is_hash_ex', (v) => isHash(v) && !(v?.constructor?.name === 'LookupHash'));
isTest('is_node', () => false);
isTest('is_markup_output', (v) => v instanceof MarkupOutput);

// ------------------------------------------------------------------ output formats

def('esc', {
  value: (env, t, node) => {
    if (t instanceof MarkupOutput) return t;
    const s = stringTarget(env, t, node.target, 'esc');
    return new MarkupOutput(node.outputFormat!, s, undefined, escaperOf(node.outputFormat!));
  },
});
def('no_esc', {
  value: (env, t, node) => {
    if (t instanceof MarkupOutput) return t;
    const s = stringTarget(env, t, node.target, 'no_esc');
    return new MarkupOutput(node.outputFormat!, undefined, s, escaperOf(node.outputFormat!));
  },
});
def('markup_string', {
  value: (_env, t, node) => {
    if (t instanceof MarkupOutput) return t.markup;
    throw targetTypeError(node, 'markup output', t);
  },
});

// ------------------------------------------------------------------ expert

def('eval', {
  custom: (node, cx, compile) => {
    const T = compile(node.target, cx);
    const cache = new Map<string, Ev>();
    return (env) => {
      const t = T(env);
      if (t === undefined) throw missingError(node.target);
      const src = stringTarget(env, t, node.target, 'eval');
      let ev = cache.get(src);
      if (!ev) {
        try {
          const e = cx.parseExpression(src, cx.name + '->?eval');
          ev = compile(e, { ...cx, name: cx.name });
        } catch (err) {
          if (err instanceof ParseError) {
            throw blamedError(
              '_MiscTemplateException',
              `Failed to "?eval" string with this error:\n\n---begin-message---\n${err.message}\n---end-message---\n\nThe failing expression:`,
              node,
              [],
              err,
            );
          }
          throw err;
        }
        if (cache.size < 100) cache.set(src, ev);
      }
      return ev(env);
    };
  },
});

def('eval_json', {
  value: (env, t, node) => {
    const s = stringTarget(env, t, node.target, 'eval_json');
    try {
      return parseJson(s);
    } catch (e) {
      throw blamedError(
        '_MiscTemplateException',
        `Failed to "?eval_json" string with this error:\n\n---begin-message---\n${(e as Error).message}\n---end-message---\n\nThe failing expression:`,
        node,
      );
    }
  },
});

def('interpret', {
  value: (env, t, node) => {
    let src: string;
    let name = `${node.templateName}->anonymous_interpreted`;
    if (isSequence(t)) {
      const parts = seqItems(t, 10);
      if (parts.length < 1 || parts.length > 2)
        throw biError(node, '?interpret requires a string, or a sequence of 1 or 2 strings.');
      src = stringTarget(env, parts[0], node.target, 'interpret');
      if (parts.length > 1) name = stringTarget(env, parts[1], node.target, 'interpret');
    } else src = stringTarget(env, t, node.target, 'interpret');
    try {
      return new InterpretedTemplate(env.compileTemplate(src, name));
    } catch (e) {
      if (e instanceof ParseError) {
        throw blamedError(
          '_MiscTemplateException',
          `Template parsing with "?interpret" has failed with this error:\n\n---begin-message---\n${e.message}\n---end-message---\n\nThe failed expression:`,
          node,
          [],
          e,
        );
      }
      throw e;
    }
  },
});

def('namespace', {
  value: (_env, t, node) => {
    if (t instanceof MacroValue) return t.ns;
    throw targetTypeError(node, 'macro or function', t);
  },
});

def('absolute_template_name', {
  value: (env, t, node) =>
    absoluteName(env.unit.name, stringTarget(env, t, node.target, 'absolute_template_name')),
  call: (env, t, args, node) => {
    checkArgs(node, args, 1);
    return absoluteName(
      argString(node, args, 0),
      stringTarget(env, t, node.target, 'absolute_template_name'),
    );
  },
});

/** TemplateNameFormat.toRootBasedName: relative names resolve against the base's directory (no ".." folding). */
function absoluteName(base: string, name: string): string {
  if (name.startsWith('/')) return name;
  const slash = base.lastIndexOf('/');
  return '/' + (slash >= 0 ? base.slice(0, slash + 1) : '') + name;
}

for (const [name, last] of [
  ['with_args', false],
  ['with_args_last', true],
] as const) {
  def(name, {
    call: (env, t, args, node) => {
      checkArgs(node, args, 1);
      const a = args[0];
      if (!(
        t instanceof MacroValue ||
        typeof t === 'function' ||
        t instanceof FmMethod ||
        t instanceof BoundCallable
      )) {
        throw targetTypeError(node, 'macro, function, directive, or method', t);
      }
      if (isHash(a)) {
        const m = new Map<string, unknown>();
        for (const k of hashKeys(a))
          m.set(
            k,
            (a as Map<string, unknown>) instanceof Map
              ? (a as Map<string, unknown>).get(k)
              : (a as Record<string, unknown>)[k],
          );
        return new BoundCallable(t, m, null, last);
      }
      if (isSequence(a)) return new BoundCallable(t, null, seqItems(a, env.maxSteps).slice(), last);
      throw biError(node, `?${name} argument must be a hash or a sequence, but it was ${typeName(a)}.`);
    },
  });
}

// ------------------------------------------------------------------ ?new: FreeMarker's own utility transforms only

def('new', {
  value: (env, t, node) => {
    const cls = stringTarget(env, t, node.target, 'new');
    const made = UTILITY_CLASSES.get(cls);
    if (!made) {
      throw blamedError(
        '_MiscTemplateException',
        `?new of ${jQuote(cls)} is not supported by flowmark: it would instantiate a Java class. Only FreeMarker's own utility transforms (${[...UTILITY_CLASSES.keys()].join(', ')}) are available.`,
        node,
      );
    }
    return new FmMethod(() => made, `?new`);
  },
});

export { jQuote };
