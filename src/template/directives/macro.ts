/** #macro and #function (FreeMarker's Macro): defined in the namespace when the template runs. */
import type * as A from '../ast.js';
import { compileExpr } from '../compile-expr.js';
import { evaluator } from '../exec.js';
import { type Exec, type MacroDef, MacroValue } from '../runtime.js';
import { type Directive, type DirectiveParser, type ElementCompiler, elementBase } from './types.js';

function parse(p: DirectiveParser): A.El {
  const start = p.lx.next();
  const isFunction = start.name === 'function';
  if (p.inMacro || p.inFunction) {
    throw p.err("Macro or function definitions can't be nested into each other.", start);
  }
  if (isFunction) p.inFunction = true;
  else p.inMacro = true;
  p.requireArgs = false;
  const nameTok = p.assignTarget();
  if (p.lx.peek().t === 'OPEN_PAREN') p.lx.next();
  const params: A.MacroParam[] = [];
  let catchAll: string | null = null;
  let hasDefaults = false;
  while (p.lx.peek().t === 'ID') {
    const arg = p.lx.next();
    let isCatchAll = false;
    let def: A.Expr | null = null;
    if (p.lx.peek().t === 'ELLIPSIS') {
      p.lx.next();
      isCatchAll = true;
    }
    if (p.lx.peek().t === 'EQUALS') {
      p.lx.next();
      def = p.expression();
      hasDefaults = true;
    }
    if (p.lx.peek().t === 'COMMA') p.lx.next();
    if (catchAll !== null) {
      throw p.err(
        'There may only be one "catch-all" parameter in a macro declaration, and it must be the last parameter.',
        arg,
      );
    }
    if (isCatchAll) {
      if (def !== null) throw p.err('"Catch-all" macro parameter may not have a default value.', arg);
      catchAll = arg.image;
    } else {
      if (hasDefaults && def === null) {
        throw p.err(
          'In a macro declaration, parameters without a default value must all occur before the parameters with default values.',
          arg,
        );
      }
      params.push({ name: arg.image, defaultValue: def });
    }
  }
  if (p.lx.peek().t === 'CLOSE_PAREN') p.lx.next();
  p.directiveEnd();
  const savedCtx = p.iterCtxs;
  const savedBreak = p.breakable;
  const savedCont = p.continuable;
  p.iterCtxs = [];
  p.breakable = 0;
  p.continuable = 0;
  const children = p.mixedContent();
  const end = p.lx.peek();
  if (end.t !== 'END_TAG' || (end.name !== 'macro' && end.name !== 'function')) {
    throw p.unmatchedEnd(end, '#' + start.name);
  }
  p.lx.next();
  if (end.name === 'macro' && isFunction) throw p.err('Expected function end tag here.', end);
  if (end.name === 'function' && !isFunction) throw p.err('Expected macro end tag here.', end);
  p.iterCtxs = savedCtx;
  p.breakable = savedBreak;
  p.continuable = savedCont;
  p.inMacro = p.inFunction = false;
  const m = p.el<A.MacroEl>(
    {
      kind: 'macro',
      name: nameTok.name,
      isFunction,
      params,
      catchAll,
      usesArgs: p.requireArgs,
      ...elementBase(p),
    },
    p.span(p.tokPos(start), p.tokPos(end)),
    children,
  );
  p.macros.push(m);
  return m;
}

/** The value of a #function whose only element (besides stripped white-space) is `<#return expr>`. */
function onlyReturn(el: A.MacroEl): A.Expr | null {
  if (!el.isFunction) return null;
  const rest = el.children.filter((c) => !(c.kind === 'text' && c.text === ''));
  const r = rest.length === 1 ? rest[0] : undefined;
  return r !== undefined && r.kind === 'return' && r.value !== null ? r.value : null;
}

function compile(el: A.MacroEl, c: ElementCompiler): Exec {
  const cx = c.cx;
  const returned = onlyReturn(el);
  const def: MacroDef = {
    name: el.name,
    isFunction: el.isFunction,
    params: el.params.map((p) => ({
      name: p.name,
      def: p.defaultValue ? compileExpr(p.defaultValue, cx) : null,
    })),
    catchAll: el.catchAll,
    body: c.block(el.children),
    ...(returned !== null ? { returns: { ev: evaluator(returned, cx), at: returned } } : {}),
    el,
    // a value, not a getter: a getter in an object literal gives each definition its own hidden
    // class (old space), which keeps the whole compiled template alive through every scavenge
    unit: cx.unit(),
  };
  cx.macros.push(def);
  return (env) => {
    env.ns.vars.set(def.name, new MacroValue(def, env.ns));
  };
}

export const macro: Directive<'macro'> = {
  startTags: { macro: 'blank', function: 'blank' },
  endTags: ['macro', 'function'],
  kinds: ['macro'],
  nonOutputting: ['macro'],
  parse,
  compile,
  // a macro definition never fails; the stack shows the calls instead
  stackLabel: () => null,
};
