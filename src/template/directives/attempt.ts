/** #attempt … #recover … </#attempt> (FreeMarker's AttemptBlock and RecoveryBlock). */
import type * as A from '../ast.js';
import { TemplateError } from '../errors.js';
import { ensureStack } from '../ftl-stack.js';
import { NOOP } from '../exec.js';
import { Buf, type Env, type Exec, LimitError } from '../runtime.js';
import { type Directive, type DirectiveParser, elementBase } from './types.js';

function parse(p: DirectiveParser): A.El {
  const start = p.lx.next();
  const attempted = p.mixedContent();
  const r = p.lx.peek();
  if (r.t !== 'DIRECTIVE' || r.name !== 'recover') throw p.unmatchedEnd(r, '#attempt');
  p.lx.next();
  const recoverChildren = p.mixedContent();
  const recover = p.el<A.RecoverEl>(
    { kind: 'recover', ...elementBase(p) },
    p.locWithChildren(r, r, recoverChildren),
    recoverChildren,
  );
  const end = p.lx.peek();
  if (end.t !== 'END_TAG' || (end.name !== 'recover' && end.name !== 'attempt'))
    throw p.unmatchedEnd(end, '#attempt');
  p.lx.next();
  let single: A.El;
  if (attempted.length === 1) single = attempted[0];
  else if (attempted.length === 0) {
    single = p.el<A.TextEl>({ kind: 'text', text: '', unparsed: false, ...elementBase(p) }, p.tokPos(start));
  } else {
    single = p.el<A.MixedEl>(
      { kind: 'mixed', ...elementBase(p) },
      p.span(attempted[0], attempted[attempted.length - 1]),
      attempted,
    );
  }
  return p.el<A.AttemptEl>({ kind: 'attempt', ...elementBase(p) }, p.span(p.tokPos(start), p.tokPos(end)), [
    single,
    recover,
  ]);
}

/** The attempted block's output is kept only when it ends without an error; else #recover runs. */
function compileAttempt(el: A.AttemptEl, element: (el: A.El) => Exec): Exec {
  // Whitespace stripping may have removed an empty attempted block.
  const attemptedEl = el.children.length > 1 ? el.children[0] : null;
  const attempt = attemptedEl ? element(attemptedEl) : NOOP;
  const recover = element(el.children[el.children.length - 1]);
  const recoverFrom = (env: Env, e: unknown): void | Promise<void> => {
    if (!(e instanceof TemplateError) || e instanceof LimitError) throw e;
    ensureStack(e, env.roots);
    env.recovered.push(e);
    let r: void | Promise<void>;
    try {
      r = recover(env);
    } catch (err) {
      env.recovered.pop();
      throw err;
    }
    if (r === undefined) {
      env.recovered.pop();
      return;
    }
    return r.then(
      () => {
        env.recovered.pop();
      },
      (err) => {
        env.recovered.pop();
        throw err;
      },
    );
  };
  return (env) => {
    const snap = env.snap();
    const buf = new Buf();
    env.buf = buf;
    let r: void | Promise<void>;
    try {
      r = attempt(env);
    } catch (e) {
      const signal = !(e instanceof TemplateError);
      env.restore(snap);
      if (signal) {
        env.write(buf.s);
        throw e;
      }
      return recoverFrom(env, e);
    }
    env.restore(snap);
    if (r === undefined) {
      env.write(buf.s);
      return;
    }
    return r.then(
      () => {
        env.restore(snap);
        env.write(buf.s);
      },
      (e) => {
        env.restore(snap);
        if (!(e instanceof TemplateError)) {
          env.write(buf.s);
          throw e;
        }
        return recoverFrom(env, e);
      },
    );
  };
}

export const attempt: Directive<'attempt' | 'recover'> = {
  startTags: { attempt: 'close1', recover: 'close1' },
  clauseTags: ['recover'],
  endTags: ['attempt', 'recover'],
  kinds: ['attempt', 'recover'],
  parse,
  compile: (el, c) =>
    el.kind === 'attempt' ? compileAttempt(el, (e) => c.element(e)) : c.block(el.children),
  stackLabel: (el) => (el.kind === 'attempt' ? '#attempt' : '#recover'),
};
