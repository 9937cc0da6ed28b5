/** Loop variable built-ins (?index, ?counter, ?has_next, ?item_parity …). */
import type * as A from '../ast.js';
import { callMethod } from '../calls.js';

import { type Env, LoopCtx, elError } from '../runtime.js';
import { FmMethod } from '../values.js';
import { biError, builtInFamily } from './registry.js';

const { def, records } = builtInFamily();

// ------------------------------------------------------------------ loop variables

function loopBuiltin(
  name: string,
  f: (ctx: LoopCtx, args: unknown[], node: A.BuiltInExpr) => unknown,
  withArgs = false,
): void {
  def(name, {
    custom: (node, cx, compile) => {
      node.templateName = cx.name;
      const varName = (node.target as A.Ident).name;
      const A2 = (node.args ?? []).map((a) => compile(a, cx));
      const find = (env: Env): LoopCtx => {
        const loops = env.loops;
        for (let i = loops.length - 1; i >= 0; i--) {
          const c = loops[i];
          if (c instanceof LoopCtx && c.isLoop && c.has(varName)) return c;
        }
        throw elError(
          '_MiscTemplateException',
          `There's no iteration in context that uses loop variable ${JSON.stringify(varName)}.`,
          node,
        );
      };
      if (withArgs) {
        if (!node.args) {
          return (env) => {
            const ctx = find(env);
            return new FmMethod((args) => f(ctx, args, node), `?${name}`);
          };
        }
        return (env) =>
          f(
            find(env),
            A2.map((a) => a(env)),
            node,
          );
      }
      if (node.args) {
        return (env) =>
          callMethod(
            env,
            f(find(env), [], node),
            A2.map((a) => a(env)),
            node,
            node,
          );
      }
      return (env) => f(find(env), [], node);
    },
  });
}

loopBuiltin('index', (c) => c.index);
loopBuiltin('counter', (c) => c.index + 1);
loopBuiltin('has_next', (c) => c.hasNext);
loopBuiltin('is_last', (c) => !c.hasNext);
loopBuiltin('is_first', (c) => c.index === 0);
loopBuiltin('is_odd_item', (c) => c.index % 2 === 0);
loopBuiltin('is_even_item', (c) => c.index % 2 === 1);
loopBuiltin('item_parity', (c) => (c.index % 2 === 0 ? 'odd' : 'even'));
loopBuiltin('item_parity_cap', (c) => (c.index % 2 === 0 ? 'Odd' : 'Even'));
loopBuiltin(
  'item_cycle',
  (c, args, node) => {
    if (args.length === 0)
      throw biError(node, '?item_cycle(...) expects 1 or more arguments, but has received none.');
    const v = args[c.index % args.length];
    if (v === undefined)
      throw biError(
        node,
        `?item_cycle(...) argument #${(c.index % args.length) + 1} had null/missing value.`,
      );
    return v;
  },
  true,
);

export const LOOP_VARIABLE_BUILT_INS = records;
