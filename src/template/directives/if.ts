/** #if, #elseif, #else (FreeMarker's IfBlock and ConditionalBlock). */
import type * as A from '../ast.js';
import { canonical } from '../canonical.js';
import { evaluator } from '../exec.js';
import { toBoolean } from '../ops.js';
import { type Env, type Exec, Pending } from '../runtime.js';
import { type Directive, type DirectiveParser, type ElementCompiler, elementBase } from './types.js';

/** One branch of an #if: its condition (null for #else), from its opening tag to its last child. */
function branch(
  p: DirectiveParser,
  type: A.CondEl['type'],
  cond: A.CondEl['cond'],
  open: Parameters<DirectiveParser['locWithChildren']>[0],
  close: Parameters<DirectiveParser['locWithChildren']>[1],
): A.CondEl {
  const children = p.mixedContent();
  return p.el<A.CondEl>(
    { kind: 'cond', cond, type, ...elementBase(p) },
    p.locWithChildren(open, close, children),
    children,
  );
}

function parse(p: DirectiveParser): A.El {
  const start = p.lx.next();
  const cond = p.expression();
  const blocks: A.CondEl[] = [branch(p, 'if', cond, start, p.directiveEnd())];
  for (;;) {
    const t = p.lx.peek();
    if (t.t !== 'DIRECTIVE' || t.name !== 'elseif') break;
    p.lx.next();
    const c = p.expression();
    blocks.push(branch(p, 'elseif', c, t, p.looseDirectiveEnd()));
  }
  const t = p.lx.peek();
  if (t.t === 'DIRECTIVE' && t.name === 'else') {
    p.lx.next();
    blocks.push(branch(p, 'else', null, t, t));
  }
  const endTag = p.expectEnd(['if'], '#if');
  return p.el<A.IfEl>(
    {
      kind: 'if',
      ...elementBase(p),
    },
    p.span(p.tokPos(start), p.tokPos(endTag)),
    blocks,
  );
}

function compileIf(conds: A.CondEl[], c: ElementCompiler): Exec {
  const branches = conds.map((branch) => ({
    cond: branch.cond ? evaluator(branch.cond, c.cx) : null,
    node: branch.cond,
    body: c.block(branch.children),
    ctx: branch.type === 'if' ? 'For "#if" condition' : 'For "#elseif" condition',
  }));
  if (branches.length === 1 && branches[0].cond && !branches[0].node!.calls) {
    const { cond, node, body, ctx } = branches[0];
    return (env) => {
      const v = cond!(env);
      if (v === true) return body(env);
      if (v === false) return;
      if (toBoolean(v, node!, ctx)) return body(env);
    };
  }
  const run = (env: Env, i: number): void | Promise<void> => {
    for (; i < branches.length; i++) {
      const b = branches[i];
      if (b.cond === null) return b.body(env);
      const v = b.cond(env);
      if (v instanceof Pending) {
        const idx = i;
        return env
          .resumeAfter(v.promise)
          .then((x) => (toBoolean(x, b.node!, b.ctx) ? b.body(env) : run(env, idx + 1)));
      }
      if (toBoolean(v, b.node!, b.ctx)) return b.body(env);
    }
  };
  return (env) => run(env, 0);
}

export const ifDirective: Directive<'if' | 'cond'> = {
  // #else is also #list's: its tag is in directives/else.ts
  startTags: { if: 'blank', elseif: 'blank' },
  clauseTags: ['elseif'],
  endTags: ['if'],
  kinds: ['if', 'cond'],
  parse,
  compile: (el, c) => compileIf(el.kind === 'if' ? (el.children as A.CondEl[]) : [el], c),
  stackLabel: (el) =>
    el.kind === 'if' ? null : el.type === 'else' ? '#else' : `#${el.type} ${canonical(el.cond!)}`,
};
