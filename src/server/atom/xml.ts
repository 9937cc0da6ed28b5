/**
 * Reads the XML body of an Atom request into the element tree the shared format reader takes
 * (src/atom/format.ts). fast-xml-parser checks well-formedness first, so a bad document is
 * refused with its line and column. Document type declarations are refused outright: Atom needs
 * none, and refusing them closes entity-expansion attacks.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { atomFromXml, AtomFormatError, type AtomDocument, type XmlNode } from '../../atom/format.js';
import { ApiError } from '../errors.js';
import { errorMessage } from '../../errors/index.js';

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  cdataPropName: '#cdata',
  commentPropName: '#comment',
  // Character references (&#233;); named ones beyond XML's five are tolerated as HTML's.
  htmlEntities: true,
});

type Ordered = Record<string, unknown> & { ':@'?: Record<string, string> };

export function invalidXml(message: string): ApiError {
  return new ApiError(400, 'invalid-xml', message);
}

/** The Atom document an XML body holds; 400 invalid-xml when it is not well-formed or not Atom. */
export function readAtomXml(text: string): AtomDocument {
  if (/<!DOCTYPE/i.test(text)) throw invalidXml('Invalid XML: document type declarations are not accepted.');
  const valid = XMLValidator.validate(text);
  if (valid !== true)
    throw invalidXml(`Invalid XML at line ${valid.err.line}, column ${valid.err.col}: ${valid.err.msg}`);
  let parsed: Ordered[];
  try {
    parsed = parser.parse(text) as Ordered[];
  } catch (e) {
    // The parser's own refusals (names such as __proto__ …) are the document's fault.
    throw invalidXml(`Invalid XML: ${errorMessage(e)}`);
  }
  const roots = parsed.map(toNode).filter((n): n is XmlNode => n !== null);
  if (roots.length !== 1) throw invalidXml('Invalid XML: expected one root element.');
  try {
    return atomFromXml(roots[0]!);
  } catch (e) {
    if (e instanceof AtomFormatError) throw invalidXml(`Invalid Atom document: ${e.message}`);
    throw e;
  }
}

function toNode(item: Ordered): XmlNode | null {
  const name = Object.keys(item).find((k) => k !== ':@');
  if (name === undefined || name.startsWith('#') || name.startsWith('?')) return null;
  const node: XmlNode = { name, attributes: { ...item[':@'] }, children: [], text: '' };
  for (const child of item[name] as Ordered[]) {
    if ('#text' in child) node.text += String(child['#text']);
    else if ('#cdata' in child)
      node.text += (child['#cdata'] as Ordered[]).map((c) => String(c['#text'] ?? '')).join('');
    else {
      const element = toNode(child);
      if (element) node.children.push(element);
    }
  }
  return node;
}
