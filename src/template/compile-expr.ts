/**
 * Expressions → closures `(env) => value`. `undefined` is "missing": it flows until something
 * needs a value and raises FreeMarker's InvalidReferenceException there, so `!` and `??` are plain
 * checks except around parenthesised expressions (where FreeMarker catches the exception).
 */
import type * as A from './ast.js';
import * as arith from './arith.js';
import { ArithmeticError, BigDec } from './bigdecimal.js';
import { compileBuiltIn } from './builtins/index.js';
import { callMethod } from './calls.js';
import { TemplateError } from './errors.js';
import { addValues, coerceToString, compareValues, formatNumber, toBoolean, toNumber } from './ops.js';
import {
  type Env,
  type Ev,
  LoopCtx,
  blamedError,
  elError,
  exprError,
  missingError,
  typeError,
} from './runtime.js';
import { specialVariable } from './special-vars.js';
import {
  FmRange,
  JDouble,
  MarkupOutput,
  Namespace,
  hashGet,
  isHash,
  isSequence,
  seqGet,
  seqSize,
  type FmNumber,
} from './values.js';
import type { InterpConverter } from './compile-el.js';

export interface Cx {
  /** Template name (errors point into it). */
  name: string;
  strict: boolean;
  interp: (el: A.InterpEl) => InterpConverter;
}

export function compileExpr(e: A.Expr, cx: Cx): Ev {
  e.tn = cx.name;
  switch (e.k) {
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
      return (env) => {
        const m = new Map<string, unknown>();
        for (let i = 0; i < keys.length; i++) {
          const k = keys[i](env);
          if (k === undefined) throw missingError(kn[i]);
          if (typeof k !== 'string') throw typeError(kn[i], '', 'string', k);
          const v = vals[i](env);
          if (v === undefined) throw missingError(vn[i]);
          m.set(k, v);
        }
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
      return compileDot(e, cx);
    case 'key':
      return compileDynamicKey(e, cx);
    case 'call': {
      const target = compileExpr(e.target, cx);
      const args = e.args.map((a) => compileExpr(a, cx));
      const tn = e.target;
      return (env) => {
        const fn = target(env);
        if (fn === undefined) throw missingError(tn);
        const av = new Array(args.length);
        for (let i = 0; i < args.length; i++) av[i] = args[i](env);
        return callMethod(env, fn, av, e, tn);
      };
    }
    case 'bi':
      return compileBuiltIn(e, cx, compileExpr);
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
          return a + b;
        }
        return arithOp(() => addValues(env, a, b, e, ln, rn), e);
      };
    }
    case 'cmp': {
      const l = compileExpr(e.left, cx);
      const r = compileExpr(e.right, cx);
      const kind = e.kind;
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
        return compareValues(env, a, b, kind, ln, rn, rn, written);
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

function compileArith(e: A.Arith, cx: Cx): Ev {
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

function compileString(e: A.StrLit, cx: Cx): Ev {
  if (!e.parts) {
    const v = e.value;
    return () => v;
  }
  const parts: (string | Ev)[] = e.parts.map((p) => {
    if (typeof p === 'string') return p;
    p.tn = cx.name;
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

function compileDot(e: A.Dot, cx: Cx): Ev {
  const t = compileExpr(e.target, cx);
  const name = e.name;
  const tn = e.target;
  return (env) => {
    const v = t(env);
    if (v === undefined) throw missingError(tn);
    if (v instanceof Map) {
      const r = v.get(name);
      return r === null ? undefined : r;
    }
    if (v instanceof Namespace) {
      const r = v.vars.get(name);
      return r === null ? undefined : r;
    }
    if (isHash(v)) return hashGet(v, name);
    throw typeError(tn, '', 'hash', v);
  };
}

function compileDynamicKey(e: A.DynKey, cx: Cx): Ev {
  const t = compileExpr(e.target, cx);
  const tn = e.target;
  if (e.key.k === 'range') {
    const range = e.key;
    const lo = compileExpr(range.left, cx);
    const hi = range.right ? compileExpr(range.right, cx) : null;
    range.tn = cx.name;
    return (env) => {
      const v = t(env);
      if (v === undefined) throw missingError(tn);
      const start = toIndex(lo(env), range.left, 'range start');
      const endV = hi ? toIndex(hi(env), range.right!, 'range end') : null;
      return slice(env, v, start, endV, range, tn);
    };
  }
  const k = compileExpr(e.key, cx);
  const kn = e.key;
  return (env) => {
    const v = t(env);
    if (v === undefined) throw missingError(tn);
    const key = k(env);
    if (key === undefined) throw missingError(kn);
    if (typeof key === 'number' || key instanceof BigDec || key instanceof JDouble) {
      const idx = arith.intValue(key as FmNumber);
      if (typeof v === 'string') {
        if (idx < 0 || idx >= v.length) {
          throw elError(
            '_MiscTemplateException',
            `String index out of range: The index was ${idx} (0-based), but the length of the string is only ${v.length}.`,
            e,
          );
        }
        return v[idx];
      }
      if (isSequence(v)) return idx < 0 ? undefined : seqGet(v, idx);
      if (v instanceof FmRange) return idx < 0 ? undefined : v.get(idx);
      throw typeError(
        tn,
        '',
        'sequence or string or something automatically convertible to string (number, date or boolean)',
        v,
      );
    }
    if (typeof key === 'string') {
      if (isHash(v)) return hashGet(v, key);
      throw typeError(tn, '', 'hash', v);
    }
    throw typeError(kn, '', 'number, range, or string', key);
  };
}

function toIndex(v: unknown, at: A.Expr, what: string): number {
  const n = toNumber(v, at, `For the ${what}`);
  return arith.intValue(n);
}

/** seq[a..b], seq[a..<b], seq[a..*n], seq[a..], and the same on strings. */
function slice(
  env: Env,
  v: unknown,
  start: number,
  endV: number | null,
  range: A.Range,
  tn: A.Expr,
): unknown {
  let len: number;
  let str: string | null = null;
  if (typeof v === 'string') {
    str = v;
    len = v.length;
  } else if (isSequence(v)) len = seqSize(v);
  else if (v instanceof FmRange) len = v.size;
  else {
    const cs = typeof v === 'number' || v instanceof BigDec ? formatNumber(env, v as FmNumber, tn) : null;
    if (cs === null)
      throw typeError(
        tn,
        '',
        'sequence or string or something automatically convertible to string (number, date or boolean)',
        v,
      );
    str = cs;
    len = cs.length;
  }
  const what = str !== null ? 'string' : 'sequence';
  const err = (msg: string): TemplateError => blamedError('_MiscTemplateException', msg, range);
  if (start < 0)
    throw err(`Negative range start index (${start}) isn't allowed for a range used for slicing.`);
  let end: number; // exclusive
  if (range.end === 'unbound') {
    end = len;
  } else if (range.end === 'size') {
    if (endV! < 0) throw err(`Negative range size (${endV}) isn't allowed for a range used for slicing.`);
    end = Math.min(start + endV!, len);
    if (start > len)
      throw err(
        `Range start index ${start} is out of bounds, because the sliced ${what} has only ${len} ${str !== null ? 'character' : 'element'}(s).`,
      );
  } else {
    const inclusive = range.end === 'inclusive';
    const last = endV!;
    if (last < start - (inclusive ? 1 : 0) && !(inclusive && last === start - 1)) {
      throw err(
        `Decreasing ranges aren't allowed for slicing ${what}s (as it would give reversed text). The index range was: ${start}..${inclusive ? '' : '<'}${last}`,
      );
    }
    end = inclusive ? last + 1 : last;
    if (end < 0) throw err(`Negative range end index (${last}) isn't allowed for a range used for slicing.`);
    if (start > len || (start === len && end > start)) {
      throw err(
        `Range start index ${start} is out of bounds, because the sliced ${what} has only ${len} ${str !== null ? 'character' : 'element'}(s). (Note that indices are 0-based).`,
      );
    }
    if (end > len) {
      throw err(
        `Range end index ${last} is out of bounds, because the sliced ${what} has only ${len} ${str !== null ? 'character' : 'element'}(s). (Note that indices are 0-based).`,
      );
    }
  }
  if (str !== null) return str.slice(start, end);
  if (Array.isArray(v)) return v.slice(start, end);
  const r = v as FmRange;
  const out: number[] = [];
  for (let i = start; i < end; i++) out.push(r.get(i));
  return out;
}

function compileRange(e: A.Range, cx: Cx): Ev {
  const l = compileExpr(e.left, cx);
  const r = e.right ? compileExpr(e.right, cx) : null;
  const ln = e.left;
  const rn = e.right;
  const end = e.end;
  return (env) => {
    const a = toRangeBound(l(env), ln);
    if (end === 'unbound') return new FmRange(a, Infinity, 1, true);
    const b = toRangeBound(r!(env), rn!);
    if (end === 'size') {
      if (b >= 0) return new FmRange(a, b, 1, false);
      return new FmRange(a, -b, -1, false);
    }
    if (end === 'inclusive') {
      return b >= a ? new FmRange(a, b - a + 1, 1, false) : new FmRange(a, a - b + 1, -1, false);
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
  return e.k === 'paren';
}

function isInvalidRef(e: unknown): boolean {
  return e instanceof TemplateError && e.kind === 'InvalidReferenceException';
}

function compileDefault(e: A.DefaultTo, cx: Cx): Ev {
  const t = compileExpr(e.target, cx);
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
      if (rhs === null) return '';
      const d = rhs(env);
      if (d === undefined) throw missingError(rn!);
      return d;
    };
  }
  return (env) => {
    const v = t(env);
    if (v !== undefined) return v;
    if (rhs === null) return '';
    const d = rhs(env);
    if (d === undefined) throw missingError(rn!);
    return d;
  };
}

function compileExists(e: A.Exists, cx: Cx): Ev {
  const t = compileExpr(e.target, cx);
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

/** A lambda argument as a function of its parameter values (?filter, ?map …). */
export function compileLambda(e: A.Lambda, cx: Cx): (env: Env, args: unknown[]) => unknown {
  e.tn = cx.name;
  const body = compileExpr(e.body, cx);
  const params = e.params;
  if (params.length === 1) {
    const name = params[0];
    return (env, args) => {
      const ctx = new LoopCtx(name, null);
      ctx.value = args[0];
      env.loops.push(ctx);
      try {
        return body(env);
      } finally {
        const i = env.loops.lastIndexOf(ctx);
        if (i >= 0) env.loops.splice(i, 1);
      }
    };
  }
  return (env, args) => {
    const ctx = new LoopCtx(params[0] ?? null, params[1] ?? null);
    ctx.value = args[0];
    ctx.value2 = args[1];
    env.loops.push(ctx);
    try {
      return body(env);
    } finally {
      const i = env.loops.lastIndexOf(ctx);
      if (i >= 0) env.loops.splice(i, 1);
    }
  };
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
