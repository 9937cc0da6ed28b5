/**
 * Atom XML in the browser: the DOM's own parser (DOMParser) reduced to the element tree the shared
 * format reader takes (src/atom/format.ts).
 */
import { atomFromXml, AtomFormatError, type AtomDocument, type XmlNode } from '../atom/format.js';
import { ClientError } from './errors.js';

/** The Atom document of an XML text or Document; ClientError invalid-xml (with `status`) otherwise. */
export function readAtomXml(xml: string | Document, status = 0): AtomDocument {
  const document = typeof xml === 'string' ? new DOMParser().parseFromString(xml, 'application/xml') : xml;
  const error = document.getElementsByTagName('parsererror')[0];
  if (error || !document.documentElement) {
    const detail = (error?.textContent ?? '').replace(/\s+/g, ' ').trim();
    throw new ClientError(status, 'invalid-xml', `Invalid XML: ${detail || 'not a well-formed document'}`);
  }
  try {
    return atomFromXml(toNode(document.documentElement));
  } catch (e) {
    if (e instanceof AtomFormatError)
      throw new ClientError(status, 'invalid-xml', `Invalid Atom document: ${e.message}`);
    throw e;
  }
}

function toNode(element: Element): XmlNode {
  const node: XmlNode = { name: element.localName, attributes: {}, children: [], text: '' };
  for (const attribute of Array.from(element.attributes))
    if (attribute.prefix !== 'xmlns' && attribute.name !== 'xmlns')
      node.attributes[attribute.localName] = attribute.value;
  for (const child of Array.from(element.childNodes)) {
    if (child.nodeType === 1) node.children.push(toNode(child as Element));
    else if (child.nodeType === 3 || child.nodeType === 4) node.text += child.nodeValue ?? '';
  }
  return node;
}
