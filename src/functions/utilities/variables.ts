/** safe_get: a variable of the script's context, or a default, optionally encoded for output. */
import { urlEncode } from '../../jdk/index.js';
import { isHash } from '../coercion.js';
import { defineFunction, type FunctionSpec } from '../spec.js';
import type { CallEnv } from '../template-types.js';
import { choice } from './args.js';
import { utf8Bytes } from './bytes.js';
import { escapeHtml } from './markdown.js';
import { escapeJsString } from './quoting.js';

const ENCODINGS = ['NONE', 'HTML', 'XML', 'JS', 'URL', 'BASE64'] as const;
type Encoding = (typeof ENCODINGS)[number];

/** Reads `a.b.0.c`: the first segment through the call's environment, the rest through hashes and sequences. */
function lookup(env: CallEnv, key: string): unknown {
  const [first, ...rest] = key.split('.');
  let value = env.getVariable(first);
  for (const seg of rest) {
    if (Array.isArray(value) && /^\d+$/.test(seg)) value = value[Number(seg)];
    else if (isHash(value))
      value =
        value instanceof Map
          ? value.get(seg)
          : Object.prototype.hasOwnProperty.call(value, seg)
            ? value[seg]
            : undefined;
    else return undefined;
  }
  return value;
}

function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) || isHash(value))
    return JSON.stringify(value instanceof Map ? Object.fromEntries(value) : value);
  return String(value);
}

function encode(text: string, encoding: Encoding): string {
  switch (encoding) {
    case 'NONE':
      return text;
    case 'HTML':
    case 'XML':
      return escapeHtml(text);
    case 'JS':
      return escapeJsString(text, "'").replace(/"/g, '\\"');
    case 'URL':
      return urlEncode(text, 'UTF-8');
    case 'BASE64':
      return utf8Bytes(text).toString('base64');
  }
}

export const variableFunctions: FunctionSpec[] = [
  defineFunction({
    name: 'safe_get',
    group: 'Utilities',
    rights: 'none',
    doc:
      'The value of the variable `key` (a dotted path such as order.customer.name reaches inside hashes and sequences), or `defaultValue` when it is undefined. ' +
      'Hashes and sequences come back as JSON text. `encoding` applies to the result: NONE (default), HTML or XML (escaped for markup), ' +
      'JS (escaped for the inside of a quoted JavaScript string), URL (URLEncoder, UTF-8) or BASE64.',
    returns: 'string',
    forms: [
      {
        params: [
          { name: 'key', type: 'string' },
          { name: 'defaultValue', type: 'string' },
          { name: 'encoding', type: 'string', optional: true, default: 'NONE' },
        ],
        impl(_ctx, args, env, fn) {
          const [key, defaultValue, encodingText] = args;
          const encoding = choice(fn, 3, 'encoding', encodingText, ENCODINGS);
          const value = lookup(env, key);
          return encode(value === undefined || value === null ? defaultValue : asText(value), encoding);
        },
      },
    ],
  }),
];
