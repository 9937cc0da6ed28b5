/**
 * R_read_excel_cells: the text of requested cells of an xlsx workbook (exceljs). The workbook
 * is a ZIP archive, so it is first checked against the zip limits (entries, inflated size,
 * ratio) before exceljs inflates it in memory.
 *
 * A cell's text: strings as they are; numbers in their shortest form (`12`, `1.5`); booleans
 * `true` / `false`; dates `yyyy-MM-dd`, or `yyyy-MM-dd HH:mm:ss` when they have a time (Excel
 * dates carry no zone: read as UTC); formulas their cached result ('' when none); rich text
 * and hyperlinks their text; errors their code (`#DIV/0!`); an empty or absent cell ''.
 */
import { PlatformError } from '../errors.js';
import type { FileLimits } from './limits.js';
import { checkZip, type ZipLimits } from './zip.js';
import { errorMessage } from '../../errors/index.js';
import { isRecord, propertyOf } from '../../safety/narrow.js';

/** Spec 2.2, worksheet descriptor: the cells to read, per worksheet. */
export interface WorksheetRequest {
  worksheet: string;
  cells: Array<{ col: string | number; row: string | number }>;
}

/** Spec 2.2, cells descriptor: worksheet → row → column → text, keyed as the request named them. */
export type CellsDescriptor = Record<string, Record<string, Record<string, string>>>;

export const MAX_ROW = 1_048_576;
export const MAX_COLUMN = 16_384; // XFD

export async function readExcelCells(
  content: Buffer,
  request: readonly WorksheetRequest[],
  limits: ZipLimits & Pick<FileLimits, 'maxExcelCells'>,
): Promise<CellsDescriptor> {
  const wanted = request.reduce((n, sheet) => n + sheet.cells.length, 0);
  if (wanted > limits.maxExcelCells)
    throw new PlatformError(
      'invalid',
      `${wanted} cells requested, more than ${limits.maxExcelCells} (maxExcelCells)`,
    );
  const positions = request.map((sheet) => ({
    worksheet: sheet.worksheet,
    cells: sheet.cells.map((c) => ({ col: c.col, row: c.row, r: rowNumber(c.row), c: columnNumber(c.col) })),
  }));
  await checkZip(content, limits);
  const { default: ExcelJS } = await import('exceljs'); // loaded when a workbook is read, not at startup
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(content);
  } catch (e) {
    throw new PlatformError('invalid', `the file is not a readable xlsx workbook: ${errorMessage(e)}`);
  }
  const result: CellsDescriptor = {};
  for (const sheet of positions) {
    const worksheet =
      workbook.worksheets.find((w) => w.name === sheet.worksheet) ??
      workbook.worksheets.find((w) => w.name.toLowerCase() === sheet.worksheet.toLowerCase());
    if (!worksheet)
      throw new PlatformError('not-found', `worksheet ${JSON.stringify(sheet.worksheet)} not found`);
    const rows = ownEntry(result, sheet.worksheet, () => ({}));
    for (const cell of sheet.cells) {
      const columns = ownEntry(rows, String(cell.row), () => ({}));
      setOwn(columns, String(cell.col), cellText(worksheet.findCell(cell.r, cell.c)?.value));
    }
  }
  return result;
}

/** A row as a number or digit text, 1 to 1048576. */
export function rowNumber(row: string | number): number {
  const n = typeof row === 'number' ? row : /^\s*\d{1,7}\s*$/.test(row) ? Number(row) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_ROW)
    throw new PlatformError('invalid', `invalid row ${JSON.stringify(row)}: a number from 1 to ${MAX_ROW}`);
  return n;
}

/** A column as a number (1 = A), digit text, or letters A to XFD (any case). */
export function columnNumber(col: string | number): number {
  let n = NaN;
  if (typeof col === 'number') n = col;
  else if (/^\s*\d{1,5}\s*$/.test(col)) n = Number(col);
  else if (/^\s*[A-Za-z]{1,3}\s*$/.test(col)) {
    n = 0;
    for (const ch of col.trim().toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  }
  if (!Number.isInteger(n) || n < 1 || n > MAX_COLUMN)
    throw new PlatformError(
      'invalid',
      `invalid column ${JSON.stringify(col)}: letters A to XFD or a number from 1 to ${MAX_COLUMN}`,
    );
  return n;
}

export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      return Object.is(value, -0) ? '0' : String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      return String(value);
  }
  if (value instanceof Date) return dateText(value);
  if (!isRecord(value)) return String(value);
  const v = value;
  if (Array.isArray(v.richText)) return v.richText.map((t) => propertyOf(t, 'text') ?? '').join('');
  if ('formula' in v || 'sharedFormula' in v) return cellText(v.result);
  if ('hyperlink' in v || 'text' in v) return cellText(v.text);
  if ('error' in v) return String(v.error);
  return '';
}

function dateText(date: Date): string {
  if (Number.isNaN(date.getTime())) return '';
  const iso = date.toISOString(); // yyyy-MM-ddTHH:mm:ss.sssZ
  const time = iso.slice(11, 19);
  return time === '00:00:00' ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${time}`;
}

/** Own enumerable properties even for keys such as `__proto__` (sheet names are free text). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function ownEntry<T>(target: Record<string, T>, key: string, make: () => T): T {
  if (Object.prototype.hasOwnProperty.call(target, key)) return target[key]!;
  const value = make();
  setOwn(target, key, value);
  return value;
}
