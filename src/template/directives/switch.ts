/** #switch, #case, #default (FreeMarker's SwitchBlock and Case): cases fall through until #break. */
import type * as A from '../ast.js';
import { canonical } from '../canonical.js';
import { BREAK } from '../errors.js';
import { evaluator } from '../exec.js';
import { compareValues } from '../ops.js';
import { type Env, type Exec, Pending } from '../runtime.js';
import { type Directive, type DirectiveParser, type ElementCompiler, elementBase } from './types.js';

function parse(p: DirectiveParser): A.El {
  const start = p.lx.next();
  const value = p.expression();
  p.directiveEnd();
  const children: A.El[] = [];
  // whitespace and comments before the first case
  const ignored: A.El[] = [];
  for (;;) {
    const t = p.lx.peek();
    if (t.t === 'TEXT' && !t.unparsed && /^[ \t\r\n]+$/.test(t.image)) {
      p.lx.next();
      ignored.push(
        p.el<A.TextEl>(
          {
            kind: 'text',
            text: t.image,
            unparsed: false,
            ...elementBase(p),
          },
          p.posOf(t.start, t.end),
        ),
      );
    } else if (t.t === 'COMMENT') {
      p.lx.next();
      ignored.push(
        p.el<A.CommentEl>(
          {
            kind: 'comment',
            text: t.value ?? '',
            ...elementBase(p),
          },
          p.posOf(t.start, t.end),
        ),
      );
    } else break;
  }
  let firstCase = 0;
  if (ignored.length && !(p.stripWhitespace && ignored.length === 1 && ignored[0].kind === 'text')) {
    children.push(
      p.el<A.MixedEl>(
        {
          kind: 'mixed',
          ...elementBase(p),
        },
        p.span(ignored[0], ignored[ignored.length - 1]),
        ignored,
      ),
    );
    firstCase = 1;
  }
  p.breakable++;
  let defaultFound = false;
  for (;;) {
    const t = p.lx.peek();
    if (t.t !== 'DIRECTIVE' || (t.name !== 'case' && t.name !== 'default')) break;
    p.lx.next();
    let cond: A.Expr | null = null;
    if (t.name === 'case') {
      cond = p.expression();
      p.directiveEnd();
    } else {
      if (defaultFound) throw p.err('You can only have one default case in a switch statement', start);
      defaultFound = true;
    }
    const cc = p.mixedContent();
    children.push(
      p.el<A.CaseEl>(
        {
          kind: 'case',
          cond,
          ...elementBase(p),
        },
        p.locWithChildren(t, t, cc),
        cc,
      ),
    );
  }
  const t = p.lx.peek();
  if (t.t === 'TEXT' && /^[ \t\r\n]+$/.test(t.image)) p.lx.next();
  const end = p.expectEnd(['switch'], '#switch');
  p.breakable--;
  return p.el<A.SwitchEl>(
    {
      kind: 'switch',
      value,
      firstCase,
      ...elementBase(p),
    },
    p.span(p.tokPos(start), p.tokPos(end)),
    children,
  );
}

function compile(el: A.SwitchEl, c: ElementCompiler): Exec {
  const cx = c.cx;
  const value = evaluator(el.value, cx);
  const vn = el.value;
  const cases = (el.children.slice(el.firstCase) as A.CaseEl[]).map((caseEl) => ({
    cond: caseEl.cond ? evaluator(caseEl.cond, cx) : null,
    node: caseEl.cond,
    body: c.block(caseEl.children),
  }));
  const defaultIdx = cases.findIndex((c) => c.cond === null);
  const runFrom = (env: Env, i: number): void | Promise<void> => {
    for (; i < cases.length; i++) {
      const r = cases[i].body(env);
      if (r !== undefined) {
        const next = i + 1;
        return r.then(() => runFrom(env, next));
      }
    }
  };
  const test = (env: Env, i: number): void | Promise<void> => {
    for (; i < cases.length; i++) {
      const c = cases[i];
      if (c.cond === null) continue;
      const sv = value(env);
      const cv = c.cond(env);
      if (sv instanceof Pending || cv instanceof Pending) {
        const idx = i;
        return (async () => {
          const a = sv instanceof Pending ? await env.resumeAfter(sv.promise) : sv;
          const b = cv instanceof Pending ? await env.resumeAfter(cv.promise) : cv;
          if (compareValues(env, a, b, 'eq', vn, c.node!, c.node!, '==')) return runFrom(env, idx);
          return test(env, idx + 1);
        })();
      }
      if (compareValues(env, sv, cv, 'eq', vn, c.node!, c.node!, '==')) return runFrom(env, i);
    }
    // reached without a match, #default doesn't fall through into the cases after it
    if (defaultIdx >= 0) return cases[defaultIdx].body(env);
  };
  return (env) => {
    let r: void | Promise<void>;
    try {
      r = test(env, 0);
    } catch (e) {
      if (e === BREAK) return;
      throw e;
    }
    if (r === undefined) return;
    return r.catch((e) => {
      if (e !== BREAK) throw e;
    });
  };
}

export const switchDirective: Directive<'switch' | 'case'> = {
  startTags: { switch: 'blank', case: 'blank', default: 'close1' },
  clauseTags: ['case', 'default'],
  endTags: ['switch'],
  kinds: ['switch', 'case'],
  parse,
  compile: (el, c) => (el.kind === 'switch' ? compile(el, c) : c.block(el.children)),
  stackLabel: (el) =>
    el.kind === 'switch'
      ? `#switch ${canonical(el.value)}`
      : el.cond
        ? `#case ${canonical(el.cond)}`
        : '#default',
};
