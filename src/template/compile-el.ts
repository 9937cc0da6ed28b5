/**
 * Elements (directives, text, interpolations) → closures `(env) => void | Promise<void>`.
 * A closure returns undefined when it finished synchronously; only when a method returned a
 * Promise does the enclosing block continue asynchronously, so pure templates never await.
 */
import type * as A from './ast.js';
import { BigDec } from './bigdecimal.js';
import { compileFormatDot } from './builtins/index.js';
import { compileExpr, interpolationError } from './compile-expr.js';
import { formatDate, formatNumber, formatBoolean, toCompactJson } from './ops.js';
import { fractionDigitsFormatter } from './format.js';
import { escaperOf, isMarkupFormat } from './output-formats.js';
import { directiveOfKind } from './directives/index.js';
import type { ElementCompiler } from './directives/types.js';
import { type ElementContext, NOOP, evaluator, sequence, thenDo } from './exec.js';
import { type Env, type Exec, Pending, exprError, missingError, typeError } from './runtime.js';
import {
  FmCollection,
  FmDate,
  JDouble,
  MarkupOutput,
  MatchItem,
  MatchResult,
  isHash,
  isSequence,
} from './values.js';

export type InterpConverter = (env: Env, v: unknown, at: A.Expr) => string;

function block(children: A.El[], cx: ElementContext): Exec {
  return sequence(children.map((c) => compileEl(c, cx)));
}

// ------------------------------------------------------------------ interpolation

export function interpConverter(el: A.InterpEl, strict: boolean): InterpConverter {
  const fmt = el.outputFormat;
  const markup = isMarkupFormat(fmt);
  const escape = markup && el.autoEscape ? escaperOf(fmt) : null;
  const plain = (env: Env, v: unknown, at: A.Expr): string => {
    if (typeof v === 'number' || v instanceof BigDec || v instanceof JDouble) return formatNumber(env, v, at);
    if (v instanceof FmDate) return formatDate(env, v, at);
    if (typeof v === 'boolean') return formatBoolean(env, v, el as unknown as A.Expr);
    if (v instanceof MatchItem) return v.text;
    if (v instanceof MatchResult) return formatBoolean(env, v.matched, el as unknown as A.Expr);
    if (!strict && (isSequence(v) || isHash(v) || v instanceof FmCollection))
      return toCompactJson(env, v, env.maxOut - env.buf.s.length);
    throw interpolationError(v, at);
  };
  if (escape) {
    return (env, v, at) => {
      if (typeof v === 'string') return escape(v);
      if (v === undefined) {
        if (env.settings.classicCompatible) return '';
        throw missingError(at);
      }
      if (v instanceof MarkupOutput) {
        if (v.format === fmt) return v.markup;
        if (v.plain !== undefined) return escape(v.plain);
        throw exprError(
          '_TemplateModelException',
          `The value to print is in ${v.format} format, which differs from the current output format, ${fmt}. Format conversion wasn't possible.`,
          at,
        );
      }
      return escape(plain(env, v, at));
    };
  }
  return (env, v, at) => {
    if (typeof v === 'string') return v;
    if (v === undefined) {
      if (env.settings.classicCompatible) return '';
      throw missingError(at);
    }
    if (v instanceof MarkupOutput) {
      if (fmt === 'undefined' || v.format === fmt) return v.markup;
      if (v.plain !== undefined) return v.plain;
      throw exprError(
        '_TemplateModelException',
        `The value to print is in ${v.format} format, which differs from the current output format, ${fmt}. Format conversion wasn't possible.`,
        at,
      );
    }
    return plain(env, v, at);
  };
}

function compileInterp(el: A.InterpEl, cx: ElementContext): Exec {
  const at = el.escaped;
  if (el.numeric) {
    const ev = evaluator(at, cx);
    const minF = el.minFrac;
    const maxF = el.maxFrac;
    const escape = isMarkupFormat(el.outputFormat) && el.autoEscape ? escaperOf(el.outputFormat) : null;
    const out = (env: Env, v: unknown): void => {
      if (v === undefined) throw missingError(at);
      if (!(typeof v === 'number' || v instanceof BigDec || v instanceof JDouble))
        throw typeError(at, '', 'number', v);
      const s = fractionDigitsFormatter(env.locale, minF ?? 0, maxF ?? 50)(v);
      env.write(escape ? escape(s) : s);
    };
    return (env) => {
      const v = ev(env);
      if (v instanceof Pending) return thenDo(env, v, (x) => out(env, x));
      out(env, v);
    };
  }
  const conv = interpConverter(el, cx.strict);
  // ${x?string.short} etc.: compile the dot-after-?string form directly
  const ev =
    at.kind === 'dot' &&
    at.target.kind === 'bi' &&
    !at.target.args &&
    ['string', 'date', 'time', 'datetime'].includes(at.target.name)
      ? compileFormatDot(at, at.target, cx, compileExpr)
      : null;
  if (ev && !at.calls) {
    return (env) => {
      env.write(conv(env, ev(env), at));
    };
  }
  const full = evaluator(at, cx);
  if (!at.calls) {
    const plainStrings = !isMarkupFormat(el.outputFormat);
    return (env) => {
      const v = full(env);
      if (typeof v === 'string' && plainStrings) {
        env.write(v);
        return;
      }
      env.write(conv(env, v, at));
    };
  }
  return (env) => {
    const v = full(env);
    if (v instanceof Pending) return thenDo(env, v, (x) => env.write(conv(env, x, at)));
    env.write(conv(env, v, at));
  };
}

// ------------------------------------------------------------------ the element switch

export function compileEl(el: A.El, cx: ElementContext): Exec {
  el.templateName = cx.name;
  const moved = el.madeBy ?? directiveOfKind(el.kind);
  if (moved !== undefined) return moved.compile(el, elementCompiler(cx));
  switch (el.kind) {
    case 'text': {
      const s = el.text;
      if (s === '') return NOOP;
      return (env) => {
        env.write(s);
      };
    }
    case 'interp':
      return compileInterp(el, cx);
    case 'mixed':
      return block(el.children, cx);
  }
  // the kinds not handled above are those of directives/index.ts
  throw new Error(`no compiler for ${el.kind} elements`);
}

/** What a directive module's compile function gets: the context and the element compiler. */
function elementCompiler(cx: ElementContext): ElementCompiler {
  return { cx, element: (el) => compileEl(el, cx), block: (children) => block(children, cx) };
}
