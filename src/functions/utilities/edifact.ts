/**
 * UN/EDIFACT interchanges to JSON. The service string advice (UNA) is honoured when present,
 * otherwise the default separators `:+.? '` apply; the release character escapes the next one;
 * line breaks after a segment terminator are ignored.
 *
 *   UNB+UNOA:1+SENDER+RECEIVER+240115:1200+1'UNH+1+ORDERS:D:96A:UN'
 *   → { "separators": {…}, "segments": [
 *        { "tag": "UNB", "elements": [["UNOA","1"],["SENDER"],["RECEIVER"],["240115","1200"],["1"]] },
 *        { "tag": "UNH", "elements": [["1"],["ORDERS","D","96A","UN"]] } ] }
 */
import { DataError } from './args.js';
export class EdifactError extends DataError {
  override name = 'EdifactError';
}

export interface EdifactSeparators {
  component: string;
  element: string;
  decimal: string;
  release: string;
  repetition: string;
  segment: string;
}

export interface EdifactSegment {
  tag: string;
  /** Each data element as the list of its components (a simple element has one). */
  elements: string[][];
}

const DEFAULTS: EdifactSeparators = {
  component: ':',
  element: '+',
  decimal: '.',
  release: '?',
  repetition: ' ',
  segment: "'",
};
const TAG = /^[A-Z][A-Z0-9]{2}$/;

export function edifactToJson(text: string): { separators: EdifactSeparators; segments: EdifactSegment[] } {
  let body = text.replace(/^\uFEFF/, '').replace(/^\s+/, '');
  let seps = DEFAULTS;
  if (body.startsWith('UNA')) {
    if (body.length < 9) throw new EdifactError('the UNA service string advice needs 6 characters');
    const [component, element, decimal, release, repetition, segment] = body.slice(3, 9);
    seps = {
      component: component,
      element: element,
      decimal: decimal,
      release: release,
      repetition: repetition,
      segment: segment,
    };
    body = body.slice(9);
  }
  const segments: EdifactSegment[] = [];
  let elements: string[][] = [];
  let components: string[] = [];
  let current = '';
  let pending = false; // something seen since the last segment terminator
  const endSegment = () => {
    components.push(current);
    elements.push(components);
    const [tagParts, ...rest] = elements;
    const tag = tagParts.join(seps.component).trim();
    if (!TAG.test(tag))
      throw new EdifactError(`segment ${segments.length + 1} has an invalid tag ${JSON.stringify(tag)}`);
    segments.push({ tag, elements: rest });
    elements = [];
    components = [];
    current = '';
    pending = false;
  };
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === seps.release) {
      if (i + 1 >= body.length) throw new EdifactError('the text ends with a release character');
      current += body[++i];
      pending = true;
    } else if (c === seps.segment) {
      endSegment();
      while (i + 1 < body.length && (body[i + 1] === '\r' || body[i + 1] === '\n')) i++;
    } else if (c === seps.element) {
      components.push(current);
      elements.push(components);
      components = [];
      current = '';
      pending = true;
    } else if (c === seps.component) {
      components.push(current);
      current = '';
      pending = true;
    } else {
      current += c;
      if (!/\s/.test(c)) pending = true;
    }
  }
  if (pending) endSegment();
  return { separators: seps, segments };
}
