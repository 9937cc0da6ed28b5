/**
 * Markdown to a complete, sanitised HTML document. marked renders GitHub-flavoured Markdown;
 * sanitize-html then keeps only harmless markup (no script, style, event handlers or
 * javascript: URLs), so user content cannot inject script into the page.
 */
import { createRequire } from 'node:module';
import type { Marked } from 'marked';
import type sanitizeHtmlType from 'sanitize-html';

// marked (ES modules only, its rules built when it loads) loads with the first conversion, not at startup.
let marked: Promise<Marked> | undefined;

function markdownParser(): Promise<Marked> {
  return (marked ??= import('marked').then(({ Marked }) => new Marked({ gfm: true, async: false })));
}

// sanitize-html (and its HTML parser) loads with the first conversion, not at startup.
const require = createRequire(import.meta.url);
let sanitizer: { sanitize: typeof sanitizeHtmlType; options: sanitizeHtmlType.IOptions } | undefined;

function sanitize(html: string): string {
  if (!sanitizer) {
    const sanitizeHtml = require('sanitize-html') as typeof sanitizeHtmlType;
    sanitizer = { sanitize: sanitizeHtml, options: sanitizeOptions(sanitizeHtml) };
  }
  return sanitizer.sanitize(html, sanitizer.options);
}

const sanitizeOptions = (sanitizeHtml: typeof sanitizeHtmlType): sanitizeHtmlType.IOptions => ({
  allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'del', 'input'],
  allowedAttributes: {
    ...sanitizeHtml.defaults.allowedAttributes,
    a: ['href', 'name', 'title'],
    input: ['type', 'checked', 'disabled'],
    th: ['align'],
    td: ['align'],
    ol: ['start'],
    code: ['class'],
  },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesByTag: { img: ['http', 'https', 'data'] },
  // Task-list checkboxes only.
  exclusiveFilter: (frame) => frame.tag === 'input' && frame.attribs.type !== 'checkbox',
});

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A stylesheet address (http(s), protocol-relative, or a relative path ending in .css) rather than CSS text. */
const STYLESHEET_URL = /^(?:(?:https?:)?\/\/[^\s"'<>]+|[^\s"'<>{}:;]+\.css(?:\?[^\s"'<>]*)?)$/i;

function stylesheet(css: string): string {
  const trimmed = css.trim();
  if (trimmed === '') return '';
  if (STYLESHEET_URL.test(trimmed)) return `<link rel="stylesheet" href="${escapeHtml(trimmed)}">\n`;
  // `<` cannot end the style element once written as a CSS escape.
  return `<style>\n${trimmed.replace(/</g, '\\3c ')}\n</style>\n`;
}

export async function markdownToHtml(
  content: string,
  options: { css?: string; title?: string },
): Promise<string> {
  const body = sanitize((await markdownParser()).parse(content) as string);
  return (
    '<!DOCTYPE html>\n<html>\n<head>\n<meta charset="UTF-8">\n' +
    `<title>${escapeHtml(options.title ?? '')}</title>\n` +
    stylesheet(options.css ?? '') +
    `</head>\n<body>\n${body.trim()}\n</body>\n</html>\n`
  );
}
