/**
 * FreeMarker's "FTL stack trace" under an error message: the instruction that failed, the
 * directives it is nested in ("~"), and the macro calls it was reached through ("-"). Built only
 * when an error occurs, from the element tree and the call frames being unwound.
 */
import type * as A from './ast.js';
import { canonical } from './canonical.js';
import { TemplateError, locationText } from './errors.js';

/** The element tree of each template that ran, by name (to find where an error happened). */
export type UnitRoots = Map<string, A.El>;

/** How FreeMarker describes an instruction in the stack trace (null: not shown). */
export function elDescription(el: A.El): string | null {
  if (el.madeBy !== undefined) return el.madeBy.stackLabel(el);
  switch (el.kind) {
    case 'interp':
      return el.numeric ? `#{${canonical(el.expr)}}` : `\${${canonical(el.expr)}}`;
    default:
      return null;
  }
}

function contains(el: A.El, line: number, col: number): boolean {
  if (line < el.beginLine || line > el.endLine) return false;
  if (line === el.beginLine && col < el.beginColumn) return false;
  if (line === el.endLine && el.endColumn > 0 && col > el.endColumn) return false;
  return true;
}

/** The innermost shown element containing (line, column). */
function innermost(root: A.El, line: number, col: number): A.El | null {
  let best: A.El | null = null;
  const visit = (el: A.El): void => {
    if (!contains(el, line, col)) return;
    if (elDescription(el) !== null) best = el;
    for (const c of el.children) visit(c);
  };
  visit(root);
  return best;
}

function enclosingMacro(el: A.El): A.MacroEl | null {
  for (let p: A.El | null = el.parent; p; p = p.parent) if (p.kind === 'macro') return p;
  return null;
}

export function elLocation(el: A.El): string {
  const m = enclosingMacro(el);
  const where = m ? ` in ${m.isFunction ? 'function' : 'macro'} ${JSON.stringify(m.name)}` : '';
  return locationText(el.templateName ?? 'template', el.beginLine, el.beginColumn).replace(
    ' at line',
    `${where} at line`,
  );
}

/** Lines for `el` and the directives it is nested in, up to its macro or the template root. */
export function lexicalChain(el: A.El, first: string): string[] {
  const out: string[] = [];
  let marker = first;
  for (let e: A.El | null = el; e && e.kind !== 'macro'; e = e.parent) {
    const d = elDescription(e);
    if (d === null) continue;
    out.push(`${marker} ${d}  ${elLocation(e)}`);
    marker = '~ Reached through:';
  }
  return out;
}

/** Gives the error its "Failed at" part (once), from where it happened. */
export function ensureStack(err: TemplateError, roots: UnitRoots): void {
  if (err.ftlStack) return;
  err.ftlStack = [];
  const root = roots.get(err.templateName);
  if (!root || !err.line) return;
  const el = innermost(root, err.line, err.column);
  if (el) {
    err.ftlStack.push(...lexicalChain(el, '- Failed at:'));
    if (err.expression === undefined && err.kind !== 'ParseException') {
      err.line = el.beginLine;
      err.column = el.beginColumn;
    }
  }
  refreshMessage(err);
}

/** Records that the error was reached through a macro call or #include at `site`. */
export function addReachedThrough(err: TemplateError, roots: UnitRoots, site: A.El): void {
  ensureStack(err, roots);
  err.ftlStack!.push(...lexicalChain(site, '- Reached through:'));
  refreshMessage(err);
}

const baseMessages = new WeakMap<TemplateError, string>();

function refreshMessage(err: TemplateError): void {
  let base = baseMessages.get(err);
  if (base === undefined) {
    base = err.message;
    baseMessages.set(err, base);
  }
  err.message = base + stackText(err.ftlStack ?? []);
}

export function stackText(lines: string[]): string {
  if (!lines.length) return '';
  return (
    '\n\n----\nFTL stack trace ("~" means nesting-related):\n' +
    lines.map((l) => '\t' + l).join('\n') +
    '\n----'
  );
}
