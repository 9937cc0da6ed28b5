/**
 * XML ↔ JSON: attributes as `@name`, text beside attributes or children as `#text`, repeated
 * elements as arrays. Reading refuses any DTD (so no entity expansion and no external entity can
 * be reached); the predefined entities, character references and HTML's named entities are decoded.
 */
import { DataError } from './args.js';
import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';
import { describeValue, isHash } from '../coercion.js';

export class XmlError extends DataError {
  override name = 'XmlError';
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  textNodeName: '#text',
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: true,
  htmlEntities: true, // character references (&#233; &#xE9;), and HTML's named entities
  ignoreDeclaration: true,
  ignorePiTags: true,
  trimValues: true,
});

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  textNodeName: '#text',
  format: false,
  suppressEmptyNode: true,
  suppressBooleanAttributes: false,
});

export function xmlToJson(text: string): Record<string, unknown> {
  if (/<!DOCTYPE|<!ENTITY/i.test(text))
    throw new XmlError('a DTD (<!DOCTYPE …> or <!ENTITY …>) is not allowed in XML input');
  const valid = XMLValidator.validate(text);
  if (valid !== true)
    throw new XmlError(`invalid XML at line ${valid.err.line}, column ${valid.err.col}: ${valid.err.msg}`);
  return parser.parse(text) as Record<string, unknown>;
}

const NAME = /^[A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?$/;
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Checks a value can be written as XML and converts what needs converting: numbers with
 * `numberText`, null as an empty element; every element and attribute name must be an XML name.
 */
function prepare(value: unknown, path: string, numberText: (n: number) => string): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return numberText(value);
  if (Array.isArray(value))
    return value.map((v, i) => {
      if (Array.isArray(v))
        throw new XmlError(`${path}[${i}] is a sequence inside a sequence, which XML cannot hold`);
      return prepare(v, `${path}[${i}]`, numberText);
    });
  if (isHash(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      if (FORBIDDEN.has(key)) throw new XmlError(`the key ${JSON.stringify(key)} is not allowed`);
      if (key !== '#text') {
        const name = key.startsWith('@') ? key.slice(1) : key;
        if (!NAME.test(name))
          throw new XmlError(`${JSON.stringify(key)} (in ${path}) is not a valid XML name`);
        if (key.startsWith('@') && (isHash(v) || Array.isArray(v)))
          throw new XmlError(
            `the attribute ${key} (in ${path}) must be a simple value, got ${describeValue(v)}`,
          );
      }
      out[key] = prepare(v, path ? `${path}.${key}` : key, numberText);
    }
    return out;
  }
  throw new XmlError(`${path} is ${describeValue(value)}, which XML cannot hold`);
}

/** `<root …>…</root>`, no XML declaration. root "" takes the single field of `input` as the root. */
export function jsonToXml(
  root: string,
  input: Record<string, unknown>,
  numberText: (n: number) => string,
): string {
  let doc: Record<string, unknown>;
  if (root === '') {
    const keys = Object.keys(input);
    if (keys.length !== 1 || keys[0].startsWith('@') || keys[0] === '#text')
      throw new XmlError(
        `with an empty root, the input must have exactly one element field, got ${keys.length} fields`,
      );
    doc = input;
  } else doc = { [root]: input };
  const [name] = Object.keys(doc);
  if (Array.isArray(doc[name]))
    throw new XmlError('the root element cannot be a sequence (an XML document has one root)');
  return builder.build(prepare(doc, '', numberText));
}
