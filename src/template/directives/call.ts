/**
 * User-defined directive calls: `<@x …>…</@x>` (FreeMarker's UnifiedCall) and the deprecated
 * `<#call x …>`. The callee may be a macro, a transform, a template from ?interpret, a JavaScript
 * directive object or an optional #include's template.
 */
import type * as A from '../ast.js';
import { BoundCallable, InterpretedTemplate } from '../builtins/index.js';
import { callDirectiveObject, callMacro } from '../calls.js';
import { canonical } from '../canonical.js';
import { capture, evalAll, evaluator, thenDo } from '../exec.js';
import { runUnitHere } from '../loading.js';
import { OptionalTemplateInclude } from '../optional-template.js';
import type { Token } from '../lexer.js';
import {
  type Env,
  type Exec,
  MacroValue,
  Pending,
  describeType,
  elError,
  exprError,
  missingError,
  typeName,
} from '../runtime.js';
import { Transform, TransformFailure, type TransformParams } from '../transforms.js';
import { isDirectiveObject } from '../values.js';
import { type Directive, type DirectiveParser, type ElementCompiler, elementBase } from './types.js';

// ------------------------------------------------------------------ parsing

function parse(p: DirectiveParser, tag: Token): A.El {
  return tag.t === 'UNIFIED_CALL' ? unifiedCall(p) : callDirective(p);
}

/** `<#call name args>`: positional (optionally in parentheses) or named arguments, no body. */
function callDirective(p: DirectiveParser): A.El {
  const start = p.lx.next();
  const id = p.expect('ID');
  const idPos = p.tokPos(id);
  const callee: A.Ident = {
    kind: 'id',
    name: id.image,
    beginLine: idPos.beginLine,
    beginColumn: idPos.beginColumn,
    endLine: idPos.endLine,
    endColumn: idPos.endColumn,
    templateName: p.name,
    calls: false,
  };
  let named: A.CallEl['named'] = null;
  let positional: A.Expr[] | null = null;
  if (p.lx.peek(0).t === 'ID' && p.lx.peek(1).t === 'EQUALS') {
    named = p.namedArgs();
  } else {
    let paren = false;
    if (p.lx.peek().t === 'OPEN_PAREN') {
      p.lx.next();
      paren = true;
    }
    positional = p.positionalArgs();
    if (paren && p.lx.peek().t === 'CLOSE_PAREN') p.lx.next();
  }
  const end = p.looseDirectiveEnd();
  return p.el<A.CallEl>(
    {
      kind: 'call',
      callee,
      named,
      positional,
      loopVars: null,
      bodySource: null,
      legacy: true,
      ...elementBase(p),
    },
    p.span(p.tokPos(start), p.tokPos(end)),
  );
}

/** `<@callee args; loopVars/>` or `<@callee args; loopVars>body</@callee>`. */
function unifiedCall(p: DirectiveParser): A.El {
  const lx = p.lx;
  const start = lx.next();
  const callee = p.expression();
  let nameExp: A.Expr | null = callee;
  if (
    nameExp.kind === 'call' &&
    nameExp.target.kind === 'bi' &&
    (nameExp.target.name === 'with_args' || nameExp.target.name === 'with_args_last')
  ) {
    nameExp = nameExp.target.target;
  }
  const startTagName =
    nameExp.kind === 'id' || (nameExp.kind === 'dot' && onlyIdentifiers(nameExp)) ? canonical(nameExp) : null;
  if (lx.peek().t === 'TERMINATING_WHITESPACE') lx.next();
  let named: A.CallEl['named'] = null;
  let positional: A.Expr[] | null = null;
  if (lx.peek(0).t === 'ID' && lx.peek(1).t === 'EQUALS') named = p.namedArgs();
  else positional = p.positionalArgs();
  let loopVars: string[] | null = null;
  if (lx.peek().t === 'SEMICOLON') {
    lx.next();
    loopVars = [];
    if (lx.peek().t === 'TERMINATING_WHITESPACE') lx.next();
    if (lx.peek().t === 'ID') {
      loopVars.push(lx.next().image);
      for (;;) {
        if (lx.peek().t === 'TERMINATING_WHITESPACE') lx.next();
        if (lx.peek().t !== 'COMMA') break;
        lx.next();
        if (lx.peek().t === 'TERMINATING_WHITESPACE') lx.next();
        loopVars.push(p.expect('ID').image);
      }
    }
  }
  const t = lx.peek();
  let children: A.El[] = [];
  let bodySource: string | null = null;
  let end: Token;
  if (t.t === 'EMPTY_DIRECTIVE_END') {
    end = lx.next();
  } else if (t.t === 'DIRECTIVE_END') {
    const open = lx.next();
    let pushed = 0;
    if (loopVars) {
      for (const lv of loopVars) {
        for (let i = p.iterCtxs.length - 1; i >= 0; i--) {
          const ctx = p.iterCtxs[i];
          if (ctx.loopVar === lv) {
            if (ctx.kind !== 'user') {
              p.iterCtxs.push({ loopVar: lv, loopVar2: null, kind: 'user' });
              pushed++;
            }
            break;
          }
        }
      }
    }
    children = p.mixedContent();
    end = lx.peek();
    if (end.t !== 'UNIFIED_CALL_END') {
      // FreeMarker names an unclosed call "@..." whatever its name
      throw p.unmatchedEnd(end, '@...');
    }
    lx.next();
    for (let i = 0; i < pushed; i++) p.iterCtxs.pop();
    bodySource = p.src.slice(open.end, end.start);
    const endName = (end.name ?? '').replace(/\\/g, '');
    if (endName.length > 0) {
      if (startTagName === null) throw p.err('Expecting </@>', end);
      if (endName !== startTagName.replace(/\\/g, ''))
        throw p.err(`Expecting </@> or </@${startTagName}>`, end);
    }
  } else {
    throw p.unexpected(t, 'one of these patterns:\n    ">"\n    <EMPTY_DIRECTIVE_END>');
  }
  return p.el<A.CallEl>(
    {
      kind: 'call',
      callee,
      named,
      positional,
      loopVars,
      bodySource,
      legacy: false,
      ...elementBase(p),
    },
    p.span(p.tokPos(start), p.tokPos(end)),
    children,
  );
}

function onlyIdentifiers(e: A.Expr): boolean {
  if (e.kind === 'id') return true;
  if (e.kind === 'dot') return onlyIdentifiers(e.target);
  return false;
}

// ------------------------------------------------------------------ compiling

function compileCall(el: A.CallEl, c: ElementCompiler): Exec {
  const cx = c.cx;
  const callee = evaluator(el.callee, cx);
  const cn = el.callee;
  const named = el.named ? el.named.map((a) => ({ name: a.name, ev: evaluator(a.value, cx) })) : null;
  const positional = el.positional ? el.positional.map((a) => evaluator(a, cx)) : null;
  const body = el.bodySource !== null ? c.block(el.children) : null;
  const argEvs = named ? named.map((a) => a.ev) : (positional ?? []);
  const invoke = (env: Env, fn: unknown, vals: unknown[]): void | Promise<void> => {
    let namedMap: Map<string, unknown> | null = null;
    let pos: unknown[] | null = null;
    if (named) {
      namedMap = new Map();
      for (let i = 0; i < named.length; i++) namedMap.set(named[i].name, vals[i]);
    } else pos = vals;
    if (fn instanceof BoundCallable) {
      const b = fn;
      fn = b.target;
      if (b.named) {
        const m = new Map<string, unknown>();
        if (b.last) {
          for (const [k, v] of namedMap ?? []) m.set(k, v);
          for (const [k, v] of b.named) if (!m.has(k)) m.set(k, v);
        } else {
          for (const [k, v] of b.named) m.set(k, v);
          for (const [k, v] of namedMap ?? []) m.set(k, v);
        }
        namedMap = m;
      }
      if (b.positional) pos = b.last ? [...(pos ?? []), ...b.positional] : [...b.positional, ...(pos ?? [])];
      if (namedMap && pos && pos.length) {
        throw elError(
          '_MiscTemplateException',
          "Can't mix named and positional arguments in a directive call.",
          el,
        );
      }
      if (namedMap && namedMap.size === 0) namedMap = null;
    }
    if (fn instanceof MacroValue) return callMacro(env, fn, namedMap, pos, body, el.loopVars, el);
    if (fn instanceof OptionalTemplateInclude)
      return fn.call(env, namedMap !== null && namedMap.size > 0, el);
    if (fn instanceof InterpretedTemplate) {
      const r = runInterpreted(env, fn);
      if (!body) return r;
      if (r === undefined) return body(env);
      return r.then(() => body(env));
    }
    if (fn instanceof Transform) return callTransform(env, fn, namedMap, body, el);
    if (isDirectiveObject(fn)) {
      return callDirectiveObject(env, fn as never, namedMap, pos, body, el.bodySource, el);
    }
    if (fn === undefined) throw missingError(cn);
    throw notADirective(cn, fn);
  };
  return (env) => {
    const fn = callee(env);
    if (fn instanceof Pending)
      return thenDo(env, fn, (f) => evalAll(env, argEvs, (vals) => invoke(env, f, vals)));
    if (fn === undefined) throw missingError(cn);
    if (argEvs.length === 0) return invoke(env, fn, []);
    return evalAll(env, argEvs, (vals) => invoke(env, fn, vals));
  };
}

/** FreeMarker's NonUserDefinedDirectiveLikeException (its wording, "a(n)" included, for `<@` and `#call`). */
function notADirective(callee: A.Expr, value: unknown) {
  const t = typeName(value);
  return exprError(
    'NonUserDefinedDirectiveLikeException',
    `For "@" callee: Expected a(n) user-defined directive, transform or macro, but this has evaluated to ${/^[aeiou]/i.test(t) ? 'an' : 'a'} ${describeType(value)}:`,
    callee,
  );
}

/** <@x/> where x came from ?interpret: the template runs here, in the current namespace. */
function runInterpreted(env: Env, it: InterpretedTemplate): void | Promise<void> {
  return runUnitHere(env, it.unit);
}

/** `<@t …>body</@t>` of a transform: parameters checked, body captured, output handed to the transform. */
function callTransform(
  env: Env,
  t: Transform,
  params: TransformParams,
  body: Exec | null,
  el: A.CallEl,
): void | Promise<void> {
  const failed = (e: unknown): unknown =>
    e instanceof TransformFailure ? elError(e.kind, e.message, el) : e;
  let close: (output: string) => void;
  try {
    close = t.open(env, params);
  } catch (e) {
    throw failed(e);
  }
  const finish = (output: string): void => {
    try {
      close(output);
    } catch (e) {
      throw failed(e);
    }
  };
  if (body === null) return finish('');
  return capture(env, body, finish);
}

// ------------------------------------------------------------------ the FTL stack trace

function args(el: A.CallEl): string {
  let s = '';
  if (el.positional && el.positional.length) s += ' ' + el.positional.map(canonical).join(', ');
  if (el.named) for (const a of el.named) s += ` ${a.name}=${canonical(a.value)}`;
  if (el.loopVars && el.loopVars.length) s += '; ' + el.loopVars.join(', ');
  return s;
}

/** `<@…>` tokens (UNIFIED_CALL) are parsed here too: the parser hands them to the `call` tag's module. */
export const call: Directive<'call'> = {
  startTags: { call: 'blank' },
  kinds: ['call'],
  parse,
  compile: compileCall,
  // FreeMarker parses #call into a UnifiedCall: its stack trace shows `@` for both
  stackLabel: (el) => `@${canonical(el.callee)}${args(el)}`,
};
