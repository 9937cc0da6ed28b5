/**
 * Syntax highlighting of the FreeMarker dialect for the playground's editor: text, comments,
 * directive tags (`<#if …>`, `</#list>`, `<@macro/>`), interpolations (`${…}`), and inside them
 * strings, numbers, keywords, built-ins (`?upper_case`), the library's functions and other names.
 * The body of `<@script env="js">` / `<@script env="python">` (raw text the template does not
 * render) is highlighted as JavaScript / Python: comments, strings, numbers, keywords, the RMP*
 * objects (as functions) and other names; a `<#noparse>` around it stays a tag.
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
      const first = tokens.length;
      i = expression(source, open.index + start.length + name.length, 'tag', functions, push);
      const language = start === '<@' && name === 'script' ? scriptLanguage(tokens.slice(first)) : null;
      if (language) i = scriptBody(source, i, language, push);
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

type Language = 'js' | 'python';

/** The language of a `<@script …>` tag from its tokens (js when env is absent); null when it has no body. */
function scriptLanguage(tag: Token[]): Language | null {
  const last = tag[tag.length - 1];
  if (!last || last.kind !== 'tag' || last.text !== '>') return null;
  const significant = tag.filter((t) => t.kind !== 'text');
  const at = significant.findIndex((t) => t.kind === 'name' && t.text === 'env');
  if (at < 0) return 'js';
  const value = significant[at + 2];
  if (significant[at + 1]?.text !== '=' || value?.kind !== 'string') return null;
  const env = value.text.replace(/^r?["']|["']$/g, '').toLowerCase();
  return env === 'js' || env === 'python' ? env : null;
}

/** Tokens of a script's body, from the end of its opening tag up to `</@script` (left to the caller). */
function scriptBody(
  source: string,
  from: number,
  language: Language,
  push: (kind: TokenKind, text: string) => void,
): number {
  const close = source.indexOf('</@script', from);
  const end = close < 0 ? source.length : close;
  let body = source.slice(from, end);
  const open = /^\s*<#noparse>/.exec(body);
  const shut = open ? /<\/#noparse>\s*$/.exec(body) : null;
  if (open) {
    push('text', body.slice(0, open[0].length - '<#noparse>'.length));
    push('tag', '<#noparse');
    push('tag', '>');
    body = body.slice(open[0].length);
  }
  const tail = shut ? body.slice(body.length - shut[0].length) : '';
  if (shut) body = body.slice(0, body.length - shut[0].length);
  const pattern = language === 'python' ? PYTHON_TOKEN : JS_TOKEN;
  for (let i = 0; i < body.length;) {
    pattern.lastIndex = i;
    const text = pattern.exec(body)![0];
    push(scriptKind(text, language), text);
    i += text.length;
  }
  if (shut) {
    push('tag', '</#noparse');
    push('tag', '>');
    push('text', tail.slice('</#noparse>'.length));
  }
  return end;
}

const PYTHON_KEYWORDS = new Set(
  (
    'False None True and as assert async await break class continue def del elif else except finally ' +
    'for from global if import in is lambda nonlocal not or pass raise return try while with yield'
  ).split(' '),
);
const JS_KEYWORDS = new Set(
  (
    'await break case catch class const continue debugger default delete do else export extends false ' +
    'finally for function if import in instanceof let new null of return super switch this throw true ' +
    'try typeof undefined var void while with yield'
  ).split(' '),
);
const PYTHON_TOKEN =
  /\s+|#[^\n]*|[rRbBuUfF]{0,2}(?:"""[\s\S]*?(?:"""|$(?![\s\S]))|'''[\s\S]*?(?:'''|$(?![\s\S]))|"(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?)|\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?|[A-Za-z_]\w*|[\s\S]/y;
const JS_TOKEN =
  /\s+|\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$(?![\s\S]))|"(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?|`(?:[^`\\]|\\[\s\S])*`?|\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?|[A-Za-z_$][\w$]*|[\s\S]/y;

function scriptKind(text: string, language: Language): TokenKind {
  const c = text[0]!;
  if (/\s/.test(c)) return 'text';
  if (language === 'python' ? c === '#' : text.startsWith('//') || text.startsWith('/*')) return 'comment';
  if (/["'`]/.test(c) || (language === 'python' && /^[rRbBuUfF]{1,2}["']/.test(text))) return 'string';
  if (/\d/.test(c)) return 'number';
  if (/[A-Za-z_$]/.test(c)) {
    if ((language === 'python' ? PYTHON_KEYWORDS : JS_KEYWORDS).has(text)) return 'keyword';
    return /^RMP[A-Z]\w*$/.test(text) ? 'function' : 'name';
  }
  return 'operator';
}
