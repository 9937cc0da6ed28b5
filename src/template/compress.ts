/** #compress and FreeMarker's StandardCompress transform (freemarker.template.utility.StandardCompress). */

/** Java's Character.isWhitespace: ASCII controls \t–\r and \x1c–\x1f, and the Unicode spaces that are not no-break. */
// eslint-disable-next-line no-control-regex -- Java's white-space includes the \x1c–\x1f separators
const WHITESPACE_RUN = /[\t-\r\x1c-\x20\u1680\u2000-\u2006\u2008-\u200a\u2028\u2029\u205f\u3000]+/g;

/**
 * StandardCompressWriter: leading and trailing white-space removed; every other white-space run
 * becomes its first line break (`\n`, `\r\n` or `\r`, as written), or one space when it has none
 * or `singleLine` is set.
 */
export function compress(s: string, singleLine = false): string {
  let out = '';
  let last = 0;
  WHITESPACE_RUN.lastIndex = 0;
  for (let m = WHITESPACE_RUN.exec(s); m !== null; m = WHITESPACE_RUN.exec(s)) {
    const start = m.index;
    const end = start + m[0].length;
    out += s.slice(last, start);
    last = end;
    if (start === 0 || end === s.length) continue;
    out += singleLine ? ' ' : lineBreakOf(m[0]);
  }
  return last === 0 ? s : out + s.slice(last);
}

/** The separator a white-space run compresses to: its first line break, else a space. */
function lineBreakOf(run: string): string {
  for (let i = 0; i < run.length; i++) {
    const c = run.charCodeAt(i);
    if (c === 10) return '\n';
    if (c === 13) return run.charCodeAt(i + 1) === 10 ? '\r\n' : '\r';
  }
  return ' ';
}
