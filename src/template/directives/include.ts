/** #include (FreeMarker's Include): another template's output, parsed or as text, here. */
import type * as A from '../ast.js';
import { canonical } from '../canonical.js';
import { evalAll, evaluator } from '../exec.js';
import { loadSource, notFoundText, resolveName, runUnitHere } from '../loading.js';
import { type Env, type Exec, elError, missingError, typeError } from '../runtime.js';
import { MatchItem } from '../values.js';
import { type Directive, type DirectiveParser, type ElementCompiler, elementBase } from './types.js';

function parse(p: DirectiveParser): A.El {
  const start = p.lx.next();
  const name = p.expression();
  if (p.lx.peek().t === 'SEMICOLON') p.lx.next();
  let parse: A.Expr | null = null;
  let encoding: A.Expr | null = null;
  let ignoreMissing: A.Expr | null = null;
  while (p.lx.peek().t === 'ID') {
    const att = p.lx.next();
    p.expect('EQUALS');
    const exp = p.expression();
    const a = att.image.toLowerCase();
    if (a === 'parse') parse = exp;
    else if (a === 'encoding') encoding = exp;
    else if (a === 'ignore_missing' || att.image === 'ignoreMissing') {
      p.checkNaming(att);
      ignoreMissing = exp;
    } else {
      throw p.err(
        `Unsupported named #include parameter: "${att.image}". Supported parameters are: "parse", "encoding", "ignore_missing".`,
        att,
      );
    }
  }
  const end = p.looseDirectiveEnd();
  return p.el<A.IncludeEl>(
    {
      kind: 'include',
      name,
      parse,
      encoding,
      ignoreMissing,
      ...elementBase(p),
    },
    p.span(p.tokPos(start), p.tokPos(end)),
  );
}

export function stringArg(env: Env, v: unknown, at: A.Expr, what: string): string {
  if (v === undefined) throw missingError(at);
  if (typeof v === 'string') return v;
  if (v instanceof MatchItem) return v.text;
  throw typeError(at, `For the ${what}`, 'string', v);
}

function compile(el: A.IncludeEl, c: ElementCompiler): Exec {
  const cx = c.cx;
  const name = evaluator(el.name, cx);
  const parse = el.parse ? evaluator(el.parse, cx) : null;
  const ignoreMissing = el.ignoreMissing ? evaluator(el.ignoreMissing, cx) : null;
  const evs = [name, ...(parse ? [parse] : []), ...(ignoreMissing ? [ignoreMissing] : [])];
  return (env) =>
    evalAll(env, evs, (vals) => {
      const given = stringArg(env, vals[0], el.name, '"name" parameter of #include');
      const parseV = parse ? vals[1] : true;
      const ignore = ignoreMissing ? vals[parse ? 2 : 1] : false;
      const doParse = toFlag(parseV, el.parse, '"parse" parameter of #include');
      const ignoreM = toFlag(ignore, el.ignoreMissing, '"ignore_missing" parameter of #include');
      const r = resolveName(env, given);
      const onSource = (src: string | undefined): void | Promise<void> => {
        if (src === undefined) {
          if (ignoreM) return;
          throw elError(
            '_MiscTemplateException',
            `Template inclusion failed (for parameter value ${JSON.stringify(given)}):\n${notFoundText(r)}`,
            el,
          );
        }
        if (!doParse) {
          env.write(src);
          return;
        }
        return runUnitHere(env, env.compileTemplate(src, r.full));
      };
      const src = loadSource(env, r);
      if (src instanceof Promise) return env.resumeAfter(src).then(onSource);
      return onSource(src);
    });
}

function toFlag(v: unknown, at: A.Expr | null, what: string): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    if (/^(true|yes|y|t)$/i.test(v)) return true;
    if (/^(false|no|n|f)$/i.test(v)) return false;
  }
  throw typeError(at!, `For the ${what}`, 'boolean', v);
}

export const include: Directive<'include'> = {
  startTags: { include: 'blank' },
  kinds: ['include'],
  parse,
  compile,
  stackLabel: (el) => `#include ${canonical(el.name)}`,
};
