/**
 * Shared pieces of the File and Application function tests: contexts in a world, files made
 * through the functions themselves, and an xlsx workbook built with exceljs.
 */
import ExcelJS from 'exceljs';
import type { ExecutionContext } from '../../../src/functions/context.js';
import { call, contextIn, type World } from '../../platform/world.js';

export type Login = 'admin' | 'ann' | 'carl' | 'dora';

export async function as(
  w: World,
  login: Login | null,
  extra: Partial<ExecutionContext> & {
    mode?: 'LIVE' | 'ACCEPTANCE' | 'TEST';
    surface?: ExecutionContext['surface'];
  } = {},
): Promise<ExecutionContext> {
  const { mode = 'LIVE', surface, ...fields } = extra;
  const ctx = await contextIn(w, { user: login ?? undefined, mode, ...(surface ? { surface } : {}) });
  return Object.assign(ctx, fields);
}

/** create_file through the function; resolves to the new id. */
export async function createText(
  ctx: ExecutionContext,
  name: string,
  text: string,
  options: object = {},
): Promise<string> {
  return (await call(ctx, 'create_file', name, text, options)) as string;
}

export async function createBinary(ctx: ExecutionContext, name: string, bytes: Buffer): Promise<string> {
  return (await call(ctx, 'create_file', name, bytes.toString('base64'), { algorithm: 'BASE64' })) as string;
}

export async function contentOf(ctx: ExecutionContext, id: string): Promise<string> {
  return (await call(ctx, 'R_file_content', id, 'NONE')) as string;
}

/** A workbook of every kind of cell the reader handles. */
export async function sampleWorkbook(): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const sheet = wb.addWorksheet('Orders');
  sheet.getCell('A1').value = 'Customer';
  sheet.getCell('B1').value = 'Amount';
  sheet.getCell('A2').value = 'Acme';
  sheet.getCell('B2').value = 1250;
  sheet.getCell('B3').value = 12.5;
  sheet.getCell('C2').value = true;
  sheet.getCell('D2').value = new Date(Date.UTC(2024, 0, 15));
  sheet.getCell('D3').value = new Date(Date.UTC(2024, 0, 15, 13, 45, 30));
  sheet.getCell('E2').value = { formula: 'B2*2', result: 2500 };
  sheet.getCell('E3').value = { formula: 'B2/0', result: { error: '#DIV/0!' } };
  sheet.getCell('E4').value = { formula: 'NOW()' };
  sheet.getCell('F2').value = { richText: [{ text: 'bold ', font: { bold: true } }, { text: 'plain' }] };
  sheet.getCell('G2').value = { text: 'site', hyperlink: 'https://example.com' };
  sheet.getCell('H2').value = '';
  sheet.getCell('I2').value = -0;
  sheet.mergeCells('A5:B5');
  sheet.getCell('A5').value = 'merged';
  const other = wb.addWorksheet('Totaux 2024');
  other.getCell('AA10').value = 'far';
  other.getCell('XFD1').value = 'last column';
  return Buffer.from(await wb.xlsx.writeBuffer());
}
