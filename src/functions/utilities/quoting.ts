/** P_quoted: a JavaScript string literal that is safe inside a script element of a web interface. */
import { argumentError } from '../errors.js';
import { defineFunction, type FunctionSpec } from '../spec.js';

const QUOTES = ["'", '"', '`'];

/**
 * Escapes text for the inside of a JavaScript string delimited by `quote`: the backslash, that
 * quote, line breaks (CR, LF, U+2028, U+2029), other control characters, `</` (so `</script>`
 * cannot close the script element) and `<!--`; in a template literal also `${`.
 */
export function escapeJsString(text: string, quote: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const code = text.charCodeAt(i);
    if (c === '\\') out += '\\\\';
    else if (c === quote) out += `\\${c}`;
    else if (c === '\n') out += '\\n';
    else if (c === '\r') out += '\\r';
    else if (c === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x2028 || code === 0x2029 || code === 0x7f)
      out += `\\u${code.toString(16).padStart(4, '0')}`;
    else if (c === '<' && (text[i + 1] === '/' || text.startsWith('!--', i + 1))) out += '\\x3C';
    else if (c === '$' && quote === '`' && text[i + 1] === '{') out += '\\$';
    else out += c;
  }
  return out;
}

export const quotingFunctions: FunctionSpec[] = [
  defineFunction({
    name: 'P_quoted',
    group: 'Utilities',
    rights: 'none',
    doc:
      'Quotes `input` as a JavaScript string literal, with `quote` (\' default, " or `) around it and escaped inside, as are backslashes, ' +
      'line breaks and `</` (a value cannot end the script element it is written in): `var label = ${P_quoted(i18n("k", "d"))};`.',
    returns: 'string',
    flags: { webInterface: true, pure: true },
    forms: [
      {
        params: [
          { name: 'input', type: 'string' },
          { name: 'quote', type: 'string', optional: true, default: "'" },
        ],
        impl(_ctx, args, _call, fn) {
          const [input, quote] = args;
          if (!QUOTES.includes(quote))
            throw argumentError(fn, 2, 'quote', `expected ' or " or \`, got ${JSON.stringify(quote)}`);
          return quote + escapeJsString(input, quote) + quote;
        },
      },
    ],
  }),
];
