/** #escape and #noescape (FreeMarker's legacy EscapeBlock / NoEscapeBlock): interpolations inside are wrapped by the escape expression. */
import type * as A from '../ast.js';
import { canonical } from '../canonical.js';
import { isMarkupFormat } from '../output-formats.js';
import { type Directive, type DirectiveParser, elementBase } from './types.js';

function parseEscape(p: DirectiveParser): A.El {
  const start = p.lx.next();
  if (isMarkupFormat(p.outputFormat) && p.autoEscaping) {
    throw p.err(
      `Using the "escape" directive (legacy escaping) is not allowed when auto-escaping is on with a markup output format (${p.outputFormat}), to avoid confusion and double-escaping mistakes.`,
      start,
    );
  }
  const variable = p.expect('ID').image;
  p.expect('AS');
  const expr = p.expression();
  p.directiveEnd();
  const el = p.el<A.EscapeEl>(
    {
      kind: 'escape',
      variable,
      expr,
      ...elementBase(p),
    },
    p.tokPos(start),
  );
  const effective = p.escapedExpression(expr);
  p.escapes.push(el);
  p.escapeExprs.push(effective);
  const children = p.mixedContent();
  p.escapes.pop();
  p.escapeExprs.pop();
  const end = p.expectEnd(['escape'], '#escape');
  Object.assign(el, p.span(p.tokPos(start), p.tokPos(end)));
  el.children = children;
  children.forEach((c, i) => {
    c.parent = el;
    c.index = i;
  });
  return el;
}

function parseNoEscape(p: DirectiveParser): A.El {
  const start = p.lx.next();
  if (!p.escapes.length) throw p.err('#noescape with no matching #escape encountered.', start);
  const saved = { el: p.escapes.pop()!, expr: p.escapeExprs.pop()! };
  const children = p.mixedContent();
  const end = p.expectEnd(['noescape'], '#noescape');
  p.escapes.push(saved.el);
  p.escapeExprs.push(saved.expr);
  return p.el<A.NoEscapeEl>(
    { kind: 'noEscape', ...elementBase(p) },
    p.span(p.tokPos(start), p.tokPos(end)),
    children,
  );
}

export const escape: Directive<'escape' | 'noEscape'> = {
  startTags: { escape: 'blank', noescape: 'close1' },
  endTags: ['escape', 'noescape'],
  kinds: ['escape', 'noEscape'],
  parse: (p, tag) => (tag.name === 'escape' ? parseEscape(p) : parseNoEscape(p)),
  compile: (el, c) => c.block(el.children),
  stackLabel: (el) =>
    el.kind === 'escape' ? `#escape ${el.variable} as ${canonical(el.expr)}` : '#noescape',
};
