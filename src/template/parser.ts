/**
 * Recursive-descent parser following FreeMarker's FTL.jj production by production: the same
 * precedence, the same parse-time checks and, as far as a script writer meets them, the same
 * messages. Produces the element tree (FreeMarker's shape) and expression ASTs.
 */
import { dict, emptyDict } from './dict.js';
import type * as A from './ast.js';
import { directiveOfTag, isClauseTag } from './directives/index.js';
import type { Directive, IterCtx } from './directives/types.js';
import { parseHeader } from './directives/ftl.js';
import { withCamelCase } from './directives/setting.js';
import { BigDec } from './bigdecimal.js';
import {
  BANNED_WHEN_AUTO_ESCAPING,
  LAMBDA_BUILTINS,
  LOOP_VAR_BUILTINS,
  MARKUP_FORMAT_BOUND,
  PARSE_TIME_PARAM_BUILTINS,
  builtinName,
  unknownBuiltinMessage,
} from './builtin-names.js';
import { canonical } from './canonical.js';
import { ParseError, jQuote } from './errors.js';
import { LineMap, Lexer, type LexerOptions, type Naming, type Token, type Tk, namingOf } from './lexer.js';
import { EXPR_START } from './expr-start.js';
import { isMarkupFormat, outputFormatDescription } from './output-formats.js';

export interface ParseOptions {
  name: string;
  tagSyntax?: LexerOptions['tagSyntax'];
  interpolationSyntax?: LexerOptions['interpolationSyntax'];
  strictSyntax?: boolean;
  stripWhitespace?: boolean;
  /** Output format name ("undefined", "HTML", "XML", "plainText" …). */
  outputFormat?: string;
  /** Auto-escaping policy: enabled if the format supports it (FreeMarker's default). */
  autoEscaping?: boolean;
  /** Maximum nesting of expressions and directives (keeps the parser far from the stack limit). */
  maxNesting?: number;
}

const DEFAULT_MAX_NESTING = 200;

/** Placeholder in element literals; el() sets the real children. */
const NO_CHILDREN: A.El[] = [];

const TOKEN_PATTERNS: Partial<Record<Tk, string>> = {
  CLOSE_CURLY: '"}"',
  CLOSE_PAREN: '")"',
  CLOSE_BRACKET: '"]"',
  OPEN_PAREN: '"("',
  DIRECTIVE_END: '">"',
  EQUALS: '"="',
  ID: '<ID>',
  AS: '"as"',
  IN: '"in"',
  COLON: '":"',
};

export class Parser {
  lx: Lexer;
  readonly name: string;
  stripWhitespace: boolean;
  /** `<#ftl strip_text=true>`. */
  stripText = false;
  /** Depth of MixedContentElements (1 = the template's top level). */
  private mixedNesting = 0;
  outputFormat: string;
  autoEscapingPolicy: boolean;
  autoEscaping: boolean;
  iterCtxs: IterCtx[] = [];
  breakable = 0;
  continuable = 0;
  inMacro = false;
  inFunction = false;
  escapes: A.EscapeEl[] = [];
  escapeExprs: A.Expr[] = [];
  macros: A.MacroEl[] = [];
  private depth = 0;
  private readonly maxNesting: number;
  hasTrim = false;
  readonly attributes: Record<string, unknown> = emptyDict();
  requireArgs = false;

  constructor(
    readonly src: string,
    opts: ParseOptions,
  ) {
    this.name = opts.name;
    this.lx = new Lexer(src, opts.name, {
      tagSyntax: opts.tagSyntax ?? 'angle_bracket',
      interpolationSyntax: opts.interpolationSyntax ?? 'legacy',
      strictSyntax: opts.strictSyntax ?? true,
    });
    this.stripWhitespace = opts.stripWhitespace ?? true;
    this.outputFormat = opts.outputFormat ?? 'undefined';
    this.autoEscapingPolicy = opts.autoEscaping ?? true;
    this.autoEscaping = this.autoEscapingPolicy && isMarkupFormat(this.outputFormat);
    this.maxNesting = opts.maxNesting ?? DEFAULT_MAX_NESTING;
  }

  // ------------------------------------------------------------------ helpers

  err(message: string, t: Token | A.Pos): ParseError {
    if ('beginLine' in t)
      return new ParseError(message, this.name, t.beginLine, t.beginColumn, t.endLine, t.endColumn);
    return this.lx.error(message, t.t === 'EOF' ? this.lx.eofOffset() : t.start, t.end);
  }

  /** A template-language identifier (built-in, special variable, setting …) takes part in the naming convention. */
  checkNaming(t: Token): void {
    this.lx.checkNaming(t.image, namingOf(t.image), t.start, t.end);
  }

  /** The names of `all` an error message lists, in the naming convention of the template. */
  namesInShownConvention(all: ReadonlySet<string>): string[] {
    return namesIn(all, this.shownNaming());
  }

  /** The convention names are listed in by error messages: the established one, else legacy. */
  private shownNaming(): Exclude<Naming, 'auto'> {
    const c = this.lx.naming.convention;
    return c === 'auto' ? 'legacy' : c;
  }

  posOf(start: number, endExclusive: number): A.Pos {
    const lines = this.lx.lines;
    const bl = lines.line(start);
    const bc = lines.col(start, bl);
    const end = endExclusive - 1;
    if (end <= start) return { beginLine: bl, beginColumn: bc, endLine: bl, endColumn: bc };
    const el = lines.line(end);
    return { beginLine: bl, beginColumn: bc, endLine: el, endColumn: lines.col(end, el) };
  }

  span(a: A.Pos, b: A.Pos): A.Pos {
    return { beginLine: a.beginLine, beginColumn: a.beginColumn, endLine: b.endLine, endColumn: b.endColumn };
  }

  tokPos(t: Token): A.Pos {
    if (t.t === 'EOF') {
      const o = this.lx.eofOffset();
      return this.posOf(o, o + 1);
    }
    return this.posOf(t.start, t.end);
  }

  private describe(t: Token): string {
    if (t.t === 'EOF') return '<EOF>';
    return JSON.stringify(t.t === 'STRING' || t.t === 'RAW_STRING' ? t.image : t.image.trimEnd());
  }

  unexpected(t: Token, expecting?: string): ParseError {
    if (t.t === 'EOF') return this.err('Unexpected end of file reached.', t);
    return this.err(
      `Encountered ${this.describe(t)}, but was expecting ${expecting ?? 'one of these patterns: a valid expression or directive end'}.`,
      t,
    );
  }

  expect(kind: Tk, what?: string): Token {
    const t = this.lx.peek();
    if (t.t !== kind) {
      if (t.t === 'EOF') throw this.err('Unexpected end of file reached.', t);
      throw this.err(
        `Encountered ${this.describe(t)}, but was expecting pattern:\n    ${what ?? TOKEN_PATTERNS[kind] ?? kind}`,
        t,
      );
    }
    return this.lx.next();
  }

  looseDirectiveEnd(): Token {
    const t = this.lx.peek();
    if (t.t === 'DIRECTIVE_END' || t.t === 'EMPTY_DIRECTIVE_END') return this.lx.next();
    throw this.unexpected(t, 'one of these patterns:\n    ">"\n    <EMPTY_DIRECTIVE_END>');
  }

  directiveEnd(): Token {
    const t = this.lx.peek();
    if (t.t === 'DIRECTIVE_END') return this.lx.next();
    throw this.unexpected(t, 'pattern:\n    ">"');
  }

  private enter(at: Token | A.Pos): void {
    if (++this.depth > this.maxNesting) {
      throw this.err(`Template nesting is too deep (more than ${this.maxNesting} levels).`, at);
    }
  }

  /**
   * Sets the span and children of `e`, a fresh literal that already lists every ElBase field, so
   * that elements of a kind keep one shape (see mk).
   */
  el<T extends A.El>(e: T, pos: A.Pos, children: A.El[] = []): T {
    e.beginLine = pos.beginLine;
    e.beginColumn = pos.beginColumn;
    e.endLine = pos.endLine;
    e.endColumn = pos.endColumn;
    e.children = children;
    e.parent = null;
    e.index = 0;
    for (let i = 0; i < children.length; i++) {
      children[i].parent = e;
      children[i].index = i;
    }
    return e;
  }

  /** FreeMarker's setLocation(start, end, children): ends at the last child if there is one. */
  locWithChildren(start: Token, end: Token, children: A.El[]): A.Pos {
    const s = this.tokPos(start);
    if (children.length) {
      const last = children[children.length - 1];
      return {
        beginLine: s.beginLine,
        beginColumn: s.beginColumn,
        endLine: last.endLine,
        endColumn: last.endColumn,
      };
    }
    return this.span(s, this.tokPos(end));
  }

  // ------------------------------------------------------------------ template structure

  parseRoot(): A.ParsedTemplate {
    const lx = this.lx;
    const t0 = lx.peek();
    if (
      t0.t === 'FTL_HEADER' ||
      (t0.t === 'TEXT' && /^[ \t\r\n]*$/.test(t0.image) && lx.peek(1).t === 'FTL_HEADER')
    ) {
      if (t0.t === 'TEXT') lx.next();
      parseHeader(this);
    }
    const children = this.mixedContent();
    const t = lx.peek();
    if (t.t !== 'EOF') throw this.unmatchedEnd(t, null);
    let root: A.El;
    if (children.length === 1) {
      root = children[0];
      root.parent = null;
    } else if (children.length === 0) {
      root = this.el<A.TextEl>(
        {
          kind: 'text',
          text: '',
          unparsed: false,
          beginLine: 0,
          beginColumn: 0,
          endLine: 0,
          endColumn: 0,
          templateName: this.name,
          children: NO_CHILDREN,
          parent: null,
          index: 0,
        },
        { beginLine: 0, beginColumn: 0, endLine: 0, endColumn: 0 },
      );
    } else {
      root = this.el<A.MixedEl>(
        {
          kind: 'mixed',
          beginLine: 0,
          beginColumn: 0,
          endLine: 0,
          endColumn: 0,
          templateName: this.name,
          children: NO_CHILDREN,
          parent: null,
          index: 0,
        },
        this.span(children[0], children[children.length - 1]),
        children,
      );
    }
    return {
      root,
      macros: this.macros,
      outputFormat: this.outputFormat,
      autoEscape: this.autoEscaping,
      attributes: this.attributes,
      source: this.src,
      stripWhitespace: this.stripWhitespace,
      hasTrim: this.hasTrim,
    };
  }

  /** MixedContentElements: text, interpolations and directives up to a token that ends the block. */
  mixedContent(): A.El[] {
    this.mixedNesting++;
    try {
      return this.mixedContentElements();
    } finally {
      this.mixedNesting--;
    }
  }

  private mixedContentElements(): A.El[] {
    const lx = this.lx;
    const out: A.El[] = [];
    for (;;) {
      const t = lx.peek();
      switch (t.t) {
        case 'TEXT':
          lx.next();
          // <#ftl strip_text=true>: static text of the top level is dropped while parsing (FTL.jj PCData)
          if (this.stripText && this.mixedNesting === 1 && !t.unparsed) break;
          out.push(
            this.el<A.TextEl>(
              {
                kind: 'text',
                text: t.image,
                unparsed: !!t.unparsed,
                beginLine: 0,
                beginColumn: 0,
                endLine: 0,
                endColumn: 0,
                templateName: this.name,
                children: NO_CHILDREN,
                parent: null,
                index: 0,
              },
              this.posOf(t.start, t.end),
            ),
          );
          break;
        case 'INTERP_DOLLAR':
        case 'INTERP_SQUARE':
        case 'INTERP_HASH':
          out.push(this.interpolation());
          break;
        case 'COMMENT':
          lx.next();
          out.push(
            this.el<A.CommentEl>(
              {
                kind: 'comment',
                text: t.value ?? '',
                beginLine: 0,
                beginColumn: 0,
                endLine: 0,
                endColumn: 0,
                templateName: this.name,
                children: NO_CHILDREN,
                parent: null,
                index: 0,
              },
              this.posOf(t.start, t.end),
            ),
          );
          break;
        case 'UNIFIED_CALL':
          out.push(this.directive());
          break;
        case 'DIRECTIVE':
          // #else, #elseif, #recover, #case, #default: the enclosing directive goes on
          if (isClauseTag(t.name!)) return out;
          out.push(this.directive());
          break;
        default:
          return out;
      }
    }
  }

  /** Error for a token that ends a block where it can't: EOF, a wrong end tag, a stray else … */
  unmatchedEnd(t: Token, open: string | null): ParseError {
    const note = ' (Note that FreeMarker end-tags must have # or @ after the / character.)';
    if (t.t === 'EOF') {
      if (open === null) return this.err('Unexpected end of file reached.', t);
      return this.err(
        `Unexpected end of file reached. You have an unclosed ${open}. Check if the FreeMarker end-tags are present, and aren't malformed.${note}`,
        t,
      );
    }
    const shown = t.image.trim();
    if (open !== null) {
      return this.err(
        `Encountered ${JSON.stringify(shown)}, but at this place only this can be closed: ${JSON.stringify(open)}. This usually because of wrong nesting of FreeMarker directives, like a missed or malformed end-tag somewhere.${note}`,
        t,
      );
    }
    return this.err(
      `Encountered ${JSON.stringify(shown)}, but was expecting one of these patterns:\n    <EOF>`,
      t,
    );
  }

  expectEnd(names: string[], open: string): Token {
    const t = this.lx.peek();
    if (t.t === 'END_TAG' && names.includes(t.name!)) return this.lx.next();
    throw this.unmatchedEnd(t, open);
  }

  private interpolation(): A.InterpEl {
    const begin = this.lx.next();
    this.enter(begin);
    const expr = this.expression();
    let end: Token;
    let minFrac: number | undefined;
    let maxFrac: number | undefined;
    if (begin.t === 'INTERP_HASH') {
      this.numberLiteralOnly(expr);
      if (this.lx.peek().t === 'SEMICOLON') {
        this.lx.next();
        const fmt = this.expect('ID');
        [minFrac, maxFrac] = this.numericFormat(fmt);
      }
      end = this.closeInterpolation('CLOSE_CURLY', begin);
    } else {
      if (expr.kind === 'hash')
        throw this.err(`Found hash literal: ${canonical(expr)}. Expecting ${STRING_COERCABLE}`, expr);
      if (expr.kind === 'list')
        throw this.err(`Found list literal: ${canonical(expr)}. Expecting ${STRING_COERCABLE}`, expr);
      end = this.closeInterpolation(begin.t === 'INTERP_SQUARE' ? 'CLOSE_BRACKET' : 'CLOSE_CURLY', begin);
    }
    this.depth--;
    return this.el<A.InterpEl>(
      {
        kind: 'interp',
        expr,
        escaped: this.escapedExpression(expr),
        numeric: begin.t === 'INTERP_HASH',
        minFrac,
        maxFrac,
        outputFormat: this.outputFormat,
        autoEscape: this.autoEscaping,
        beginLine: 0,
        beginColumn: 0,
        endLine: 0,
        endColumn: 0,
        templateName: this.name,
        children: NO_CHILDREN,
        parent: null,
        index: 0,
      },
      this.posOf(begin.start, end.end),
    );
  }

  private closeInterpolation(kind: Tk, begin: Token): Token {
    const t = this.lx.peek();
    if (t.t === 'EOF') {
      throw this.err(
        `Unexpected end of file reached. You have an unclosed "${begin.t === 'INTERP_SQUARE' ? '[' : '{'}". Check if the FreeMarker end-tags are present, and aren't malformed. (Note that FreeMarker end-tags must have # or @ after the / character.)`,
        t,
      );
    }
    return this.expect(kind);
  }

  private numericFormat(fmt: Token): [number, number] {
    let minFrac = -1;
    let maxFrac = -1;
    const m = /^(?:([mM])(\d+))(?:([mM])(\d+))?$/.exec(fmt.image);
    if (!m) throw this.err(`Invalid format specifier ${fmt.image}`, fmt);
    for (const [type, num] of [
      [m[1], m[2]],
      [m[3], m[4]],
    ]) {
      if (!type) continue;
      const n = parseInt(num, 10);
      if (type === 'm') {
        if (minFrac !== -1) throw this.err(`Invalid format specifier ${fmt.image}`, fmt);
        minFrac = n;
      } else {
        if (maxFrac !== -1) throw this.err(`Invalid format specifier ${fmt.image}`, fmt);
        maxFrac = n;
      }
    }
    if (maxFrac === -1) maxFrac = minFrac;
    else if (minFrac === -1) minFrac = 0;
    if (minFrac > maxFrac)
      throw this.err('Invalid format specification, min cannot be greater than max!', fmt);
    if (minFrac > 50 || maxFrac > 50) throw this.err('Cannot specify more than 50 fraction digits', fmt);
    return [minFrac, maxFrac];
  }

  escapedExpression(e: A.Expr): A.Expr {
    if (!this.escapes.length) return e;
    const top = this.escapes[this.escapes.length - 1];
    const escExpr = this.escapeExprs[this.escapeExprs.length - 1];
    return replaceIdentifier(escExpr, top.variable, e);
  }

  // ------------------------------------------------------------------ directives

  private directive(): A.El {
    const t = this.lx.peek();
    this.enter(t);
    try {
      // <@…> is parsed by the module of #call
      const moved = directiveOfTag(t.t === 'UNIFIED_CALL' ? 'call' : t.name!);
      if (moved !== undefined) return markDirective(moved.parse(this, t), moved);
      switch (t.name) {
        default:
          throw this.unexpected(t);
      }
    } finally {
      this.depth--;
    }
  }

  assignTarget(): { name: string; tok: Token } {
    const t = this.lx.peek();
    if (t.t === 'ID') {
      this.lx.next();
      return { name: t.image, tok: t };
    }
    if (t.t === 'STRING' || t.t === 'RAW_STRING') {
      this.lx.next();
      return { name: t.value!, tok: t };
    }
    throw this.unexpected(t, 'one of these patterns:\n    <STRING_LITERAL>\n    <RAW_STRING>\n    <ID>');
  }

  namedArgs(): { name: string; value: A.Expr }[] {
    const lx = this.lx;
    const out: { name: string; value: A.Expr }[] = [];
    const seen = new Set<string>();
    while (lx.peek(0).t === 'ID' && lx.peek(1).t === 'EQUALS') {
      const n = lx.next();
      lx.next();
      lx.switchTo('NAMED_PARAMETER_EXPRESSION');
      lx.inInvocation = true;
      const value = this.expression();
      if (!seen.has(n.image)) out.push({ name: n.image, value });
      else out[out.findIndex((a) => a.name === n.image)].value = value;
      seen.add(n.image);
    }
    lx.inInvocation = false;
    return out;
  }

  positionalArgs(): A.Expr[] {
    const out: A.Expr[] = [];
    if (!EXPR_START.has(this.lx.peek().t)) return out;
    out.push(this.expression());
    for (;;) {
      const t = this.lx.peek();
      if (t.t === 'COMMA') {
        this.lx.next();
        out.push(this.expression());
        continue;
      }
      if (!EXPR_START.has(t.t)) break;
      out.push(this.expression());
    }
    return out;
  }

  // ------------------------------------------------------------------ expressions

  expression(): A.Expr {
    const t = this.lx.peek();
    this.enter(t);
    try {
      return this.binary(OR);
    } finally {
      this.depth--;
    }
  }

  /**
   * FTL.jj's OrExpression down to MultiplicativeExpression in one loop (precedence climbing): the
   * operators of `minLevel` and tighter. ||, &&, + - and * / % chain left to right; an equality,
   * relational or range operator does not chain, so only looser operators may follow it.
   */
  private binary(minLevel: number): A.Expr {
    let left = this.unaryExpression();
    let cap = MUL + 1;
    for (;;) {
      const t = this.lx.peek();
      const level = opLevel(t.t);
      if (level < minLevel || level >= cap) return left;
      this.lx.next();
      cap = level === EQ || level === REL || level === RANGE ? level : level + 1;
      left = this.binaryNode(level, t, left);
    }
  }

  /** The node of `left op …` for the operator token `t` of `level` (already consumed). */
  private binaryNode(level: number, t: Token, left: A.Expr): A.Expr {
    if (level === OR || level === AND) {
      const right = this.binary(level + 1);
      this.booleanLiteralOnly(left);
      this.booleanLiteralOnly(right);
      return this.mk<A.Or | A.And>(
        {
          kind: level === OR ? 'or' : 'and',
          left,
          right,
          beginLine: 0,
          beginColumn: 0,
          endLine: 0,
          endColumn: 0,
          templateName: this.name,
          calls: !!(left.calls || right.calls),
        },
        left,
        right,
      );
    }
    if (level === EQ || level === REL) {
      const right = this.binary(level + 1);
      if (level === EQ) {
        for (const e of [left, right]) {
          if (e.kind === 'hash' || e.kind === 'list')
            throw this.err(
              `Found ${e.kind} literal: ${canonical(e)}. Expecting different type for equality check`,
              e,
            );
        }
      } else {
        this.numberLiteralOnly(left);
        this.numberLiteralOnly(right);
      }
      return this.mk<A.Cmp>(
        {
          kind: 'cmp',
          op: t.image,
          relation: relationOf(t.t),
          left,
          right,
          beginLine: 0,
          beginColumn: 0,
          endLine: 0,
          endColumn: 0,
          templateName: this.name,
          calls: !!(left.calls || right.calls),
        },
        left,
        right,
      );
    }
    if (level === RANGE) return this.range(t, left);
    if (level === MUL)
      return this.arith(t.t === 'TIMES' ? '*' : t.t === 'DIVIDE' ? '/' : '%', left, this.unaryExpression());
    const right = this.binary(MUL);
    if (t.t === 'MINUS') return this.arith('-', left, right);
    return this.mk<A.Add>(
      {
        kind: 'add',
        left,
        right,
        beginLine: 0,
        beginColumn: 0,
        endLine: 0,
        endColumn: 0,
        templateName: this.name,
        calls: !!(left.calls || right.calls),
      },
      left,
      right,
    );
  }

  /** `left..<right`, `left..*right`, `left..right` or `left..` (`t`, the operator, consumed). */
  private range(t: Token, left: A.Expr): A.Expr {
    if (t.t === 'DOT_DOT_LESS' || t.t === 'DOT_DOT_ASTERISK') {
      const right = this.binary(ADD);
      this.numberLiteralOnly(left);
      this.numberLiteralOnly(right);
      return this.mk<A.Range>(
        {
          kind: 'range',
          left,
          right,
          end: t.t === 'DOT_DOT_LESS' ? 'exclusive' : 'size',
          op: t.image,
          beginLine: 0,
          beginColumn: 0,
          endLine: 0,
          endColumn: 0,
          templateName: this.name,
          calls: !!(left.calls || right.calls),
        },
        left,
        right,
      );
    }
    this.numberLiteralOnly(left);
    if (EXPR_START.has(this.lx.peek().t)) {
      const right = this.binary(ADD);
      this.numberLiteralOnly(right);
      return this.mk<A.Range>(
        {
          kind: 'range',
          left,
          right,
          end: 'inclusive',
          op: '..',
          beginLine: 0,
          beginColumn: 0,
          endLine: 0,
          endColumn: 0,
          templateName: this.name,
          calls: !!(left.calls || right.calls),
        },
        left,
        right,
      );
    }
    return this.mk<A.Range>(
      {
        kind: 'range',
        left,
        end: 'unbound',
        op: '..',
        beginLine: 0,
        beginColumn: 0,
        endLine: 0,
        endColumn: 0,
        templateName: this.name,
        calls: !!left.calls,
      },
      left,
      this.tokPos(t),
    );
  }

  /** `left op right` for - * / %: both sides must be able to be numbers. */
  private arith(op: A.Arith['op'], left: A.Expr, right: A.Expr): A.Arith {
    this.numberLiteralOnly(left);
    this.numberLiteralOnly(right);
    return this.mk<A.Arith>(
      {
        kind: 'arith',
        op,
        left,
        right,
        beginLine: 0,
        beginColumn: 0,
        endLine: 0,
        endColumn: 0,
        templateName: this.name,
        calls: !!(left.calls || right.calls),
      },
      left,
      right,
    );
  }

  private unaryExpression(): A.Expr {
    const t = this.lx.peek();
    if (t.t === 'PLUS' || t.t === 'MINUS') {
      this.lx.next();
      const target = this.primaryExpression();
      return this.mk<A.Neg>(
        {
          kind: 'neg',
          target,
          minus: t.t === 'MINUS',
          beginLine: 0,
          beginColumn: 0,
          endLine: 0,
          endColumn: 0,
          templateName: this.name,
          calls: !!target.calls,
        },
        this.tokPos(t),
        target,
      );
    }
    if (t.t === 'EXCLAM') {
      const nots: Token[] = [];
      while (this.lx.peek().t === 'EXCLAM') nots.push(this.lx.next());
      let e = this.primaryExpression();
      for (let i = nots.length - 1; i >= 0; i--) {
        e = this.mk<A.Not>(
          {
            kind: 'not',
            target: e,
            beginLine: 0,
            beginColumn: 0,
            endLine: 0,
            endColumn: 0,
            templateName: this.name,
            calls: !!e.calls,
          },
          this.tokPos(nots[i]),
          e,
        );
      }
      return e;
    }
    return this.primaryExpression();
  }

  /**
   * Sets the span of `e`, a fresh literal that already lists beginLine/beginColumn/endLine/endColumn/templateName/calls: every node of a
   * kind keeps one shape (adding fields, or spreading, costs a hidden-class change per node).
   * Spread copies of an existing node (`{ ...target, args }`) carry those fields already.
   */
  private mk<T extends A.Expr>(e: T, from: A.Pos, to: A.Pos): T {
    e.beginLine = from.beginLine;
    e.beginColumn = from.beginColumn;
    e.endLine = to.endLine;
    e.endColumn = to.endColumn;
    return e;
  }

  private primaryExpression(): A.Expr {
    let e = this.atomicExpression();
    for (;;) {
      const t = this.lx.peek();
      switch (t.t) {
        case 'DOT':
          e = this.dotVariable(e);
          break;
        case 'OPEN_BRACKET':
          e = this.dynamicKey(e);
          break;
        case 'OPEN_PAREN':
          e = this.methodArgs(e);
          break;
        case 'BUILT_IN':
          e = this.builtIn(e);
          break;
        case 'EXCLAM':
        case 'TERMINATING_EXCLAM':
          e = this.defaultTo(e);
          break;
        case 'EXISTS': {
          this.lx.next();
          e = this.mk<A.Exists>(
            {
              kind: 'exists',
              target: e,
              beginLine: 0,
              beginColumn: 0,
              endLine: 0,
              endColumn: 0,
              templateName: this.name,
              calls: !!e.calls,
            },
            e,
            this.tokPos(t),
          );
          break;
        }
        default:
          return e;
      }
    }
  }

  private atomicExpression(): A.Expr {
    const t = this.lx.peek();
    switch (t.t) {
      case 'INTEGER':
      case 'DECIMAL': {
        this.lx.next();
        let value: number | BigDec;
        if (t.t === 'INTEGER' && t.image.length <= 15) value = Number(t.image);
        else {
          const bd = BigDec.parse(t.image);
          value = bd.scale === 0 && Number.isSafeInteger(Number(bd.unscaled)) ? Number(bd.unscaled) : bd;
        }
        const p = this.tokPos(t);
        return this.mk<A.NumLit>(
          {
            kind: 'num',
            value,
            text: t.image,
            beginLine: 0,
            beginColumn: 0,
            endLine: 0,
            endColumn: 0,
            templateName: this.name,
            calls: false,
          },
          p,
          p,
        );
      }
      case 'OPEN_CURLY':
        return this.hashLiteral();
      case 'STRING':
      case 'RAW_STRING':
        return this.stringLiteral(true);
      case 'TRUE':
      case 'FALSE': {
        this.lx.next();
        const p = this.tokPos(t);
        return this.mk<A.BoolLit>(
          {
            kind: 'bool',
            value: t.t === 'TRUE',
            beginLine: 0,
            beginColumn: 0,
            endLine: 0,
            endColumn: 0,
            templateName: this.name,
            calls: false,
          },
          p,
          p,
        );
      }
      case 'OPEN_BRACKET': {
        this.lx.next();
        const items = this.positionalArgs();
        const end = this.expect('CLOSE_BRACKET');
        const e = this.mk<A.ListLit>(
          {
            kind: 'list',
            items,
            beginLine: 0,
            beginColumn: 0,
            endLine: 0,
            endColumn: 0,
            templateName: this.name,
            calls: false,
          },
          this.tokPos(t),
          this.tokPos(end),
        );
        if (items.some((i) => i.calls)) e.calls = true;
        return e;
      }
      case 'ID': {
        this.lx.next();
        const p = this.tokPos(t);
        return this.mk<A.Ident>(
          {
            kind: 'id',
            name: t.image,
            beginLine: 0,
            beginColumn: 0,
            endLine: 0,
            endColumn: 0,
            templateName: this.name,
            calls: false,
          },
          p,
          p,
        );
      }
      case 'OPEN_PAREN': {
        this.lx.next();
        const inner = this.expression();
        const end = this.expect('CLOSE_PAREN');
        return this.mk<A.Paren>(
          {
            kind: 'paren',
            target: inner,
            beginLine: 0,
            beginColumn: 0,
            endLine: 0,
            endColumn: 0,
            templateName: this.name,
            calls: !!inner.calls,
          },
          this.tokPos(t),
          this.tokPos(end),
        );
      }
      case 'DOT': {
        this.lx.next();
        const name = this.lx.peek();
        if (name.t !== 'ID') throw this.unexpected(name, 'pattern:\n    <ID>');
        this.lx.next();
        this.checkNaming(name);
        const sv: A.SpecialVar = {
          kind: 'special',
          name: name.image,
          ...this.span(this.tokPos(t), this.tokPos(name)),
        };
        const n = name.image;
        if (n === 'output_format' || n === 'outputFormat') sv.parseTime = this.outputFormat;
        else if (n === 'auto_esc' || n === 'autoEsc') sv.parseTime = this.autoEscaping;
        else if (n === 'args') {
          if (!this.inMacro && !this.inFunction) {
            throw this.err(
              'The "args" special variable must be inside a macro or function in the template source code.',
              name,
            );
          }
          this.requireArgs = true;
        }
        if (!SPECIAL_VARS.has(n)) {
          const hint =
            n === 'auto_escape' || n === 'auto_escaping' || n === 'autoesc'
              ? 'auto_esc'
              : n === 'autoEscape' || n === 'autoEscaping'
                ? 'autoEsc'
                : null;
          throw this.err(
            `Unknown special variable name: ${jQuote(n)}.${hint ? ` You may meant: ${jQuote(hint)}.` : ''}\nThe allowed special variable names are: ${namesIn(SPECIAL_VARS, this.shownNaming()).join(', ')}`,
            name,
          );
        }
        return sv;
      }
      default:
        if (t.t === 'EOF') throw this.err('Unexpected end of file reached.', t);
        throw this.err(
          `Encountered ${this.describe(t)}, but was expecting one of these patterns:\n    <STRING_LITERAL>\n    <RAW_STRING>\n    "false"\n    "true"\n    <INTEGER>\n    <DECIMAL>\n    "."\n    "+"\n    "-"\n    "!"\n    "["\n    "("\n    "{"\n    <ID>`,
          t,
        );
    }
  }

  private stringLiteral(interpolate: boolean): A.StrLit {
    const t = this.lx.next();
    const raw = t.t === 'RAW_STRING';
    const p = this.tokPos(t);
    const e = this.mk<A.StrLit>(
      {
        kind: 'str',
        value: t.value!,
        parts: undefined,
        raw,
        src: t.image,
        beginLine: 0,
        beginColumn: 0,
        endLine: 0,
        endColumn: 0,
        templateName: this.name,
        calls: false,
      },
      p,
      p,
    );
    if (interpolate && !raw && (t.image.includes('${') || t.image.includes('#{') || t.image.includes('[='))) {
      const parts = this.parseStringParts(t);
      if (parts.some((p) => typeof p !== 'string')) {
        e.parts = parts;
        if (parts.some((p) => typeof p !== 'string' && p.expr.calls)) e.calls = true;
      }
    }
    return e;
  }

  /** Parses the interpolations of a string literal's (unescaped) value, like StringLiteral.parseValue. */
  private parseStringParts(t: Token): (string | A.InterpEl)[] {
    const value = t.value!;
    const sub = new Parser(value, {
      name: this.name,
      interpolationSyntax: this.lx.interpolationSyntax,
      stripWhitespace: false,
      outputFormat: 'plainText',
      maxNesting: this.maxNesting - this.depth,
    });
    sub.lx.onlyTextOutput = true;
    sub.escapes = [];
    // positions inside the literal are reported relative to the literal's start, like FreeMarker
    const [line, col] = this.lx.lines.pos(t.start);
    sub.lx = new Lexer(
      value,
      this.name,
      {
        tagSyntax: 'angle_bracket',
        interpolationSyntax: this.lx.interpolationSyntax,
        strictSyntax: true,
      },
      offsetLineMap(value, line, col + 1),
    );
    sub.lx.onlyTextOutput = true;
    // one naming convention for the template and its string literals (setupStringLiteralMode)
    sub.lx.naming = this.lx.naming;
    const parts: (string | A.InterpEl)[] = [];
    for (;;) {
      const tok = sub.lx.peek();
      if (tok.t === 'EOF') break;
      if (tok.t === 'TEXT') {
        sub.lx.next();
        const last = parts[parts.length - 1];
        if (typeof last === 'string') parts[parts.length - 1] = last + tok.image;
        else parts.push(tok.image);
      } else if (tok.t === 'INTERP_DOLLAR' || tok.t === 'INTERP_HASH' || tok.t === 'INTERP_SQUARE') {
        parts.push(sub.interpolation());
      } else {
        throw sub.unexpected(tok);
      }
    }
    return parts;
  }

  private hashLiteral(): A.Expr {
    const begin = this.lx.next();
    const keys: A.Expr[] = [];
    const values: A.Expr[] = [];
    if (this.lx.peek().t !== 'CLOSE_CURLY') {
      for (;;) {
        const key = this.expression();
        const sep = this.lx.peek();
        if (sep.t !== 'COMMA' && sep.t !== 'COLON')
          throw this.unexpected(sep, 'one of these patterns:\n    ","\n    ":"');
        this.lx.next();
        const value = this.expression();
        this.stringLiteralOnly(key);
        keys.push(key);
        values.push(value);
        if (this.lx.peek().t !== 'COMMA') break;
        this.lx.next();
      }
    }
    const end = this.expect('CLOSE_CURLY');
    const e = this.mk<A.HashLit>(
      {
        kind: 'hash',
        keys,
        values,
        beginLine: 0,
        beginColumn: 0,
        endLine: 0,
        endColumn: 0,
        templateName: this.name,
        calls: false,
      },
      this.tokPos(begin),
      this.tokPos(end),
    );
    if (keys.some((k) => k.calls) || values.some((v) => v.calls)) e.calls = true;
    return e;
  }

  private dotVariable(target: A.Expr): A.Expr {
    this.lx.next();
    const t = this.lx.next();
    let name: string;
    switch (t.t) {
      case 'ID':
      case 'TIMES':
      case 'DOUBLE_STAR':
        name = t.image;
        break;
      case 'LESS_THAN':
      case 'LESS_THAN_EQUALS':
      case 'ESCAPED_GT':
      case 'ESCAPED_GTE':
      case 'FALSE':
      case 'TRUE':
      case 'IN':
      case 'AS':
      case 'USING':
        if (!/^\p{L}/u.test(t.image)) throw this.err(`${t.image} is not a valid identifier.`, t);
        name = t.image;
        break;
      default:
        throw this.unexpected(t, 'one of these patterns:\n    <ID>\n    "*"\n    "**"');
    }
    if (target.kind === 'list')
      throw this.err(`Found list literal: ${canonical(target)}. Expecting hash`, target);
    if (target.kind === 'str')
      throw this.err(`Found string literal: ${canonical(target)}. Expecting: hash`, target);
    if (target.kind === 'bool') throw this.err(`Found: ${canonical(target)}. Expecting hash`, target);
    return this.mk<A.Dot>(
      {
        kind: 'dot',
        target,
        name,
        beginLine: 0,
        beginColumn: 0,
        endLine: 0,
        endColumn: 0,
        templateName: this.name,
        calls: !!target.calls,
      },
      target,
      this.tokPos(t),
    );
  }

  private dynamicKey(target: A.Expr): A.Expr {
    this.lx.next();
    const key = this.expression();
    const end = this.expect('CLOSE_BRACKET');
    if (target.kind === 'bool') throw this.err(`Found: ${canonical(target)}. Expecting list or hash`, target);
    if (target.kind === 'num')
      throw this.err(`Found number literal: ${canonical(target)}. Expecting list or hash`, target);
    return this.mk<A.DynKey>(
      {
        kind: 'key',
        target,
        key,
        beginLine: 0,
        beginColumn: 0,
        endLine: 0,
        endColumn: 0,
        templateName: this.name,
        calls: !!(target.calls || key.calls),
      },
      target,
      this.tokPos(end),
    );
  }

  private methodArgs(target: A.Expr): A.Expr {
    this.lx.next();
    const args = this.positionalArgs();
    const end = this.expect('CLOSE_PAREN');
    if (
      target.kind === 'bi' &&
      !target.args &&
      !PARSE_TIME_PARAM_BUILTINS.has(target.name) &&
      !LAMBDA_BUILTINS.has(target.name)
    ) {
      // a built-in called directly: keep it one node (evaluated without creating a method value)
      const e = this.mk<A.BuiltInExpr>({ ...target, args }, target, this.tokPos(end));
      if (args.some((a) => a.calls) || target.name === 'eval' || target.name === 'interpret') e.calls = true;
      if (mayRunRegexOffThread(target.name, args)) e.calls = true;
      return e;
    }
    const e = this.mk<A.Call>(
      {
        kind: 'call',
        target,
        args,
        beginLine: 0,
        beginColumn: 0,
        endLine: 0,
        endColumn: 0,
        templateName: this.name,
        calls: true,
      },
      target,
      this.tokPos(end),
    );
    e.calls = true;
    return e;
  }

  private builtIn(target: A.Expr): A.Expr {
    this.lx.next();
    const t = this.lx.peek();
    if (t.t !== 'ID') throw this.unexpected(t, 'pattern:\n    <ID>');
    this.lx.next();
    this.checkNaming(t);
    const name = builtinName(t.image);
    if (name === undefined) throw this.err(unknownBuiltinMessage(t.image, this.shownNaming()), t);
    const e = this.mk<A.BuiltInExpr>(
      {
        kind: 'bi',
        target,
        name,
        args: undefined,
        outputFormat: undefined,
        beginLine: 0,
        beginColumn: 0,
        endLine: 0,
        endColumn: 0,
        templateName: this.name,
        calls: !!target.calls,
      },
      target,
      this.tokPos(t),
    );
    if (name === 'eval' || name === 'interpret' || name === 'eval_json') e.calls = true;
    if (LOOP_VAR_BUILTINS.has(name)) {
      if (target.kind !== 'id') {
        throw this.err(
          `Expression used as the left hand operand of ?${t.image} must be a simple loop variable name.`,
          target,
        );
      }
      this.checkLoopVar(target.name, target, t.image);
      return e;
    }
    if (BANNED_WHEN_AUTO_ESCAPING.has(name) && isMarkupFormat(this.outputFormat) && this.autoEscaping) {
      throw this.err(
        `Using ?${t.image} (legacy escaping) is not allowed when auto-escaping is on with a markup output format (${this.outputFormat}), to avoid double-escaping mistakes.`,
        t,
      );
    }
    if (MARKUP_FORMAT_BOUND.has(name)) {
      if (!isMarkupFormat(this.outputFormat)) {
        throw this.err(
          `?${t.image} can't be used here, as the current output format isn't a markup (escaping) format: ${outputFormatDescription(this.outputFormat)}`,
          t,
        );
      }
      e.outputFormat = this.outputFormat;
    }
    if (name === 'markup_string' || name === 'is_markup_output') e.outputFormat = this.outputFormat;
    if (PARSE_TIME_PARAM_BUILTINS.has(name) || LAMBDA_BUILTINS.has(name)) {
      const open = this.lx.peek();
      if (open.t !== 'OPEN_PAREN') throw this.unexpected(open, 'pattern:\n    "("');
      this.lx.next();
      const args = LAMBDA_BUILTINS.has(name) ? this.lambdaArgs() : this.positionalArgs();
      const close = this.expect('CLOSE_PAREN');
      const r = this.mk<A.BuiltInExpr>({ ...e, args }, target, this.tokPos(close));
      if (args.some((a) => a.calls)) r.calls = true;
      return r;
    }
    return e;
  }

  private lambdaArgs(): A.Expr[] {
    const out: A.Expr[] = [];
    const first = this.lx.peek().t;
    if (!EXPR_START.has(first)) return out;
    out.push(this.lambdaOrExpression());
    for (;;) {
      const t = this.lx.peek();
      if (t.t === 'COMMA') {
        this.lx.next();
        out.push(this.lambdaOrExpression());
        continue;
      }
      if (!EXPR_START.has(t.t)) break;
      out.push(this.lambdaOrExpression());
    }
    return out;
  }

  private lambdaOrExpression(): A.Expr {
    const lx = this.lx;
    const t0 = lx.peek(0);
    let params: string[] | null = null;
    let parens = false;
    if (t0.t === 'ID' && lx.peek(1).t === 'LAMBDA_ARROW') {
      lx.next();
      lx.next();
      params = [t0.image];
    } else if (t0.t === 'OPEN_PAREN') {
      // (a, b) -> …
      let k = 1;
      const names: string[] = [];
      let ok = true;
      if (lx.peek(k).t === 'ID') {
        names.push(lx.peek(k).image);
        k++;
        while (lx.peek(k).t === 'COMMA') {
          if (lx.peek(k + 1).t !== 'ID') {
            ok = false;
            break;
          }
          names.push(lx.peek(k + 1).image);
          k += 2;
        }
      }
      if (ok && lx.peek(k).t === 'CLOSE_PAREN' && lx.peek(k + 1).t === 'LAMBDA_ARROW') {
        for (let i = 0; i <= k + 1; i++) lx.next();
        params = names;
        parens = true;
      }
    }
    if (params === null) return this.expression();
    const body = this.expression();
    const e = this.mk<A.Lambda>(
      {
        kind: 'lambda',
        params,
        parens,
        body,
        beginLine: 0,
        beginColumn: 0,
        endLine: 0,
        endColumn: 0,
        templateName: this.name,
        calls: false,
      },
      this.tokPos(t0),
      body,
    );
    if (body.calls) e.calls = true;
    return e;
  }

  private defaultTo(target: A.Expr): A.Expr {
    const t = this.lx.next();
    let rhs: A.Expr | undefined;
    if (t.t === 'EXCLAM' && EXPR_START.has(this.lx.peek().t)) rhs = this.expression();
    const end = rhs ?? this.tokPos(t);
    const e = this.mk<A.DefaultTo>(
      {
        kind: 'default',
        target,
        rhs,
        beginLine: 0,
        beginColumn: 0,
        endLine: 0,
        endColumn: 0,
        templateName: this.name,
        calls: !!(target.calls || rhs?.calls),
      },
      target,
      end,
    );
    if (!rhs) {
      e.endLine = this.tokPos(t).beginLine;
      e.endColumn = this.tokPos(t).beginColumn;
    }
    return e;
  }

  private checkLoopVar(name: string, at: A.Pos, biName: string): void {
    for (let i = this.iterCtxs.length - 1; i >= 0; i--) {
      const ctx = this.iterCtxs[i];
      if (ctx.loopVar === name || ctx.loopVar2 === name) {
        if (ctx.kind === 'user') {
          throw this.err(
            `The left hand operand of ?${biName} can't be the loop variable of an user defined directive: ${name}`,
            at,
          );
        }
        return;
      }
    }
    throw this.err(
      `The left hand operand of ?${biName} must be a loop variable, but there's no loop variable in scope with this name: ${name}`,
      at,
    );
  }

  // ------------------------------------------------------------------ parse-time literal checks

  private numberLiteralOnly(e: A.Expr): void {
    if (e.kind === 'str') throw this.err(`Found string literal: ${canonical(e)}. Expecting: number`, e);
    if (e.kind === 'list') throw this.err(`Found list literal: ${canonical(e)}. Expecting number`, e);
    if (e.kind === 'hash') throw this.err(`Found hash literal: ${canonical(e)}. Expecting number`, e);
    if (e.kind === 'bool') throw this.err(`Found: ${canonical(e)}. Expecting number`, e);
  }

  private stringLiteralOnly(e: A.Expr): void {
    if (e.kind === 'num') throw this.err(`Found number literal: ${canonical(e)}. Expecting string`, e);
    if (e.kind === 'list') throw this.err(`Found list literal: ${canonical(e)}. Expecting string`, e);
    if (e.kind === 'hash') throw this.err(`Found hash literal: ${canonical(e)}. Expecting string`, e);
    if (e.kind === 'bool') throw this.err(`Found: ${canonical(e)}. Expecting string`, e);
  }

  private booleanLiteralOnly(e: A.Expr): void {
    if (e.kind === 'str')
      throw this.err(`Found string literal: ${canonical(e)}. Expecting: boolean (true/false)`, e);
    if (e.kind === 'list')
      throw this.err(`Found list literal: ${canonical(e)}. Expecting boolean (true/false)`, e);
    if (e.kind === 'hash')
      throw this.err(`Found hash literal: ${canonical(e)}. Expecting boolean (true/false)`, e);
    if (e.kind === 'num')
      throw this.err(`Found number literal: ${canonical(e)}. Expecting boolean (true/false)`, e);
  }
}

// Binary operator levels, loosest first (FTL.jj: OrExpression … MultiplicativeExpression)
const OR = 1;
const AND = 2;
const EQ = 3;
const REL = 4;
const RANGE = 5;
const ADD = 6;
const MUL = 7;

function opLevel(t: Tk): number {
  switch (t) {
    case 'OR':
      return OR;
    case 'AND':
      return AND;
    case 'NOT_EQUALS':
    case 'EQUALS':
    case 'DOUBLE_EQUALS':
      return EQ;
    case 'NATURAL_GTE':
    case 'ESCAPED_GTE':
    case 'NATURAL_GT':
    case 'ESCAPED_GT':
    case 'LESS_THAN_EQUALS':
    case 'LESS_THAN':
      return REL;
    case 'DOT_DOT_LESS':
    case 'DOT_DOT_ASTERISK':
    case 'DOT_DOT':
      return RANGE;
    case 'PLUS':
    case 'MINUS':
      return ADD;
    case 'TIMES':
    case 'DIVIDE':
    case 'PERCENT':
      return MUL;
  }
  return 0;
}

function relationOf(t: Tk): A.Cmp['relation'] {
  switch (t) {
    case 'NOT_EQUALS':
      return 'ne';
    case 'NATURAL_GTE':
    case 'ESCAPED_GTE':
      return 'ge';
    case 'NATURAL_GT':
    case 'ESCAPED_GT':
      return 'gt';
    case 'LESS_THAN_EQUALS':
      return 'le';
    case 'LESS_THAN':
      return 'lt';
  }
  return 'eq';
}

const STRING_COERCABLE = 'string or something automatically convertible to string (number, date or boolean)';

const SPECIAL_VAR_LIST = [
  'args',
  'auto_esc',
  'caller_template_name',
  'current_node',
  'current_template_name',
  'data_model',
  'error',
  'get_optional_template',
  'globals',
  'incompatible_improvements',
  'lang',
  'locale',
  'locale_object',
  'locals',
  'main',
  'main_template_name',
  'namespace',
  'node',
  'now',
  'output_encoding',
  'output_format',
  'pass',
  'template_name',
  'time_zone',
  'url_escaping_charset',
  'vars',
  'version',
];
const SPECIAL_VARS = withCamelCase(SPECIAL_VAR_LIST);

/** The names of `all` an error message lists for a naming convention (sorted like Java's String order). */
function namesIn(all: ReadonlySet<string>, naming: Naming): string[] {
  const excluded = naming === 'camel' ? 'legacy' : 'camel';
  return [...all].filter((n) => namingOf(n) !== excluded).sort();
}

/** Deep copy of `e` with every Identifier `name` replaced by `replacement` (#escape). */
function replaceIdentifier(e: A.Expr, name: string, replacement: A.Expr): A.Expr {
  if (e.kind === 'id') return e.name === name ? replacement : e;
  const copy: Record<string, unknown> = { ...e };
  for (const key of ['target', 'left', 'right', 'rhs', 'key', 'body']) {
    const c = copy[key] as A.Expr | undefined;
    if (c) copy[key] = replaceIdentifier(c, name, replacement);
  }
  if (e.kind === 'list') copy.items = e.items.map((i) => replaceIdentifier(i, name, replacement));
  if (e.kind === 'hash') {
    copy.keys = e.keys.map((i) => replaceIdentifier(i, name, replacement));
    copy.values = e.values.map((i) => replaceIdentifier(i, name, replacement));
  }
  if ((e.kind === 'call' || e.kind === 'bi') && e.args)
    copy.args = e.args.map((i) => replaceIdentifier(i, name, replacement));
  if (replacement.calls) copy.calls = true;
  return copy as unknown as A.Expr;
}

/** LineMap for text that starts at (line, col) of an enclosing template (string literal contents). */
/**
 * Positions inside a string literal's (unescaped) value, as StringLiteral.parseValue counts them:
 * the value's first line continues the template line at `col` (tab stops counted from the
 * template's column 1), its later lines start at column 1 on the lines after `line`.
 */
/** Records on the elements a directive module made (the element and its children of its kinds) which module it was. */
function markDirective(el: A.El, d: Directive): A.El {
  if (d.kinds.some((k) => k === el.kind)) el.madeBy = d;
  for (const c of el.children) if (c.madeBy === undefined && d.kinds.some((k) => k === c.kind)) c.madeBy = d;
  return el;
}

function offsetLineMap(text: string, line: number, col: number): LineMap {
  const inner = new LineMap(text);
  const m = Object.create(inner) as LineMap;
  m.line = (o: number) => inner.line(o) + line - 1;
  m.col = (o: number, l: number) => {
    const innerLine = l - line + 1;
    if (innerLine !== 1) return inner.col(o, innerLine);
    let c = col - 1;
    for (let i = 0; i <= o && i < text.length; i++) {
      c++;
      if (text.charCodeAt(i) === 9) {
        c--;
        c += 8 - (c % 8);
      }
    }
    if (o >= text.length) c += o - Math.max(0, text.length) + 1;
    return c;
  };
  m.pos = (o: number) => {
    const l = m.line(o);
    return [l, m.col(o, l)];
  };
  return m;
}

export function parseTemplate(src: string, opts: ParseOptions): A.ParsedTemplate {
  return new Parser(src, opts).parseRoot();
}

/** Parses a standalone expression (?eval); the whole text must be one expression. */
export function parseExpression(src: string, opts: ParseOptions): A.Expr {
  const p = new Parser(src, opts);
  const lx = p.lx;
  lx.state = 'FM_EXPRESSION';
  lx.postInterpolationState = 'DEFAULT';
  const e = p.expression();
  const t = lx.peek();
  if (t.t !== 'EOF') {
    throw new ParseError(
      `Encountered ${JSON.stringify(t.image)}, but was expecting the end of the expression.`,
      opts.name,
      ...lx.lines.pos(t.start),
    );
  }
  return e;
}

/** The built-ins taking a regular expression, and the index of their flags argument. */
const REGEX_FLAGS_ARG: Readonly<Record<string, number>> = dict({
  matches: -1,
  replace: 2,
  split: 1,
  keep_after: 1,
  keep_after_last: 1,
  keep_before: 1,
  keep_before_last: 1,
  ensure_starts_with: 2,
});

/**
 * Whether a call of built-in `name` may run its pattern in a regex worker (regex-worker.ts) and so
 * suspend like an asynchronous method: unless its flags are a literal without "r" (?matches is
 * always a regex), or its pattern is a literal without anything that becomes a back-reference or a
 * look-around.
 */
function mayRunRegexOffThread(name: string, args: A.Expr[]): boolean {
  const i = REGEX_FLAGS_ARG[name];
  if (i === undefined) return false;
  // ?matches, and ?ensure_starts_with with two arguments, always take a regular expression
  const always = i < 0 || (name === 'ensure_starts_with' && args.length === 2);
  const flags = i < 0 ? args[1] : args[i];
  const literalFlags = flags === undefined ? '' : flags.kind === 'str' && !flags.parts ? flags.value : null;
  if (!always && literalFlags !== null && !literalFlags.includes('r')) return false;
  const pattern = args[0];
  if (pattern === undefined || pattern.kind !== 'str' || pattern.parts) return true;
  if (name === 'matches' && (literalFlags === null || literalFlags.includes('m'))) return true;
  return MAY_NEED_WORKER.test(pattern.value);
}
// back-references, look-arounds, and \A \z \Z, atomic groups and possessive quantifiers, which
// the Java translation turns into look-arounds (regex.ts)
const MAY_NEED_WORKER = /\\[1-9AzZk]|\(\?<?[=!>]|[*+?}]\+/;
