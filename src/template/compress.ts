/** #compress and FreeMarker's StandardCompress transform. */

/** StandardCompress: leading and trailing white-space removed, each white-space run becomes one line break (if it had one) or one space. */
export function compress(s: string): string {
  return s
    .replace(/^[ \t\n\r\f\v]+|[ \t\n\r\f\v]+$/g, '')
    .replace(/[ \t\n\r\f\v]+/g, (ws) => (/[\n\r]/.test(ws) ? '\n' : ' '));
}
