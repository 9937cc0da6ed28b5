/** #return (FreeMarker's ReturnInstruction): ends a macro, or gives a function's value. */
import type * as A from '../ast.js';
import { canonical } from '../canonical.js';
import { ReturnSignal } from '../errors.js';
import { evaluator, thenDo } from '../exec.js';
import { missingError } from '../runtime.js';
import { type Directive, elementBase } from './types.js';

export const returnDirective: Directive<'return'> = {
  startTags: { return: 'blank|close2' },
  kinds: ['return'],
  parse(p) {
    const start = p.lx.next();
    let value: A.Expr | null = null;
    let end = start;
    if (start.form === 'blank') {
      value = p.expression();
      end = p.looseDirectiveEnd();
    }
    if (p.inMacro) {
      if (value) throw p.err('A macro cannot return a value', start);
    } else if (p.inFunction) {
      if (!value) throw p.err('A function must return a value', start);
    } else if (!value) {
      throw p.err('A return instruction can only occur inside a macro or function', start);
    }
    return p.el<A.ReturnEl>(
      { kind: 'return', value, ...elementBase(p) },
      p.span(p.tokPos(start), p.tokPos(end)),
    );
  },
  compile(el, c) {
    if (!el.value) {
      return () => {
        throw new ReturnSignal(undefined);
      };
    }
    const value = evaluator(el.value, c.cx);
    const valueExpr = el.value;
    return (env) =>
      thenDo(env, value(env), (v) => {
        if (v === undefined) throw missingError(valueExpr);
        throw new ReturnSignal(v);
      });
  },
  stackLabel: (el) => (el.value ? `#return ${canonical(el.value)}` : '#return'),
};
