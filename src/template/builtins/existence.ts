/** Existence built-ins (?has_content, ?exists, ?default, ?if_exists): a missing target is not an error. */
import type * as A from '../ast.js';
import type { ExprContext } from '../compile-expr.js';

import { TemplateError } from '../errors.js';
import { type Ev } from '../runtime.js';
import {
  FmCollection,
  FmMethod,
  FmRange,
  MarkupOutput,
  MatchItem,
  MatchResult,
  Namespace,
  hashSize,
  isHash,
} from '../values.js';
import { builtInFamily } from './registry.js';

const { def, records } = builtInFamily();

function isParen(e: A.Expr): boolean {
  return e.kind === 'paren';
}

/** Evaluates the target of an existence built-in: missing (or, in parentheses, an invalid reference) is undefined. */
export function existenceTarget(
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

export const EXISTENCE_BUILT_INS = records;
