/** #stop (FreeMarker's StopInstruction): ends the render with a StopException. */
import type * as A from '../ast.js';
import { canonical } from '../canonical.js';
import { TemplateError } from '../errors.js';
import { evaluator, thenDo } from '../exec.js';
import { missingError } from '../runtime.js';
import { MatchItem } from '../values.js';
import { type Directive, elementBase } from './types.js';

export const stop: Directive<'stop'> = {
  startTags: { stop: 'blank|close2' },
  kinds: ['stop'],
  parse(p) {
    const start = p.lx.next();
    let message: A.Expr | null = null;
    if (start.form === 'blank') {
      message = p.expression();
      p.looseDirectiveEnd();
    }
    return p.el<A.StopEl>({ kind: 'stop', message, ...elementBase(p) }, p.tokPos(start));
  },
  compile(el, c) {
    const message = el.message ? evaluator(el.message, c.cx) : null;
    const messageExpr = el.message;
    const templateName = c.cx.name;
    return (env) =>
      thenDo(env, message ? message(env) : undefined, (m) => {
        if (m === undefined && messageExpr) throw missingError(messageExpr);
        const text =
          m === undefined
            ? '[No error description was available.]'
            : String(m instanceof MatchItem ? m.text : m);
        throw new TemplateError(text, {
          templateName,
          line: el.beginLine,
          column: el.beginColumn,
          kind: 'StopException',
        });
      });
  },
  stackLabel: (el) => (el.message ? `#stop ${canonical(el.message)}` : '#stop'),
};
