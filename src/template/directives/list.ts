/** #list, #else, #items, #sep and the deprecated #foreach (FreeMarker's IteratorBlock, Items, Sep). */
import type * as A from '../ast.js';
import { BREAK, CONTINUE } from '../errors.js';
import { type FmIterator, LazySeq, enableLazy } from '../lazy.js';
import { evaluator, thenDo } from '../exec.js';
import {
  type Env,
  type Exec,
  LoopCtx,
  Pending,
  elError,
  missingError,
  typeError,
  describeType,
} from '../runtime.js';
import {
  FmCollection,
  FmRange,
  LegacyHashLiteral,
  EmptyDefault,
  MatchResult,
  hashGet,
  hashKeys,
  isHash,
  isSequence,
} from '../values.js';

import { canonical } from '../canonical.js';
import {
  type Directive,
  type DirectiveParser,
  type ElementCompiler,
  type IterCtx,
  elementBase,
} from './types.js';

function parseList(p: DirectiveParser): A.El {
  const start = p.lx.next();
  const source = p.expression();
  let loopVar: string | null = null;
  let loopVar2: string | null = null;
  if (p.lx.peek().t === 'AS') {
    p.lx.next();
    loopVar = p.expect('ID').image;
    if (p.lx.peek().t === 'COMMA') {
      p.lx.next();
      loopVar2 = p.expect('ID').image;
      if (loopVar2 === loopVar) {
        throw p.err(`The key and value loop variable names must differ, but both were: ${loopVar}`, start);
      }
    }
  }
  p.directiveEnd();
  const ctx: IterCtx = { loopVar, loopVar2, kind: 'list' };
  p.iterCtxs.push(ctx);
  if (loopVar !== null) {
    p.breakable++;
    p.continuable++;
  }
  const children = p.mixedContent();
  if (loopVar !== null) {
    p.breakable--;
    p.continuable--;
  } else if (ctx.kind !== 'items') {
    throw p.err('#list must have either "as loopVar" parameter or nested #items that belongs to it.', start);
  }
  p.iterCtxs.pop();
  let elseOfList: A.ElseOfListEl | null = null;
  const t = p.lx.peek();
  if (t.t === 'DIRECTIVE' && t.name === 'else') {
    p.lx.next();
    const ec = p.mixedContent();
    elseOfList = p.el<A.ElseOfListEl>(
      {
        kind: 'elseOfList',
        ...elementBase(p),
      },
      p.locWithChildren(t, t, ec),
      ec,
    );
  }
  const end = p.expectEnd(['list'], '#list');
  const pos = p.span(p.tokPos(start), p.tokPos(end));
  const list = p.el<A.ListEl>(
    {
      kind: 'list',
      source,
      loopVar,
      loopVar2,
      hashListing: loopVar2 !== null || ctx.loopVar2 !== null,
      foreach: false,
      ...elementBase(p),
    },
    pos,
    children,
  );
  if (!elseOfList) return list;
  return p.el<A.ListElseEl>(
    {
      kind: 'listElse',
      ...elementBase(p),
    },
    pos,
    [list, elseOfList],
  );
}

function parseForeach(p: DirectiveParser): A.El {
  const start = p.lx.next();
  const loopVar = p.expect('ID').image;
  p.expect('IN');
  const source = p.expression();
  p.directiveEnd();
  p.iterCtxs.push({ loopVar, loopVar2: null, kind: 'foreach' });
  p.breakable++;
  p.continuable++;
  const children = p.mixedContent();
  const end = p.expectEnd(['foreach'], '#foreach');
  p.breakable--;
  p.continuable--;
  p.iterCtxs.pop();
  return p.el<A.ListEl>(
    {
      kind: 'list',
      source,
      loopVar,
      loopVar2: null,
      hashListing: false,
      foreach: true,
      ...elementBase(p),
    },
    p.span(p.tokPos(start), p.tokPos(end)),
    children,
  );
}

function parseItems(p: DirectiveParser): A.El {
  const start = p.lx.next();
  const loopVar = p.expect('ID').image;
  let loopVar2: string | null = null;
  if (p.lx.peek().t === 'COMMA') {
    p.lx.next();
    loopVar2 = p.expect('ID').image;
  }
  p.directiveEnd();
  const ctx = p.iterCtxs[p.iterCtxs.length - 1];
  if (!ctx) throw p.err('#items must be inside a #list block.', start);
  if (ctx.loopVar !== null) {
    const msg =
      ctx.kind === 'foreach'
        ? "#foreach doesn't support nested #items."
        : ctx.kind === 'items'
          ? "Can't nest #items into each other when they belong to the same #list."
          : 'The parent #list of the #items must not have "as loopVar" parameter.';
    throw p.err(msg, start);
  }
  ctx.kind = 'items';
  ctx.loopVar = loopVar;
  if (loopVar2 !== null) {
    ctx.loopVar2 = loopVar2;
    if (loopVar2 === loopVar) {
      throw p.err(`The key and value loop variable names must differ, but both were: ${loopVar}`, start);
    }
  }
  p.breakable++;
  p.continuable++;
  const children = p.mixedContent();
  const end = p.expectEnd(['items'], '#items');
  p.breakable--;
  p.continuable--;
  ctx.loopVar = null;
  return p.el<A.ItemsEl>(
    {
      kind: 'items',
      loopVar,
      loopVar2,
      ...elementBase(p),
    },
    p.span(p.tokPos(start), p.tokPos(end)),
    children,
  );
}

function parseSep(p: DirectiveParser): A.El {
  const start = p.lx.next();
  if (!p.iterCtxs.length) throw p.err('#sep must be inside a #list (or #foreach) block.', start);
  const children = p.mixedContent();
  const t = p.lx.peek();
  if (t.t === 'END_TAG' && t.name === 'sep') {
    p.lx.next();
    return p.el<A.SepEl>(
      {
        kind: 'sep',
        ...elementBase(p),
      },
      p.span(p.tokPos(start), p.tokPos(t)),
      children,
    );
  }
  return p.el<A.SepEl>(
    {
      kind: 'sep',
      ...elementBase(p),
    },
    p.locWithChildren(start, start, children),
    children,
  );
}

interface Listing {
  /** The number of items; -1 for a lazily generated sequence (then `iter` lists it). */
  size: number;
  get(i: number): unknown;
  key?: (i: number) => string;
  iter?: FmIterator;
}

function listing(env: Env, v: unknown, src: A.Expr, hashListing: boolean, el: A.El): Listing {
  if (v === undefined) throw missingError(src);
  if (hashListing) {
    if (v instanceof LegacyHashLiteral) {
      const pairs = v.pairs;
      return { size: pairs.length, get: (i) => pairs[i][1], key: (i) => pairs[i][0] };
    }
    if (isHash(v)) {
      const keys = hashKeys(v);
      return { size: keys.length, get: (i) => hashGet(v, keys[i]), key: (i) => keys[i] };
    }
    if (isSequence(v) || v instanceof LazySeq) {
      throw elError(
        'NonSequenceOrCollectionException',
        `The value you try to list is ${v instanceof LazySeq ? `a ${describeType(v)}` : 'a sequence (wrapper: f.t.SimpleSequence)'}, thus you must specify only one loop variable after the "as" (there's no separate key and value).`,
        el,
      );
    }
    throw typeError(src, '', 'extended hash', v);
  }
  if (Array.isArray(v)) return { size: v.length, get: (i) => (v[i] === null ? undefined : v[i]) };
  if (v instanceof FmRange) return { size: v.size, get: (i) => v.get(i) };
  if (v instanceof MatchResult) return { size: v.items.length, get: (i) => v.items[i] };
  if (v instanceof FmCollection) return { size: v.items.length, get: (i) => v.items[i] };
  if (v instanceof EmptyDefault) return { size: 0, get: () => undefined };
  if (v instanceof LazySeq) {
    const it = v.iter;
    return { size: -1, get: () => it.next(), iter: it };
  }
  if (isHash(v)) {
    throw elError(
      'NonSequenceOrCollectionException',
      `The value you try to list is ${describeType(v).replace(/^/, 'an ')}, thus you must specify two loop variables after the "as"; one for the key, and another for the value, like <#... as k, v>).`,
      el,
    );
  }
  throw typeError(src, '', 'sequence or collection', v);
}

/** No items to list (then #list runs its #else). */
function isEmptyListing(l: Listing): boolean {
  return l.iter ? !l.iter.hasNext() : l.size === 0;
}

/** Iterates `l` running `body` with the loop context updated; handles #break/#continue and async bodies. */
function iterate(env: Env, ctx: LoopCtx, l: Listing, body: Exec, from: number): void | Promise<void> {
  if (l.iter) return iterateLazily(env, ctx, l, body, from);
  const n = l.size;
  const key = l.key;
  for (let i = from; i < n; i++) {
    env.tick();
    ctx.index = i;
    ctx.hasNext = i + 1 < n;
    if (key) {
      ctx.value = key(i);
      ctx.value2 = l.get(i);
    } else ctx.value = l.get(i);
    let r: void | Promise<void>;
    try {
      r = body(env);
    } catch (e) {
      if (e === CONTINUE) continue;
      if (e === BREAK) return;
      throw e;
    }
    if (r !== undefined) return iterateAsync(env, ctx, l, body, i, r);
  }
}

/**
 * IteratorBlock over a lazily generated sequence: each item is taken, then hasNext() is asked
 * (which may generate the next one) before the body runs, like FreeMarker does.
 */
function iterateLazily(env: Env, ctx: LoopCtx, l: Listing, body: Exec, from: number): void | Promise<void> {
  const it = l.iter!;
  for (let i = from; it.hasNext(); i++) {
    env.tick();
    ctx.index = i;
    ctx.value = it.next();
    ctx.hasNext = it.hasNext();
    let r: void | Promise<void>;
    try {
      r = body(env);
    } catch (e) {
      if (e === CONTINUE) continue;
      if (e === BREAK) return;
      throw e;
    }
    if (r !== undefined) return iterateAsync(env, ctx, l, body, i, r);
  }
}

async function iterateAsync(
  env: Env,
  ctx: LoopCtx,
  l: Listing,
  body: Exec,
  i: number,
  p: Promise<void>,
): Promise<void> {
  try {
    await env.resumeAfter(p);
  } catch (e) {
    if (e === BREAK) return;
    if (e !== CONTINUE) throw e;
  }
  const r = iterate(env, ctx, l, body, i + 1);
  if (r !== undefined) await r;
}

function withLoop(env: Env, ctx: LoopCtx, run: () => void | Promise<void>): void | Promise<void> {
  const loops = env.loops;
  loops.push(ctx);
  let r: void | Promise<void>;
  try {
    r = run();
  } catch (e) {
    removeCtx(loops, ctx);
    throw e;
  }
  if (r === undefined) {
    removeCtx(loops, ctx);
    return;
  }
  return r.then(
    () => removeCtx(loops, ctx),
    (e) => {
      removeCtx(loops, ctx);
      throw e;
    },
  );
}

function removeCtx(loops: unknown[], ctx: unknown): void {
  const i = loops.lastIndexOf(ctx);
  if (i >= 0) loops.splice(i, 1);
}

function compileList(el: A.ListEl, elseEl: A.ElseOfListEl | null, c: ElementCompiler): Exec {
  // IteratorBlock lists ?filter/?map … results lazily. Not when they may call methods: an
  // asynchronous one can only suspend the expression while it is being evaluated.
  if (!el.source.calls) enableLazy(el.source);
  const src = evaluator(el.source, c.cx);
  const body = c.block(el.children);
  const elseBody = elseEl ? c.block(elseEl.children) : null;
  const sn = el.source;
  const loopVar = el.loopVar;
  const loopVar2 = el.loopVar2;
  const hashListing = el.hashListing && loopVar !== null;
  const run = (env: Env, v: unknown): void | Promise<void> => {
    if (loopVar === null) {
      // <#list xs> … <#items as x> … </#items> … </#list>
      if (v === undefined) throw missingError(sn);
      const hl = el.hashListing;
      const l = listing(env, v, sn, hl, el);
      if (isEmptyListing(l)) return elseBody ? elseBody(env) : undefined;
      const ctx = new LoopCtx(null, null);
      ctx.isLoop = true;
      ctx.pending = [l];
      return withLoop(env, ctx, () => {
        try {
          return body(env);
        } catch (e) {
          if (e === BREAK) return;
          throw e;
        }
      });
    }
    const l = listing(env, v, sn, hashListing, el);
    if (isEmptyListing(l)) return elseBody ? elseBody(env) : undefined;
    const ctx = new LoopCtx(loopVar, loopVar2);
    ctx.isLoop = true;
    return withLoop(env, ctx, () => iterate(env, ctx, l, body, 0));
  };
  return (env) => {
    const v = src(env);
    if (v instanceof Pending) return thenDo(env, v, (x) => run(env, x));
    return run(env, v);
  };
}

function compileItems(el: A.ItemsEl, c: ElementCompiler): Exec {
  const body = c.block(el.children);
  return (env) => {
    const loops = env.loops;
    let ctx: LoopCtx | null = null;
    for (let i = loops.length - 1; i >= 0; i--) {
      const c = loops[i];
      if (c instanceof LoopCtx && c.pending !== null) {
        ctx = c;
        break;
      }
    }
    if (!ctx) throw elError('_MiscTemplateException', '#items must be inside a #list block.', el);
    const l = ctx.pending![0] as Listing;
    const wasPending = ctx.pending;
    ctx.pending = null;
    ctx.name = el.loopVar;
    ctx.name2 = el.loopVar2;
    const restore = (): void => {
      ctx!.pending = wasPending;
      ctx!.name = null;
      ctx!.name2 = null;
    };
    let r: void | Promise<void>;
    try {
      r = iterate(env, ctx, l, body, 0);
    } catch (e) {
      restore();
      throw e;
    }
    if (r === undefined) {
      restore();
      return;
    }
    return r.then(restore, (e) => {
      restore();
      throw e;
    });
  };
}

function compileSep(el: A.SepEl, c: ElementCompiler): Exec {
  const body = c.block(el.children);
  return (env) => {
    const loops = env.loops;
    for (let i = loops.length - 1; i >= 0; i--) {
      const c = loops[i];
      if (c instanceof LoopCtx && c.isLoop && c.name !== null) {
        return c.hasNext ? body(env) : undefined;
      }
    }
    throw elError('_MiscTemplateException', '#sep must be inside a #list (or #foreach) block.', el);
  };
}

export const list: Directive<'list' | 'listElse' | 'elseOfList' | 'items' | 'sep'> = {
  startTags: { list: 'blank', foreach: 'blank', items: 'items', sep: 'close1' },
  endTags: ['list', 'foreach', 'items', 'sep'],
  kinds: ['list', 'listElse', 'elseOfList', 'items', 'sep'],
  parse: (p, tag) =>
    tag.name === 'foreach'
      ? parseForeach(p)
      : tag.name === 'items'
        ? parseItems(p)
        : tag.name === 'sep'
          ? parseSep(p)
          : parseList(p),
  compile(el, c) {
    switch (el.kind) {
      case 'list':
        return compileList(el, null, c);
      case 'listElse':
        return compileList(el.children[0] as A.ListEl, el.children[1] as A.ElseOfListEl, c);
      case 'items':
        return compileItems(el, c);
      case 'sep':
        return compileSep(el, c);
      default:
        return c.block(el.children);
    }
  },
  stackLabel(el) {
    switch (el.kind) {
      case 'list':
        return el.foreach
          ? `#foreach ${el.loopVar} in ${canonical(el.source)}`
          : `#list ${canonical(el.source)}${el.loopVar ? ' as ' + el.loopVar + (el.loopVar2 ? ', ' + el.loopVar2 : '') : ''}`;
      case 'items':
        return `#items as ${el.loopVar}${el.loopVar2 ? ', ' + el.loopVar2 : ''}`;
      case 'sep':
        return '#sep';
      case 'elseOfList':
        return '#else';
      default:
        return null;
    }
  },
};
