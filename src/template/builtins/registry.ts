/** The table of built-ins and the helpers their implementations share (argument checks, messages). */
import type * as A from '../ast.js';
import type { ExprContext } from '../compile-expr.js';
import { intValue } from '../arith.js';
import { BigDec } from '../bigdecimal.js';
import { type Env, type Ev, describeType, elError, typeError } from '../runtime.js';
import { JDouble, MatchItem, type FmNumber } from '../values.js';

export type BiValue = (env: Env, t: unknown, node: A.BuiltInExpr) => unknown;
export type BiCall = (env: Env, t: unknown, args: unknown[], node: A.BuiltInExpr) => unknown;

export interface BiDef {
  /** `x?name` (no arguments). */
  value?: BiValue;
  /** `x?name(args)`; without arguments the built-in evaluates to a method value. */
  call?: BiCall;
  /** The target may be missing (`?default`, `?has_content` …). */
  missingOk?: boolean;
  /**
   * `x?name(args)` whose arguments are all literals: a closure for those arguments, made once when
   * the template is compiled (e.g. ?string("0.00") keeps its formatter), or undefined for `call`.
   * It must give what `call` gives with these arguments, errors included.
   */
  prepare?: (args: readonly unknown[], node: A.BuiltInExpr) => BiValue | undefined;
  /** Compiles the whole node itself (lazy parameters, lambdas, loop variables). */
  custom?: (node: A.BuiltInExpr, cx: ExprContext, compile: (e: A.Expr, cx: ExprContext) => Ev) => Ev;
}

export type BuiltInTable = Record<string, BiDef>;

/** The records of one family of built-ins (a module of builtins/), and `def` to add one; builtins/index.ts joins the families. */
export function builtInFamily(): {
  records: BuiltInTable;
  def: (names: string | string[], d: BiDef) => void;
} {
  const records: BuiltInTable = Object.create(null);
  const def = (names: string | string[], d: BiDef): void => {
    for (const n of Array.isArray(names) ? names : [names]) records[n] = d;
  };
  return { records, def };
}

const ORDINALS = ['1st', '2nd', '3rd'];
export function ordinal(i: number): string {
  return ORDINALS[i] ?? `${i + 1}th`;
}

export function checkArgs(node: A.BuiltInExpr, args: unknown[], min: number, max = min): void {
  const n = args.length;
  if (n >= min && n <= max) return;
  const expected =
    min === max
      ? `${min}`
      : max === Infinity
        ? `${min} or more`
        : max === min + 1
          ? `${min} or ${max}`
          : `${min} to ${max}`;
  throw elError(
    '_TemplateModelException',
    `?${node.name}(...) expects ${expected} argument${max === 1 && min === 1 ? '' : 's'}, but has received ${n === 0 ? 'none' : n}.`,
    node,
  );
}

function argTypeError(node: A.BuiltInExpr, i: number, expected: string, v: unknown): Error {
  if (v === undefined) {
    return elError(
      '_TemplateModelException',
      `?${node.name}(...) argument #${i + 1} had null/missing value.`,
      node,
    );
  }
  return elError(
    '_TemplateModelException',
    `?${node.name}(...) expects ${/^[aeiou]/.test(expected) ? 'an' : 'a'} ${expected} as its ${ordinal(i)} argument, but it was ${/^[aeiou]/.test(describeType(v)) ? 'an' : 'a'} ${describeType(v)}.`,
    node,
  );
}

export function argString(node: A.BuiltInExpr, args: unknown[], i: number): string {
  const v = args[i];
  if (typeof v === 'string') return v;
  if (v instanceof MatchItem) return v.text;
  throw argTypeError(node, i, 'string', v);
}

export function optString(node: A.BuiltInExpr, args: unknown[], i: number, dflt: string): string {
  return i < args.length ? argString(node, args, i) : dflt;
}

export function argNumber(node: A.BuiltInExpr, args: unknown[], i: number): FmNumber {
  const v = args[i];
  if (typeof v === 'number' || v instanceof BigDec || v instanceof JDouble) return v;
  throw argTypeError(node, i, 'number', v);
}

export function argInt(node: A.BuiltInExpr, args: unknown[], i: number): number {
  return intValue(argNumber(node, args, i));
}

export function targetTypeError(node: A.BuiltInExpr, expected: string, v: unknown): Error {
  return typeError(node.target, `For "?${node.name}" left-hand operand`, expected, v);
}

export function biError(node: A.BuiltInExpr, message: string, tips: string[] = []): Error {
  return elError('_TemplateModelException', message, node, tips);
}
