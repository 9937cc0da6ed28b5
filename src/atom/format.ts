/**
 * The Atom entry/feed format of flowmark's resources, in its two forms: XML and JSON (see
 * docs/client.md). Pure TypeScript (no DOM, no Node): the browser library and the server's Atom
 * routes both use it, so both ends write the same XML and read it the same way.
 *
 * JSON form: `{"entry": {...}}` or `{"feed": {..., "entry": [...]}}`. In XML, `summary` and
 * `content` carry `type="text"` (a string) or `type="application/json"` (any other JSON value, as
 * JSON text); any member that is not an Atom element is an extension `<fm:NAME>` holding JSON text.
 * Readers match local names, so namespace prefixes are free.
 */
import { PROTOTYPE_KEYS as FORBIDDEN_KEYS } from '../safety/index.js';

export const ATOM_NS = 'http://www.w3.org/2005/Atom';
export const FLOWMARK_NS = 'urn:flowmark:atom';
export const OPENSEARCH_NS = 'http://a9.com/-/spec/opensearch/1.1/';
export const ATOM_MEDIA_TYPE = 'application/atom+xml';

export interface AtomCategory {
  term: string;
  label?: string;
  scheme?: string;
}

export interface AtomLink {
  href: string;
  rel?: string;
  type?: string;
  title?: string;
}

export interface AtomPerson {
  name: string;
  email?: string;
  uri?: string;
}

export interface AtomEntry {
  id?: string;
  title?: string;
  updated?: string;
  published?: string;
  author?: AtomPerson;
  /** A string (type="text") or any other JSON value (type="application/json"). */
  summary?: unknown;
  category?: AtomCategory[];
  link?: AtomLink[];
  /** A string (type="text") or any other JSON value (type="application/json"). */
  content?: unknown;
  /** Extensions (`<fm:NAME>` with JSON text). */
  [extension: string]: unknown;
}

export interface AtomFeed {
  id?: string;
  title?: string;
  updated?: string;
  link?: AtomLink[];
  /** OpenSearch paging: how many entries matched, the index of the first one, the page size. */
  totalResults?: number;
  startIndex?: number;
  itemsPerPage?: number;
  entry: AtomEntry[];
}

export type AtomDocument = { entry: AtomEntry } | { feed: AtomFeed };

/** A parsed XML element, by local name (what both XML parsers are reduced to). */
export interface XmlNode {
  name: string;
  attributes: Record<string, string>;
  children: XmlNode[];
  /** The element's own text (its text and CDATA children, concatenated). */
  text: string;
}

/** The document is not an Atom entry or feed of this format. */
export class AtomFormatError extends Error {
  override name = 'AtomFormatError';
}

const ENTRY_ELEMENTS = new Set([
  'id',
  'title',
  'updated',
  'published',
  'author',
  'summary',
  'category',
  'link',
  'content',
]);
const FEED_PAGING = ['totalResults', 'startIndex', 'itemsPerPage'] as const;
const EXTENSION_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

// ---------------------------------------------------------------- writing

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&apos;',
  );
}

/** XML text of an entry or feed (with the XML declaration). */
export function atomToXml(document: AtomDocument): string {
  checkDocument(document);
  const body = 'entry' in document ? entryXml(document.entry, true, '') : feedXml(document.feed);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${body}\n`;
}

function namespaces(withOpenSearch: boolean): string {
  return (
    ` xmlns="${ATOM_NS}" xmlns:fm="${FLOWMARK_NS}"` +
    (withOpenSearch ? ` xmlns:opensearch="${OPENSEARCH_NS}"` : '')
  );
}

function feedXml(feed: AtomFeed): string {
  const lines = [`<feed${namespaces(true)}>`];
  const inner = '  ';
  if (feed.id !== undefined) lines.push(`${inner}${textElement('id', feed.id)}`);
  if (feed.title !== undefined) lines.push(`${inner}${textElement('title', feed.title)}`);
  if (feed.updated !== undefined) lines.push(`${inner}${textElement('updated', feed.updated)}`);
  for (const link of feed.link ?? []) lines.push(`${inner}${linkXml(link)}`);
  for (const name of FEED_PAGING)
    if (feed[name] !== undefined)
      lines.push(`${inner}${textElement(`opensearch:${name}`, String(feed[name]))}`);
  for (const entry of feed.entry) lines.push(entryXml(entry, false, inner));
  lines.push('</feed>');
  return lines.join('\n');
}

function entryXml(entry: AtomEntry, root: boolean, indent: string): string {
  const inner = `${indent}  `;
  const lines = [`${indent}<entry${root ? namespaces(false) : ''}>`];
  for (const name of ['id', 'title', 'updated', 'published'] as const) {
    const value = entry[name];
    if (value !== undefined) lines.push(`${inner}${textElement(name, String(value))}`);
  }
  if (entry.author) {
    const a = entry.author;
    const parts = [textElement('name', a.name)];
    if (a.email !== undefined) parts.push(textElement('email', a.email));
    if (a.uri !== undefined) parts.push(textElement('uri', a.uri));
    lines.push(`${inner}<author>${parts.join('')}</author>`);
  }
  for (const c of entry.category ?? []) {
    const attrs = [`term="${escapeXml(c.term)}"`];
    if (c.label !== undefined) attrs.push(`label="${escapeXml(c.label)}"`);
    if (c.scheme !== undefined) attrs.push(`scheme="${escapeXml(c.scheme)}"`);
    lines.push(`${inner}<category ${attrs.join(' ')}/>`);
  }
  for (const link of entry.link ?? []) lines.push(`${inner}${linkXml(link)}`);
  if (entry.summary !== undefined) lines.push(`${inner}${typedElement('summary', entry.summary)}`);
  if (entry.content !== undefined) lines.push(`${inner}${typedElement('content', entry.content)}`);
  for (const [name, value] of Object.entries(entry)) {
    if (ENTRY_ELEMENTS.has(name) || value === undefined) continue;
    lines.push(`${inner}${textElement(`fm:${name}`, JSON.stringify(value))}`);
  }
  lines.push(`${indent}</entry>`);
  return lines.join('\n');
}

function textElement(name: string, text: string): string {
  return `<${name}>${escapeXml(text)}</${name}>`;
}

function typedElement(name: string, value: unknown): string {
  if (typeof value === 'string') return `<${name} type="text">${escapeXml(value)}</${name}>`;
  return `<${name} type="application/json">${escapeXml(JSON.stringify(value))}</${name}>`;
}

function linkXml(link: AtomLink): string {
  const attrs = [`href="${escapeXml(link.href)}"`];
  if (link.rel !== undefined) attrs.push(`rel="${escapeXml(link.rel)}"`);
  if (link.type !== undefined) attrs.push(`type="${escapeXml(link.type)}"`);
  if (link.title !== undefined) attrs.push(`title="${escapeXml(link.title)}"`);
  return `<link ${attrs.join(' ')}/>`;
}

// ---------------------------------------------------------------- reading

/** The entry or feed an XML tree holds; AtomFormatError when it is neither. */
export function atomFromXml(root: XmlNode): AtomDocument {
  if (root.name === 'entry') return { entry: entryFromXml(root) };
  if (root.name === 'feed') return { feed: feedFromXml(root) };
  throw new AtomFormatError(`expected an Atom <entry> or <feed>, not <${root.name}>`);
}

function feedFromXml(node: XmlNode): AtomFeed {
  const feed: AtomFeed = { entry: [] };
  for (const child of node.children) {
    switch (child.name) {
      case 'id':
      case 'title':
      case 'updated':
        feed[child.name] = child.text.trim();
        break;
      case 'link':
        (feed.link ??= []).push(linkFromXml(child));
        break;
      case 'totalResults':
      case 'startIndex':
      case 'itemsPerPage':
        feed[child.name] = integerText(child);
        break;
      case 'entry':
        feed.entry.push(entryFromXml(child));
        break;
      default:
        break; // other feed elements (generator, subtitle …) are not ours
    }
  }
  return feed;
}

function entryFromXml(node: XmlNode): AtomEntry {
  const entry: AtomEntry = {};
  for (const child of node.children) {
    switch (child.name) {
      case 'id':
      case 'title':
      case 'updated':
      case 'published':
        entry[child.name] = child.text.trim();
        break;
      case 'author':
        entry.author = personFromXml(child);
        break;
      case 'category': {
        const term = child.attributes.term;
        if (term === undefined) throw new AtomFormatError('<category> without a term attribute');
        const category: AtomCategory = { term };
        if (child.attributes.label !== undefined) category.label = child.attributes.label;
        if (child.attributes.scheme !== undefined) category.scheme = child.attributes.scheme;
        (entry.category ??= []).push(category);
        break;
      }
      case 'link':
        (entry.link ??= []).push(linkFromXml(child));
        break;
      case 'summary':
      case 'content':
        entry[child.name] = typedFromXml(child);
        break;
      default:
        entry[checkExtensionName(child.name)] = parseJson(child.text, `<${child.name}>`);
    }
  }
  return entry;
}

function personFromXml(node: XmlNode): AtomPerson {
  const person: AtomPerson = { name: '' };
  for (const child of node.children)
    if (child.name === 'name' || child.name === 'email' || child.name === 'uri')
      person[child.name] = child.text.trim();
  return person;
}

function linkFromXml(node: XmlNode): AtomLink {
  const { href, rel, type, title } = node.attributes;
  if (href === undefined) throw new AtomFormatError('<link> without an href attribute');
  const link: AtomLink = { href };
  if (rel !== undefined) link.rel = rel;
  if (type !== undefined) link.type = type;
  if (title !== undefined) link.title = title;
  return link;
}

function typedFromXml(node: XmlNode): unknown {
  const type = node.attributes.type ?? 'text';
  if (type === 'text') return node.text;
  if (type === 'application/json' || type.endsWith('+json')) return parseJson(node.text, `<${node.name}>`);
  throw new AtomFormatError(
    `<${node.name}>: unsupported type ${JSON.stringify(type)} (text or application/json)`,
  );
}

function integerText(node: XmlNode): number {
  const n = Number(node.text.trim());
  if (!Number.isSafeInteger(n) || n < 0)
    throw new AtomFormatError(`<${node.name}>: expected a count, got ${JSON.stringify(node.text)}`);
  return n;
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text, (key, value) => (FORBIDDEN_KEYS.has(key) ? undefined : value));
  } catch (e) {
    throw new AtomFormatError(`${where}: invalid JSON (${(e as Error).message})`);
  }
}

function checkExtensionName(name: string): string {
  if (!EXTENSION_NAME.test(name) || FORBIDDEN_KEYS.has(name))
    throw new AtomFormatError(`<${name}>: not an extension name`);
  return name;
}

// ---------------------------------------------------------------- the JSON form

/** Checks a value read as the JSON form: `{entry: {...}}` or `{feed: {entry: [...]}}`. */
export function atomFromJson(value: unknown): AtomDocument {
  if (!isPlainObject(value)) throw new AtomFormatError('expected {"entry": {…}} or {"feed": {…}}');
  if ('entry' in value && isPlainObject(value.entry)) {
    const document = { entry: value.entry as AtomEntry };
    checkDocument(document);
    return document;
  }
  if ('feed' in value && isPlainObject(value.feed)) {
    const feed = value.feed as Partial<AtomFeed>;
    const document = { feed: { ...feed, entry: feed.entry ?? [] } as AtomFeed };
    checkDocument(document);
    return document;
  }
  throw new AtomFormatError('expected {"entry": {…}} or {"feed": {…}}');
}

function checkDocument(document: AtomDocument): void {
  if ('entry' in document) return checkEntry(document.entry);
  const feed = document.feed;
  if (!Array.isArray(feed.entry)) throw new AtomFormatError('feed.entry must be an array');
  checkLinks(feed.link, 'feed.link');
  feed.entry.forEach((e) => (isPlainObject(e) ? checkEntry(e) : fail('feed.entry: entries are objects')));
}

function checkEntry(entry: AtomEntry): void {
  for (const name of ['id', 'title', 'updated', 'published'] as const)
    if (entry[name] !== undefined && typeof entry[name] !== 'string') fail(`entry.${name} must be a string`);
  if (entry.author !== undefined && (!isPlainObject(entry.author) || typeof entry.author.name !== 'string'))
    fail('entry.author must be {name, email?, uri?}');
  if (entry.category !== undefined) {
    if (!Array.isArray(entry.category)) fail('entry.category must be an array');
    for (const c of entry.category)
      if (!isPlainObject(c) || typeof c.term !== 'string') fail('entry.category: each needs a string term');
  }
  checkLinks(entry.link, 'entry.link');
  for (const name of Object.keys(entry)) if (!ENTRY_ELEMENTS.has(name)) checkExtensionName(name);
}

function checkLinks(links: unknown, where: string): void {
  if (links === undefined) return;
  if (!Array.isArray(links)) fail(`${where} must be an array`);
  for (const l of links)
    if (!isPlainObject(l) || typeof l.href !== 'string') fail(`${where}: each needs a string href`);
}

function fail(message: string): never {
  throw new AtomFormatError(message);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------- helpers for resources

/** The term of the category labelled `label`, if any. */
export function categoryTerm(entry: AtomEntry, label: string): string | undefined {
  return entry.category?.find((c) => c.label === label)?.term;
}

/** `urn:flowmark:<account>:<kind>:<id>`: the identity of a resource. */
export function resourceUrn(account: string, kind: string, id: string | number): string {
  return `urn:flowmark:${account}:${kind}:${id}`;
}

/** The parts of a resource URN, or undefined when `id` is not one. */
export function parseResourceUrn(
  id: string | undefined,
): { account: string; kind: string; id: string } | undefined {
  const m = id === undefined ? null : /^urn:flowmark:([^:]+):([^:]+):(.+)$/.exec(id);
  return m ? { account: m[1]!, kind: m[2]!, id: m[3]! } : undefined;
}
