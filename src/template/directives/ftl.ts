/**
 * The #ftl header (FreeMarker's HeaderElement): the template's own settings (encoding,
 * strip_whitespace, strip_text, strict_syntax, auto_esc, output_format, ns_prefixes, attributes),
 * read before the template's content. It makes no element.
 */
import type * as A from '../ast.js';
import { canonical } from '../canonical.js';
import { constantValue } from '../constant-value.js';
import { dict } from '../dict.js';
import type { Token } from '../lexer.js';
import {
  isMarkupFormat,
  outputFormatByName,
  outputFormatDescription,
  unregisteredOutputFormatMessage,
} from '../output-formats.js';
import type { Directive, DirectiveParser } from './types.js';

/** What the header sets on the parser besides the DirectiveParser surface. */
export interface HeaderParser extends DirectiveParser {
  stripWhitespace: boolean;
  /** Static text of the top level is dropped. */
  stripText: boolean;
  autoEscapingPolicy: boolean;
  /** The `attributes` hash of the header (the template's custom attributes). */
  readonly attributes: Record<string, unknown>;
}

/** Parses the header; the FTL_HEADER token is the next one. */
export function parseHeader(p: HeaderParser): void {
  const start = p.lx.next();
  if (start.form !== 'blank') return;
  for (;;) {
    const t = p.lx.peek();
    if (t.t !== 'ID') break;
    p.lx.next();
    p.expect('EQUALS');
    const exp = p.expression();
    p.checkNaming(t);
    const key = t.image;
    const ks = key.toLowerCase();
    const value = constantValue(exp);
    if (ks === 'encoding') {
      if (typeof value !== 'string') throw p.err(`Expected a string constant for "${key}".`, exp);
    } else if (ks === 'strip_whitespace' || key === 'stripWhitespace') {
      p.stripWhitespace = headerBoolean(p, exp, value);
    } else if (ks === 'strip_text' || key === 'stripText') {
      p.stripText = headerBoolean(p, exp, value);
    } else if (ks === 'strict_syntax' || key === 'strictSyntax') {
      p.lx.strictSyntax = headerBoolean(p, exp, value);
    } else if (ks === 'auto_esc' || key === 'autoEsc') {
      p.autoEscapingPolicy = headerBoolean(p, exp, value);
      p.autoEscaping = p.autoEscapingPolicy && isMarkupFormat(p.outputFormat);
      if (p.autoEscapingPolicy && !isMarkupFormat(p.outputFormat)) {
        throw p.err(
          `The current output format can't do escaping: ${outputFormatDescription(p.outputFormat)}`,
          p.tokPos(t),
        );
      }
    } else if (ks === 'output_format' || key === 'outputFormat') {
      if (typeof value !== 'string') throw p.err(`Expected a string constant for "${key}".`, exp);
      const f = outputFormatByName(value);
      if (!f) throw p.err(unregisteredOutputFormatMessage(value), exp);
      p.outputFormat = f.name;
      p.autoEscaping = p.autoEscapingPolicy && isMarkupFormat(p.outputFormat);
    } else if (ks === 'ns_prefixes' || key === 'nsPrefixes') {
      if (exp.kind !== 'hash') throw p.err("Expecting a hash of prefixes to namespace URI's.", exp);
    } else if (ks === 'attributes') {
      if (exp.kind !== 'hash') throw p.err('Expecting a hash of attribute names to values.', exp);
      exp.keys.forEach((k, i) => {
        p.attributes[String(constantValue(k))] = constantValue(exp.values[i]);
      });
    } else {
      const correct: Record<string, string> = dict({
        charset: 'encoding',
        xmlns: 'ns_prefixes',
        auto_escape: 'auto_esc',
        auto_escaping: 'auto_esc',
        autoesc: 'auto_esc',
        autoEscape: 'autoEsc',
        autoEscaping: 'autoEsc',
      });
      throw p.err(
        `Unknown FTL header parameter: ${key}${correct[key] ? '. You may meant: ' + correct[key] : ''}`,
        t,
      );
    }
  }
  p.looseDirectiveEnd();
}

function headerBoolean(p: DirectiveParser, exp: A.Expr, value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const v = value.toLowerCase();
    if (['y', 'yes', 'true', 't'].includes(v)) return true;
    if (['n', 'no', 'false', 'f'].includes(v)) return false;
    throw p.err(
      `Illegal boolean value: ${value}\nExpecting boolean (true/false), found: ${canonical(exp)}`,
      exp,
    );
  }
  throw p.err('Expecting boolean (true/false) parameter', exp);
}

/**
 * The #ftl tag (the lexer reads it as FTL_HEADER, which only parseRoot takes; elsewhere it ends
 * the block like a stray end tag). Its parse function guards a DIRECTIVE token named ftl.
 */
// `any`: it makes no element (a Directive<never> would not fit the table's Directive<any>)
export const ftl: Directive<any> = {
  startTags: { ftl: 'blank|close2' },
  kinds: [],
  parse: (p: DirectiveParser, t: Token) => {
    throw p.err(
      `Encountered ${JSON.stringify(t.image.trimEnd())}, but the #ftl header is only allowed at the beginning of the template.`,
      t,
    );
  },
  compile: () => {
    throw new Error('#ftl makes no element');
  },
  stackLabel: () => null,
};
