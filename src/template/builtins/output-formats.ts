/** Output-format built-ins bound when parsed (?esc, ?no_esc, ?markup_string). */

import { escaperOf } from '../output-formats.js';
import { stringTarget } from '../ops.js';
import { MarkupOutput } from '../values.js';
import { builtInFamily, targetTypeError } from './registry.js';

const { def, records } = builtInFamily();

// ------------------------------------------------------------------ output formats

def('esc', {
  value: (env, t, node) => {
    if (t instanceof MarkupOutput) return t;
    const s = stringTarget(env, t, node.target, 'esc');
    return new MarkupOutput(node.outputFormat!, s, undefined, escaperOf(node.outputFormat!));
  },
});
def('no_esc', {
  value: (env, t, node) => {
    if (t instanceof MarkupOutput) return t;
    const s = stringTarget(env, t, node.target, 'no_esc');
    return new MarkupOutput(node.outputFormat!, undefined, s, escaperOf(node.outputFormat!));
  },
});
def('markup_string', {
  value: (_env, t, node) => {
    if (t instanceof MarkupOutput) return t.markup;
    throw targetTypeError(node, 'markup output', t);
  },
});

export const OUTPUT_FORMAT_BUILT_INS = records;
