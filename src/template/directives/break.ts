/** #break (FreeMarker's BreakInstruction): leaves the enclosing #list, #items or #switch. */
import type * as A from '../ast.js';
import { BREAK } from '../errors.js';
import { type Directive, elementBase } from './types.js';

export const breakDirective: Directive<'break'> = {
  startTags: { break: 'close2' },
  kinds: ['break'],
  parse(p) {
    const t = p.lx.next();
    if (p.breakable < 1) {
      throw p.err(
        `${t.image.trim()} must be nested inside a directive that supports it:  #list with "as", #items, #switch (or the deprecated #foreach)`,
        t,
      );
    }
    return p.el<A.BreakEl>({ kind: 'break', ...elementBase(p) }, p.tokPos(t));
  },
  compile: () => () => {
    throw BREAK;
  },
  // never fails, so never in a stack trace
  stackLabel: () => null,
};
