/**
 * The #else tag, a clause shared by #if (directives/if.ts) and #list (directives/list.ts), whose
 * parse functions take it and make its element; here is only its tag.
 */
import type { Token } from '../lexer.js';
import type { Directive, DirectiveParser } from './types.js';

// `any`: it makes no element (a Directive<never> would not fit the table's Directive<any>)
export const elseTag: Directive<any> = {
  startTags: { else: 'close2' },
  clauseTags: ['else'],
  kinds: [],
  // mixed content ends before a clause tag, so this is reached only through a bug
  parse: (p: DirectiveParser, t: Token) => {
    throw p.unmatchedEnd(t, null);
  },
  compile: () => {
    throw new Error('#else makes its element in #if or #list');
  },
  stackLabel: () => null,
};
