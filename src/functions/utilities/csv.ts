/** CSV reading and writing shared by csv_to_json, json_to_csv and load (CSV_HEAD / CSV_NOHEAD). */
import { BudgetExceededError } from '../../limits/index.js';
import { DataError } from './args.js';
import { createRequire } from 'node:module';
import type { parse as parseType } from 'csv-parse/sync';
import type { stringify as stringifyType } from 'csv-stringify/sync';
import { messageOf } from '../errors.js';
import { PROTOTYPE_KEYS as FORBIDDEN } from '../../safety/index.js';

// csv-parse and csv-stringify (their CommonJS builds) load with the first CSV read or written, not at startup.
const require = createRequire(import.meta.url);
let csv: { parse: typeof parseType; stringify: typeof stringifyType } | undefined;
const csvLibrary = () =>
  (csv ??= {
    parse: (require('csv-parse/sync') as { parse: typeof parseType }).parse,
    stringify: (require('csv-stringify/sync') as { stringify: typeof stringifyType }).stringify,
  });

/** A CSV problem in the user's data; the caller prefixes the function name. */
export class CsvError extends DataError {
  override name = 'CsvError';
}

export interface CsvReadOptions {
  header: boolean;
  separator: string;
  /** Quoting character (the spec's "delimiter"); doubled inside a quoted value. */
  quote: string;
  /** Value of an empty or missing entry. */
  empty: string;
  trim: boolean;
  /** Called with each record as it is read (charges the evaluation's budget; may throw to stop). */
  onRecord?: () => void;
  /** Columns (names, or zero-based indices as numbers or digit strings) to convert. */
  parseNumbers?: unknown[];
  parseLongs?: unknown[];
  parseBooleans?: unknown[];
}

export type CsvCell = string | number | bigint | boolean;
export type CsvRow = CsvCell[] | Record<string, CsvCell>;

/** Java Double.parseDouble (decimal forms): surrounding blanks, NaN, Infinity and a d/f suffix allowed. */
const JAVA_DOUBLE = /^[+-]?(?:NaN|Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fFdD]?)$/;
const JAVA_LONG = /^[+-]?\d+$/;
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

/** String.trim(): every character up to U+0020 counts as blank. */
function javaTrim(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && s.charCodeAt(start) <= 0x20) start++;
  while (end > start && s.charCodeAt(end - 1) <= 0x20) end--;
  return s.slice(start, end);
}

export function parseJavaDouble(text: string): number | undefined {
  const t = javaTrim(text);
  if (!JAVA_DOUBLE.test(t)) return undefined;
  return Number(t.replace(/[fFdD]$/, ''));
}

export function parseJavaLong(text: string): number | bigint | undefined {
  if (!JAVA_LONG.test(text)) return undefined;
  const big = BigInt(text);
  if (big < LONG_MIN || big > LONG_MAX) return undefined;
  return Number.isSafeInteger(Number(big)) ? Number(big) : big;
}

type Conversion = 'number' | 'long' | 'boolean';

/** Which conversion applies to each column, from the names/indices the options list. */
function conversions(
  names: string[] | undefined,
  width: number,
  opts: CsvReadOptions,
): (Conversion | undefined)[] {
  const out: (Conversion | undefined)[] = new Array(width).fill(undefined);
  const mark = (list: unknown[] | undefined, kind: Conversion, option: string) => {
    for (const col of list ?? []) {
      let index: number;
      if (typeof col === 'number' || (typeof col === 'string' && /^\d+$/.test(col))) index = Number(col);
      else if (typeof col === 'string') {
        if (!names)
          throw new CsvError(`option ${option}: column names (${JSON.stringify(col)}) need a header row`);
        index = names.indexOf(col);
        if (index < 0) continue; // a column absent from this file converts nothing
      } else
        throw new CsvError(
          `option ${option}: expected column names or zero-based indices, got ${JSON.stringify(col)}`,
        );
      if (index >= out.length) out.length = index + 1;
      out[index] = kind;
    }
  };
  mark(opts.parseNumbers, 'number', 'parse_numbers');
  mark(opts.parseLongs, 'long', 'parse_longs');
  mark(opts.parseBooleans, 'boolean', 'parse_booleans');
  return out;
}

function convert(value: string, kind: Conversion | undefined, where: () => string): CsvCell {
  switch (kind) {
    case undefined:
      return value;
    case 'number': {
      const n = parseJavaDouble(value);
      if (n === undefined) throw new CsvError(`${where()}: ${JSON.stringify(value)} is not a number`);
      return n;
    }
    case 'long': {
      const n = parseJavaLong(value);
      if (n === undefined) throw new CsvError(`${where()}: ${JSON.stringify(value)} is not a long integer`);
      return n;
    }
    case 'boolean':
      return value.toLowerCase() === 'true'; // Boolean.parseBoolean
  }
}

/**
 * Parses CSV text into rows: arrays (no header; padded to the widest row with `empty`) or objects
 * keyed by the header row (missing entries `empty`). Blank lines are skipped; line ends may be
 * CRLF, LF or CR. Converted columns keep `empty` as it is for empty entries.
 */
export function readCsv(text: string, opts: CsvReadOptions): CsvRow[] {
  let records: string[][];
  try {
    records = csvLibrary().parse(text, {
      delimiter: opts.separator,
      quote: opts.quote,
      escape: opts.quote,
      record_delimiter: ['\r\n', '\n', '\r'],
      relax_column_count: true,
      skip_empty_lines: true,
      bom: true,
      trim: opts.trim,
      ...(opts.onRecord ? { on_record: (r: string[]) => (opts.onRecord!(), r) } : {}),
    }) as string[][];
  } catch (e) {
    if (e instanceof BudgetExceededError) throw e;
    throw new CsvError(`invalid CSV: ${shortenQuoted(messageOf(e))}`);
  }
  const cell = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);
  if (opts.header) {
    const [names = [], ...rows] = records;
    for (const n of names)
      if (FORBIDDEN.has(n)) throw new CsvError(`the column name ${JSON.stringify(n)} is not allowed`);
    const kinds = conversions(names, names.length, opts);
    return rows.map((row, r) => {
      const obj: Record<string, CsvCell> = {};
      names.forEach((name, i) => {
        const v = cell(row[i]);
        obj[name] =
          v === undefined
            ? opts.empty
            : convert(v, kinds[i], () => `row ${r + 2}, column ${JSON.stringify(name)}`);
      });
      return obj;
    });
  }
  const width = records.reduce((w, r) => Math.max(w, r.length), 0);
  const kinds = conversions(undefined, width, opts);
  return records.map((row, r) => {
    const out: CsvCell[] = [];
    for (let i = 0; i < width; i++) {
      const v = cell(row[i]);
      out.push(v === undefined ? opts.empty : convert(v, kinds[i], () => `row ${r + 1}, column ${i}`));
    }
    return out;
  });
}

/** The CSV value an error message quotes, cut to 64 characters (a field may be megabytes). */
function shortenQuoted(message: string): string {
  return message.replace(/value is "([\s\S]*)"$/, (_m, v: string) =>
    v.length > 64 ? `value is "${v.slice(0, 64)}…"` : `value is "${v}"`,
  );
}

/** Writes rows of text cells: quoting when a cell holds the separator, a quote or a line break; CRLF after every row. */
export function writeCsv(rows: string[][], separator: string): string {
  return csvLibrary().stringify(rows, {
    delimiter: separator,
    record_delimiter: '\r\n',
    quote: '"',
    quoted_match: /[\r\n]/,
  });
}

/** JSON text where bigints (longs beyond 2^53) are written with all their digits. */
export function jsonWithLongs(value: unknown): string {
  let found = false;
  const text = JSON.stringify(value, (_k, v) => {
    if (typeof v !== 'bigint') return v;
    found = true;
    return `\u0000long:${v}\u0000`;
  });
  return found ? text.replace(/"\\u0000long:(-?\d+)\\u0000"/g, '$1') : text;
}
