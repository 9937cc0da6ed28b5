/** #import (FreeMarker's LibraryLoad): a library template in its own namespace, bound to a variable. */
import type * as A from '../ast.js';
import { canonical } from '../canonical.js';
import { evaluator, thenDo } from '../exec.js';
import { importLibrary, resolveName } from '../loading.js';
import type { Exec } from '../runtime.js';
import { stringArg } from './include.js';
import { type Directive, type DirectiveParser, type ElementCompiler, elementBase } from './types.js';

function parse(p: DirectiveParser): A.El {
  const start = p.lx.next();
  const name = p.expression();
  p.expect('AS');
  const ns = p.expect('ID').image;
  const end = p.looseDirectiveEnd();
  return p.el<A.ImportEl>(
    {
      kind: 'import',
      name,
      ns,
      ...elementBase(p),
    },
    p.span(p.tokPos(start), p.tokPos(end)),
  );
}

function compile(el: A.ImportEl, c: ElementCompiler): Exec {
  const cx = c.cx;
  const name = evaluator(el.name, cx);
  return (env) =>
    thenDo(env, name(env), (v) => {
      const given = stringArg(env, v, el.name, '"name" parameter of #import');
      return importLibrary(env, resolveName(env, given), given, el.ns, el);
    });
}

export const importDirective: Directive<'import'> = {
  startTags: { import: 'blank' },
  kinds: ['import'],
  nonOutputting: ['import'],
  parse,
  compile,
  stackLabel: (el) => `#import ${canonical(el.name)} as ${el.ns}`,
};
