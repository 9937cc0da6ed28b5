/** #visit, #recurse, #fallback (FreeMarker's node processing): parsed, and refused when run (no XML DOM). */
import type * as A from '../ast.js';
import { EXPR_START } from '../expr-start.js';
import { elError } from '../runtime.js';
import { type Directive, type DirectiveParser, elementBase } from './types.js';

function parse(p: DirectiveParser): A.El {
  const start = p.lx.next();
  let end = start;
  if (start.form === 'blank') {
    if (EXPR_START.has(p.lx.peek().t)) p.expression();
    if (p.lx.peek().t === 'USING') {
      p.lx.next();
      p.expression();
    }
    end = p.looseDirectiveEnd();
  }
  if (start.name === 'fallback' && !p.inMacro) throw p.err('Cannot fall back outside a macro.', start);
  return p.el<A.VisitEl>(
    {
      kind: 'visit',
      directive: start.name as A.VisitEl['directive'],
      ...elementBase(p),
    },
    p.span(p.tokPos(start), p.tokPos(end)),
  );
}

export const visit: Directive<'visit'> = {
  startTags: { visit: 'blank', recurse: 'blank|close2', fallback: 'close2' },
  kinds: ['visit'],
  parse,
  compile: (el) => () => {
    throw elError(
      '_MiscTemplateException',
      `#${el.directive} is not supported by flowmark: it needs XML DOM nodes.`,
      el,
    );
  },
  stackLabel: (el) => `#${el.directive}`,
};
