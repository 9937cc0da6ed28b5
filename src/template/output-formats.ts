/** FreeMarker's output formats: which ones are markup (auto-escaping) and how they escape. */
import { dict } from './dict.js';

export interface OutputFormatDef {
  name: string;
  markup: boolean;
  mimeType: string | null;
  escape?: (s: string) => string;
}

/**
 * Replaces < > & " ' by their entities (the apostrophe as `apos`, XML's, or `#39`, HTML's): one
 * scan of char codes, and the string itself back when nothing needs escaping (the usual case).
 */
function escapeMarkup(s: string, apos: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 62) continue;
    const e =
      c === 60 ? '&lt;' : c === 62 ? '&gt;' : c === 38 ? '&amp;' : c === 34 ? '&quot;' : c === 39 ? apos : '';
    if (e === '') continue;
    out += s.slice(from, i) + e;
    from = i + 1;
  }
  return from === 0 ? s : out + s.slice(from);
}

export function escapeXhtml(s: string): string {
  return escapeMarkup(s, '&#39;');
}

export function escapeXml(s: string): string {
  return escapeMarkup(s, '&apos;');
}

export function escapeRtf(s: string): string {
  if (!/[\\{}]/.test(s)) return s;
  return s.replace(/[\\{}]/g, (c) => '\\' + c);
}

const FORMATS: OutputFormatDef[] = [
  { name: 'undefined', markup: false, mimeType: null },
  { name: 'plainText', markup: false, mimeType: 'text/plain' },
  { name: 'HTML', markup: true, mimeType: 'text/html', escape: escapeXhtml },
  { name: 'XHTML', markup: true, mimeType: 'application/xhtml+xml', escape: escapeXhtml },
  { name: 'XML', markup: true, mimeType: 'application/xml', escape: escapeXml },
  { name: 'RTF', markup: true, mimeType: 'application/rtf', escape: escapeRtf },
  { name: 'JavaScript', markup: false, mimeType: 'application/javascript' },
  { name: 'JSON', markup: false, mimeType: 'application/json' },
  { name: 'CSS', markup: false, mimeType: 'text/css' },
];

const BY_NAME = new Map(FORMATS.map((f) => [f.name, f]));
/** Configuration class names accepted by the output_format setting (HTMLOutputFormat …). */
const BY_CLASS = new Map(
  FORMATS.map((f) => [
    (f.name === 'undefined' ? 'Undefined' : f.name === 'plainText' ? 'PlainText' : f.name) + 'OutputFormat',
    f,
  ]),
);

export function outputFormatByName(name: string): OutputFormatDef | undefined {
  return BY_NAME.get(name) ?? BY_CLASS.get(name) ?? BY_CLASS.get(name.replace(/^freemarker\.core\./, ''));
}

export function isMarkupFormat(name: string): boolean {
  return BY_NAME.get(name)?.markup === true;
}

export function escaperOf(name: string): (s: string) => string {
  const f = BY_NAME.get(name);
  if (!f || !f.escape) throw new Error(`not a markup output format: ${name}`);
  return f.escape;
}

/** Output format chosen by the template name, like recognize_standard_file_extensions. */
export function formatForTemplateName(name: string): string | undefined {
  if (name.endsWith('.ftlh')) return 'HTML';
  if (name.endsWith('.ftlx')) return 'XML';
  return undefined;
}

/** FreeMarker's error for an output format name it does not know (the registered names in Java's order). */
export function unregisteredOutputFormatMessage(name: string): string {
  const names = FORMATS.map((f) => JSON.stringify(f.name)).sort();
  return `Unregistered output format name, ${JSON.stringify(name)}. The output formats registered in the Configuration are: ${names.join(', ')}`;
}

/** How FreeMarker names an output format in messages (its class, MIME type …). */
export function outputFormatDescription(name: string): string {
  const cls: Record<string, string> = dict({
    undefined: 'f.c.UndefinedOutputFormat',
    plainText: 'f.c.PlainTextOutputFormat',
    JavaScript: 'f.c.JavaScriptOutputFormat',
    JSON: 'f.c.JSONOutputFormat',
    CSS: 'f.c.CSSOutputFormat',
  });
  const mime: Record<string, string> = dict({
    undefined: 'null',
    plainText: 'text/plain',
    JavaScript: 'application/javascript',
    JSON: 'application/json',
    CSS: 'text/css',
  });
  // Java's StringUtil.jQuote: quoted, null as is
  const m = mime[name];
  return `${name}(mimeType=${m === undefined || m === 'null' ? 'null' : JSON.stringify(m)}, class=${cls[name] ?? 'f.c.OutputFormat'})`;
}
