/**
 * A FreeMarker directive in one place: how its tag is lexed, how it is parsed into an element,
 * how that element is compiled, and how the FTL stack trace names it. The parser, the compiler
 * and the stack trace look directives up in the table of directives/index.ts.
 */
import type * as A from '../ast.js';
import type { ElementContext } from '../exec.js';
import type { ParseError } from '../errors.js';
import type { Lexer, TagFollow, Tk, Token } from '../lexer.js';
import type { Exec } from '../runtime.js';

/** An enclosing #list / #foreach / #items (or a user directive's loop variables) while parsing. */
export interface IterCtx {
  loopVar: string | null;
  loopVar2: string | null;
  kind: 'list' | 'foreach' | 'items' | 'user';
}

/** What a directive's parse function may use of the parser (FreeMarker's FMParser productions). */
export interface DirectiveParser {
  readonly lx: Lexer;
  /** The template's name (elements record it). */
  readonly name: string;
  /** The template's source text (a user directive call keeps its body's). */
  readonly src: string;
  /** Inside a #macro / #function body (#return, #nested, #fallback check it). */
  inMacro: boolean;
  inFunction: boolean;
  /** The macro being parsed has parameters that must be given (no defaults after them). */
  requireArgs: boolean;
  /** The #macro / #function elements of the template. */
  readonly macros: A.MacroEl[];
  /** How many enclosing directives accept #break / #continue. */
  breakable: number;
  continuable: number;
  /** Set when a #t, #lt, #rt or #nt is met (whitespace trimming pass). */
  hasTrim: boolean;
  /** The enclosing iterations (innermost last): #items, #sep and loop-variable built-ins check them. */
  iterCtxs: IterCtx[];
  /** White-space stripping is on (the template's strip_whitespace setting). */
  readonly stripWhitespace: boolean;
  expression(): A.Expr;
  /** A variable name: an identifier or a string literal (#assign, #macro). */
  assignTarget(): { name: string; tok: Token };
  /** The output format in effect where the parser is. */
  outputFormat: string;
  /** Auto-escaping is on where the parser is. */
  autoEscaping: boolean;
  /** Auto-escaping is wanted where the output format can escape (the auto_esc setting). */
  readonly autoEscapingPolicy: boolean;
  /** The enclosing #escape directives and their effective escape expressions (innermost last). */
  escapes: A.EscapeEl[];
  escapeExprs: A.Expr[];
  /** `e` wrapped by the innermost #escape's expression (or `e` when there is none). */
  escapedExpression(e: A.Expr): A.Expr;
  /** The next token, which must be of `kind` (else FreeMarker's "expecting pattern" error). */
  expect(kind: Tk, what?: string): Token;
  /** A template-language identifier takes part in the naming convention (camelCase or legacy). */
  checkNaming(t: Token): void;
  /** The names of `all` an error message lists, in the naming convention of the template. */
  namesInShownConvention(all: ReadonlySet<string>): string[];
  /** Expressions separated by commas or blanks (#nested's arguments), none when no expression starts. */
  positionalArgs(): A.Expr[];
  /** `name=expression` pairs (a user directive call's arguments; a repeated name keeps its last value). */
  namedArgs(): { name: string; value: A.Expr }[];
  /** The elements up to the token that ends the block. */
  mixedContent(): A.El[];
  /** `>` (the tag must have a body). */
  directiveEnd(): Token;
  /** `>` or `/>`. */
  looseDirectiveEnd(): Token;
  /** Sets the span and children of a fresh element literal (see Parser.el). */
  el<T extends A.El>(e: T, pos: A.Pos, children?: A.El[]): T;
  tokPos(t: Token): A.Pos;
  /** The span of source offsets [start, endExclusive). */
  posOf(start: number, endExclusive: number): A.Pos;
  /** The end tag of one of `names`, else the error for an unclosed `open`. */
  expectEnd(names: string[], open: string): Token;
  span(a: A.Pos, b: A.Pos): A.Pos;
  /** FreeMarker's setLocation(start, end, children): ends at the last child if there is one. */
  locWithChildren(start: Token, end: Token, children: A.El[]): A.Pos;
  err(message: string, at: Token | A.Pos): ParseError;
  /** "Encountered …, but was expecting …" for `t`. */
  unexpected(t: Token, expecting?: string): ParseError;
  /** The error for a token that ends a block where it can't. */
  unmatchedEnd(t: Token, open: string | null): ParseError;
}

/** What a directive's compile function may use of the element compiler. */
export interface ElementCompiler {
  readonly cx: ElementContext;
  /** Compiles one element (any kind). */
  element(el: A.El): Exec;
  /** Compiles a list of elements run one after the other. */
  block(children: A.El[]): Exec;
}

export type ElementOfKind<K extends A.El['kind']> = Extract<A.El, { kind: K }>;

export interface Directive<K extends A.El['kind'] = A.El['kind']> {
  /** Start tags it parses (canonical names) and what must follow each name in the tag. */
  readonly startTags: Readonly<Record<string, TagFollow>>;
  /**
   * Start tags that continue an enclosing directive rather than start an element (#elseif, #else,
   * #recover, #case, #default): the block before them ends there, and the enclosing directive's
   * parse function takes them.
   */
  readonly clauseTags?: readonly string[];
  /** End tags (`</#name>`) it accepts. */
  readonly endTags?: readonly string[];
  /** The element kinds it makes, compiles and describes. */
  readonly kinds: readonly K[];
  /**
   * Its kinds that print nothing (FreeMarker's non-outputting elements): a whitespace-only line
   * between two of them, or between one and the template's edge, is stripped (whitespace.ts).
   */
  readonly nonOutputting?: readonly K[];
  /** Parses the directive; the start tag is the next token. */
  parse(p: DirectiveParser, tag: Token): A.El;
  compile(el: ElementOfKind<K>, c: ElementCompiler): Exec;
  /** How the FTL stack trace describes the element (null: not shown). */
  stackLabel(el: ElementOfKind<K>): string | null;
}

/** Fields every element literal lists (so elements of a kind keep one shape); the parser fills them. */
export function elementBase(p: DirectiveParser): A.ElBase {
  return {
    beginLine: 0,
    beginColumn: 0,
    endLine: 0,
    endColumn: 0,
    templateName: p.name,
    children: NO_CHILDREN,
    parent: null,
    index: 0,
  };
}

export const NO_CHILDREN: A.El[] = [];
