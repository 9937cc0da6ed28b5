/** #flush (FreeMarker's FlushInstruction): output is written at the end of the render, so nothing to do. */
import type * as A from '../ast.js';
import { NOOP } from '../exec.js';
import { type Directive, elementBase } from './types.js';

export const flush: Directive<'flush'> = {
  startTags: { flush: 'close2' },
  kinds: ['flush'],
  parse(p, tag) {
    p.lx.next();
    return p.el<A.FlushEl>({ kind: 'flush', ...elementBase(p) }, p.tokPos(tag));
  },
  compile: () => NOOP,
  stackLabel: () => null,
};
