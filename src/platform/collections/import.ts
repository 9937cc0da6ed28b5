/**
 * Reading an import file (import_objects, `flowmark collections import`) into documents, as a
 * stream: CSV whose first row names the fields, or JSON (an array of objects, or one object per
 * line). Options are those of spec 2.3. A bad row stops the import with its line number; the
 * service runs the whole import in one transaction, so nothing of it stays.
 */
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { parse as parseCsv, type Options as CsvOptions } from 'csv-parse';
import iconv from 'iconv-lite';
import { CollectionError } from './errors.js';
import { readJsonText } from '../../safety/index.js';
import { errorMessage } from '../../errors/index.js';
import { isRecord } from '../../safety/narrow.js';

export interface ImportOptions {
  /** CSV (default) or JSON. */
  format: 'CSV' | 'JSON';
  /** Between values (default `,`). */
  separator: string;
  /** Quoting character, doubled inside a quoted value (default `"`). */
  delimiter: string;
  /** The value of an empty field, `""` included (default ''). */
  empty: string;
  /** Character set of the file (default UTF-8). */
  charset: string;
  /** Columns (names or zero-based indices) stored as numbers (doubles). */
  parseNumbers: Array<string | number>;
  /** Columns stored as long integers. */
  parseLongs: Array<string | number>;
  /** Trim values before insertion and before numeric decoding. */
  trim: boolean;
}

const OPTION_NAMES = [
  'format',
  'separator',
  'delimiter',
  'empty',
  'charset',
  'parse_numbers',
  'parse_longs',
  'trim',
];

function fail(message: string): never {
  throw new CollectionError('import', message);
}

/** The options object of import_objects (spec 2.3), checked; unknown names are refused. */
export function importOptions(raw: Record<string, unknown> = {}): ImportOptions {
  for (const key of Object.keys(raw))
    if (!OPTION_NAMES.includes(key)) fail(`unknown option '${key}' (known: ${OPTION_NAMES.join(', ')})`);
  const text = (name: string, fallback: string, nonEmpty = true): string => {
    const v = raw[name];
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'string' || (nonEmpty && v === ''))
      fail(`option '${name}' must be a${nonEmpty ? ' non-empty' : ''} string`);
    return v;
  };
  const columns = (name: string): Array<string | number> => {
    const v = raw[name];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v) || !v.every(isColumn))
      fail(`option '${name}' must be an array of column names or zero-based indices`);
    return v;
  };
  const format = text('format', 'CSV').toUpperCase();
  if (format !== 'CSV' && format !== 'JSON') fail(`option 'format' must be CSV or JSON, not '${format}'`);
  const charset = text('charset', 'UTF-8');
  if (!iconv.encodingExists(charset)) fail(`unknown charset '${charset}'`);
  const delimiter = text('delimiter', '"');
  if ([...delimiter].length !== 1) fail(`option 'delimiter' must be one character`);
  const trim = raw.trim ?? false;
  if (typeof trim !== 'boolean') fail(`option 'trim' must be true or false`);
  return {
    format,
    separator: text('separator', ','),
    delimiter,
    empty: text('empty', '', false),
    charset,
    parseNumbers: columns('parse_numbers'),
    parseLongs: columns('parse_longs'),
    trim,
  };
}

/** The documents of a file. `source` yields the raw bytes. */
export async function* readImport(
  source: AsyncIterable<Buffer | string> | Iterable<Buffer | string>,
  options: ImportOptions,
): AsyncGenerator<Record<string, unknown>> {
  const decoded = Readable.from(source).pipe(iconv.decodeStream(options.charset)) as unknown as Readable;
  if (options.format === 'JSON') yield* readJson(decoded);
  else yield* readCsv(decoded, options);
}

const NUMBER_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const LONG_TEXT = /^[+-]?\d+$/;

interface CsvRecord {
  record: string[];
  line: number;
}

async function* readCsv(text: Readable, options: ImportOptions): AsyncGenerator<Record<string, unknown>> {
  const tagLine = (record: string[], context: { lines: number }): CsvRecord => ({
    record,
    line: context.lines,
  });
  const csvOptions: CsvOptions = {
    delimiter: options.separator,
    quote: options.delimiter,
    escape: options.delimiter,
    relax_column_count: true,
    skip_empty_lines: true,
    // The line each record ends on, for error messages (cheaper than `info`).
    on_record: tagLine as unknown as CsvOptions['on_record'],
  };
  const parser = text.pipe(parseCsv(csvOptions));
  let header: string[] | undefined;
  let numbers = new Set<number>();
  let longs = new Set<number>();
  try {
    for await (const { record, line } of parser as AsyncIterable<CsvRecord>) {
      if (!header) {
        header = record.map((v, i) => {
          const name = options.trim ? v.trim() : v;
          if (name === '') fail(`line ${line}: column ${i + 1} of the header has no name`);
          return name;
        });
        const dup = header.find((h, i) => header!.indexOf(h) !== i);
        if (dup !== undefined) fail(`line ${line}: column '${dup}' appears twice in the header`);
        numbers = resolveColumns(options.parseNumbers, header, 'parse_numbers');
        longs = resolveColumns(options.parseLongs, header, 'parse_longs');
        continue;
      }
      if (record.length > header.length)
        fail(`line ${line} has ${record.length} values but the header names ${header.length} columns`);
      const doc: Record<string, unknown> = {};
      for (let i = 0; i < header.length; i++) {
        const name = header[i]!;
        // A missing trailing field is empty too; so is "" (an empty field, quoted or not).
        const raw = i < record.length ? record[i]! : '';
        const text = options.trim ? raw.trim() : raw;
        if (numbers.has(i) || longs.has(i)) {
          // An empty numeric field stores `empty` as it is, as csv_to_json keeps it.
          if (text !== '') doc[name] = decodeNumber(text, longs.has(i), line, name);
          else doc[name] = options.empty;
        } else doc[name] = text === '' ? options.empty : text;
      }
      yield doc;
    }
  } catch (e) {
    if (e instanceof CollectionError) throw e;
    fail(`CSV: ${errorMessage(e)}`);
  }
}

function resolveColumns(refs: Array<string | number>, header: string[], option: string): Set<number> {
  const out = new Set<number>();
  for (const ref of refs) {
    let index = typeof ref === 'number' ? ref : header.indexOf(ref);
    if (index < 0 && typeof ref === 'string' && /^\d+$/.test(ref)) index = Number(ref);
    if (index < 0 || index >= header.length)
      fail(`option '${option}': no column ${JSON.stringify(ref)} in the header`);
    out.add(index);
  }
  return out;
}

function decodeNumber(text: string, long: boolean, line: number, column: string): number {
  if (long) {
    if (!LONG_TEXT.test(text)) fail(`line ${line}, column '${column}': "${text}" is not a long integer`);
    const n = Number(text);
    if (!Number.isSafeInteger(n))
      fail(`line ${line}, column '${column}': ${text} is too large to store exactly`);
    return n;
  }
  if (!NUMBER_TEXT.test(text)) fail(`line ${line}, column '${column}': "${text}" is not a number`);
  return Number(text);
}

async function* readJson(text: Readable): AsyncGenerator<Record<string, unknown>> {
  const lines = createInterface({ input: text, crlfDelay: Infinity });
  let first: string | undefined;
  let lineNo = 0;
  const pending: string[] = [];
  for await (const line of lines) {
    lineNo++;
    if (first === undefined) {
      if (line.trim() === '') continue;
      first = line.trimStart().replace(/^\uFEFF/, '');
      if (first.startsWith('[')) {
        pending.push(line);
        continue;
      }
    }
    if (first.startsWith('[')) {
      pending.push(line);
      continue;
    }
    if (line.trim() === '') continue;
    yield asObject(parseJson(line, `line ${lineNo}`), `line ${lineNo}`);
  }
  if (first?.startsWith('[')) {
    const all = parseJson(pending.join('\n'), 'the file');
    if (!Array.isArray(all)) fail('the file is not a JSON array');
    let i = 0;
    for (const item of all) yield asObject(item, `element ${i++} of the array`);
  }
}

function parseJson(text: string, where: string): unknown {
  try {
    return readJsonText(text, where);
  } catch (e) {
    fail(errorMessage(e));
  }
}

function asObject(value: unknown, where: string): Record<string, unknown> {
  if (!isRecord(value)) fail(`${where} is not a JSON object`);
  return value;
}

/** A column named by its header or its zero-based index. */
function isColumn(c: unknown): c is string | number {
  return typeof c === 'string' || (typeof c === 'number' && Number.isSafeInteger(c) && c >= 0);
}
