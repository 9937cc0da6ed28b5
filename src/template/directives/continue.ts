/** #continue (FreeMarker's ContinueInstruction): skips to the next item of the enclosing #list or #items. */
import type * as A from '../ast.js';
import { CONTINUE } from '../errors.js';
import { type Directive, elementBase } from './types.js';

export const continueDirective: Directive<'continue'> = {
  startTags: { continue: 'close2' },
  kinds: ['continue'],
  parse(p) {
    const t = p.lx.next();
    if (p.continuable < 1) {
      throw p.err(
        `${t.image.trim()} must be nested inside a directive that supports it:  #list with "as", #items (or the deprecated #foreach)`,
        t,
      );
    }
    return p.el<A.ContinueEl>({ kind: 'continue', ...elementBase(p) }, p.tokPos(t));
  },
  compile: () => () => {
    throw CONTINUE;
  },
  // never fails, so never in a stack trace
  stackLabel: () => null,
};
