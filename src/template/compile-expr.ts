/**
 * Expressions → closures `(env) => value`. `undefined` is "missing": it flows until something
 * needs a value and raises FreeMarker's InvalidReferenceException there, so `!` and `??` are plain
 * checks except around parenthesised expressions (where FreeMarker catches the exception).
 */
import type * as A from './ast.js';
import * as arith from './arith.js';
import { ArithmeticError, BigDec } from './bigdecimal.js';
import { compileBuiltIn, compileFormatDot } from './builtins/index.js';

const FORMAT_DOT = new Set(['string', 'date', 'time', 'datetime']);
import { callMethod } from './calls.js';
import { TemplateError } from './errors.js';
import { addValues, coerceToString, compareValues, formatNumber, toBoolean, toNumber } from './ops.js';
import {
  type Env,
  type Ev,
  ICI,
  blamedError,
  elError,
  exprError,
  missingCallError,
  missingError,
  typeError,
} from './runtime.js';
import { specialVariable } from './special-vars.js';
import {
  FmRange,
  JDouble,
  LegacyHashLiteral,
  RepeatedKeyHashLiteral,
  MarkupOutput,
  MatchItem,
  EMPTY_DEFAULT,
  Namespace,
  hashGet,
  isHash,
  isSequence,
  seqGet,
  seqSize,
} from './values.js';
import type { InterpConverter } from './compile-el.js';
import { LazySeq, enableLazy, isLazyEnabled, lazyItem, lazySlice, setCountingLimit } from './lazy.js';

function numValue(e: A.NumLit): number {
  const v = e.value;
  return typeof v === 'number' ? v : v instanceof BigDec ? v.toNumber() : NaN;
}

export interface ExprContext {
  /** Template name (errors point into it). */
  name: string;
  strict: boolean;
  interp: (el: A.InterpEl) => InterpConverter;
  /** incompatible_improvements as an int (ICI.V2_3_31 for 2.3.31): a few legacy behaviours depend on it. */
  ici: number;
  /** The expression parser (?eval), given by compile.ts so that expression code never imports the parser. */
  parseExpression: (source: string, templateName: string) => A.Expr;
}

export function compileExpr(e: A.Expr, cx: ExprContext): Ev {
  e.templateName = cx.name;
  switch (e.kind) {
    case 'num': {
      const v = e.value;
      return () => v;
    }
    case 'str':
      return compileString(e, cx);
    case 'bool': {
      const v = e.value;
      return () => v;
    }
    case 'list': {
      const items = e.items.map((i) => compileExpr(i, cx));
      const nodes = e.items;
      return (env) => {
        const out = new Array(items.length);
        for (let i = 0; i < items.length; i++) {
          const v = items[i](env);
          if (v === undefined) throw missingError(nodes[i]);
          out[i] = v;
        }
        return out;
      };
    }
    case 'hash': {
      const keys = e.keys.map((k) => compileExpr(k, cx));
      const vals = e.values.map((v) => compileExpr(v, cx));
      const kn = e.keys;
      const vn = e.values;
      const legacy = cx.ici < ICI.V2_3_21;
      return (env) => {
        const m = legacy ? new LegacyHashLiteral() : new Map<string, unknown>();
        for (let i = 0; i < keys.length; i++) {
          const k = keys[i](env);
          if (k === undefined) throw missingError(kn[i]);
          if (typeof k !== 'string') throw typeError(kn[i], '', 'string', k);
          const v = vals[i](env);
          if (v === undefined) throw missingError(vn[i]);
          m.set(k, v);
          if (m instanceof LegacyHashLiteral) m.pairs.push([k, v]);
        }
        if (m.size < keys.length && !legacy) return new RepeatedKeyHashLiteral(m, keys.length);
        return m;
      };
    }
    case 'id': {
      const name = e.name;
      return (env) => env.lookup(name);
    }
    case 'special':
      return specialVariable(e, cx);
    case 'dot':
      if (e.target.kind === 'bi' && !e.target.args && FORMAT_DOT.has(e.target.name)) {
        return compileFormatDot(e, e.target, cx, compileExpr);
      }
      return compileDot(e, cx);
    case 'key':
      return compileDynamicKey(e, cx);
    case 'call': {
      const target = compileExpr(e.target, cx);
      const args = e.args.map((a) => compileExpr(a, cx));
      const tn = e.target;
      return (env) => {
        const fn = target(env);
        if (fn === undefined) throw missingCallError(tn);
        const av = new Array(args.length);
        for (let i = 0; i < args.length; i++) av[i] = args[i](env);
        return callMethod(env, fn, av, e, tn);
      };
    }
    case 'bi':
      return compileBuiltIn(e, cx, compileExprWithLenient);
    case 'default':
      return compileDefault(e, cx);
    case 'exists':
      return compileExists(e, cx);
    case 'not': {
      const t = compileExpr(e.target, cx);
      const tn = e.target;
      return (env) => !toBoolean(t(env), tn, 'For "!" right-hand operand');
    }
    case 'neg': {
      const t = compileExpr(e.target, cx);
      const tn = e.target;
      if (!e.minus) return (env) => toNumber(t(env), tn);
      return (env) => {
        const v = t(env);
        if (typeof v === 'number' && Number.isSafeInteger(v)) return v === 0 ? 0 : -v;
        return arithOp(() => arith.negate(toNumber(v, tn)), e);
      };
    }
    case 'arith':
      return compileArith(e, cx);
    case 'add': {
      const l = compileExpr(e.left, cx);
      const r = compileExpr(e.right, cx);
      const ln = e.left;
      const rn = e.right;
      return (env) => {
        const a = l(env);
        const b = r(env);
        if (typeof a === 'number' && typeof b === 'number') {
          const s = a + b;
          if (Number.isSafeInteger(s) && Number.isSafeInteger(a) && Number.isSafeInteger(b))
            return s === 0 ? 0 : s;
        } else if (typeof a === 'string' && typeof b === 'string') {
          return a.length + b.length >= 64 ? env.concat(a, b) : a + b;
        }
        return arithOp(() => addValues(env, a, b, e, ln, rn), e);
      };
    }
    case 'cmp': {
      // `x?size > 0`: counting a lazily generated sequence can stop early
      if (e.left.kind === 'bi' && e.left.name === 'size' && e.right.kind === 'num')
        setCountingLimit(e.left, e.relation, numValue(e.right), false);
      else if (e.right.kind === 'bi' && e.right.name === 'size' && e.left.kind === 'num')
        setCountingLimit(e.right, e.relation, numValue(e.left), true);
      const l = compileExpr(e.left, cx);
      const r = compileExpr(e.right, cx);
      const kind = e.relation;
      const ln = e.left;
      const rn = e.right;
      const written = e.op;
      return (env) => {
        const a = l(env);
        const b = r(env);
        if (typeof a === 'number' && typeof b === 'number' && a === a && b === b) {
          switch (kind) {
            case 'eq':
              return a === b;
            case 'ne':
              return a !== b;
            case 'lt':
              return a < b;
            case 'le':
              return a <= b;
            case 'gt':
              return a > b;
            case 'ge':
              return a >= b;
          }
        }
        if (typeof a === 'string' && typeof b === 'string' && a === b) {
          if (kind === 'eq') return true;
          if (kind === 'ne') return false;
        }
        return compareValues(env, a, b, kind, ln, rn, e, written);
      };
    }
    case 'and': {
      const l = compileExpr(e.left, cx);
      const r = compileExpr(e.right, cx);
      const ln = e.left;
      const rn = e.right;
      return (env) =>
        toBoolean(l(env), ln, 'For "&&" left-hand operand') &&
        toBoolean(r(env), rn, 'For "&&" right-hand operand');
    }
    case 'or': {
      const l = compileExpr(e.left, cx);
      const r = compileExpr(e.right, cx);
      const ln = e.left;
      const rn = e.right;
      return (env) =>
        toBoolean(l(env), ln, 'For "||" left-hand operand') ||
        toBoolean(r(env), rn, 'For "||" right-hand operand');
    }
    case 'range':
      return compileRange(e, cx);
    case 'paren': {
      const inner = compileExpr(e.target, cx);
      return inner;
    }
    case 'lambda':
      throw elError(
        'ParseException',
        'A lambda expression (->) is only allowed as the argument of ?filter, ?map, ?take_while and ?drop_while.',
        e,
      );
  }
}

/** Arithmetic failures become FreeMarker's "Arithmetic operation failed" errors. */
function arithOp<T>(f: () => T, at: A.Expr): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof ArithmeticError) {
      throw elError('_MiscTemplateException', `Arithmetic operation failed: ${err.message}`, at);
    }
    if (err instanceof arith.NonDecimalError) {
      throw elError('_MiscTemplateException', err.message, at);
    }
    throw err;
  }
}

function compileArith(e: A.Arith, cx: ExprContext): Ev {
  const l = compileExpr(e.left, cx);
  const r = compileExpr(e.right, cx);
  const ln = e.left;
  const rn = e.right;
  const op = e.op;
  const slow = (a: unknown, b: unknown): unknown => {
    const x = toNumber(a, ln);
    const y = toNumber(b, rn);
    return arithOp(() => {
      switch (op) {
        case '-':
          return arith.subtract(x, y);
        case '*':
          return arith.multiply(x, y);
        case '/':
          return arith.divide(x, y);
        case '%':
          return arith.modulus(x, y);
      }
    }, e);
  };
  switch (op) {
    case '-':
      return (env) => {
        const a = l(env);
        const b = r(env);
        if (typeof a === 'number' && typeof b === 'number') {
          const s = a - b;
          if (Number.isSafeInteger(s) && Number.isSafeInteger(a) && Number.isSafeInteger(b))
            return s === 0 ? 0 : s;
        }
        return slow(a, b);
      };
    case '*':
      return (env) => {
        const a = l(env);
        const b = r(env);
        if (typeof a === 'number' && typeof b === 'number') {
          const s = a * b;
          if (Number.isSafeInteger(s) && Number.isSafeInteger(a) && Number.isSafeInteger(b))
            return s === 0 ? 0 : s;
        }
        return slow(a, b);
      };
    case '%':
      return (env) => {
        const a = l(env);
        const b = r(env);
        if (
          typeof a === 'number' &&
          typeof b === 'number' &&
          Number.isSafeInteger(a) &&
          Number.isSafeInteger(b) &&
          b !== 0
        ) {
          const s = a % b;
          return s === 0 ? 0 : s;
        }
        return slow(a, b);
      };
    default:
      return (env) => slow(l(env), r(env));
  }
}

function compileString(e: A.StrLit, cx: ExprContext): Ev {
  if (!e.parts) {
    const v = e.value;
    return () => v;
  }
  const parts: (string | Ev)[] = e.parts.map((p) => {
    if (typeof p === 'string') return p;
    p.templateName = cx.name;
    const conv = cx.interp(p);
    const ev = compileExpr(p.escaped, cx);
    const at = p.escaped;
    return (env: Env) => conv(env, ev(env), at);
  });
  return (env) => {
    let s = '';
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i];
      s += typeof p === 'string' ? p : (p(env) as string);
    }
    return s;
  };
}

/** compileExpr, carrying compileLenient for the existence built-ins (?has_content, ?default … on `(…)`). */
const compileExprWithLenient = Object.assign((e: A.Expr, cx: ExprContext): Ev => compileExpr(e, cx), {
  lenient: (e: A.Expr, cx: ExprContext): Ev => compileLenient(e, cx),
});

/**
 * The inside of `(…)!` and `(…)??`: in a plain a.b[c] chain a missing parent yields undefined
 * instead of throwing the InvalidReferenceException the operator would catch anyway, so the
 * common `(a.b.c)!d` costs no exception. Anything else (arguments, keys, operators) is compiled
 * as usual and its errors are caught by the operator as before.
 */
export function compileLenient(e: A.Expr, cx: ExprContext): Ev {
  e.templateName = cx.name;
  if (e.kind === 'paren') return compileLenient(e.target, cx);
  if (e.kind === 'dot') return compileDot(e, cx, true);
  if (e.kind === 'key') return compileDynamicKey(e, cx, true);
  return compileExpr(e, cx);
}

function compileDot(e: A.Dot, cx: ExprContext, lenient = false): Ev {
  const t = lenient ? compileLenient(e.target, cx) : compileExpr(e.target, cx);
  const name = e.name;
  const tn = e.target;
  return (env) => {
    const v = t(env);
    if (v === undefined) {
      if (lenient) return undefined;
      throw missingError(tn);
    }
    if (v instanceof Map) {
      const r = v.get(name);
      return r === null ? undefined : r;
    }
    if (v instanceof Namespace) {
      const r = v.vars.get(name);
      return r === null ? undefined : r;
    }
    if (isHash(v)) return hashGet(v, name);
    throw typeError(tn, 'For "." left-hand operand', 'hash', v);
  };
}

function compileDynamicKey(e: A.DynKey, cx: ExprContext, lenient = false): Ev {
  // DynamicKeyName takes a lazily generated sequence as it is (lists it up to the index or range)
  enableLazy(e.target);
  const t = lenient ? compileLenient(e.target, cx) : compileExpr(e.target, cx);
  const tn = e.target;
  const k = compileExpr(e.key, cx);
  const kn = e.key;
  const lazyResult = isLazyEnabled(e);
  return (env) => {
    const v = t(env);
    if (v === undefined) {
      if (lenient) return undefined;
      throw missingError(tn);
    }
    const key = k(env);
    if (key === undefined) throw missingError(kn);
    if (v instanceof LazySeq) return lazyKey(v, key, e, kn, tn, lazyResult);
    if (key instanceof FmRange) return slice(env, v, key, kn, tn);
    if (typeof key === 'number' || key instanceof BigDec || key instanceof JDouble) {
      const idx = arith.intValue(key);
      if (v instanceof FmRange) {
        if (idx < 0) throw elError('_MiscTemplateException', `Range item index ${idx} is out of bounds.`, e);
        return idx < v.size ? v.get(idx) : undefined;
      }
      if (isSequence(v)) return idx < 0 ? undefined : seqGet(v, idx);
      const str = typeof v === 'string' ? v : sliceableString(env, v, tn);
      if (idx < 0 || idx >= str.length) {
        if (idx < 0) throw elError('_MiscTemplateException', `Negative index not allowed: ${idx}`, e);
        throw elError(
          '_MiscTemplateException',
          `String index out of range: The index was ${idx} (0-based), but the length of the string is only ${str.length}.`,
          e,
        );
      }
      return str[idx];
    }
    if (typeof key === 'string') {
      if (isHash(v)) return hashGet(v, key);
      throw typeError(tn, 'For "...[...]" left-hand operand', 'hash', v);
    }
    throw typeError(kn, '', 'number, range, or string', key);
  };
}

/** `[index]` or `[range]` of a lazily generated sequence. */
function lazyKey(
  v: LazySeq,
  key: unknown,
  e: A.DynKey,
  kn: A.Expr,
  tn: A.Expr,
  lazyResult: boolean,
): unknown {
  if (key instanceof FmRange) {
    return lazySlice(
      v,
      key,
      lazyResult,
      (msg) => blamedError('_MiscTemplateException', msg, kn),
      (msg) => blamedError('_MiscTemplateException', msg, e),
    );
  }
  if (typeof key === 'number' || key instanceof BigDec || key instanceof JDouble) {
    return lazyItem(v, arith.intValue(key));
  }
  if (typeof key === 'string') throw typeError(tn, 'For "...[...]" left-hand operand', 'hash', v);
  throw typeError(kn, '', 'number, range, or string', key);
}

const SEQ_OR_STRING =
  'sequence or string or something automatically convertible to string (number, date or boolean)';

function sliceableString(env: Env, v: unknown, tn: A.Expr): string {
  if (typeof v === 'string') return v;
  if (v instanceof MatchItem) return v.text;
  if (typeof v === 'number' || v instanceof BigDec || v instanceof JDouble) return formatNumber(env, v, tn);
  throw typeError(tn, '', SEQ_OR_STRING, v);
}

/** DynamicKeyName.dealWithRangeKey: seq[a..b], seq[a..<b], seq[a..*n], seq[a..], and the same on strings. */
function slice(env: Env, v: unknown, range: FmRange, kn: A.Expr, tn: A.Expr): unknown {
  const seq = isSequence(v) ? v : null;
  const str = seq === null ? sliceableString(env, v, tn) : null;
  const what = str !== null ? 'string' : 'sequence';
  const unit = str !== null ? 'character(s)' : 'element(s)';
  const err = (msg: string): TemplateError => blamedError('_MiscTemplateException', msg, kn);
  const size = range.size;
  const rightUnbounded = range.unbounded;
  const rightAdaptive = range.rightAdaptive;
  if (!rightUnbounded && size === 0) return str !== null ? '' : [];
  const first = range.start;
  if (first < 0)
    throw err(`Negative range start index (${first}) isn't allowed for a range used for slicing.`);
  const targetSize = str !== null ? str.length : seqSize(seq);
  const step = range.step;
  if (rightAdaptive && step === 1 ? first > targetSize : first >= targetSize) {
    throw err(
      `Range start index ${first} is out of bounds, because the sliced ${what} has only ${targetSize} ${unit}. (Note that indices are 0-based).`,
    );
  }
  let resultSize: number;
  if (!rightUnbounded) {
    const last = first + (size - 1) * step;
    if (last < 0) {
      if (!rightAdaptive)
        throw err(`Negative range end index (${last}) isn't allowed for a range used for slicing.`);
      resultSize = first + 1;
    } else if (last >= targetSize) {
      if (!rightAdaptive) {
        throw err(
          `Range end index ${last} is out of bounds, because the sliced ${what} has only ${targetSize} ${unit}. (Note that indices are 0-based).`,
        );
      }
      resultSize = Math.abs(targetSize - first);
    } else resultSize = size;
  } else resultSize = targetSize - first;
  if (resultSize === 0) return str !== null ? '' : [];
  if (seq !== null) {
    const out = new Array(resultSize);
    let src = first;
    for (let i = 0; i < resultSize; i++) {
      out[i] = seqGet(seq, src);
      src += step;
    }
    return out;
  }
  let exclEnd: number;
  if (step < 0 && resultSize > 1) {
    if (!(range.inclusive && resultSize === 2)) {
      throw err(
        `Decreasing ranges aren't allowed for slicing strings (as it would give reversed text). The index range was: first = ${first}, last = ${first + (resultSize - 1) * step}`,
      );
    }
    exclEnd = first;
  } else exclEnd = first + resultSize;
  return str!.slice(first, exclEnd);
}

function compileRange(e: A.Range, cx: ExprContext): Ev {
  const l = compileExpr(e.left, cx);
  const r = e.right ? compileExpr(e.right, cx) : null;
  const ln = e.left;
  const rn = e.right;
  const end = e.end;
  const legacyUnbounded = cx.ici < ICI.V2_3_21;
  return (env) => {
    const a = toRangeBound(l(env), ln);
    if (end === 'unbound') return new FmRange(a, legacyUnbounded ? 0 : 2147483647, 1, true, true);
    const b = toRangeBound(r!(env), rn!);
    if (end === 'size') {
      if (b >= 0) return new FmRange(a, b, 1, false, true);
      return new FmRange(a, -b, -1, false, true);
    }
    if (end === 'inclusive') {
      return b >= a
        ? new FmRange(a, b - a + 1, 1, false, false, true)
        : new FmRange(a, a - b + 1, -1, false, false, true);
    }
    if (b === a) return new FmRange(a, 0, 1, false);
    return b > a ? new FmRange(a, b - a, 1, false) : new FmRange(a, a - b, -1, false);
  };
}

function toRangeBound(v: unknown, at: A.Expr): number {
  const n = toNumber(v, at);
  return arith.intValue(n);
}

function isParen(e: A.Expr): boolean {
  return e.kind === 'paren';
}

function isInvalidRef(e: unknown): boolean {
  return e instanceof TemplateError && e.kind === 'InvalidReferenceException';
}

function compileDefault(e: A.DefaultTo, cx: ExprContext): Ev {
  const t = isParen(e.target) ? compileLenient(e.target, cx) : compileExpr(e.target, cx);
  const rhs = e.rhs ? compileExpr(e.rhs, cx) : null;
  const rn = e.rhs;
  if (isParen(e.target)) {
    return (env) => {
      let v: unknown;
      try {
        v = t(env);
      } catch (err) {
        if (!isInvalidRef(err)) throw err;
        v = undefined;
      }
      if (v !== undefined) return v;
      if (rhs === null) return EMPTY_DEFAULT;
      const d = rhs(env);
      if (d === undefined) throw missingError(rn!);
      return d;
    };
  }
  return (env) => {
    const v = t(env);
    if (v !== undefined) return v;
    if (rhs === null) return EMPTY_DEFAULT;
    const d = rhs(env);
    if (d === undefined) throw missingError(rn!);
    return d;
  };
}

function compileExists(e: A.Exists, cx: ExprContext): Ev {
  const t = isParen(e.target) ? compileLenient(e.target, cx) : compileExpr(e.target, cx);
  if (isParen(e.target)) {
    return (env) => {
      try {
        return t(env) !== undefined;
      } catch (err) {
        if (!isInvalidRef(err)) throw err;
        return false;
      }
    };
  }
  return (env) => t(env) !== undefined;
}

export function interpolationError(v: unknown, at: A.Expr): TemplateError {
  const err = typeError(
    at,
    'For "${...}" content',
    'string or something automatically convertible to string (number, date or boolean), or "template output" ',
    v,
  );
  err.kind = 'NonStringOrTemplateOutputException';
  return err;
}

export { coerceToString, exprError, MarkupOutput };
