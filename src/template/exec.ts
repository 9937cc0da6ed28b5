/**
 * What compiling an element needs besides the element switch: the compile context, the statement
 * combinators (sequence, then, capture) and expression evaluators. Shared by compile-el.ts and the
 * directive modules (directives/*.ts), which import it instead of compile-el.ts (no import cycle).
 */
import type * as A from './ast.js';
import { type ExprContext, compileExpr } from './compile-expr.js';
import {
  Buf,
  type Env,
  type Ev,
  type Exec,
  type MacroDef,
  Pending,
  type TemplateUnit,
  evalSession,
} from './runtime.js';

export const NOOP: Exec = () => undefined;

export interface ElementContext extends ExprContext {
  /** Macro definitions found while compiling (hoisted into the namespace when the template runs). */
  macros: MacroDef[];
  unit: () => TemplateUnit;
}

/** Evaluates an expression; expressions that may call methods run in a session (may give a Pending). */
export function evaluator(e: A.Expr, cx: ExprContext): Ev {
  const ev = compileExpr(e, cx);
  if (!e.calls) return ev;
  return (env) => evalSession(env, ev);
}

/** Like `then`, for statements (which return nothing or a Promise). */
export function thenDo(env: Env, v: unknown, f: (v: unknown) => void | Promise<void>): void | Promise<void> {
  if (v instanceof Pending) return env.resumeAfter(v.promise).then(f);
  return f(v);
}

/** Evaluates several expressions in order (used by calls and assignments); may become async. */
export function evalAll(
  env: Env,
  evs: Ev[],
  f: (vals: unknown[]) => void | Promise<void>,
): void | Promise<void> {
  const vals = new Array(evs.length);
  for (let i = 0; i < evs.length; i++) {
    const v = evs[i](env);
    if (v instanceof Pending) return evalAllAsync(env, evs, vals, i, v, f);
    vals[i] = v;
  }
  return f(vals);
}

async function evalAllAsync(
  env: Env,
  evs: Ev[],
  vals: unknown[],
  i: number,
  p: Pending,
  f: (vals: unknown[]) => void | Promise<void>,
): Promise<void> {
  vals[i] = await env.resumeAfter(p.promise);
  for (let j = i + 1; j < evs.length; j++) {
    let v = evs[j](env);
    if (v instanceof Pending) v = await env.resumeAfter(v.promise);
    vals[j] = v;
  }
  await f(vals);
}

export function sequence(execs: Exec[]): Exec {
  const list = execs.filter((e) => e !== NOOP);
  if (list.length === 0) return NOOP;
  if (list.length === 1) return list[0];
  if (list.length === 2) {
    const [a, b] = list;
    return (env) => {
      const r = a(env);
      if (r !== undefined) return continueSeq(env, list, 1, r);
      return b(env);
    };
  }
  const n = list.length;
  return (env) => {
    for (let i = 0; i < n; i++) {
      const r = list[i](env);
      if (r !== undefined) return continueSeq(env, list, i + 1, r);
    }
  };
}

async function continueSeq(env: Env, list: Exec[], i: number, p: Promise<void>): Promise<void> {
  await env.resumeAfter(p);
  for (; i < list.length; i++) {
    const r = list[i](env);
    if (r !== undefined) await env.resumeAfter(r);
  }
}

/** Runs `exec` with output into a fresh buffer; gives the captured text. */
export function capture(env: Env, exec: Exec, f: (s: string) => void | Promise<void>): void | Promise<void> {
  const saved = env.buf;
  const buf = new Buf();
  env.buf = buf;
  let r: void | Promise<void>;
  try {
    r = exec(env);
  } catch (e) {
    env.buf = saved;
    throw e;
  }
  env.buf = saved;
  if (r === undefined) return f(buf.s);
  // the caller snapshots the context it sees now, so it must already be its own (see Env.resumeAfter)
  return r.then(
    () => {
      env.buf = saved;
      return f(buf.s);
    },
    (e) => {
      env.buf = saved;
      throw e;
    },
  );
}
