/** Random Atom entries for the property tests of the format (node and browser readers alike). */
import fc from 'fast-check';
import type { AtomEntry } from '../../../src/atom/format.js';

// Characters XML 1.0 can carry (a carriage return is read back as a line feed, so none here).
const xmlChar = (c: number) =>
  c === 0x9 || c === 0xa || (c >= 0x20 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd) || c >= 0x10000;
const text = fc
  .string({ unit: 'grapheme', maxLength: 20 })
  .filter((s) => [...s].every((ch) => xmlChar(ch.codePointAt(0)!)));
/** Element texts are read trimmed. */
const trimmed = text.map((s) => s.trim());
/** The readers drop __proto__, constructor and prototype keys of JSON values (docs/client.md). */
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);
const safe = (v: unknown): boolean =>
  typeof v !== 'object' || v === null || Object.entries(v).every(([k, x]) => !FORBIDDEN.has(k) && safe(x));
const json = fc
  .jsonValue({ maxDepth: 3 })
  .map((v) => JSON.parse(JSON.stringify(v)) as unknown)
  .filter(safe);

/**
 * Entries as the format keeps them. An empty category or link list is written as nothing and
 * reads back absent, so lists here hold at least one item.
 */
export const atomEntry: fc.Arbitrary<AtomEntry> = fc.record(
  {
    id: trimmed,
    title: trimmed,
    updated: trimmed,
    author: fc.record({ name: trimmed, email: trimmed }, { requiredKeys: ['name'] }),
    category: fc.array(fc.record({ term: text, label: text }, { requiredKeys: ['term'] }), {
      minLength: 1,
      maxLength: 3,
    }),
    link: fc.array(fc.record({ href: text, rel: text }, { requiredKeys: ['href'] }), {
      minLength: 1,
      maxLength: 3,
    }),
    summary: fc.oneof(text, fc.dictionary(fc.constantFrom('a', 'b'), json)),
    content: json.filter((v) => v !== null && typeof v !== 'string'),
    extra: json.filter((v) => v !== null),
  },
  { requiredKeys: [] },
);
