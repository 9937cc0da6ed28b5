/** Conversions: csv_to_json, json_to_csv, load, to_xml, P_markdown_to_html. */
import iconv from 'iconv-lite';
import { doubleToString, SimpleDateFormat, urlDecode } from '../../jdk/index.js';
import { describeValue, isHash, parseJsonText } from '../coercion.js';
import { type Budget, boundedSize, STRING_CHAR_BYTES, textRoom } from '../../limits/index.js';
import { budgetOf, type ExecutionContext } from '../context.js';
import { argumentError, messageOf } from '../errors.js';
import { defineFunction, type FunctionSpec } from '../spec.js';
import { choice, DataError, oneCharacter, readOptions, type OptionSpec } from './args.js';
import { jsonWithLongs, readCsv, writeCsv } from './csv.js';
import { edifactToJson } from './edifact.js';
import { eskvToJson } from './eskv.js';
import { markdownToHtml } from './markdown.js';
import { jsonToXml, xmlToJson } from './xml.js';
import { PROTOTYPE_KEYS as FORBIDDEN_KEYS } from '../../safety/index.js';

const nonEmpty = (v: unknown) => (v === '' ? 'must not be empty' : undefined);
const knownCharset = (v: unknown) =>
  iconv.encodingExists(String(v)) ? undefined : `names an unknown character set ${JSON.stringify(v)}`;

/** Numbers as the Java platform prints them: integers with all digits, others as Double.toString. */
export function javaNumberText(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 2 ** 63) return BigInt(n).toString();
  return doubleToString(n);
}

/**
 * Charges what parsing `text` will build before the parser starts (every separator and line break
 * taken for a cell boundary: its text, and what a cell and a row cost V8 beside it), and returns
 * the parser's record hook, which looks at the clock every thousand records.
 */
function chargingRecords(budget: Budget, fn: string, text: string, separator: string): () => void {
  let cells = 1;
  let rows = 1;
  for (let i = text.indexOf(separator); i >= 0; i = text.indexOf(separator, i + separator.length)) cells++;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) rows++;
  }
  budget.allocate((cells + rows) * CELL_BYTES + rows * ROW_BYTES + text.length * STRING_CHAR_BYTES, fn);
  let n = 0;
  return () => {
    if (++n % 1000 === 0) budget.checkTime(fn);
  };
}
/** Bytes a parsed JSON/XML/EDI/ESKV/URL document is charged per character of its text. */
const PARSED_BYTES_PER_CHAR = 8;
// What a parsed cell and row cost beside their characters (string header, array slot, parser state).
const CELL_BYTES = 48;
const ROW_BYTES = 64;

/** Runs a conversion, turning its data errors into `fn: argument i (name) …`. */
function converting<T>(fn: string, index: number, name: string, run: () => T): T {
  try {
    return run();
  } catch (e) {
    if (e instanceof DataError) throw argumentError(fn, index, name, e.message);
    throw e;
  }
}

const csvToJsonOptions = {
  header: { type: 'boolean' },
  trim: { type: 'boolean' },
  charset: { type: 'string', check: knownCharset },
  delimiter: { type: 'string', check: oneCharacter },
  separator: { type: 'string', check: nonEmpty },
  empty: { type: 'string' },
  parse_numbers: { type: 'array' },
  parse_longs: { type: 'array' },
  parse_booleans: { type: 'array' },
} satisfies Record<string, OptionSpec>;

const csvToJson = defineFunction({
  name: 'csv_to_json',
  group: 'Utilities',
  rights: 'none',
  flags: { pure: true },
  doc:
    'Parses CSV text into JSON text. Without the header option: an array of arrays of strings; with header true: an array of objects keyed by the first row. ' +
    'Options: header, trim, charset (the text arrives decoded; the name is checked), delimiter (quoting character, default "), separator (default ,), ' +
    'empty (value of an empty or missing entry), parse_numbers / parse_longs / parse_booleans (column names or zero-based indices). ' +
    'Line ends may be CRLF, LF or CR; blank lines are skipped.',
  returns: 'string (JSON)',
  forms: [
    {
      params: [
        { name: 'input', type: 'string', doc: 'CSV text' },
        { name: 'options', type: 'object', optional: true },
      ],
      impl(ctx, [input, raw], _call, fn) {
        const o = readOptions(fn, 2, 'options', raw, csvToJsonOptions);
        const separator = o.separator ?? ',';
        const onRecord = chargingRecords(budgetOf(ctx), fn, input, separator);
        const rows = converting(fn, 1, 'input', () =>
          readCsv(input, {
            header: o.header ?? false,
            trim: o.trim ?? false,
            quote: o.delimiter ?? '"',
            separator,
            empty: o.empty ?? '',
            parseNumbers: o.parse_numbers,
            parseLongs: o.parse_longs,
            parseBooleans: o.parse_booleans,
            onRecord,
          }),
        );
        return jsonWithLongs(rows);
      },
    },
  ],
});

const jsonToCsvOptions = {
  header: { type: 'boolean' },
  trim: { type: 'boolean' },
  separator: { type: 'string', check: nonEmpty },
  empty: { type: 'string' },
  decimal_separator: { type: 'string' },
  parse_dates: { type: 'object' },
} satisfies Record<string, OptionSpec>;

/** Epoch milliseconds of a date value: a number, numeric text, a template date or {"$date": ms | ISO text}. */
function dateMillis(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return Number(value);
  if (value !== null && typeof value === 'object' && 'epochMs' in value && typeof value.epochMs === 'number')
    return value.epochMs;
  if (isHash(value) && '$date' in value) {
    const d = value.$date;
    if (typeof d === 'number') return d;
    if (typeof d === 'string' && !Number.isNaN(Date.parse(d))) return Date.parse(d);
  }
  return undefined;
}

function jsonToCsv(
  fn: string,
  ctx: ExecutionContext,
  input: unknown,
  raw: Record<string, unknown> | undefined,
): string {
  const o = readOptions(fn, 2, 'options', raw, jsonToCsvOptions);
  const budget = budgetOf(ctx);
  const room = textRoom(budget, fn);
  boundedSize(input, room.maxChars, room.tooLarge);
  const trim = o.trim ?? false;
  const empty = o.empty ?? '';
  const decimal = o.decimal_separator ?? ',';
  const rows = Array.isArray(input) ? input : [input];
  if (rows.length === 0) return '';
  const objects = isHash(rows[0]);
  // the rows, checked: every one a hash like the first, or every one a sequence
  const hashes: Record<string, unknown>[] = [];
  const sequences: unknown[][] = [];
  rows.forEach((row, i) => {
    if (objects && isHash(row)) hashes.push(row);
    else if (!objects && Array.isArray(row)) sequences.push(row);
    else
      throw argumentError(
        fn,
        1,
        'input',
        `row ${i + 1} is ${describeValue(row)}, expected ${objects ? 'a hash like row 1' : 'a sequence or a hash'}`,
      );
  });
  const formats = new Map<string, SimpleDateFormat>();
  for (const [column, pattern] of Object.entries(o.parse_dates ?? {})) {
    if (typeof pattern !== 'string')
      throw argumentError(
        fn,
        2,
        'options',
        `option "parse_dates": the pattern of ${JSON.stringify(column)} is ${describeValue(pattern)}, expected a string`,
      );
    try {
      formats.set(column, new SimpleDateFormat(pattern, { locale: ctx.locale, timeZone: ctx.timeZone }));
    } catch (e) {
      throw argumentError(
        fn,
        2,
        'options',
        `option "parse_dates": the pattern of ${JSON.stringify(column)}: ${messageOf(e)}`,
      );
    }
  }
  const cell = (value: unknown, row: number, column: string | number): string => {
    const where = () =>
      `row ${row + 1}, ${typeof column === 'string' ? `attribute ${JSON.stringify(column)}` : `column ${column}`}`;
    const format = typeof column === 'string' ? formats.get(column) : undefined;
    if (value === null || value === undefined) return empty;
    if (format) {
      const ms = dateMillis(value);
      if (ms !== undefined) return format.format(ms);
      if (typeof value !== 'string')
        throw argumentError(
          fn,
          1,
          'input',
          `${where()}: ${describeValue(value)} is not a date (epoch milliseconds)`,
        );
    }
    if (typeof value === 'string') return trim ? value.trim() : value;
    if (typeof value === 'boolean') return String(value);
    if (typeof value === 'number') return javaNumberText(value).replace('.', decimal);
    if (Array.isArray(value) || isHash(value))
      throw argumentError(
        fn,
        1,
        'input',
        `${where()}: nested objects are not allowed, got ${describeValue(value)}`,
      );
    throw argumentError(fn, 1, 'input', `${where()}: ${describeValue(value)} cannot be written in CSV`);
  };
  let table: string[][];
  if (objects) {
    const columns: string[] = [];
    const seen = new Set<string>();
    for (const row of hashes)
      for (const key of Object.keys(row))
        if (!seen.has(key)) {
          seen.add(key);
          columns.push(key);
        }
    table = hashes.map((row, r) =>
      columns.map((c) => cell(Object.prototype.hasOwnProperty.call(row, c) ? row[c] : undefined, r, c)),
    );
    if (o.header) table.unshift(columns);
  } else table = sequences.map((row, r) => row.map((v, c) => cell(v, r, c)));
  return writeCsv(table, o.separator ?? ',');
}

const jsonToCsvFn = defineFunction({
  name: 'json_to_csv',
  group: 'Utilities',
  rights: 'none',
  flags: { pure: true },
  doc:
    'Writes an array of flat objects (or of flat arrays) as CSV, each line ended by CRLF. Options: header (attribute names as first row, objects only), ' +
    'trim, separator (default ,), empty (for null or missing attributes), decimal_separator (default ,) for fractional numbers, ' +
    'parse_dates (attribute → SimpleDateFormat pattern: epoch-millisecond values are written as dates in the account time zone). Nested values are refused.',
  returns: 'string',
  forms: [
    {
      params: [
        { name: 'input', type: ['array', 'object'] },
        { name: 'options', type: 'object', optional: true },
      ],
      impl: (ctx, [input, options], _call, fn) => jsonToCsv(fn, ctx, input, options),
    },
  ],
});

const LOAD_FORMATS = ['TEXT', 'JSON', 'XML', 'EDI', 'CSV_HEAD', 'CSV_NOHEAD', 'ESKV', 'URL'] as const;
const loadCsvOptions = {
  separator: { type: 'string', check: nonEmpty },
  delimiter: { type: 'string', check: oneCharacter },
  empty: { type: 'string' },
  parse_numbers: { type: 'array' },
} satisfies Record<string, OptionSpec>;

/** a=1&b=2&b=3 (or a URL with such a query) → {"a":"1","b":["2","3"]}, decoded as java.net.URLDecoder. */
function queryToJson(text: string, charset: string): Record<string, unknown> {
  let query = text.trim();
  const q = query.indexOf('?');
  if (q >= 0) query = query.slice(q + 1);
  const hash = query.indexOf('#');
  if (hash >= 0) query = query.slice(0, hash);
  const out: Record<string, unknown> = {};
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    let key: string;
    let value: string;
    try {
      key = urlDecode(eq < 0 ? pair : pair.slice(0, eq), charset);
      value = eq < 0 ? '' : urlDecode(pair.slice(eq + 1), charset);
    } catch (e) {
      throw new DataError(`cannot decode ${JSON.stringify(pair)}: ${messageOf(e)}`);
    }
    if (FORBIDDEN_KEYS.has(key)) throw new DataError(`the key ${JSON.stringify(key)} is not allowed`);
    if (!Object.prototype.hasOwnProperty.call(out, key)) out[key] = value;
    else {
      const old = out[key];
      out[key] = Array.isArray(old) ? [...old, value] : [old, value];
    }
  }
  return out;
}

const load = defineFunction({
  name: 'load',
  group: 'Utilities',
  rights: 'none',
  flags: { pure: true },
  doc:
    'Parses `input` by `format`: TEXT (the text itself), JSON, XML (to JSON: attributes as @name, text beside them as #text, repeated elements as arrays; ' +
    'a DTD is refused), EDI (UN/EDIFACT: {"separators", "segments": [{"tag", "elements": [[components]]}]}), CSV_HEAD / CSV_NOHEAD (rows under "list": ' +
    'objects keyed by the first row, or arrays; options separator (default ;), delimiter, empty, parse_numbers), ESKV (key=value lines: see docs/functions.md), ' +
    'URL (a query string, or a URL\u2019s query, to an object; repeated keys give arrays). `charset` (default UTF-8) decodes URL escapes; other text arrives decoded.',
  returns: 'object',
  forms: [
    {
      params: [
        { name: 'input', type: 'string' },
        { name: 'format', type: 'string' },
        { name: 'charset', type: 'string', optional: true, default: 'UTF-8' },
        { name: 'options', type: 'object', optional: true },
      ],
      impl(ctx, args) {
        const [input, formatText, charset, raw] = args;
        const format = choice('load', 2, 'format', formatText, LOAD_FORMATS);
        const badCharset = knownCharset(charset);
        if (badCharset) throw argumentError('load', 3, 'charset', badCharset);
        const csv = format === 'CSV_HEAD' || format === 'CSV_NOHEAD';
        // what a parsed document costs beside its text (objects, arrays, their slots); CSV is charged by its cells
        if (!csv && format !== 'TEXT') budgetOf(ctx).allocate(input.length * PARSED_BYTES_PER_CHAR, 'load');
        if (!csv && raw && Object.keys(raw).length)
          throw argumentError('load', 4, 'options', 'apply only to the formats CSV_HEAD and CSV_NOHEAD');
        return converting('load', 1, 'input', () => {
          switch (format) {
            case 'TEXT':
              return input;
            case 'JSON':
              try {
                return parseJsonText(input);
              } catch (e) {
                throw new DataError(`is not valid JSON: ${messageOf(e)}`);
              }
            case 'XML':
              return xmlToJson(input);
            case 'EDI':
              return edifactToJson(input);
            case 'ESKV':
              return eskvToJson(input);
            case 'URL':
              return queryToJson(input, charset);
            case 'CSV_HEAD':
            case 'CSV_NOHEAD': {
              const o = readOptions('load', 4, 'options', raw, loadCsvOptions);
              const list = readCsv(input, {
                header: format === 'CSV_HEAD',
                trim: false,
                separator: o.separator ?? ';',
                quote: o.delimiter ?? '"',
                empty: o.empty ?? '',
                parseNumbers: o.parse_numbers,
                onRecord: chargingRecords(budgetOf(ctx), 'load', input, o.separator ?? ';'),
              });
              return { list };
            }
          }
        });
      },
    },
  ],
});

const toXml = defineFunction({
  name: 'to_xml',
  group: 'Utilities',
  rights: 'none',
  doc:
    'Writes `input` as XML under an element named `root` (root "" uses the single field of input as the root). Fields starting with @ become attributes, ' +
    '#text the element\u2019s text, arrays repeated elements, null an empty element. No XML declaration is written.',
  returns: 'string (XML)',
  flags: { webInterface: true, pure: true },
  forms: [
    {
      params: [
        { name: 'root', type: 'string' },
        { name: 'input', type: 'object' },
      ],
      impl(ctx, args) {
        const [root, input] = args;
        const budget = budgetOf(ctx);
        const room = textRoom(budget, 'to_xml');
        boundedSize(input, room.maxChars, room.tooLarge);
        if (root !== '' && !/^[A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?$/.test(root))
          throw argumentError('to_xml', 1, 'root', `${JSON.stringify(root)} is not a valid XML element name`);
        return converting('to_xml', 2, 'input', () => jsonToXml(root, input, javaNumberText));
      },
    },
  ],
});

const markdownOptions = { css: { type: 'string' }, title: { type: 'string' } } satisfies Record<
  string,
  OptionSpec
>;

const markdown = defineFunction({
  name: 'P_markdown_to_html',
  aliases: ['markdown_to_html'],
  group: 'Utilities',
  rights: 'none',
  doc:
    'Renders Markdown (GitHub flavour) as a complete HTML document, sanitised (no script, event handler or javascript: link survives). ' +
    'Options: title (the document title) and css (a stylesheet URL, linked, or CSS text, inlined in a style element).',
  returns: 'string (HTML)',
  forms: [
    {
      params: [
        { name: 'content', type: 'string' },
        { name: 'options', type: 'object', optional: true },
      ],
      impl(_ctx, args) {
        const [content, raw] = args;
        const o = readOptions('P_markdown_to_html', 2, 'options', raw, markdownOptions);
        return markdownToHtml(content, {
          css: o.css,
          title: o.title,
        });
      },
    },
  ],
});

export const conversionFunctions: FunctionSpec[] = [csvToJson, jsonToCsvFn, load, toXml, markdown];
