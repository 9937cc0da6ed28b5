/** #assign, #global, #local (FreeMarker's Assignment, AssignmentInstruction and BlockAssignment). */
import type * as A from '../ast.js';
import * as arith from '../arith.js';
import { BigDec } from '../bigdecimal.js';
import { jQuote, errorMessage } from '../errors.js';
import { addValues } from '../ops.js';
import { escaperOf, isMarkupFormat } from '../output-formats.js';
import { capture, evalAll, evaluator, sequence, thenDo } from '../exec.js';
import { type Env, type Exec, elError, missingError, typeError, describeType } from '../runtime.js';
import { JDouble, MarkupOutput, Namespace } from '../values.js';

import { canonical } from '../canonical.js';
import type { Tk } from '../lexer.js';
import { type Directive, type DirectiveParser, type ElementCompiler, elementBase } from './types.js';

function parse(p: DirectiveParser): A.El {
  const start = p.lx.next();
  const scope: A.AssignScope =
    start.name === 'assign' ? 'namespace' : start.name === 'global' ? 'global' : 'local';
  if (scope === 'local' && !p.inMacro && !p.inFunction) {
    throw p.err('Local variable assigned outside a macro.', start);
  }
  const first = p.assignTarget();
  const t = p.lx.peek();
  if (isAssignOp(t.t)) {
    const assignments: A.AssignEl[] = [];
    let nameTok = first;
    for (;;) {
      const opTok = p.lx.next();
      if (!isAssignOp(opTok.t)) throw p.unexpected(opTok);
      let value: A.Expr | null = null;
      if (opTok.t !== 'PLUS_PLUS' && opTok.t !== 'MINUS_MINUS') value = p.expression();
      const np = p.tokPos(nameTok.tok);
      assignments.push(
        p.el<A.AssignEl>(
          {
            kind: 'assign',
            name: nameTok.name,
            op: opTok.image as A.AssignOp,
            value,
            scope,
            ns: null,
            namePos: np,
            ...elementBase(p),
          },
          p.span(np, value ?? p.tokPos(opTok)),
        ),
      );
      // LOOKAHEAD([COMMA] (ID|STRING) assignOp)
      let k = 0;
      if (p.lx.peek(0).t === 'COMMA') k = 1;
      const nt = p.lx.peek(k);
      if ((nt.t === 'ID' || nt.t === 'STRING') && isAssignOp(p.lx.peek(k + 1).t)) {
        if (k) p.lx.next();
        nameTok = p.assignTarget();
        continue;
      }
      break;
    }
    let ns: A.Expr | null = null;
    if (p.lx.peek().t === 'IN') {
      const inTok = p.lx.next();
      ns = p.expression();
      if (scope !== 'namespace') throw p.err('Cannot assign to namespace here.', inTok);
    }
    const end = p.looseDirectiveEnd();
    const pos = p.span(p.tokPos(start), p.tokPos(end));
    if (assignments.length === 1) {
      const a = assignments[0];
      a.ns = ns;
      Object.assign(a, pos);
      return a;
    }
    for (const a of assignments) a.ns = ns;
    return p.el<A.AssignInstrEl>(
      {
        kind: 'assignInstr',
        scope,
        ns,
        ...elementBase(p),
      },
      pos,
      assignments,
    );
  }
  // capture form: <#assign x>…</#assign>
  let ns: A.Expr | null = null;
  if (t.t === 'IN') {
    const inTok = p.lx.next();
    ns = p.expression();
    if (scope !== 'namespace') throw p.err('Cannot assign to namespace here.', inTok);
  }
  p.directiveEnd();
  const children = p.mixedContent();
  const endT = p.lx.peek();
  if (endT.t !== 'END_TAG' || !['assign', 'global', 'local'].includes(endT.name!)) {
    throw p.unmatchedEnd(endT, '#' + start.name);
  }
  p.lx.next();
  const expected = scope === 'namespace' ? 'assign' : scope;
  if (endT.name !== expected) throw p.err('Mismatched assignment tags.', endT);
  return p.el<A.BlockAssignEl>(
    {
      kind: 'blockAssign',
      name: first.name,
      scope,
      ns,
      markupFormat: isMarkupFormat(p.outputFormat) ? p.outputFormat : null,
      ...elementBase(p),
    },
    p.span(p.tokPos(start), p.tokPos(endT)),
    children,
  );
}

function scopeName(scope: A.AssignScope): string {
  return scope === 'namespace' ? 'template namespace' : scope === 'local' ? 'local scope' : 'global scope';
}

/** The assignment operators (`=`, `+=`, `++` …). */
function isAssignOp(t: Tk): boolean {
  return (
    t === 'EQUALS' ||
    t === 'PLUS_EQUALS' ||
    t === 'MINUS_EQUALS' ||
    t === 'TIMES_EQUALS' ||
    t === 'DIV_EQUALS' ||
    t === 'MOD_EQUALS' ||
    t === 'PLUS_PLUS' ||
    t === 'MINUS_MINUS'
  );
}

function compileAssign(el: A.AssignEl, c: ElementCompiler): Exec {
  const name = el.name;
  const op = el.op;
  const scope = el.scope;
  const value = el.value ? evaluator(el.value, c.cx) : null;
  const ns = el.ns ? evaluator(el.ns, c.cx) : null;
  const valueNode = el.value;
  el.namePos.templateName = c.cx.name;
  // the blamed left operand of "+=" (built once, not per execution)
  const nameAt = op === '+=' ? nameExpr(el) : undefined;
  const target = (env: Env, nsv: unknown): Map<string, unknown> => {
    if (scope === 'local') {
      if (!env.frame)
        throw elError(
          '_MiscTemplateException',
          `Can't set local variable ${JSON.stringify(name)}, because there's no macro or function call in context.`,
          el,
        );
      return env.frame.locals;
    }
    if (scope === 'global') return env.globals;
    if (nsv !== undefined) {
      if (!(nsv instanceof Namespace)) throw typeError(el.ns!, '', 'namespace', nsv);
      return nsv.vars;
    }
    return env.ns.vars;
  };
  const current = (env: Env, t: Map<string, unknown>): unknown => {
    if (scope === 'global') return env.globalLookup(name);
    return t.get(name);
  };
  const assign = (env: Env, v: unknown, nsv: unknown): void => {
    const t = target(env, nsv);
    if (op === '=') {
      if (v === undefined) throw missingError(valueNode!);
      t.set(name, v);
      return;
    }
    const lho = current(env, t);
    if (lho === undefined) {
      throw elError(
        'InvalidReferenceException',
        `The target variable of the assignment, ${jQuote(name)}, was null or missing in the ${scopeName(scope)}, and the "${op}" operator must get its value from there before assigning to it.`,
        el,
        [
          ...(name.startsWith('$')
            ? [
                'Variable references must not start with "$", unless the "$" is really part of the variable name.',
              ]
            : []),
          `If the target variable is known to be legally null or missing sometimes, instead of something like <#assign x ${op === '++' || op === '--' ? op : op + ' 1'}>, you could write <#if x??><#assign x ${op === '++' || op === '--' ? op : op + ' 1'}></#if> or <#assign x = (x!0) ${op === '--' || op === '-=' ? '-' : op === '*=' ? '*' : op === '/=' ? '/' : op === '%=' ? '%' : '+'} 1>`,
        ],
      );
    }
    let r: unknown;
    if (op === '+=') {
      if (v === undefined) throw missingError(valueNode!);
      r = addValues(env, lho, v, el as unknown as A.Expr, nameAt!, valueNode!);
    } else {
      if (!(typeof lho === 'number' || lho instanceof BigDec || lho instanceof JDouble)) {
        throw elError(
          'NonNumericalException',
          `Expected a number, but assignment target variable ${jQuote(name)} has evaluated to ${describeType(lho).replace(/^/, /^[aeiou]/.test(describeType(lho)) ? 'an ' : 'a ')}.`,
          el,
        );
      }
      if (op === '++' || op === '--') r = op === '++' ? arith.add(lho, 1) : arith.subtract(lho, 1);
      else {
        if (v === undefined) throw missingError(valueNode!);
        if (!(typeof v === 'number' || v instanceof BigDec || v instanceof JDouble))
          throw typeError(
            valueNode!,
            `For "#${scope === 'namespace' ? 'assign' : scope}" assignment source`,
            'number',
            v,
          );
        try {
          r =
            op === '-='
              ? arith.subtract(lho, v)
              : op === '*='
                ? arith.multiply(lho, v)
                : op === '/='
                  ? arith.divide(lho, v)
                  : arith.modulus(lho, v);
        } catch (e) {
          throw elError('_MiscTemplateException', `Arithmetic operation failed: ${errorMessage(e)}`, el);
        }
      }
    }
    t.set(name, r);
  };
  if (!ns) {
    if (!value) return (env) => assign(env, undefined, undefined);
    if (!el.value!.calls) return (env) => assign(env, value(env), undefined);
    return (env) => thenDo(env, value(env), (v) => assign(env, v, undefined));
  }
  return (env) =>
    evalAll(env, value ? [ns, value] : [ns], (vals) => assign(env, value ? vals[1] : undefined, vals[0]));
}

function nameExpr(el: A.AssignEl): A.Expr {
  return { kind: 'id', name: el.name, ...el.namePos };
}

function compileBlockAssign(el: A.BlockAssignEl, c: ElementCompiler): Exec {
  const body = c.block(el.children);
  const ns = el.ns ? evaluator(el.ns, c.cx) : null;
  const name = el.name;
  const markupFmt = el.markupFormat;
  return (env) =>
    capture(env, body, (s) => {
      const value = markupFmt ? new MarkupOutput(markupFmt, undefined, s, escaperOf(markupFmt)) : s;
      const set = (nsv: unknown): void => {
        if (el.scope === 'local') {
          if (!env.frame)
            throw elError(
              '_MiscTemplateException',
              `Can't set local variable ${JSON.stringify(name)}, because there's no macro or function call in context.`,
              el,
            );
          env.frame.locals.set(name, value);
        } else if (el.scope === 'global') env.globals.set(name, value);
        else if (nsv !== undefined) {
          if (!(nsv instanceof Namespace)) throw typeError(el.ns!, '', 'namespace', nsv);
          nsv.vars.set(name, value);
        } else env.ns.vars.set(name, value);
      };
      if (ns) return thenDo(env, ns(env), set);
      set(undefined);
    });
}

export const assign: Directive<'assign' | 'assignInstr' | 'blockAssign'> = {
  startTags: { assign: 'blank', global: 'blank', local: 'blank' },
  endTags: ['assign', 'global', 'local'],
  kinds: ['assign', 'assignInstr', 'blockAssign'],
  nonOutputting: ['assign', 'assignInstr'],
  parse,
  compile(el, c) {
    switch (el.kind) {
      case 'assign':
        return compileAssign(el, c);
      case 'assignInstr':
        return sequence(el.children.map((child) => c.element(child)));
      default:
        return compileBlockAssign(el, c);
    }
  },
  stackLabel(el) {
    switch (el.kind) {
      case 'assign': {
        const dir = el.scope === 'namespace' ? '#assign' : '#' + el.scope;
        return `${dir} ${el.name}${el.op === '++' || el.op === '--' ? el.op : ` ${el.op} ${el.value ? canonical(el.value) : ''}`}`;
      }
      case 'blockAssign':
        return `#${el.scope === 'namespace' ? 'assign' : el.scope} ${el.name}`;
      default:
        return null;
    }
  },
};
