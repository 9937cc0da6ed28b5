/**
 * Invoking callables: JavaScript methods (contract §1.1: `this` = CallEnv, plain arguments, a
 * Promise result suspends the expression), #function calls from expressions, macro calls and
 * #nested, and user-defined directive objects.
 */
import type * as A from './ast.js';
import { ReturnSignal, TemplateError } from './errors.js';
import { addReachedThrough, ensureStack } from './ftl-stack.js';
import {
  AsyncNeeded,
  Buf,
  type Env,
  type Exec,
  Frame,
  type LocalCtx,
  MacroValue,
  NamedCtx,
  Pending,
  elError,
  fromPlain,
  limitError,
  methodError,
  missingCallError,
  missingError,
  recordCall,
  replayed,
  toPlain,
  typeError,
} from './runtime.js';
import { BoundCallable, DIRECTIVE, FmMethod, FmRange, isThenable } from './values.js';

/** Calls a method value with evaluated engine arguments (the `f(a, b)` expression). */
export function callMethod(
  env: Env,
  fn: unknown,
  args: unknown[],
  at: A.Call | A.BuiltInExpr,
  targetAt: A.Expr,
): unknown {
  if (fn instanceof BoundCallable) {
    if (fn.named)
      throw elError(
        '_MiscTemplateException',
        '?with_args with a hash can only be used with macros and directives.',
        at,
      );
    const all = fn.positional ? (fn.last ? [...args, ...fn.positional] : [...fn.positional, ...args]) : args;
    return callMethod(env, fn.target, all, at, targetAt);
  }
  if (typeof fn === 'function') return callExternal(env, fn as (...a: unknown[]) => unknown, args, at);
  if (fn instanceof FmMethod) return fn.invoke(args, env, at);
  if (fn instanceof MacroValue) {
    if (!fn.def.isFunction) {
      throw elError(
        '_MiscTemplateException',
        'A macro cannot be called in an expression. (Functions can be.)',
        targetAt,
      );
    }
    return callFunction(env, fn, args, at);
  }
  if (fn === undefined) throw missingCallError(targetAt);
  throw typeError(targetAt, 'For "...(...)" callee', 'method or function', fn);
}

/** A JavaScript function called from a template; results (and Promises) go through the call log. */
export function callExternal(
  env: Env,
  fn: (...a: unknown[]) => unknown,
  args: unknown[],
  at: A.Expr,
): unknown {
  const rp = replayed(env);
  if (rp.hit) return rp.value;
  const plain = new Array(args.length);
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    // a range reaches JavaScript as an array of its numbers
    if (a instanceof FmRange) env.allocateSlots(Math.min(a.size, 10_000_000), calledName(at));
    plain[i] = toPlain(a);
  }
  let r: unknown;
  try {
    r = fn.apply(env.callEnv(), plain);
  } catch (e) {
    throw methodError(e, at, at);
  }
  if (isThenable(r)) {
    const p = Promise.resolve(r).then(
      (x) => {
        const v = fromPlain(x);
        chargeResult(env, v, at);
        return v;
      },
      (e) => {
        throw methodError(e, at, at);
      },
    );
    throw new AsyncNeeded(p, rp.index);
  }
  const v = fromPlain(r);
  chargeResult(env, v, at);
  recordCall(env, rp.index, v);
  return v;
}

/**
 * Charges a large string or array a JavaScript function returned (a function that built it
 * charged the shared budget already when it could; this catches the others).
 */
function chargeResult(env: Env, v: unknown, at: A.Expr): void {
  if (typeof v === 'string') {
    if (v.length > 4096) env.allocateString(v.length, calledName(at));
  } else if (Array.isArray(v) && v.length > 512) env.allocateSlots(v.length, calledName(at));
}

function calledName(at: A.Expr): string {
  return at.kind === 'call' && at.target.kind === 'id' ? at.target.name : 'a function call';
}

function enterCall(env: Env): void {
  if (++env.depth > env.maxDepth) {
    env.depth--;
    throw limitError(`macro/function calls nested deeper than ${env.maxDepth} levels`);
  }
  // a call (its frame, scope and arguments) costs several times a directive
  env.ticks(CALL_STEPS);
}
const CALL_STEPS = 8;

/** Calls a #function from an expression: output discarded, the #return value is the result. */
export function callFunction(env: Env, fn: MacroValue, args: unknown[], at: A.Pos): unknown {
  const rp = replayed(env);
  if (rp.hit) return rp.value;
  const def = fn.def;
  if (args.length > def.params.length && def.catchAll === null) {
    throw elError(
      '_MiscTemplateException',
      `Function ${JSON.stringify(def.name)} only accepts ${def.params.length} parameters, but got ${args.length}.`,
      at,
    );
  }
  const snap = env.snap();
  enterCall(env);
  const frame = new Frame(fn, env.frame, env.loops, env.ns, env.unit, null, null, null);
  env.frame = frame;
  env.loops = [];
  env.ns = fn.ns;
  env.unit = def.unit;
  env.buf = new Buf();
  let r: void | Promise<void>;
  try {
    bindPositional(env, frame, def.params, def.catchAll, args, 'function', def.name, def.el);
    const returns = def.returns;
    if (returns !== undefined) {
      const v = returns.ev(env);
      if (v instanceof Pending) {
        r = env.resumeAfter(v.promise).then((x) => {
          if (x === undefined) throw missingError(returns.at);
          throw new ReturnSignal(x);
        });
      } else {
        if (v === undefined) throw missingError(returns.at);
        env.restore(snap);
        recordCall(env, rp.index, v);
        return v;
      }
    } else r = def.body(env);
  } catch (e) {
    env.restore(snap);
    if (e instanceof ReturnSignal) {
      recordCall(env, rp.index, e.value);
      return e.value;
    }
    throw e;
  }
  if (r === undefined) {
    env.restore(snap);
    recordCall(env, rp.index, undefined);
    return undefined;
  }
  env.restore(snap);
  const p = r.then(
    () => undefined,
    (e) => {
      if (e instanceof ReturnSignal) return e.value;
      throw e;
    },
  );
  throw new AsyncNeeded(p, rp.index);
}

function bindPositional(
  env: Env,
  frame: Frame,
  params: { name: string; def: ((env: Env) => unknown) | null }[],
  catchAll: string | null,
  args: unknown[],
  what: 'function' | 'macro',
  name: string,
  at: A.Pos,
): void {
  const n = Math.min(args.length, params.length);
  for (let i = 0; i < n; i++) if (args[i] !== undefined) frame.locals.set(params[i].name, args[i]);
  if (catchAll !== null) frame.locals.set(catchAll, args.slice(params.length));
  applyDefaults(
    env,
    frame,
    params,
    what,
    name,
    at,
    new Set(
      params
        .slice(0, n)
        .filter((_p, i) => args[i] !== undefined)
        .map((p) => p.name),
    ),
    args,
  );
}

/**
 * Macro.Context.sanityCheck: required parameters must be given; defaults are evaluated in the
 * macro's context, repeatedly while that resolves more of them (a default may use a later one).
 */
function applyDefaults(
  env: Env,
  frame: Frame,
  params: { name: string; def: ((env: Env) => unknown) | null; node?: A.Expr | null }[],
  what: 'function' | 'macro',
  name: string,
  at: A.Pos,
  _given: Set<string>,
  positional: unknown[] | null,
  namedNull?: Set<string>,
): void {
  let resolvedAny: boolean;
  let unresolved: boolean;
  let firstError: TemplateError | null;
  do {
    resolvedAny = false;
    unresolved = false;
    firstError = null;
    for (let i = 0; i < params.length; i++) {
      const p = params[i];
      if (frame.locals.has(p.name)) continue;
      if (p.def !== null) {
        let v: unknown;
        try {
          v = p.def(env);
        } catch (e) {
          if (!(e instanceof TemplateError && e.kind === 'InvalidReferenceException')) throw e;
          if (!unresolved) firstError = e;
          unresolved = true;
          continue;
        }
        if (v === undefined) {
          unresolved = true;
          continue;
        }
        frame.locals.set(p.name, v);
        resolvedAny = true;
        continue;
      }
      if (env.settings.classicCompatible) continue;
      const specifiedNull = (positional !== null && i < positional.length) || namedNull?.has(p.name) === true;
      throw elError(
        '_MiscTemplateException',
        `When calling ${what} ${JSON.stringify(name)}, required parameter ${JSON.stringify(p.name)} (parameter #${i + 1}) was ${specifiedNull ? 'specified, but had null/missing value' : 'not specified'}.`,
        at,
        [
          specifiedNull
            ? 'If the parameter value expression on the caller side is known to be legally null/missing, you may want to specify a default value for it with the "!" operator, like paramValue!defaultValue.'
            : 'If the omission was deliberate, you may consider making the parameter optional in the macro by specifying a default value for it, like <#macro macroName paramName=defaultExpr>)',
        ],
      );
    }
  } while (resolvedAny && unresolved);
  if (unresolved && firstError) throw firstError;
}

/** <@m …/> of a macro value. */
export function callMacro(
  env: Env,
  mv: MacroValue,
  named: Map<string, unknown> | null,
  positional: unknown[] | null,
  body: Exec | null,
  bodyParams: string[] | null,
  callEl: A.CallEl,
): void | Promise<void> {
  const def = mv.def;
  if (def.isFunction) {
    throw elError(
      '_MiscTemplateException',
      `Routine ${JSON.stringify(def.name)} is a function, not a directive. Functions can only be called from expressions, like in \${f()}, \${x + f()} or <@someDirective someParam=f() />.`,
      callEl,
    );
  }
  const snap = env.snap();
  enterCall(env);
  const frame = new Frame(mv, env.frame, env.loops, env.ns, env.unit, body, bodyParams, callEl);
  let r: void | Promise<void>;
  try {
    if (positional !== null) {
      if (positional.length > def.params.length && def.catchAll === null) {
        throw elError(
          '_MiscTemplateException',
          `Macro ${JSON.stringify(def.name)} only accepts ${def.params.length} parameters, but got ${positional.length}.`,
          callEl,
        );
      }
      const n = Math.min(positional.length, def.params.length);
      for (let i = 0; i < n; i++)
        if (positional[i] !== undefined) frame.locals.set(def.params[i].name, positional[i]);
      if (def.catchAll !== null) frame.locals.set(def.catchAll, positional.slice(def.params.length));
    } else if (named !== null) {
      let extra: Map<string, unknown> | null = null;
      const nulls = new Set<string>();
      for (const [k, v] of named) {
        if (def.params.some((p) => p.name === k)) {
          if (v !== undefined) frame.locals.set(k, v);
          else nulls.add(k);
        } else if (def.catchAll !== null) {
          (extra ??= new Map()).set(k, v);
        } else {
          throw elError(
            '_MiscTemplateException',
            `Macro ${JSON.stringify(def.name)} has no parameter with name ${JSON.stringify(k)}. Valid parameter names are: ${def.params.map((p) => p.name).join(', ')}`,
            callEl,
          );
        }
      }
      if (def.catchAll !== null) frame.locals.set(def.catchAll, extra ?? new Map());
      env.frame = frame;
      env.loops = [];
      env.ns = mv.ns;
      env.unit = def.unit;
      applyDefaults(env, frame, def.params, 'macro', def.name, def.el, new Set(), null, nulls);
    }
    env.frame = frame;
    env.loops = [];
    env.ns = mv.ns;
    env.unit = def.unit;
    if (positional !== null)
      applyDefaults(env, frame, def.params, 'macro', def.name, def.el, new Set(), positional);
    else if (named === null)
      applyDefaults(env, frame, def.params, 'macro', def.name, def.el, new Set(), null);
    r = def.body(env);
  } catch (e) {
    env.restore(snap);
    if (e instanceof ReturnSignal) return;
    if (e instanceof TemplateError) addReachedThrough(e, env.roots, callEl);
    throw e;
  }
  env.restore(snap);
  if (r === undefined) return;
  return r.then(
    () => env.restore(snap),
    (e) => {
      env.restore(snap);
      if (e instanceof ReturnSignal) return;
      if (e instanceof TemplateError) addReachedThrough(e, env.roots, callEl);
      throw e;
    },
  );
}

/** <#nested a, b>: the caller's body, in the caller's context, with the body parameters bound. */
export function runNested(env: Env, args: unknown[]): void | Promise<void> {
  const frame = env.frame;
  if (frame === null || frame.body === null) return;
  const snap = env.snap();
  env.frame = frame.callerFrame;
  let loops: LocalCtx[] = frame.callerLoops;
  if (frame.bodyParams !== null && frame.bodyParams.length) {
    loops = loops.concat([
      new NamedCtx(
        frame.bodyParams,
        frame.bodyParams.map((_n, i) => args[i]),
      ),
    ]);
  }
  env.loops = loops;
  env.ns = frame.callerNs;
  env.unit = frame.callerUnit;
  let r: void | Promise<void>;
  try {
    r = frame.body(env);
  } catch (e) {
    env.restore(snap);
    throw e;
  }
  env.restore(snap);
  if (r === undefined) return;
  return r.then(
    () => env.restore(snap),
    (e) => {
      env.restore(snap);
      throw e;
    },
  );
}

/** Parameters given to a directive object are plain JS values (contract §1.1). */
export function callDirectiveObject(
  env: Env,
  d: { [DIRECTIVE]: true; invoke: (...a: any[]) => unknown; rawParams?: boolean },
  named: Map<string, unknown> | null,
  positional: unknown[] | null,
  body: Exec | null,
  bodySource: string | null,
  callEl: A.CallEl,
): void | Promise<void> {
  const params: Record<string, unknown> = {};
  if (named) {
    for (const [k, v] of named) {
      Object.defineProperty(params, k, {
        value: d.rawParams ? v : toPlain(v),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  if (positional && positional.length) {
    throw elError(
      '_MiscTemplateException',
      'A user-defined directive only accepts named parameters.',
      callEl,
    );
  }
  const ctx = env.snap();
  const bodyObj =
    body === null
      ? null
      : {
          source: bodySource ?? '',
          render: (): Promise<string> => renderBody(env, body, ctx),
          renderSync: (): string => {
            const r = renderBodyRaw(env, body, ctx);
            if (typeof r !== 'string') throw new Error('the directive body needs asynchronous rendering');
            return r;
          },
        };
  let r: unknown;
  try {
    r = d.invoke(params, bodyObj, d.rawParams ? env : env.callEnv());
  } catch (e) {
    if (e instanceof TemplateError) throw e;
    throw methodError(e, callEl);
  }
  if (isThenable(r)) {
    return env.resumeAfter(r).then(
      (v) => {
        if (typeof v === 'string') env.write(v);
      },
      (e) => {
        throw methodError(e, callEl);
      },
    );
  }
  if (typeof r === 'string') env.write(r);
}

function renderBodyRaw(env: Env, body: Exec, ctx: ReturnType<Env['snap']>): string | Promise<string> {
  const outer = env.snap();
  env.restore(ctx);
  const buf = new Buf();
  env.buf = buf;
  let r: void | Promise<void>;
  try {
    r = body(env);
  } catch (e) {
    env.restore(outer);
    if (e instanceof TemplateError) ensureStack(e, env.roots);
    throw e;
  }
  env.restore(outer);
  if (r === undefined) return buf.s;
  return r.then(
    () => {
      env.restore(outer);
      return buf.s;
    },
    (e) => {
      env.restore(outer);
      if (e instanceof TemplateError) ensureStack(e, env.roots);
      throw e;
    },
  );
}

async function renderBody(env: Env, body: Exec, ctx: ReturnType<Env['snap']>): Promise<string> {
  return renderBodyRaw(env, body, ctx);
}
