/**
 * FreeMarker's white-space stripping (TemplateElement/TextBlock.postParseCleanup), replicated step
 * by step on the same tree shape: lines that hold only FTL tags lose their indentation and line
 * break, #t/#lt/#rt trim deliberately, #nt disables it, and whitespace-only text between
 * non-outputting directives is dropped.
 */
import type { El, TextEl } from './ast.js';
import { NON_OUTPUTTING_KINDS } from './directives/index.js';

/** Java's String.trim() notion of blank (chars up to U+0020). */
function isTrimmableToEmpty(s: string, from = 0, to = s.length): boolean {
  for (let i = from; i < to; i++) if (s.charCodeAt(i) > 32) return false;
  return true;
}

/** Java's Character.isWhitespace. */
function isJavaWhitespace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13) || (c >= 0x1c && c <= 0x1f);
  if (c === 0x1680 || (c >= 0x2000 && c <= 0x2006) || (c >= 0x2008 && c <= 0x200a)) return true;
  return c === 0x2028 || c === 0x2029 || c === 0x205f || c === 0x3000;
}

function isLeaf(e: El): boolean {
  return e.children.length === 0;
}

function previousSibling(e: El): El | null {
  return e.parent && e.index > 0 ? e.parent.children[e.index - 1] : null;
}

function nextSibling(e: El): El | null {
  return e.parent && e.index + 1 < e.parent.children.length ? e.parent.children[e.index + 1] : null;
}

function firstLeaf(e: El): El {
  let te = e;
  while (!isLeaf(te) && te.kind !== 'macro' && te.kind !== 'blockAssign') te = te.children[0];
  return te;
}

function lastLeaf(e: El): El {
  let te = e;
  while (!isLeaf(te) && te.kind !== 'macro' && te.kind !== 'blockAssign')
    te = te.children[te.children.length - 1];
  return te;
}

function prevTerminalNode(e: El): El | null {
  const prev = previousSibling(e);
  if (prev) return lastLeaf(prev);
  return e.parent ? prevTerminalNode(e.parent) : null;
}

function nextTerminalNode(e: El): El | null {
  const next = nextSibling(e);
  if (next) return firstLeaf(next);
  return e.parent ? nextTerminalNode(e.parent) : null;
}

function isTopLevelTextIfParentIs(parent: El | null): boolean {
  return parent === null || (parent.parent === null && parent.kind === 'mixed');
}

function nonOutputtingType(e: El | null): boolean {
  return e !== null && NON_OUTPUTTING_KINDS.has(e.kind);
}

function isIgnorable(e: El, stripWhitespace: boolean): boolean {
  if (e.kind === 'trim') return true;
  if (e.kind === 'autoEsc' || e.kind === 'outputFormat' || e.kind === 'escape' || e.kind === 'noEscape')
    return e.children.length === 0;
  if (e.kind !== 'text') return false;
  const text = e.text;
  if (text.length === 0) return true;
  if (!stripWhitespace || !isTrimmableToEmpty(text)) return false;
  const atTopLevel = isTopLevelTextIfParentIs(e.parent);
  const prev = previousSibling(e);
  const next = nextSibling(e);
  return (
    ((prev === null && atTopLevel) || nonOutputtingType(prev)) &&
    ((next === null && atTopLevel) || nonOutputtingType(next))
  );
}

function heedsTrailingWhitespace(e: El): boolean {
  if (e.kind === 'interp') return true;
  if (e.kind !== 'text') return false;
  if (isIgnorable(e, true)) return false;
  const t = e.text;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c === 10 || c === 13) return false;
    if (!isJavaWhitespace(c)) return true;
  }
  return true;
}

function heedsOpeningWhitespace(e: El): boolean {
  if (e.kind === 'interp') return true;
  if (e.kind !== 'text') return false;
  if (isIgnorable(e, true)) return false;
  const t = e.text;
  for (let i = t.length - 1; i >= 0; i--) {
    const c = t.charCodeAt(i);
    if (c === 10 || c === 13) return false;
    if (!isJavaWhitespace(c)) return true;
  }
  return true;
}

function firstNewLineIndex(t: string): number {
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c === 13 || c === 10) return i;
  }
  return -1;
}

function lastNewLineIndex(t: string): number {
  for (let i = t.length - 1; i >= 0; i--) {
    const c = t.charCodeAt(i);
    if (c === 13 || c === 10) return i;
  }
  return -1;
}

function deliberateLeftTrim(e: TextEl): boolean {
  let result = false;
  for (
    let elem = nextTerminalNode(e);
    elem !== null && elem.beginLine === e.endLine;
    elem = nextTerminalNode(elem)
  ) {
    if (elem.kind !== 'trim') continue;
    if (!elem.left && !elem.right) result = true;
    if (elem.left) {
      result = true;
      const lastNl = lastNewLineIndex(e.text);
      if (lastNl >= 0 || e.beginColumn === 1) {
        const firstPart = e.text.slice(0, lastNl + 1);
        const lastLine = e.text.slice(lastNl + 1);
        if (isTrimmableToEmpty(lastLine)) {
          e.text = firstPart;
          e.endColumn = 0;
        } else {
          let i = 0;
          while (isJavaWhitespace(lastLine.charCodeAt(i))) i++;
          e.text = firstPart + lastLine.slice(i);
        }
      }
    }
  }
  return result;
}

function deliberateRightTrim(e: TextEl): boolean {
  let result = false;
  for (
    let elem = prevTerminalNode(e);
    elem !== null && elem.endLine === e.beginLine;
    elem = prevTerminalNode(elem)
  ) {
    if (elem.kind !== 'trim') continue;
    if (!elem.left && !elem.right) result = true;
    if (elem.right) {
      result = true;
      const text = e.text;
      let firstLineIndex = firstNewLineIndex(text) + 1;
      if (firstLineIndex === 0) return false;
      if (
        text.length > firstLineIndex &&
        text.charCodeAt(firstLineIndex - 1) === 13 &&
        text.charCodeAt(firstLineIndex) === 10
      ) {
        firstLineIndex++;
      }
      let trailingPart = text.slice(firstLineIndex);
      const openingPart = text.slice(0, firstLineIndex);
      if (isTrimmableToEmpty(openingPart)) {
        e.text = trailingPart;
        e.beginLine++;
        e.beginColumn = 1;
      } else {
        let lastNonWS = openingPart.length - 1;
        while (isJavaWhitespace(text.charCodeAt(lastNonWS))) lastNonWS--;
        const printablePart = text.slice(0, lastNonWS + 1);
        if (isTrimmableToEmpty(trailingPart)) {
          let trimTrailingPart = true;
          for (
            let te = nextTerminalNode(e);
            te !== null && te.beginLine === e.endLine;
            te = nextTerminalNode(te)
          ) {
            if (heedsOpeningWhitespace(te)) trimTrailingPart = false;
            if (te.kind === 'trim' && te.left) {
              trimTrailingPart = true;
              break;
            }
          }
          if (trimTrailingPart) trailingPart = '';
        }
        e.text = printablePart + trailingPart;
      }
    }
  }
  return result;
}

function openingCharsToStrip(e: TextEl): number {
  const text = e.text;
  let newlineIndex = firstNewLineIndex(text);
  if (newlineIndex === -1 && e.beginColumn !== 1) return 0;
  ++newlineIndex;
  if (
    text.length > newlineIndex &&
    newlineIndex > 0 &&
    text.charCodeAt(newlineIndex - 1) === 13 &&
    text.charCodeAt(newlineIndex) === 10
  ) {
    ++newlineIndex;
  }
  if (!isTrimmableToEmpty(text, 0, newlineIndex)) return 0;
  for (
    let elem = prevTerminalNode(e);
    elem !== null && elem.endLine === e.beginLine;
    elem = prevTerminalNode(elem)
  ) {
    if (heedsOpeningWhitespace(elem)) return 0;
  }
  return newlineIndex;
}

function trailingCharsToStrip(e: TextEl): number {
  const text = e.text;
  const lastNl = lastNewLineIndex(text);
  if (lastNl === -1 && e.beginColumn !== 1) return 0;
  if (!isTrimmableToEmpty(text, lastNl + 1)) return 0;
  for (
    let elem = nextTerminalNode(e);
    elem !== null && elem.beginLine === e.endLine;
    elem = nextTerminalNode(elem)
  ) {
    if (heedsTrailingWhitespace(elem)) return 0;
  }
  return text.length - (lastNl + 1);
}

function cleanupText(e: TextEl, strip: boolean, hasTrim: boolean): El {
  if (e.text.length === 0) return e;
  const left = hasTrim && deliberateLeftTrim(e);
  const right = hasTrim && deliberateRightTrim(e);
  if (!strip || e.text.length === 0) return e;
  if (isTopLevelTextIfParentIs(e.parent) && previousSibling(e) === null) return e;
  let trailing = 0;
  let opening = 0;
  if (!left) trailing = trailingCharsToStrip(e);
  if (!right) opening = openingCharsToStrip(e);
  if (opening === 0 && trailing === 0) return e;
  e.text = e.text.slice(opening, e.text.length - trailing);
  if (opening > 0) {
    e.beginLine++;
    e.beginColumn = 1;
  }
  if (trailing > 0) e.endColumn = 0;
  return e;
}

/**
 * Runs the cleanup on the tree; returns the (possibly replaced) root. `hasTrim` false (no
 * #t/#lt/#rt/#nt in the template) skips the deliberate-trim searches, which would find nothing.
 */
export function postParseCleanup(e: El, strip: boolean, hasTrim = true): El {
  if (e.kind === 'text') return cleanupText(e, strip, hasTrim);
  if (e.kind === 'if' && e.children.length === 1) {
    // an #if without #else/#elseif is represented by its only conditional block
    const cb = e.children[0];
    cb.endLine = e.endLine;
    cb.endColumn = e.endColumn;
    const r = postParseCleanup(cb, strip, hasTrim);
    return r;
  }
  const ch = e.children;
  for (let i = 0; i < ch.length; i++) {
    const c = postParseCleanup(ch[i], strip, hasTrim);
    ch[i] = c;
    c.parent = e;
    c.index = i;
  }
  for (let i = 0; i < ch.length; i++) {
    if (isIgnorable(ch[i], strip)) {
      ch.splice(i, 1);
      for (let j = i; j < ch.length; j++) ch[j].index = j;
      i--;
    }
  }
  if (e.kind === 'mixed' && ch.length === 1) {
    const only = ch[0];
    only.parent = e.parent;
    only.index = e.index;
    return only;
  }
  return e;
}
