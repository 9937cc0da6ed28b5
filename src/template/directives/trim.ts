/** #t, #lt, #rt, #nt (FreeMarker's TrimInstruction): white-space trimming, applied when the template is parsed. */
import type * as A from '../ast.js';
import { NOOP } from '../exec.js';
import { type Directive, elementBase } from './types.js';

export const trim: Directive<'trim'> = {
  startTags: { t: 'close2', lt: 'close2', rt: 'close2', nt: 'close2' },
  kinds: ['trim'],
  parse(p, tag) {
    p.lx.next();
    p.hasTrim = true;
    const name = tag.name!;
    return p.el<A.TrimEl>(
      {
        kind: 'trim',
        name,
        left: name === 't' || name === 'lt',
        right: name === 't' || name === 'rt',
        ...elementBase(p),
      },
      p.tokPos(tag),
    );
  },
  compile: () => NOOP,
  stackLabel: () => null,
};
