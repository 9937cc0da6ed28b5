/** Expert built-ins: ?eval, ?interpret, ?with_args, template names, and ?new of FreeMarker's utility transforms. */
import { BoundCallable } from '../values.js';

import { ParseError, jQuote, errorMessage } from '../errors.js';
import { UTILITY_CLASSES } from '../transforms.js';
import { stringTarget } from '../ops.js';
import { type Ev, type TemplateUnit, MacroValue, blamedError, missingError, typeName } from '../runtime.js';
import { FmMethod, hashKeys, isHash, isSequence, seqItems } from '../values.js';
import { argString, biError, builtInFamily, checkArgs, targetTypeError } from './registry.js';
import { parseJson } from './json.js';

const { def, records } = builtInFamily();

/** The value ?interpret returns: a directive that runs the parsed template in the current namespace. */
export class InterpretedTemplate {
  constructor(readonly unit: TemplateUnit) {}
}

// ------------------------------------------------------------------ expert

def('eval', {
  custom: (node, cx, compile) => {
    const T = compile(node.target, cx);
    const cache = new Map<string, Ev>();
    return (env) => {
      const t = T(env);
      if (t === undefined) throw missingError(node.target);
      const src = stringTarget(env, t, node.target, 'eval');
      let ev = cache.get(src);
      if (!ev) {
        try {
          const e = cx.parseExpression(src, cx.name + '->?eval');
          ev = compile(e, { ...cx, name: cx.name });
        } catch (err) {
          if (err instanceof ParseError) {
            throw blamedError(
              '_MiscTemplateException',
              `Failed to "?eval" string with this error:\n\n---begin-message---\n${err.message}\n---end-message---\n\nThe failing expression:`,
              node,
              [],
              err,
            );
          }
          throw err;
        }
        if (cache.size < 100) cache.set(src, ev);
      }
      return ev(env);
    };
  },
});

def('eval_json', {
  value: (env, t, node) => {
    const s = stringTarget(env, t, node.target, 'eval_json');
    try {
      return parseJson(s);
    } catch (e) {
      throw blamedError(
        '_MiscTemplateException',
        `Failed to "?eval_json" string with this error:\n\n---begin-message---\n${errorMessage(e)}\n---end-message---\n\nThe failing expression:`,
        node,
      );
    }
  },
});

def('interpret', {
  value: (env, t, node) => {
    let src: string;
    let name = `${node.templateName}->anonymous_interpreted`;
    if (isSequence(t)) {
      const parts = seqItems(t, 10);
      if (parts.length < 1 || parts.length > 2)
        throw biError(node, '?interpret requires a string, or a sequence of 1 or 2 strings.');
      src = stringTarget(env, parts[0], node.target, 'interpret');
      if (parts.length > 1) name = stringTarget(env, parts[1], node.target, 'interpret');
    } else src = stringTarget(env, t, node.target, 'interpret');
    try {
      return new InterpretedTemplate(env.compileTemplate(src, name));
    } catch (e) {
      if (e instanceof ParseError) {
        throw blamedError(
          '_MiscTemplateException',
          `Template parsing with "?interpret" has failed with this error:\n\n---begin-message---\n${e.message}\n---end-message---\n\nThe failed expression:`,
          node,
          [],
          e,
        );
      }
      throw e;
    }
  },
});

def('namespace', {
  value: (_env, t, node) => {
    if (t instanceof MacroValue) return t.ns;
    throw targetTypeError(node, 'macro or function', t);
  },
});

def('absolute_template_name', {
  value: (env, t, node) =>
    absoluteName(env.unit.name, stringTarget(env, t, node.target, 'absolute_template_name')),
  call: (env, t, args, node) => {
    checkArgs(node, args, 1);
    return absoluteName(
      argString(node, args, 0),
      stringTarget(env, t, node.target, 'absolute_template_name'),
    );
  },
});

/** TemplateNameFormat.toRootBasedName: relative names resolve against the base's directory (no ".." folding). */
function absoluteName(base: string, name: string): string {
  if (name.startsWith('/')) return name;
  const slash = base.lastIndexOf('/');
  return '/' + (slash >= 0 ? base.slice(0, slash + 1) : '') + name;
}

for (const [name, last] of [
  ['with_args', false],
  ['with_args_last', true],
] as const) {
  def(name, {
    call: (env, t, args, node) => {
      checkArgs(node, args, 1);
      const a = args[0];
      if (!(
        t instanceof MacroValue ||
        typeof t === 'function' ||
        t instanceof FmMethod ||
        t instanceof BoundCallable
      )) {
        throw targetTypeError(node, 'macro, function, directive, or method', t);
      }
      if (isHash(a)) {
        const m = new Map<string, unknown>();
        for (const k of hashKeys(a))
          m.set(
            k,
            (a as Map<string, unknown>) instanceof Map
              ? (a as Map<string, unknown>).get(k)
              : (a as Record<string, unknown>)[k],
          );
        return new BoundCallable(t, m, null, last);
      }
      if (isSequence(a)) return new BoundCallable(t, null, seqItems(a, env.maxSteps).slice(), last);
      throw biError(node, `?${name} argument must be a hash or a sequence, but it was ${typeName(a)}.`);
    },
  });
}

// ------------------------------------------------------------------ ?new: FreeMarker's own utility transforms only

def('new', {
  value: (env, t, node) => {
    const cls = stringTarget(env, t, node.target, 'new');
    const made = UTILITY_CLASSES.get(cls);
    if (!made) {
      throw blamedError(
        '_MiscTemplateException',
        `?new of ${jQuote(cls)} is not supported by flowmark: it would instantiate a Java class. Only FreeMarker's own utility transforms (${[...UTILITY_CLASSES.keys()].join(', ')}) are available.`,
        node,
      );
    }
    return new FmMethod(() => made, `?new`);
  },
});

export const EXPERT_BUILT_INS = records;
