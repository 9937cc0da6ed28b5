/**
 * String ordering as java.text.Collator (en_US, tertiary strength) orders it, for ?sort and
 * ?sort_by: punctuation before digits before letters, letters case-insensitive first (lower case
 * before upper case), accents as a secondary difference, space and hyphen only breaking ties,
 * control and zero-width characters ignored. Measured against the JVM for ASCII; other scripts
 * order by code point after the Latin letters.
 */

/** Primary order of the ASCII symbols (from Java's CollationRules, as the JVM sorts them). */
const SYMBOL_ORDER = '_,;:!?/.`^~\'"()[]{}@$*\\&#%+<=>|';

/** Characters that only break ties (after all other levels): space and hyphen-minus, in this order. */
const TIE_ONLY = ' -\t\n\r\u000b\u000c\u00a0\u00ad';

function isIgnorable(c: number): boolean {
  return c <= 0x08 || (c >= 0x0e && c <= 0x1f) || (c >= 0x7f && c <= 0x9f) || (c >= 0x200b && c <= 0x200f);
}

interface Key {
  primary: number[];
  secondary: number[];
  tertiary: number[];
  ties: number[];
}

const cache = new Map<string, Key>();

function weight(ch: string): number {
  const c = ch.charCodeAt(0);
  const sym = SYMBOL_ORDER.indexOf(ch);
  if (sym >= 0) return 100 + sym;
  if (c >= 48 && c <= 57) return 200 + (c - 48);
  const lower = ch.toLowerCase();
  const lc = lower.charCodeAt(0);
  if (lc >= 97 && lc <= 122) return 300 + (lc - 97);
  if (/\p{L}/u.test(ch)) return 1000 + lc;
  if (/\p{N}/u.test(ch)) return 250 + (c % 50);
  return 150 + (c % 50);
}

function keyOf(s: string): Key {
  let k = cache.get(s);
  if (k) return k;
  k = { primary: [], secondary: [], tertiary: [], ties: [] };
  const decomposed = s.normalize('NFD');
  let pos = 0;
  for (const ch of decomposed) {
    const c = ch.charCodeAt(0);
    if (isIgnorable(c)) continue;
    if (c >= 0x300 && c <= 0x36f) {
      // combining accent: secondary weight of the preceding letter
      if (k.secondary.length)
        k.secondary[k.secondary.length - 1] = k.secondary[k.secondary.length - 1] * 1000 + (c - 0x2ff);
      continue;
    }
    const tie = TIE_ONLY.indexOf(ch);
    if (tie >= 0) {
      k.ties.push(pos * 16 + tie + 1);
      continue;
    }
    k.primary.push(weight(ch));
    k.secondary.push(0);
    k.tertiary.push(ch !== ch.toLowerCase() ? 1 : 0);
    pos++;
  }
  if (cache.size > 10_000) cache.clear();
  cache.set(s, k);
  return k;
}

function cmpArrays(a: number[], b: number[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return a.length - b.length;
}

export function javaCollatorCompare(a: string, b: string): number {
  if (a === b) return 0;
  const ka = keyOf(a);
  const kb = keyOf(b);
  return (
    cmpArrays(ka.primary, kb.primary) ||
    cmpArrays(ka.secondary, kb.secondary) ||
    cmpArrays(ka.tertiary, kb.tertiary) ||
    cmpArrays(ka.ties, kb.ties)
  );
}
