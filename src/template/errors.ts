/**
 * Every failure of parsing or rendering is a TemplateError carrying the template name, the line and
 * column, the blamed expression (FreeMarker's canonical form) and, where FreeMarker has one, its
 * wording, so a script writer recognises the message.
 */

export class TemplateError extends Error {
  templateName: string;
  line: number;
  column: number;
  expression?: string;
  override cause?: unknown;
  /** FreeMarker's exception class name (InvalidReferenceException, ParseException …). */
  kind: string;
  /** The message without the location block. */
  description: string;
  endLine?: number;
  endColumn?: number;
  /** FreeMarker's "FTL stack trace" lines, when known. */
  ftlStack?: string[];

  constructor(
    message: string,
    opts: {
      templateName: string;
      line: number;
      column: number;
      expression?: string;
      cause?: unknown;
      kind?: string;
      description?: string;
      endLine?: number;
      endColumn?: number;
    },
  ) {
    super(message);
    this.name = 'TemplateError';
    this.templateName = opts.templateName;
    this.line = opts.line;
    this.column = opts.column;
    if (opts.expression !== undefined) this.expression = opts.expression;
    if (opts.cause !== undefined) this.cause = opts.cause;
    this.kind = opts.kind ?? 'TemplateException';
    this.description = opts.description ?? message;
    if (opts.endLine !== undefined) this.endLine = opts.endLine;
    if (opts.endColumn !== undefined) this.endColumn = opts.endColumn;
  }
}

export class ParseError extends TemplateError {
  constructor(
    description: string,
    templateName: string,
    line: number,
    column: number,
    endLine?: number,
    endColumn?: number,
  ) {
    super(
      `Syntax error in template ${quoteName(templateName)} in line ${line}, column ${column}:\n${description}`,
      {
        templateName,
        line,
        column,
        kind: 'ParseException',
        description,
        endLine,
        endColumn,
      },
    );
  }
}

export function quoteName(name: string): string {
  return JSON.stringify(name);
}

export function locationText(templateName: string, line: number, column: number): string {
  return `[in template ${quoteName(templateName)} at line ${line}, column ${column}]`;
}

export const TIP_MISSING =
  "If the failing expression is known to legally refer to something that's sometimes null or missing, either specify a default value like myOptionalVar!myDefault, or use <#if myOptionalVar??>when-present<#else>when-missing</#if>. (These only cover the last step of the expression; to cover the whole expression, use parenthesis: (myOptionalVar.foo)!myDefault, (myOptionalVar.foo)??";

export function withTips(text: string, tips: string[]): string {
  if (!tips.length) return text;
  return text + '\n\n' + tips.map((t) => `----\nTip: ${t}\n`).join('') + '----';
}

/** Java's StringUtil.jQuote: a double-quoted string with Java escapes. */
export function jQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\f') out += '\\f';
    else if (ch === '\b') out += '\\b';
    else if (c < 0x20) out += '\\u' + c.toString(16).toUpperCase().padStart(4, '0');
    else out += ch;
  }
  return out + '"';
}

/** Signals used for control flow; never escape a render. */
export class BreakSignal {}
export class ContinueSignal {}
/** What #break and #continue throw (the loops compare with these instances). */
export const BREAK = new BreakSignal();
export const CONTINUE = new ContinueSignal();
export class ReturnSignal {
  constructor(readonly value: unknown) {}
}

/**
 * What a caught value says: an Error's message, anything else as text. The template's own copy of
 * `errors/errorMessage`: one module more would cost `flowmark render` its start-up budget
 * (test/cli/startup.test.ts counts the modules a render loads).
 */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
