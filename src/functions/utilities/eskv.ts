/**
 * ESKV — escaped key/value text, as flowmark reads it:
 * - one `key=value` per line (LF, CRLF or CR); the key ends at the first unescaped `=`;
 *   blanks around keys and values are trimmed;
 * - empty lines and lines starting with `#` are skipped;
 * - a backslash escapes: `\n` `\r` `\t` `\\` `\=` `\#` and `\uXXXX`;
 * - a key seen several times collects its values in an array, in order.
 * `a=1\nb=x\=y\nb=2` → {"a":"1","b":["x=y","2"]}
 */
import { DataError } from './args.js';
import { PROTOTYPE_KEYS as FORBIDDEN } from '../../safety/index.js';
export class EskvError extends DataError {
  override name = 'EskvError';
}

const SIMPLE: Record<string, string> = { n: '\n', r: '\r', t: '\t', '\\': '\\', '=': '=', '#': '#' };

function unescape(text: string, line: number): string {
  return text.replace(/\\(u[0-9a-fA-F]{4}|.?)/g, (_m, e: string) => {
    if (e.startsWith('u') && e.length === 5) return String.fromCharCode(parseInt(e.slice(1), 16));
    const s = SIMPLE[e];
    if (s === undefined) throw new EskvError(`line ${line}: unknown escape \\${e}`);
    return s;
  });
}

export function eskvToJson(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  text
    .replace(/^\uFEFF/, '')
    .split(/\r\n|\n|\r/)
    .forEach((raw, i) => {
      const line = i + 1;
      const trimmed = raw.trim();
      if (trimmed === '' || trimmed.startsWith('#')) return;
      const eq = /(?:^|[^\\])(?:\\\\)*=/.exec(raw);
      if (!eq) throw new EskvError(`line ${line} has no "=" between a key and a value`);
      const at = eq.index + eq[0].length - 1;
      const key = unescape(raw.slice(0, at).trim(), line);
      if (key === '') throw new EskvError(`line ${line} has an empty key`);
      if (FORBIDDEN.has(key))
        throw new EskvError(`line ${line}: the key ${JSON.stringify(key)} is not allowed`);
      const value = unescape(raw.slice(at + 1).trim(), line);
      if (!Object.prototype.hasOwnProperty.call(out, key)) out[key] = value;
      else {
        const old = out[key];
        out[key] = Array.isArray(old) ? [...old, value] : [old, value];
      }
    });
  return out;
}
