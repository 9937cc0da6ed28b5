/** #compress (FreeMarker's CompressedBlock): the body's output through StandardCompress. */
import type * as A from '../ast.js';
import { compress as standardCompress } from '../compress.js';
import { capture } from '../exec.js';
import { type Directive, elementBase } from './types.js';

export const compress: Directive<'compress'> = {
  startTags: { compress: 'close1' },
  endTags: ['compress'],
  kinds: ['compress'],
  parse(p) {
    const start = p.lx.next();
    const children = p.mixedContent();
    const end = p.lx.peek();
    if (end.t !== 'END_TAG' || end.name !== 'compress') throw p.unmatchedEnd(end, '#compress');
    p.lx.next();
    return p.el<A.CompressEl>(
      { kind: 'compress', ...elementBase(p) },
      p.span(p.tokPos(start), p.tokPos(end)),
      children,
    );
  },
  compile(el, c) {
    const body = c.block(el.children);
    return (env) => capture(env, body, (s) => env.write(standardCompress(s)));
  },
  stackLabel: () => '#compress',
};
