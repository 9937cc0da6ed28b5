/**
 * The JSON text of an object argument, read as the platform reads it (docs/collections.md,
 * "Queries as JSON text"): its Java functions turn such text into an object with org.json's
 * `new JSONObject(text)`, whose tokenizer reads one object — from `{` to the matching `}` — and
 * returns without looking at what follows. So `{"a": "x"}\n{"b": "y"}` (a query written as two
 * objects back to back, as real scripts do) is the object `{"a": "x"}`; the rest is ignored.
 */
/**
 * The text of the first JSON object of `text` (what follows it cut off); text that does not start
 * with `{` (after white space), or whose first object never closes, is kept whole.
 * (parseJsonObjectText in coercion.ts parses it: this module imports nothing.)
 */
export function firstJsonObject(text: string): string {
  const end = firstObjectEnd(text);
  return end === undefined ? text : text.slice(0, end);
}

/** The index just after the `}` closing the object `text` starts with, or undefined. */
function firstObjectEnd(text: string): number | undefined {
  let i = 0;
  while (i < text.length && /\s/.test(text[i])) i++;
  if (text[i] !== '{') return undefined;
  let depth = 0;
  for (; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      // Skip the string, escapes included.
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return undefined;
}
