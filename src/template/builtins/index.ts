/**
 * Built-in dispatch: the generic compile of `x?name` / `x?name(args)`, ?string's conversions, and
 * the table of every built-in joined from the families' explicit records (numbers, dates,
 * sequences, strings, conditionals, lambdas, loop variables, existence, type tests, output
 * formats, expert) — no registration by import side effect.
 */
import { emptyDict } from '../dict.js';
import type * as A from '../ast.js';
import type { ExprContext } from '../compile-expr.js';
import { UNSUPPORTED_BUILTINS } from '../builtin-names.js';
import { callMethod } from '../calls.js';
import { BoundCallable } from '../values.js';
import { ParseError, jQuote } from '../errors.js';
import { stringTarget } from '../ops.js';
import { type Env, type Ev, elError, exprError, missingError, typeName } from '../runtime.js';
import { enableLazy } from '../lazy.js';
import { BigDec } from '../bigdecimal.js';
import {
  FormatError,
  dateFormatter,
  numberFormatter,
  type DateFormatter,
  type NumberFormatter,
} from '../format.js';
import { FmDate, FmMethod, MatchResult, StringBoolean, isNumber, isSqlTime } from '../values.js';
import { argString, builtInFamily, checkArgs, type BuiltInTable } from './registry.js';
import { booleanString, numberString } from './numbers.js';
import { dateString, formatDateChecked } from './dates.js';
import { NUMBER_BUILT_INS } from './numbers.js';
import { DATE_BUILT_INS } from './dates.js';
import { SEQUENCE_BUILT_INS } from './sequences.js';
import { STRING_BUILT_INS } from './strings.js';
import { TRUNCATE_BUILT_INS } from './truncate.js';
import { CONDITIONAL_BUILT_INS } from './conditionals.js';
import { LAMBDA_BUILT_INS } from './lambdas.js';
import { LOOP_VARIABLE_BUILT_INS } from './loop-variables.js';
import { EXISTENCE_BUILT_INS } from './existence.js';
import { TYPE_TEST_BUILT_INS } from './type-tests.js';
import { OUTPUT_FORMAT_BUILT_INS } from './output-formats.js';
import { EXPERT_BUILT_INS, InterpretedTemplate } from './expert.js';

export { BoundCallable };

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
      const constants = literalArgs(node.args);
      if (constants !== undefined) {
        // literal arguments: evaluated once, and maybe a closure prepared for them
        const prepared = d.prepare?.(constants, node);
        if (prepared !== undefined) {
          return (env) => {
            const t = T(env);
            if (t === undefined && !missingOk) throw missingError(tn);
            return prepared(env, t, node);
          };
        }
        return (env) => {
          const t = T(env);
          if (t === undefined && !missingOk) throw missingError(tn);
          return call(env, t, constants as unknown[], node);
        };
      }
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

/** The values of arguments that are all string, number or boolean literals (a shared, frozen array), else undefined. */
function literalArgs(args: A.Expr[]): readonly unknown[] | undefined {
  const out: unknown[] = [];
  for (const a of args) {
    if (a.kind === 'str' && !a.parts) out.push(a.value);
    else if (a.kind === 'num' || a.kind === 'bool') out.push(a.value);
    else return undefined;
  }
  return Object.freeze(out);
}

const { def, records } = builtInFamily();

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
  // x?string("0.00") of a number: the formatter of the last locale kept (the call looks it up each time)
  prepare: (args, node) => {
    const call = records.string!.call!;
    if (args.length !== 1 || typeof args[0] !== 'string') return undefined;
    const fmt = args[0];
    let locale: string | null = null;
    let formatter: NumberFormatter | null = null;
    let dateKind: string | null = null;
    let dateLocale: string | null = null;
    let dateZone: string | null = null;
    let dateFmt: DateFormatter | null = null;
    return (env, t) => {
      if (typeof t === 'number' || t instanceof BigDec) {
        try {
          if (env.locale !== locale) {
            formatter = numberFormatter(fmt, env.locale);
            locale = env.locale;
          }
          return formatter!(t);
        } catch (e) {
          locale = null;
          if (e instanceof FormatError) throw elError('_TemplateModelException', e.message, node);
          throw e;
        }
      }
      if (t instanceof FmDate && t.kind !== 'unknown') {
        // the date formatter of the last kind, locale and time zone (the same text, errors included:
        // anything unusual goes the general way)
        if (t.kind === dateKind && env.locale === dateLocale && env.timeZone === dateZone) {
          try {
            return dateFmt!.format(t.epochMs, isSqlTime(t));
          } catch {
            dateKind = null;
          }
        }
        const s = dateString(env, t, args as unknown[], node);
        dateFmt = dateFormatter(fmt, t.kind, env.locale, env.timeZone);
        dateKind = t.kind;
        dateLocale = env.locale;
        dateZone = env.timeZone;
        return s;
      }
      return call(env, t, args as unknown[], node);
    };
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
  // the number formatter of the last locale (numberString looks it up each time)
  let locale: string | null = null;
  let formatter: NumberFormatter | null = null;
  return (env) => {
    const t = T(env);
    if (t === undefined) throw missingError(bi.target);
    if (kind === 'string') {
      if (isNumber(t)) {
        if (env.locale === locale) return formatter!(t);
        const s = numberString(env, t, fmt, bi);
        formatter = numberFormatter(fmt, env.locale);
        locale = env.locale;
        return s;
      }
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

/** ?string and the other conversions of any target to a string. */
export const STRING_CONVERSION_BUILT_INS = records;

/** Every built-in by name: the families' explicit tables, joined in this order. */
export const BUILTINS: BuiltInTable = Object.assign(
  emptyDict<BuiltInTable[string]>(),
  NUMBER_BUILT_INS,
  DATE_BUILT_INS,
  SEQUENCE_BUILT_INS,
  STRING_BUILT_INS,
  TRUNCATE_BUILT_INS,
  STRING_CONVERSION_BUILT_INS,
  CONDITIONAL_BUILT_INS,
  LAMBDA_BUILT_INS,
  LOOP_VARIABLE_BUILT_INS,
  EXISTENCE_BUILT_INS,
  TYPE_TEST_BUILT_INS,
  OUTPUT_FORMAT_BUILT_INS,
  EXPERT_BUILT_INS,
);

export { InterpretedTemplate, jQuote };
