/** #comment and #noparse: the lexer reads their body unparsed; #noparse's becomes text, #comment's nothing. */
import type * as A from '../ast.js';
import { NOOP } from '../exec.js';
import { type Directive, type DirectiveParser, elementBase } from './types.js';

function parse(p: DirectiveParser): A.El {
  const start = p.lx.next();
  const { text, endTok } = p.lx.readUnparsed(
    start.name === 'comment' ? 'comment' : start.image.includes('noParse') ? 'noParse' : 'noparse',
    start,
  );
  const pos = p.span(p.tokPos(start), p.tokPos(endTok));
  if (start.name === 'comment')
    return p.el<A.CommentEl>(
      {
        kind: 'comment',
        text,
        ...elementBase(p),
      },
      pos,
    );
  return p.el<A.TextEl>(
    {
      kind: 'text',
      text,
      unparsed: true,
      ...elementBase(p),
    },
    pos,
  );
}

export const comment: Directive<'comment'> = {
  startTags: { comment: 'close1', noparse: 'close1' },
  // the text of #noparse is a text element, compiled with the others
  kinds: ['comment'],
  nonOutputting: ['comment'],
  parse,
  compile: () => NOOP,
  stackLabel: () => null,
};
