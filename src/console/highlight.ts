/**
 * Syntax highlighting of the FreeMarker dialect for the playground's editor: text, comments,
 * directive tags (`<#if …>`, `</#list>`, `<@macro/>`), interpolations (`${…}`), and inside them
 * strings, numbers, keywords, built-ins (`?upper_case`), the library's functions and other names.
 * A highlighter, not a parser: it never fails, whatever the text.
 */
export type TokenKind =
  | 'text'
  | 'comment'
  | 'tag'
  | 'interpolation'
  | 'string'
  | 'number'
  | 'keyword'
  | 'builtin'
  | 'function'
  | 'name'
  | 'operator';

export interface Token {
  kind: TokenKind;
  text: string;
}

const KEYWORDS = new Set(['true', 'false', 'gt', 'gte', 'lt', 'lte', 'as', 'in', 'using']);
const OPENING = /<#--|<\/?[#@]|[$#]\{/g;
const EXPRESSION_TOKEN =
  /\s+|r?"(?:[^"\\]|\\.)*"?|r?'(?:[^'\\]|\\.)*'?|\d+(?:\.\d+)?|\?\??[A-Za-z_][\w]*|[A-Za-z_$][\w$]*|\/>|[\s\S]/y;

/** The tokens of a template; their texts concatenated give the template back. */
export function tokenize(source: string, functions: ReadonlySet<string> = new Set()): Token[] {
  const tokens: Token[] = [];
  const push = (kind: TokenKind, text: string) => {
    if (text === '') return;
    const last = tokens[tokens.length - 1];
    if (last && last.kind === kind && (kind === 'text' || kind === 'comment')) last.text += text;
    else tokens.push({ kind, text });
  };
  let i = 0;
  while (i < source.length) {
    OPENING.lastIndex = i;
    const open = OPENING.exec(source);
    if (!open) {
      push('text', source.slice(i));
      break;
    }
    push('text', source.slice(i, open.index));
    const start = open[0];
    if (start === '<#--') {
      const end = source.indexOf('-->', open.index + 4);
      const stop = end < 0 ? source.length : end + 3;
      push('comment', source.slice(open.index, stop));
      i = stop;
    } else if (start.startsWith('<')) {
      const name = /^[\w.:]*/.exec(source.slice(open.index + start.length))![0];
      push('tag', start + name);
      i = expression(source, open.index + start.length + name.length, 'tag', functions, push);
    } else {
      push('interpolation', start);
      i = expression(source, open.index + start.length, 'interpolation', functions, push);
    }
  }
  return tokens;
}

/** Tokens of an expression up to the end of its tag (`>` or `/>`) or interpolation (`}`). */
function expression(
  source: string,
  from: number,
  inside: 'tag' | 'interpolation',
  functions: ReadonlySet<string>,
  push: (kind: TokenKind, text: string) => void,
): number {
  let depth = 0;
  let i = from;
  while (i < source.length) {
    EXPRESSION_TOKEN.lastIndex = i;
    const text = EXPRESSION_TOKEN.exec(source)![0];
    const c = text[0]!;
    if (depth === 0 && inside === 'interpolation' && text === '}') {
      push('interpolation', text);
      return i + 1;
    }
    if (depth === 0 && inside === 'tag' && (text === '>' || text === '/>')) {
      push('tag', text);
      return i + text.length;
    }
    if ('([{'.includes(c) && text.length === 1) depth += 1;
    else if (')]}'.includes(c) && text.length === 1) depth = Math.max(0, depth - 1);
    push(kindOf(text, functions), text);
    i += text.length;
  }
  return i;
}

function kindOf(text: string, functions: ReadonlySet<string>): TokenKind {
  const c = text[0]!;
  if (/\s/.test(c)) return 'text';
  if (c === '"' || c === "'" || (c === 'r' && (text[1] === '"' || text[1] === "'"))) return 'string';
  if (/\d/.test(c)) return 'number';
  if (c === '?' && text.length > 1 && /[A-Za-z_?]/.test(text[1]!)) return 'builtin';
  if (/[A-Za-z_$]/.test(c)) {
    if (KEYWORDS.has(text)) return 'keyword';
    return functions.has(text) ? 'function' : 'name';
  }
  return 'operator';
}
