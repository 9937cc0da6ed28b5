/** #nested (FreeMarker's BodyInstruction): runs the body the macro was called with. */
import type * as A from '../ast.js';
import { runNested } from '../calls.js';
import { canonical } from '../canonical.js';
import { evalAll, evaluator } from '../exec.js';
import { type Directive, type DirectiveParser, elementBase } from './types.js';

function parse(p: DirectiveParser): A.El {
  const start = p.lx.next();
  let args: A.Expr[] = [];
  let end = start;
  if (start.form === 'blank') {
    args = p.positionalArgs();
    end = p.looseDirectiveEnd();
  }
  if (!p.inMacro)
    throw p.err(
      `Cannot use a ${start.image
        .trim()
        .replace(/[>/\]]+$/, '')
        .trim()} instruction outside a macro.`,
      start,
    );
  return p.el<A.NestedEl>(
    {
      kind: 'nested',
      args,
      ...elementBase(p),
    },
    p.span(p.tokPos(start), p.tokPos(end)),
  );
}

export const nested: Directive<'nested'> = {
  startTags: { nested: 'blank|close2' },
  kinds: ['nested'],
  parse,
  compile(el, c) {
    const args = el.args.map((a) => evaluator(a, c.cx));
    if (!args.length) return (env) => runNested(env, []);
    return (env) => evalAll(env, args, (vals) => runNested(env, vals));
  },
  stackLabel: (el) => (el.args.length ? `#nested ${el.args.map(canonical).join(', ')}` : '#nested'),
};
