/** Lazy conditionals and boolean built-ins (?then, ?switch: only the chosen branch is evaluated). */

import { ParseError } from '../errors.js';
import { compareValues, toBoolean } from '../ops.js';
import { blamedError, missingError } from '../runtime.js';
import { builtInFamily } from './registry.js';

const { def, records } = builtInFamily();

// ------------------------------------------------------------------ booleans

def('then', {
  custom: (node, cx, compile) => {
    const args = node.args ?? [];
    if (args.length !== 2) {
      throw new ParseError(
        `?then(...) expects exactly 2 arguments, but had ${args.length}.`,
        cx.name,
        node.beginLine,
        node.beginColumn,
      );
    }
    const T = compile(node.target, cx);
    const a = compile(args[0], cx);
    const b = compile(args[1], cx);
    const tn = node.target;
    return (env) => (toBoolean(T(env), tn, 'For "?then" left-hand operand') ? a(env) : b(env));
  },
});

def('switch', {
  custom: (node, cx, compile) => {
    const args = node.args ?? [];
    if (args.length < 2) {
      throw new ParseError(
        `?switch(...) expects at least 2 arguments, but had ${args.length}.`,
        cx.name,
        node.beginLine,
        node.beginColumn,
      );
    }
    const T = compile(node.target, cx);
    const A = args.map((x) => compile(x, cx));
    const tn = node.target;
    return (env) => {
      const v = T(env);
      if (v === undefined) throw missingError(tn);
      const pairs = Math.floor(A.length / 2);
      for (let i = 0; i < pairs; i++) {
        const c = A[i * 2](env);
        if (compareValues(env, v, c, 'eq', tn, args[i * 2], args[i * 2], '==')) return A[i * 2 + 1](env);
      }
      if (A.length % 2 === 1) return A[A.length - 1](env);
      throw blamedError(
        '_MiscTemplateException',
        "The value before ?switch(case1, value1, case2, value2, ...) didn't match any of the case parameters, and there was no default value parameter (an additional last parameter) eithter.",
        node,
      );
    };
  },
});

export const CONDITIONAL_BUILT_INS = records;
