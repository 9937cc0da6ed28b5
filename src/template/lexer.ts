/**
 * The token manager: FreeMarker's lexical states (text, expression, inside parentheses, the
 * no-space expression after `<@`, named parameters) with its nesting counters, so that `>` ends a
 * tag outside parentheses and is "greater than" inside them, exactly like FreeMarker's FTL.jj.
 */
import { DIRECTIVES } from './directives/index.js';
import { dict } from './dict.js';
import { ParseError, jQuote } from './errors.js';

export type Tk =
  | 'EOF'
  | 'TEXT'
  | 'INTERP_DOLLAR'
  | 'INTERP_HASH'
  | 'INTERP_SQUARE'
  | 'DIRECTIVE'
  | 'END_TAG'
  | 'UNIFIED_CALL'
  | 'UNIFIED_CALL_END'
  | 'COMMENT'
  | 'FTL_HEADER'
  | 'STRING'
  | 'RAW_STRING'
  | 'FALSE'
  | 'TRUE'
  | 'INTEGER'
  | 'DECIMAL'
  | 'DOT'
  | 'DOT_DOT'
  | 'DOT_DOT_LESS'
  | 'DOT_DOT_ASTERISK'
  | 'BUILT_IN'
  | 'EXISTS'
  | 'EQUALS'
  | 'DOUBLE_EQUALS'
  | 'NOT_EQUALS'
  | 'PLUS_EQUALS'
  | 'MINUS_EQUALS'
  | 'TIMES_EQUALS'
  | 'DIV_EQUALS'
  | 'MOD_EQUALS'
  | 'PLUS_PLUS'
  | 'MINUS_MINUS'
  | 'LESS_THAN'
  | 'LESS_THAN_EQUALS'
  | 'ESCAPED_GT'
  | 'ESCAPED_GTE'
  | 'NATURAL_GT'
  | 'NATURAL_GTE'
  | 'LAMBDA_ARROW'
  | 'PLUS'
  | 'MINUS'
  | 'TIMES'
  | 'DOUBLE_STAR'
  | 'ELLIPSIS'
  | 'DIVIDE'
  | 'PERCENT'
  | 'AND'
  | 'OR'
  | 'EXCLAM'
  | 'TERMINATING_EXCLAM'
  | 'COMMA'
  | 'SEMICOLON'
  | 'COLON'
  | 'OPEN_BRACKET'
  | 'CLOSE_BRACKET'
  | 'OPEN_PAREN'
  | 'CLOSE_PAREN'
  | 'OPEN_CURLY'
  | 'CLOSE_CURLY'
  | 'IN'
  | 'AS'
  | 'USING'
  | 'ID'
  | 'DIRECTIVE_END'
  | 'EMPTY_DIRECTIVE_END'
  | 'TERMINATING_WHITESPACE';

export interface Token {
  t: Tk;
  /** Source text (for ID: with the identifier escapes removed; for TEXT: the text). */
  image: string;
  start: number;
  /** Exclusive end offset. */
  end: number;
  /** DIRECTIVE / END_TAG: canonical directive name (camelCase folded to legacy); form = how the tag continues. */
  name?: string;
  form?: 'blank' | 'close' | 'empty';
  /** STRING: the unescaped value. */
  value?: string;
  /** TEXT from <#noparse>. */
  unparsed?: boolean;
}

export type LexState =
  'DEFAULT' | 'FM_EXPRESSION' | 'IN_PAREN' | 'NO_SPACE_EXPRESSION' | 'NAMED_PARAMETER_EXPRESSION';

export type TagFollow = 'blank' | 'close1' | 'close2' | 'blank|close2' | 'items';

/** The backslash operators of an expression (`\\lt` …), longest first, and their tokens. */
const ESCAPED_OPERATORS: ReadonlyArray<readonly [string, Tk]> = [
  ['\\lte', 'LESS_THAN_EQUALS'],
  ['\\lt', 'LESS_THAN'],
  ['\\gte', 'ESCAPED_GTE'],
  ['\\gt', 'ESCAPED_GT'],
  ['\\and', 'AND'],
];

/** Directive start tags: canonical name → what must follow the name (each directive module says it for its tags). */
const START_TAGS: Record<string, TagFollow> = dict(
  Object.fromEntries(DIRECTIVES.flatMap((d) => Object.entries(d.startTags))),
);

const END_TAGS = new Set(DIRECTIVES.flatMap((d) => d.endTags ?? []));

/** camelCase spellings FreeMarker accepts for directive names. */
const CAMEL_DIRECTIVES: Record<string, string> = dict({
  elseIf: 'elseif',
  forEach: 'foreach',
  noParse: 'noparse',
  noEscape: 'noescape',
  outputFormat: 'outputformat',
  autoEsc: 'autoesc',
  noAutoEsc: 'noautoesc',
});

/** Every built-in directive name, used to tell "malformed" from "unknown" tags. */
export const ALL_DIRECTIVE_NAMES = new Set([
  ...Object.keys(START_TAGS),
  ...Object.keys(CAMEL_DIRECTIVES),
  'items',
  'on',
]);
ALL_DIRECTIVE_NAMES.delete('on');

const UNKNOWN_DIRECTIVE_TIPS: Record<string, string> = dict({
  set: 'Use #assign or #local or #global, depending on the intented scope (#assign is template-scope). (If you have seen this directive in use elsewhere, this was a planned directive, so maybe you need to upgrade FreeMarker.)',
  var: 'Use #assign or #local or #global, depending on the intented scope (#assign is template-scope). (If you have seen this directive in use elsewhere, this was a planned directive, so maybe you need to upgrade FreeMarker.)',
  else_if: 'Use #elseif.',
  elif: 'Use #elseif.',
  no_escape: 'Use #noescape instead.',
  method: 'Use #function instead.',
  head: 'You may meant #ftl.',
  template: 'You may meant #ftl.',
  fm: 'You may meant #ftl.',
  try: 'You may meant #attempt.',
  atempt: 'You may meant #attempt.',
  for: 'You may meant #list (http://freemarker.org/docs/ref_directive_list.html).',
  each: 'You may meant #list (http://freemarker.org/docs/ref_directive_list.html).',
  iterate: 'You may meant #list (http://freemarker.org/docs/ref_directive_list.html).',
  iterator: 'You may meant #list (http://freemarker.org/docs/ref_directive_list.html).',
  prefix:
    'You may meant #import. (If you have seen this directive in use elsewhere, this was a planned directive, so maybe you need to upgrade FreeMarker.)',
  item: 'You may meant #items.',
  row: 'You may meant #items.',
  rows: 'You may meant #items.',
  separator: 'You may meant #sep.',
  separate: 'You may meant #sep.',
  separ: 'You may meant #sep.',
});

/** The keywords among identifiers; a switch, not a Map: a fresh slice would be hashed first. */
function keyword(raw: string): Tk | undefined {
  if (raw.length > 5) return undefined;
  switch (raw) {
    case 'true':
      return 'TRUE';
    case 'false':
      return 'FALSE';
    case 'in':
      return 'IN';
    case 'as':
      return 'AS';
    case 'using':
      return 'USING';
    case 'lt':
      return 'LESS_THAN';
    case 'lte':
      return 'LESS_THAN_EQUALS';
    case 'gt':
      return 'ESCAPED_GT';
    case 'gte':
      return 'ESCAPED_GTE';
  }
  return undefined;
}

function isBlank(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}
function isLetter(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** FreeMarker's identifier start characters ($, @-Z, _, a-z and most letters outside ASCII). */
export function isIdStart(c: number): boolean {
  if (c < 128) return c === 36 || (c >= 64 && c <= 90) || c === 95 || (c >= 97 && c <= 122);
  if (c < 0xaa) return false;
  if (c === 0xaa || c === 0xb5 || c === 0xba) return true;
  if (c < 0xc0) return false;
  if (c === 0xd7 || c === 0xf7) return false;
  if (c <= 0x1fff) return true;
  if (c >= 0x3040 && c <= 0x318f) return true;
  if (c >= 0x3400 && c <= 0x4db5) return true;
  if (c >= 0x4e00 && c <= 0xa48c) return true;
  if (c >= 0xac00 && c <= 0xd7a3) return true;
  if (c >= 0xf900 && c <= 0xfb06) return true;
  if (c >= 0xff21 && c <= 0xff3a) return true;
  if (c >= 0xff41 && c <= 0xff5a) return true;
  return /\p{L}/u.test(String.fromCharCode(c));
}
function isIdPart(c: number): boolean {
  return isIdStart(c) || isDigit(c);
}

/** Maps offsets to FreeMarker's 1-based line and column (tab stops of 8). */
export class LineMap {
  private readonly starts: number[] = [0];
  /** Lines (0-based) that contain a tab; only those need a column walk. */
  private readonly tabbed = new Set<number>();
  constructor(private readonly src: string) {
    // indexOf scans natively; most templates have no CR and few tabs
    if (src.indexOf('\r') < 0) {
      for (let i = src.indexOf('\n'); i >= 0; i = src.indexOf('\n', i + 1)) this.starts.push(i + 1);
    } else {
      for (let i = 0; i < src.length; i++) {
        const c = src.charCodeAt(i);
        if (c === 10) this.starts.push(i + 1);
        else if (c === 13) {
          if (src.charCodeAt(i + 1) === 10) i++;
          this.starts.push(i + 1);
        }
      }
    }
    for (let i = src.indexOf('\t'); i >= 0; i = src.indexOf('\t', i + 1)) this.tabbed.add(this.line(i) - 1);
  }
  /** The last line found (0-based); tokens are looked up mostly in order. */
  private last = 0;
  line(offset: number): number {
    const s = this.starts;
    const l = this.last;
    if (s[l] <= offset && (l + 1 === s.length || s[l + 1] > offset)) return l + 1;
    let lo = 0;
    let hi = s.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (s[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    this.last = lo;
    return lo + 1;
  }
  /** [line, column] of the character at `offset`. */
  pos(offset: number): [number, number] {
    const line = this.line(offset);
    return [line, this.col(offset, line)];
  }
  /** Column of the character at `offset`, which is on `line`. */
  col(offset: number, line: number): number {
    const from = this.starts[line - 1];
    let col = 0;
    if (!this.tabbed.has(line - 1)) {
      col = Math.max(0, Math.min(offset, this.src.length - 1) - from + 1);
    } else
      for (let i = from; i <= offset && i < this.src.length; i++) {
        col++;
        if (this.src.charCodeAt(i) === 9) {
          col--;
          col += 8 - (col % 8);
        }
      }
    if (offset >= this.src.length) col += offset - Math.max(from, this.src.length) + 1;
    return col;
  }
}

export interface LexerOptions {
  tagSyntax: 'angle_bracket' | 'square_bracket' | 'auto_detect';
  interpolationSyntax: 'legacy' | 'dollar' | 'square_bracket';
  strictSyntax: boolean;
}

/** FreeMarker's naming conventions of the template language's own identifiers. */
export type Naming = 'auto' | 'camel' | 'legacy';

/** _CoreStringUtils.getIdentifierNamingConvention: the first `_` or upper-case letter decides. */
export function namingOf(name: string): Naming {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === 95) return 'legacy';
    if (c >= 65 && c <= 90) return 'camel';
  }
  return 'auto';
}

/** The convention a template has established so far (shared with the parsers of its string literals). */
export interface NamingState {
  convention: Naming;
  /** The token that established it (image, line, column). */
  by: string;
  line: number;
  column: number;
}

/** Directives whose names have a camelCase form; both spellings take part in the naming convention. */
const NAMED_BY_CONVENTION = new Set(Object.values(CAMEL_DIRECTIVES));

export class Lexer {
  pos = 0;
  state: LexState = 'DEFAULT';
  parenNesting = 0;
  bracketNesting = 0;
  curlyNesting = 0;
  inInvocation = false;
  /** The state to return to after an interpolation, or null when not in one. */
  postInterpolationState: LexState | null = null;
  inFTLHeader = false;
  squBracTagSyntax: boolean;
  tagSyntaxEstablished = false;
  autodetectTagSyntax: boolean;
  strictSyntax: boolean;
  interpolationSyntax: LexerOptions['interpolationSyntax'];
  /** Inside a string literal's ${...}: tags are plain text. */
  onlyTextOutput = false;
  naming: NamingState = { convention: 'auto', by: '', line: 0, column: 0 };
  private readonly buf: Token[] = [];
  readonly lines: LineMap;

  constructor(
    readonly src: string,
    readonly templateName: string,
    opts: LexerOptions,
    lines?: LineMap,
  ) {
    this.squBracTagSyntax = opts.tagSyntax === 'square_bracket';
    this.autodetectTagSyntax = opts.tagSyntax === 'auto_detect';
    this.strictSyntax = opts.strictSyntax;
    this.interpolationSyntax = opts.interpolationSyntax;
    this.lines = lines ?? new LineMap(src);
  }

  error(message: string, offset: number, endOffset?: number): ParseError {
    const [line, col] = this.lines.pos(Math.min(offset, this.src.length));
    const [el, ec] = endOffset !== undefined ? this.lines.pos(Math.max(offset, endOffset - 1)) : [line, col];
    return new ParseError(message, this.templateName, line, col, el, ec);
  }

  /**
   * FMParserTokenManager.checkNamingConvention: the first identifier of the template language
   * written in camelCase or legacy (snake_case) style fixes the convention for the whole template.
   */
  checkNaming(image: string, convention: Naming, start: number, end: number): void {
    if (convention === 'auto') return;
    const n = this.naming;
    if (n.convention === 'auto') {
      n.convention = convention;
      n.by = image.trim();
      [n.line, n.column] = this.lines.pos(start);
      return;
    }
    if (n.convention === convention) return;
    throw this.error(
      'Naming convention mismatch. Identifiers that are part of the template language (not the user specified ones) must consistently use the same naming convention within the same template. This template uses ' +
        (n.convention === 'camel'
          ? 'camel case naming convention (like: exampleName) '
          : 'legacy naming convention (directive (tag) names are like examplename, everything else is like example_name) ') +
        `estabilished by auto-detection at line ${n.line}, column ${n.column} by token ${jQuote(n.by)}` +
        `, but the problematic token, ${jQuote(image.trim())}, uses a different convention.`,
      start,
      end,
    );
  }

  /** Position of EOF as FreeMarker reports it: the last character of the input. */
  eofOffset(): number {
    return Math.max(0, this.src.length - 1);
  }

  peek(k = 0): Token {
    while (this.buf.length <= k) this.buf.push(this.lex());
    return this.buf[k];
  }

  next(): Token {
    if (this.buf.length) return this.buf.shift()!;
    return this.lex();
  }

  /** Parser-driven state switch (FreeMarker's SwitchTo); only valid with an empty lookahead buffer. */
  switchTo(state: LexState): void {
    this.state = state;
  }

  bufferEmpty(): boolean {
    return this.buf.length === 0;
  }

  /** A token already lexed (its state changes applied) while a text run before it was returned. */
  private queued: Token | null = null;

  private lex(): Token {
    if (this.queued) {
      const q = this.queued;
      this.queued = null;
      return q;
    }
    if (this.state === 'DEFAULT') return this.lexText();
    return this.lexExpression();
  }

  // ------------------------------------------------------------------ text (DEFAULT) state

  private tok(t: Tk, start: number, end: number, image?: string): Token {
    // every field present from the start: all tokens share one shape (monomorphic reads in the parser)
    return {
      t,
      image: image ?? this.src.slice(start, end),
      start,
      end,
      name: undefined,
      form: undefined,
      value: undefined,
      unparsed: undefined,
    };
  }

  private lexText(): Token {
    const src = this.src;
    const start = this.pos;
    if (start >= src.length) return this.tok('EOF', src.length, src.length, '');
    let i = start;
    for (;;) {
      if (i >= src.length) break;
      const c = src.charCodeAt(i);
      if (c === 36 /* $ */ || c === 35 /* # */ || c === 60 /* < */ || c === 91 /* [ */) {
        const special = this.trySpecial(i);
        if (special) {
          if (i > start) {
            // emit the text first; the special token (already applied) comes next
            this.queued = special;
            return this.tok('TEXT', start, i);
          }
          return special;
        }
      }
      i++;
    }
    this.pos = i;
    return this.tok('TEXT', start, i);
  }

  /** Returns the token starting at `i` if it is not plain text; advances `pos` past it. */
  private trySpecial(i: number): Token | null {
    const src = this.src;
    const c = src.charCodeAt(i);
    const c1 = src.charCodeAt(i + 1);
    if (c === 36 || c === 35) {
      // ${ or #{
      if (c1 !== 123) return null;
      const kind: Tk = c === 36 ? 'INTERP_DOLLAR' : 'INTERP_HASH';
      if (this.interpolationSyntax === 'square_bracket') return null;
      if (this.interpolationSyntax === 'dollar' && kind === 'INTERP_HASH') return null;
      this.pos = i + 2;
      this.postInterpolationState = this.state;
      this.state = 'FM_EXPRESSION';
      return this.tok(kind, i, i + 2);
    }
    if (c === 91 && c1 === 61 /* [= */) {
      if (this.interpolationSyntax !== 'square_bracket') return null;
      this.pos = i + 2;
      this.postInterpolationState = this.state;
      this.state = 'FM_EXPRESSION';
      return this.tok('INTERP_SQUARE', i, i + 2);
    }
    if (c !== 60 && c !== 91) return null;
    if (this.onlyTextOutput) return null;
    const square = c === 91;
    // comment <#-- or [#--
    if (c1 === 35 && src.startsWith('--', i + 2)) {
      if (!this.tagSyntaxOk(square, true)) return null;
      return this.lexComment(i, square);
    }
    if (c1 === 64 /* @ */) {
      if (this.autodetectTagSyntax && !this.tagSyntaxEstablished) this.squBracTagSyntax = square;
      if (this.squBracTagSyntax !== square) return null;
      this.tagSyntaxEstablished = true;
      this.pos = i + 2;
      this.state = 'NO_SPACE_EXPRESSION';
      return this.tok('UNIFIED_CALL', i, i + 2);
    }
    if (c1 === 47 /* / */ && src.charCodeAt(i + 2) === 64) {
      // </@name>
      let j = i + 3;
      while (
        j < src.length &&
        (isIdPart(src.charCodeAt(j)) || src.charCodeAt(j) === 46 || src.charCodeAt(j) === 92)
      )
        j++;
      const nameEnd = j;
      while (j < src.length && isBlank(src.charCodeAt(j))) j++;
      const e = src.charCodeAt(j);
      if (e !== 62 && e !== 93) return null;
      if (this.squBracTagSyntax !== square) return null;
      this.pos = j + 1;
      const t = this.tok('UNIFIED_CALL_END', i, j + 1);
      t.name = src.slice(i + 3, nameEnd);
      return t;
    }
    // directives: <#name, </#name (and <name, </name in non-strict syntax)
    let j = i + 1;
    let end = false;
    if (src.charCodeAt(j) === 47) {
      end = true;
      j++;
    }
    let hash = false;
    if (src.charCodeAt(j) === 35) {
      hash = true;
      j++;
    } else if (this.strictSyntax || square) return null;
    const nameStart = j;
    while (j < src.length && isLetter(src.charCodeAt(j))) j++;
    if (j === nameStart) return null;
    const rawName = src.slice(nameStart, j);
    if (!hash) {
      // legacy non-strict syntax: only known directive names are tags
      const n = CAMEL_DIRECTIVES[rawName] ?? rawName;
      if (CAMEL_DIRECTIVES[rawName]) return null;
      if (!(n in START_TAGS) && !END_TAGS.has(n)) return null;
      if (n === 'ftl') return null;
    }
    return this.lexDirective(i, j, rawName, end, square, hash);
  }

  private tagSyntaxOk(square: boolean, establish: boolean): boolean {
    if (this.autodetectTagSyntax && !this.tagSyntaxEstablished) this.squBracTagSyntax = square;
    if (this.squBracTagSyntax !== square) return false;
    if (establish) this.tagSyntaxEstablished = true;
    return true;
  }

  private lexComment(i: number, square: boolean): Token {
    const src = this.src;
    const closer = square ? '--]' : '-->';
    const close = src.indexOf(closer, i + 4);
    if (close < 0) throw this.error(`Unclosed "${src.slice(i, i + 4)}"`, i);
    this.pos = close + 3;
    const t = this.tok('COMMENT', i, close + 3);
    t.value = src.slice(i + 4, close);
    return t;
  }

  private lexDirective(
    i: number,
    j: number,
    rawName: string,
    end: boolean,
    square: boolean,
    hash: boolean,
  ): Token | null {
    const src = this.src;
    const name = CAMEL_DIRECTIVES[rawName] ?? rawName;
    if (!end && name === 'ftl') {
      // FTL header: establishes the tag syntax
      if (!this.tagSyntaxEstablished) {
        this.squBracTagSyntax = square;
        this.tagSyntaxEstablished = true;
        this.autodetectTagSyntax = false;
      }
    }
    const known = end ? END_TAGS.has(name) : name in START_TAGS;
    if (!known) {
      if (this.autodetectTagSyntax && !this.tagSyntaxEstablished) {
        this.squBracTagSyntax = square;
        this.tagSyntaxEstablished = true;
      }
      if (this.squBracTagSyntax !== square) return null;
      if (!hash) return null;
      const dn = rawName;
      if (ALL_DIRECTIVE_NAMES.has(dn) || END_TAGS.has(dn)) {
        throw this.error(
          `#${dn} is an existing directive, but the tag is malformed.  (See FreeMarker Manual / Directive Reference.)`,
          i + 1,
          j,
        );
      }
      const tip =
        UNKNOWN_DIRECTIVE_TIPS[dn] ??
        "Help (latest version): http://freemarker.org/docs/ref_directive_alphaidx.html; you're using FreeMarker 2.3.31.";
      throw this.error(`Unknown directive: #${dn}. ${tip}`, i + 1, j);
    }
    // what follows the name
    const follow: TagFollow = end ? 'close1' : START_TAGS[name];
    const k = j;
    let form: Token['form'] | null = null;
    let tokenEnd = j;
    const closeAt = (allowSlash: boolean): number => {
      let m = k;
      while (m < src.length && isBlank(src.charCodeAt(m))) m++;
      if (allowSlash && src.charCodeAt(m) === 47) m++;
      const e = src.charCodeAt(m);
      return e === 62 || e === 93 ? m + 1 : -1;
    };
    if (follow === 'close1' || follow === 'close2' || follow === 'blank|close2') {
      const ce = closeAt(follow !== 'close1');
      if (ce > 0) {
        form = src.charCodeAt(ce - 2) === 47 ? 'empty' : 'close';
        tokenEnd = ce;
      }
    }
    if (form === null && (follow === 'blank' || follow === 'blank|close2')) {
      if (isBlank(src.charCodeAt(k))) {
        form = 'blank';
        tokenEnd = k + 1;
      }
    }
    if (form === null && follow === 'items') {
      let m = k;
      while (m < src.length && isBlank(src.charCodeAt(m))) m++;
      if (m > k && src.startsWith('as', m) && isBlank(src.charCodeAt(m + 2))) {
        form = 'blank';
        tokenEnd = m + 3;
      }
    }
    // tag syntax check (FreeMarker does it after matching the token)
    if (this.autodetectTagSyntax && !this.tagSyntaxEstablished) this.squBracTagSyntax = square;
    if (this.squBracTagSyntax !== square) return null;
    if (form === null) {
      if (!hash) return null;
      throw this.error(
        `#${rawName} is an existing directive, but the tag is malformed.  (See FreeMarker Manual / Directive Reference.)`,
        i + 1,
        j,
      );
    }
    if (hash) this.tagSyntaxEstablished = true;
    if (NAMED_BY_CONVENTION.has(name)) {
      this.checkNaming(src.slice(i, tokenEnd), rawName === name ? 'legacy' : 'camel', i, tokenEnd);
    }
    this.pos = tokenEnd;
    const t = this.tok(end ? 'END_TAG' : name === 'ftl' ? 'FTL_HEADER' : 'DIRECTIVE', i, tokenEnd);
    t.name = name;
    t.form = form;
    if (form === 'blank') {
      this.state = 'FM_EXPRESSION';
      if (name === 'ftl') this.inFTLHeader = true;
    } else if (name === 'ftl') {
      this.eatNewline();
    }
    return t;
  }

  /** After the FTL header: skip whitespace up to and including the first line break. */
  eatNewline(): void {
    const src = this.src;
    let i = this.pos;
    while (i < src.length) {
      const c = src.charCodeAt(i);
      if (c === 13) {
        this.pos = src.charCodeAt(i + 1) === 10 ? i + 2 : i + 1;
        return;
      }
      if (c === 10) {
        this.pos = i + 1;
        return;
      }
      if (!isWhitespaceChar(c)) return;
      i++;
    }
  }

  /** Reads raw text up to the matching end tag (<#noparse>, <#comment>). */
  readUnparsed(tagName: string, startTok: Token): { text: string; endTok: Token } {
    const src = this.src;
    let i = this.pos;
    const square = this.squBracTagSyntax;
    while (i < src.length) {
      const c = src.charCodeAt(i);
      if ((c === 60 || c === 91) && src.charCodeAt(i + 1) === 47) {
        let j = i + 2;
        if (src.charCodeAt(j) === 35) j++;
        const ns = j;
        while (j < src.length && isLetter(src.charCodeAt(j)) && src.charCodeAt(j) !== 95) j++;
        const nm = src.slice(ns, j);
        while (j < src.length && isBlank(src.charCodeAt(j))) j++;
        const e = src.charCodeAt(j);
        if ((e === 62 || e === 93) && nm === tagName) {
          void square;
          const text = src.slice(this.pos, i);
          const endTok = this.tok('END_TAG', i, j + 1);
          this.pos = j + 1;
          return { text, endTok };
        }
      }
      i++;
    }
    throw this.error(`Unclosed "${startTok.image.trim()}"`, startTok.start);
  }

  // ------------------------------------------------------------------ expression states

  private skipWsAndComments(): void {
    const src = this.src;
    let i = this.pos;
    for (;;) {
      while (i < src.length && isBlank(src.charCodeAt(i))) i++;
      const c = src.charCodeAt(i);
      if (
        (c === 60 || c === 91) &&
        (src.charCodeAt(i + 1) === 35 || src.charCodeAt(i + 1) === 33) &&
        src.charCodeAt(i + 2) === 45 &&
        src.charCodeAt(i + 3) === 45
      ) {
        let j = i + 4;
        for (;;) {
          if (j >= src.length) {
            this.pos = src.length;
            return;
          }
          if (src.charCodeAt(j) === 45 && src.charCodeAt(j + 1) === 45) {
            const e = src.charCodeAt(j + 2);
            if (e === 62 || e === 93) {
              j += 3;
              break;
            }
          }
          j++;
        }
        i = j;
        continue;
      }
      break;
    }
    this.pos = i;
  }

  /** An operator token of `len` characters at `start`. */
  private opTok(start: number, t: Tk, len: number): Token {
    this.pos = start + len;
    return this.tok(t, start, start + len);
  }

  private lexExpression(): Token {
    const src = this.src;
    const state = this.state;
    if (state === 'NO_SPACE_EXPRESSION') {
      const s = this.pos;
      let i = s;
      while (i < src.length && isBlank(src.charCodeAt(i))) i++;
      if (i > s) {
        this.pos = i;
        this.state = 'FM_EXPRESSION';
        return this.tok('TERMINATING_WHITESPACE', s, i);
      }
    } else {
      this.skipWsAndComments();
    }
    const start = this.pos;
    if (start >= src.length) return this.tok('EOF', src.length, src.length, '');
    const c = src.charCodeAt(start);
    const c1 = src.charCodeAt(start + 1);
    const c2 = src.charCodeAt(start + 2);
    switch (c) {
      case 34: // "
      case 39: // '
        return this.lexString(start, c);
      case 46: // .
        if (c1 === 46) {
          if (c2 === 60 || c2 === 33) return this.opTok(start, 'DOT_DOT_LESS', 3);
          if (c2 === 42) return this.opTok(start, 'DOT_DOT_ASTERISK', 3);
          if (c2 === 46) return this.opTok(start, 'ELLIPSIS', 3);
          return this.opTok(start, 'DOT_DOT', 2);
        }
        return this.opTok(start, 'DOT', 1);
      case 63: // ?
        return c1 === 63 ? this.opTok(start, 'EXISTS', 2) : this.opTok(start, 'BUILT_IN', 1);
      case 61: // =
        return c1 === 61 ? this.opTok(start, 'DOUBLE_EQUALS', 2) : this.opTok(start, 'EQUALS', 1);
      case 33: // !
        if (c1 === 61) return this.opTok(start, 'NOT_EQUALS', 2);
        if (state === 'NAMED_PARAMETER_EXPRESSION' && isBlank(c1)) {
          let j = start + 1;
          while (j < src.length && isBlank(src.charCodeAt(j))) j++;
          this.pos = j;
          this.state = 'FM_EXPRESSION';
          return this.tok('TERMINATING_EXCLAM', start, j);
        }
        return this.opTok(start, 'EXCLAM', 1);
      case 43: // +
        if (c1 === 61) return this.opTok(start, 'PLUS_EQUALS', 2);
        if (c1 === 43) return this.opTok(start, 'PLUS_PLUS', 2);
        return this.opTok(start, 'PLUS', 1);
      case 45: // -
        if (c1 === 61) return this.opTok(start, 'MINUS_EQUALS', 2);
        if (c1 === 45) return this.opTok(start, 'MINUS_MINUS', 2);
        if (c1 === 62) return this.opTok(start, 'LAMBDA_ARROW', 2);
        if (src.startsWith('-&gt;', start)) return this.opTok(start, 'LAMBDA_ARROW', 5);
        return this.opTok(start, 'MINUS', 1);
      case 42: // *
        if (c1 === 61) return this.opTok(start, 'TIMES_EQUALS', 2);
        if (c1 === 42) return this.opTok(start, 'DOUBLE_STAR', 2);
        return this.opTok(start, 'TIMES', 1);
      case 47: // /
        if (c1 === 61) return this.opTok(start, 'DIV_EQUALS', 2);
        if ((c1 === 62 || c1 === 93) && state !== 'IN_PAREN') {
          this.pos = start + 2;
          if (this.inFTLHeader) {
            this.eatNewline();
            this.inFTLHeader = false;
          }
          this.state = 'DEFAULT';
          return this.tok('EMPTY_DIRECTIVE_END', start, start + 2);
        }
        return this.opTok(start, 'DIVIDE', 1);
      case 37: // %
        return c1 === 61 ? this.opTok(start, 'MOD_EQUALS', 2) : this.opTok(start, 'PERCENT', 1);
      case 60: // <
        return c1 === 61 ? this.opTok(start, 'LESS_THAN_EQUALS', 2) : this.opTok(start, 'LESS_THAN', 1);
      case 62: // >
        if (state === 'IN_PAREN')
          return c1 === 61 ? this.opTok(start, 'NATURAL_GTE', 2) : this.opTok(start, 'NATURAL_GT', 1);
        this.pos = start + 1;
        if (this.inFTLHeader) {
          this.eatNewline();
          this.inFTLHeader = false;
        }
        if (this.squBracTagSyntax || this.postInterpolationState !== null)
          return this.tok('NATURAL_GT', start, start + 1);
        this.state = 'DEFAULT';
        return this.tok('DIRECTIVE_END', start, start + 1);
      case 38: // &
        if (src.startsWith('&lt;=', start)) return this.opTok(start, 'LESS_THAN_EQUALS', 5);
        if (src.startsWith('&lt;', start)) return this.opTok(start, 'LESS_THAN', 4);
        if (src.startsWith('&gt;=', start)) return this.opTok(start, 'ESCAPED_GTE', 5);
        if (src.startsWith('&gt;', start)) return this.opTok(start, 'ESCAPED_GT', 4);
        if (src.startsWith('&amp;&amp;', start)) return this.opTok(start, 'AND', 10);
        return c1 === 38 ? this.opTok(start, 'AND', 2) : this.opTok(start, 'AND', 1);
      case 124: // |
        return c1 === 124 ? this.opTok(start, 'OR', 2) : this.opTok(start, 'OR', 1);
      case 44:
        return this.opTok(start, 'COMMA', 1);
      case 59:
        return this.opTok(start, 'SEMICOLON', 1);
      case 58:
        return this.opTok(start, 'COLON', 1);
      case 91: // [
        if (c1 === 61 && this.interpolationSyntax === 'square_bracket') {
          throw this.error(
            "You can't use [=...] (an interpolation) here as you are already in FreeMarker-expression-mode. Thus, instead of [=myExpression], just write myExpression. ([=...] is only used where otherwise static text is expected, i.e., outside FreeMarker tags and interpolations, or inside string literals.)",
            start,
            start + 2,
          );
        }
        this.bracketNesting++;
        return this.opTok(start, 'OPEN_BRACKET', 1);
      case 93: // ]
        if (this.bracketNesting > 0) {
          this.bracketNesting--;
          return this.opTok(start, 'CLOSE_BRACKET', 1);
        }
        if (this.interpolationSyntax === 'square_bracket' && this.postInterpolationState !== null) {
          this.pos = start + 1;
          this.state = this.postInterpolationState;
          this.postInterpolationState = null;
          return this.tok('CLOSE_BRACKET', start, start + 1);
        }
        if (!this.squBracTagSyntax || this.postInterpolationState !== null) {
          throw this.error(`You can't have an "]" here, as there's nothing open that it could close.`, start);
        }
        this.pos = start + 1;
        if (this.inFTLHeader) {
          this.eatNewline();
          this.inFTLHeader = false;
        }
        this.state = 'DEFAULT';
        return this.tok('DIRECTIVE_END', start, start + 1);
      case 40: // (
        this.parenNesting++;
        if (this.parenNesting === 1) this.state = 'IN_PAREN';
        return this.opTok(start, 'OPEN_PAREN', 1);
      case 41: // )
        this.parenNesting--;
        if (this.parenNesting === 0)
          this.state = this.inInvocation ? 'NAMED_PARAMETER_EXPRESSION' : 'FM_EXPRESSION';
        return this.opTok(start, 'CLOSE_PAREN', 1);
      case 123: // {
        this.curlyNesting++;
        return this.opTok(start, 'OPEN_CURLY', 1);
      case 125: // }
        if (this.curlyNesting > 0) {
          this.curlyNesting--;
          return this.opTok(start, 'CLOSE_CURLY', 1);
        }
        if (this.interpolationSyntax !== 'square_bracket' && this.postInterpolationState !== null) {
          this.pos = start + 1;
          this.state = this.postInterpolationState;
          this.postInterpolationState = null;
          return this.tok('CLOSE_CURLY', start, start + 1);
        }
        throw this.error(`You can't have an "}" here, as there's nothing open that it could close.`, start);
      case 36: // $
      case 35: // #
        if (c1 === 123) {
          const ch = String.fromCharCode(c);
          throw this.error(
            `You can't use ${ch}{...} (an interpolation) here as you are already in FreeMarker-expression-mode. Thus, instead of ${ch}{myExpression}, just write myExpression. (${ch}{...} is only used where otherwise static text is expected, i.e., outside FreeMarker tags and interpolations, or inside string literals.)`,
            start,
            start + 2,
          );
        }
        break;
      case 92: // backslash: \lt \lte \gt \gte \and, or an escaped identifier character
        for (const [w, t] of ESCAPED_OPERATORS) {
          if (src.startsWith(w, start) && !isIdPart(src.charCodeAt(start + w.length)))
            return this.opTok(start, t, w.length);
        }
        break;
    }
    if (isDigit(c)) {
      let j = start;
      while (isDigit(src.charCodeAt(j))) j++;
      if (src.charCodeAt(j) === 46 && isDigit(src.charCodeAt(j + 1))) {
        j++;
        while (isDigit(src.charCodeAt(j))) j++;
        this.pos = j;
        return this.tok('DECIMAL', start, j);
      }
      this.pos = j;
      return this.tok('INTEGER', start, j);
    }
    if (c === 114 /* r */ && (c1 === 34 || c1 === 39)) {
      const close = src.indexOf(String.fromCharCode(c1), start + 2);
      if (close >= 0) {
        this.pos = close + 1;
        const t = this.tok('RAW_STRING', start, close + 1);
        t.value = src.slice(start + 2, close);
        return t;
      }
    }
    if (isIdStart(c) || (c === 92 && isEscapedIdChar(c1))) {
      let j = start;
      let escaped = false;
      for (;;) {
        const ch = src.charCodeAt(j); // NaN past the end
        // ASCII identifier characters first (digits cannot start one: handled above)
        if (
          (ch >= 97 && ch <= 122) ||
          (ch >= 64 && ch <= 90) ||
          (ch >= 48 && ch <= 57) ||
          ch === 95 ||
          ch === 36
        ) {
          j++;
        } else if (ch === 92 && isEscapedIdChar(src.charCodeAt(j + 1))) {
          escaped = true;
          j += 2;
        } else if (ch >= 128 && (j === start ? isIdStart(ch) : isIdPart(ch))) {
          j++;
        } else break;
      }
      this.pos = j;
      const raw = src.slice(start, j);
      if (escaped) return this.tok('ID', start, j, raw.replace(/\\(.)/g, '$1'));
      const kw = keyword(raw);
      if (kw) return this.tok(kw, start, j, raw);
      return this.tok('ID', start, j, raw);
    }
    const shown = src[start];
    throw this.error(
      `Lexical error: encountered ${JSON.stringify(shown)} (${src.codePointAt(start)}), after ${JSON.stringify(src.slice(Math.max(0, start - 1), start))}.`,
      start,
    );
  }

  private lexString(start: number, quote: number): Token {
    const src = this.src;
    let j = start + 1;
    for (;;) {
      if (j >= src.length) {
        throw this.error(
          `Lexical error: encountered <EOF> after ${JSON.stringify(src.slice(start, j))}.`,
          src.length,
        );
      }
      const ch = src.charCodeAt(j);
      if (ch === quote) break;
      if (ch === 92) {
        const e = src.charCodeAt(j + 1);
        if (e === 120 /* x */) {
          if (!isHex(src.charCodeAt(j + 2))) {
            throw this.error(
              `Lexical error: encountered ${JSON.stringify(src[j + 2] ?? '<EOF>')} (${src.charCodeAt(j + 2) || 0}), after ${JSON.stringify(src.slice(start, j + 2))}.`,
              j + 2,
            );
          }
          j += 3;
          continue;
        }
        if ('ntrfbgla\\\'"{='.indexOf(src[j + 1]) < 0 || j + 1 >= src.length) {
          throw this.error(
            `Lexical error: encountered ${JSON.stringify(src[j + 1] ?? '<EOF>')} (${src.charCodeAt(j + 1) || 0}), after ${JSON.stringify(src.slice(start, j + 1))}.`,
            Math.min(j + 1, src.length - 1),
          );
        }
        j += 2;
        continue;
      }
      j++;
    }
    this.pos = j + 1;
    const t = this.tok('STRING', start, j + 1);
    t.value = unescapeFtlString(src.slice(start + 1, j));
    return t;
  }
}

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

function isEscapedIdChar(c: number): boolean {
  return c === 45 || c === 46 || c === 58 || c === 35;
}

function isWhitespaceChar(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || (c >= 0x1c && c <= 0x1f);
}

/** FreeMarker's StringUtil.FTLStringLiteralDec (the lexer has already validated the escapes). */
export function unescapeFtlString(s: string): string {
  if (s.indexOf('\\') < 0) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = s[++i];
    switch (e) {
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'r':
        out += '\r';
        break;
      case 'f':
        out += '\f';
        break;
      case 'b':
        out += '\b';
        break;
      case 'g':
        out += '>';
        break;
      case 'l':
        out += '<';
        break;
      case 'a':
        out += '&';
        break;
      case 'x': {
        let j = i + 1;
        let code = 0;
        while (j < s.length && j < i + 5 && isHex(s.charCodeAt(j))) {
          code = code * 16 + parseInt(s[j], 16);
          j++;
        }
        out += String.fromCharCode(code);
        i = j - 1;
        break;
      }
      default:
        out += e;
    }
  }
  return out;
}
