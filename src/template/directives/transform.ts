/** #transform (FreeMarker's legacy TransformBlock): a call of a transform, like `<@t …>`. */
import type * as A from '../ast.js';
import { canonical } from '../canonical.js';
import type { Exec } from '../runtime.js';
import { type Directive, type DirectiveParser, type ElementCompiler, elementBase } from './types.js';

function parse(p: DirectiveParser): A.El {
  const start = p.lx.next();
  const transform = p.expression();
  if (p.lx.peek().t === 'SEMICOLON') p.lx.next();
  const args: A.TransformEl['args'] = [];
  while (p.lx.peek().t === 'ID') {
    const n = p.lx.next();
    p.expect('EQUALS');
    args.push({ name: n.image, value: p.expression() });
  }
  const t = p.looseDirectiveEnd();
  let children: A.El[] = [];
  let end = t;
  if (t.t === 'DIRECTIVE_END') {
    children = p.mixedContent();
    end = p.expectEnd(['transform'], '#transform');
  }
  return p.el<A.TransformEl>(
    {
      kind: 'transform',
      transform,
      args,
      ...elementBase(p),
    },
    p.span(p.tokPos(start), p.tokPos(end)),
    children,
  );
}

/** `#transform t` is the legacy spelling of `<@t>`: compiled as that call. */
function compile(el: A.TransformEl, c: ElementCompiler): Exec {
  const call: A.CallEl = {
    kind: 'call',
    callee: el.transform,
    named: el.args,
    positional: null,
    loopVars: null,
    bodySource: el.children.length ? '' : null,
    legacy: true,
    children: el.children,
    parent: el.parent,
    index: el.index,
    beginLine: el.beginLine,
    beginColumn: el.beginColumn,
    endLine: el.endLine,
    endColumn: el.endColumn,
  };
  return c.element(call);
}

export const transform: Directive<'transform'> = {
  startTags: { transform: 'blank' },
  endTags: ['transform'],
  kinds: ['transform'],
  parse,
  compile,
  stackLabel: (el) => `#transform ${canonical(el.transform)}`,
};
