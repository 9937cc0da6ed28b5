/** ?eval_json: strict JSON to template values (objects keep their key order; numbers stay exact). */
import { BigDec } from '../bigdecimal.js';
import { errorMessage } from '../errors.js';

const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;

// The parser's state: module-level, so a parse allocates no closures (it never re-enters itself).
let text = '';
let i = 0;

export function parseJson(source: string): unknown {
  text = source;
  i = 0;
  try {
    const v = value(0);
    ws();
    if (i < text.length) fail('Unexpected content after the JSON value');
    return v;
  } finally {
    text = '';
  }
}

function fail(what: string): never {
  let line = 1;
  let col = 1;
  for (let k = 0; k < i && k < text.length; k++) {
    if (text[k] === '\n') {
      line++;
      col = 1;
    } else col++;
  }
  throw new Error(`${what} at line ${line}, column ${col}`);
}

function ws(): void {
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) break;
  }
}

function value(depth: number): unknown {
  if (depth > 500) fail('JSON nesting is too deep');
  ws();
  const c = text[i];
  if (c === '{') {
    i++;
    const m = new Map<string, unknown>();
    ws();
    if (text[i] === '}') {
      i++;
      return m;
    }
    for (;;) {
      ws();
      if (text[i] !== '"') fail('Expected a string (object key)');
      const k = string();
      ws();
      if (text[i] !== ':') fail('Expected ":"');
      i++;
      m.set(k, value(depth + 1));
      ws();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '}') {
        i++;
        return m;
      }
      fail('Expected "," or "}"');
    }
  }
  if (c === '[') {
    i++;
    const a: unknown[] = [];
    ws();
    if (text[i] === ']') {
      i++;
      return a;
    }
    for (;;) {
      a.push(value(depth + 1));
      ws();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === ']') {
        i++;
        return a;
      }
      fail('Expected "," or "]"');
    }
  }
  if (c === '"') return string();
  if (text.startsWith('true', i)) {
    i += 4;
    return true;
  }
  if (text.startsWith('false', i)) {
    i += 5;
    return false;
  }
  if (text.startsWith('null', i)) {
    i += 4;
    return undefined;
  }
  // an integer of up to 15 digits (the usual number) without the regular expression
  {
    let j = c === '-' ? i + 1 : i;
    const first = j;
    let k: number;
    while (j < text.length && (k = text.charCodeAt(j)) >= 48 && k <= 57) j++;
    const len = j - first;
    if (
      len > 0 &&
      len <= 15 &&
      (len === 1 || text.charCodeAt(first) !== 48) &&
      (j === text.length || ((k = text.charCodeAt(j)) !== 46 && k !== 101 && k !== 69))
    ) {
      const start = i;
      i = j;
      return Number(text.slice(start, j));
    }
  }
  NUMBER.lastIndex = i;
  let m = NUMBER.exec(text);
  // a number is read from at most 400 characters
  if (m && m[0].length > 400) m = /^-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
  if (!m)
    return fail(
      i >= text.length ? 'Unexpected end of the JSON' : `Unexpected character ${JSON.stringify(c)}`,
    );
  i += m[0].length;
  if (!m[1] && !m[2]) {
    const n = Number(m[0]);
    return Number.isSafeInteger(n) ? n : new BigDec(BigInt(m[0]), 0);
  }
  let b: BigDec;
  try {
    b = BigDec.parse(m[0]);
  } catch (e) {
    return fail(errorMessage(e));
  }
  return b.scale <= 0 && b.isInteger() && Number.isSafeInteger(Number(b.toBigInt()))
    ? Number(b.toBigInt())
    : b;
}

function string(): string {
  i++;
  let out = '';
  for (;;) {
    let j = i;
    for (; j < text.length; j++) {
      const k = text.charCodeAt(j);
      if (k === 34 || k === 92 || k < 0x20) break;
    }
    if (j > i) {
      out += text.slice(i, j);
      i = j;
    }
    if (i >= text.length) fail('Unterminated string');
    const c = text[i++];
    if (c === '"') return out;
    if (c === '\\') {
      const e = text[i++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out += e;
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          const h = text.slice(i, i + 4);
          if (!/^[0-9a-fA-F]{4}$/.test(h)) fail('Invalid \\u escape');
          out += String.fromCharCode(parseInt(h, 16));
          i += 4;
          break;
        }
        default:
          fail('Invalid escape');
      }
    } else if (c.charCodeAt(0) < 0x20) fail('Control character in string');
    else out += c;
  }
}
