/** ?truncate and its variants (FreeMarker 2.3.31's DefaultTruncateBuiltinAlgorithm). */
import type * as A from '../ast.js';
import { stringTarget } from '../ops.js';
import { escapeXhtml, escaperOf } from '../output-formats.js';
import type { Env } from '../runtime.js';
import { MarkupOutput } from '../values.js';
import { argInt, argString, biError, builtInFamily, checkArgs } from './registry.js';
import { isJavaWhitespace } from './strings.js';

const { def, records } = builtInFamily();

function str(env: Env, t: unknown, node: A.BuiltInExpr): string {
  return stringTarget(env, t, node.target, node.name);
}

// ------------------------------------------------------------------ truncation (DefaultTruncateBuiltinAlgorithm.ASCII_INSTANCE)

const DEFAULT_TERMINATOR = '[...]';
const WORD_BOUNDARY_MIN_LENGTH = 0.75;

type TruncMode = 'auto' | 'word' | 'char';

function truncateString(
  s: string,
  maxLength: number,
  terminator: string,
  termLen: number,
  mode: TruncMode,
): string | null {
  if (s.length <= maxLength) return s;
  const removesDots = terminator.startsWith('.') || terminator.startsWith('\u2026');
  const body = truncateBody(s, maxLength, termLen, removesDots, mode);
  if (body === null || body.length === 0) return null;
  return body + terminator;
}

const isDot = (c: string): boolean => c === '.' || c === '\u2026';
const isWS = (c: string | undefined): boolean => c !== undefined && isJavaWhitespace(c.charCodeAt(0));

function truncateBody(
  s: string,
  maxLength: number,
  termLen: number,
  removesDots: boolean,
  mode: TruncMode,
): string | null {
  const cbInitial = maxLength - termLen - 1;
  let cb = cbInitial;
  while (cb >= 0 && isWS(s[cb])) cb--;
  if (cb < 0) return null;
  if ((mode === 'auto' && WORD_BOUNDARY_MIN_LENGTH < 1) || mode === 'word') {
    let truncated: string | null = null;
    const wordTermLen = termLen + 1;
    const minIdx =
      mode === 'auto' ? Math.max(Math.ceil(maxLength * WORD_BOUNDARY_MIN_LENGTH) - wordTermLen - 1, 0) : 0;
    let wb = Math.min(maxLength - wordTermLen - 1, cb);
    let followingWS = s.length > wb + 1 ? isWS(s[wb + 1]) : true;
    while (wb >= minIdx) {
      const curWS = isWS(s[wb]);
      if (!curWS && followingWS) {
        truncated = s.slice(0, wb + 1) + ' ';
        break;
      }
      followingWS = curWS;
      wb--;
    }
    if (truncated !== null || mode === 'word') return truncated;
  }
  const isWordEnd = (i: number): boolean => i + 1 >= s.length || isWS(s[i + 1]);
  if (cb === cbInitial && isWordEnd(cb)) {
    cb--;
    if (cb < 0) return null;
  }
  let skipped: boolean;
  do {
    skipped = false;
    while (cb >= 0 && isWS(s[cb])) cb--;
    if (cb < 0) return null;
    if (isDot(s[cb]) && !isWordEnd(cb) && removesDots) {
      while (cb >= 0 && isDot(s[cb])) cb--;
      if (cb < 0) return null;
      skipped = true;
    }
  } while (skipped);
  return s.slice(0, cb + 1) + (isWordEnd(cb) ? ' ' : '');
}

/** truncate_m's default terminator: HTML markup whatever the output format (FreeMarker's ASCII_INSTANCE). */
const DEFAULT_M_TERMINATOR = "<span class='truncateTerminator'>[&#8230;]</span>";

function truncDef(name: string, mode: TruncMode, markup: boolean): void {
  def(name, {
    call: (env, t, a, n) => {
      const s = str(env, t, n);
      checkArgs(n, a, 1, 3);
      const max = argInt(n, a, 0);
      if (max < 0) throw biError(n, `?${name}(...) argument #1 can't be negative.`);
      let terminator = DEFAULT_TERMINATOR;
      let markupTerm: MarkupOutput | null = null;
      if (a.length > 1) {
        if (markup && a[1] instanceof MarkupOutput) markupTerm = a[1];
        else terminator = argString(n, a, 1);
      } else if (markup) {
        markupTerm = new MarkupOutput('HTML', undefined, DEFAULT_M_TERMINATOR, escapeXhtml);
      }
      if (s.length <= max) return s;
      if (markupTerm) {
        const termLen = a.length > 2 ? argInt(n, a, 2) : visibleLength(markupTerm.markup);
        const removesDots = /^[.\u2026]/.test(
          markupTerm.markup.replace(/<[^>]*>/g, '').replace(/&#8230;|&hellip;/g, '\u2026'),
        );
        const body = truncateBody(s, max, termLen, removesDots, mode);
        if (body === null || body.length === 0) return markupTerm;
        const esc = escaperOf(markupTerm.format);
        return new MarkupOutput(markupTerm.format, undefined, esc(body) + markupTerm.markup, esc);
      }
      const termLen = a.length > 2 ? argInt(n, a, 2) : terminator.length;
      return truncateString(s, max, terminator, termLen, mode) ?? terminator;
    },
  });
}
truncDef('truncate', 'auto', false);
truncDef('truncate_w', 'word', false);
truncDef('truncate_c', 'char', false);
truncDef('truncate_m', 'auto', true);
truncDef('truncate_w_m', 'word', true);
truncDef('truncate_c_m', 'char', true);

function visibleLength(markup: string): number {
  return markup.replace(/<[^>]*>/g, '').replace(/&[^;]*;/g, 'x').length;
}

export const TRUNCATE_BUILT_INS = records;
