/**
 * XML ↔ JSON: attributes as `@name`, text beside attributes or children as `#text`, repeated
 * elements as arrays. Reading refuses any DTD (so no entity expansion and no external entity can
 * be reached); the predefined entities, character references and HTML's named entities are decoded.
 */
import { DataError } from './args.js';
import { createRequire } from 'node:module';
import type { XMLBuilder, XMLParser } from 'fast-xml-parser';
import { describeValue, isHash } from '../coercion.js';
import { PROTOTYPE_KEYS as FORBIDDEN } from '../../safety/index.js';

export class XmlError extends DataError {
  override name = 'XmlError';
}

// fast-xml-parser (its one-file CommonJS build) loads with the first conversion, not at startup.
const require = createRequire(import.meta.url);
let xml:
  | {
      parser: XMLParser;
      builder: XMLBuilder;
      validate: typeof import('fast-xml-parser').XMLValidator.validate;
    }
  | undefined;

function fxp(): NonNullable<typeof xml> {
  if (xml) return xml;
  const lib = require('fast-xml-parser') as typeof import('fast-xml-parser');
  return (xml = {
    parser: new lib.XMLParser(PARSER_OPTIONS),
    builder: new lib.XMLBuilder(BUILDER_OPTIONS),
    validate: (text, options) => lib.XMLValidator.validate(text, options),
  });
}

const PARSER_OPTIONS: ConstructorParameters<typeof XMLParser>[0] = {
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
};

const BUILDER_OPTIONS: ConstructorParameters<typeof XMLBuilder>[0] = {
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  textNodeName: '#text',
  format: false,
  suppressEmptyNode: true,
  suppressBooleanAttributes: false,
};

export function xmlToJson(text: string): Record<string, unknown> {
  if (/<!DOCTYPE|<!ENTITY/i.test(text))
    throw new XmlError('a DTD (<!DOCTYPE …> or <!ENTITY …>) is not allowed in XML input');
  const valid = fxp().validate(text);
  if (valid !== true)
    throw new XmlError(`invalid XML at line ${valid.err.line}, column ${valid.err.col}: ${valid.err.msg}`);
  return fxp().parser.parse(text) as Record<string, unknown>;
}

const NAME = /^[A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?$/;

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
  return fxp().builder.build(prepare(doc, '', numberText));
}
