import type { Tk } from './lexer.js';

/** Tokens that can start an expression (FreeMarker's lookahead for optional expressions). */
export const EXPR_START: ReadonlySet<Tk> = new Set<Tk>([
  'STRING',
  'RAW_STRING',
  'FALSE',
  'TRUE',
  'INTEGER',
  'DECIMAL',
  'DOT',
  'PLUS',
  'MINUS',
  'EXCLAM',
  'OPEN_BRACKET',
  'OPEN_PAREN',
  'OPEN_CURLY',
  'ID',
]);
