import ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createPlatform } from '../../../src/platform/index.js';
import { describeEachEngine } from '../../support/engines.js';
import { buildWorld, call, errorOf, type World } from '../../platform/world.js';
import { zipBomb } from '../../platform/files/zips.js';
import { as, createBinary, createText, sampleWorkbook } from './support.js';

describeEachEngine('R_read_excel_cells', (engine) => {
  let w: World;
  let ann: Awaited<ReturnType<typeof as>>;
  let book: string;
  beforeAll(async () => {
    w = await buildWorld(engine.store);
    ann = await as(w, 'ann');
    book = await createBinary(ann, 'orders.xlsx', await sampleWorkbook());
  });

  it('detects the workbook type', async () => {
    expect(await call(ann, 'R_file_desc', book)).toMatchObject({
      content_type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      charset: null,
    });
  });

  it('reads only the requested cells as text, keyed as requested', async () => {
    const cells = (...addresses: string[]) =>
      addresses.map((a) => ({ col: a.replace(/\d+/, ''), row: Number(a.replace(/\D+/, '')) }));
    const result = await call(ann, 'R_read_excel_cells', book, [
      {
        worksheet: 'Orders',
        cells: cells(
          'A1',
          'B2',
          'B3',
          'C2',
          'D2',
          'D3',
          'E2',
          'E3',
          'E4',
          'F2',
          'G2',
          'H2',
          'I2',
          'B5',
          'Z99',
        ),
      },
      {
        worksheet: 'Totaux 2024',
        cells: [
          { col: 27, row: '10' },
          { col: 'xfd', row: 1 },
          { col: '2', row: 1 },
        ],
      },
    ]);
    expect(result).toEqual({
      Orders: {
        '1': { A: 'Customer' },
        '2': {
          B: '1250',
          C: 'true',
          D: '2024-01-15',
          E: '2500',
          F: 'bold plain',
          G: 'site',
          H: '',
          I: '0',
        },
        '3': { B: '12.5', D: '2024-01-15 13:45:30', E: '#DIV/0!' },
        '4': { E: '' },
        '5': { B: 'merged' },
        '99': { Z: '' },
      },
      'Totaux 2024': { '10': { '27': 'far' }, '1': { xfd: 'last column', '2': '' } },
    });
  });

  it('is also read_excel_cells, takes the descriptor as JSON text, and finds sheets in any case', async () => {
    const result = await call(
      ann,
      'read_excel_cells',
      book,
      '[{"worksheet": "orders", "cells": [{"col": "a", "row": "2"}]}]',
    );
    expect(result).toEqual({ orders: { '2': { a: 'Acme' } } });
  });

  it('keeps a sheet named like a prototype key as plain data', async () => {
    const wb = new ExcelJS.Workbook();
    wb.addWorksheet('__proto__').getCell('A1').value = 'polluted?';
    const id = await createBinary(ann, 'proto.xlsx', Buffer.from(await wb.xlsx.writeBuffer()));
    const result = (await call(ann, 'R_read_excel_cells', id, [
      { worksheet: '__proto__', cells: [{ col: 'A', row: 1 }] },
    ])) as Record<string, unknown>;
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.keys(result)).toEqual(['__proto__']);
    expect(Object.getOwnPropertyDescriptor(result, '__proto__')!.value).toEqual({ '1': { A: 'polluted?' } });
    expect(({} as Record<string, unknown>).A).toBeUndefined();
  });

  it('names what is wrong with the request', async () => {
    const bad = async (cells: unknown) => errorOf(ann, 'R_read_excel_cells', book, cells);
    expect(await bad([{ worksheet: 'Nope', cells: [] }])).toBe(
      'R_read_excel_cells: worksheet "Nope" not found',
    );
    expect(await bad([{ worksheet: 'Orders', cells: [{ col: 'A', row: 0 }] }])).toBe(
      'R_read_excel_cells: invalid row 0: a number from 1 to 1048576',
    );
    expect(await bad([{ worksheet: 'Orders', cells: [{ col: 'XFE', row: 1 }] }])).toBe(
      'R_read_excel_cells: invalid column "XFE": letters A to XFD or a number from 1 to 16384',
    );
    expect(await bad([{ worksheet: 'Orders', cells: [{ col: 'A1', row: 1 }] }])).toBe(
      'R_read_excel_cells: invalid column "A1": letters A to XFD or a number from 1 to 16384',
    );
    expect(await bad([{ worksheet: 'Orders', cells: [{ col: 'A' }] }])).toBe(
      'R_read_excel_cells: argument 2 (cells) element 0: cell 0 needs col and row (letters or numbers)',
    );
    expect(await bad([{ worksheet: 'Orders', cells: [{ col: 'A', row: 1, sheet: 'x' }] }])).toBe(
      'R_read_excel_cells: argument 2 (cells) element 0: cell 0 has an unknown field "sheet": col, row',
    );
    expect(await bad([{ sheet: 'Orders', cells: [] }])).toBe(
      'R_read_excel_cells: argument 2 (cells) element 0 has an unknown field "sheet": worksheet, cells',
    );
    expect(await bad(['Orders'])).toBe(
      'R_read_excel_cells: argument 2 (cells) element 0 must be an object {worksheet, cells}',
    );
    expect(await bad([{ worksheet: 'Orders', cells: 'A1' }])).toBe(
      'R_read_excel_cells: argument 2 (cells) element 0: cells must be an array of {col, row}',
    );
  });

  it('refuses what is not a workbook, a bomb disguised as one, and too many cells', async () => {
    const text = await createText(ann, 'x.xlsx', 'plain text');
    expect(await errorOf(ann, 'R_read_excel_cells', text, [])).toBe(
      'R_read_excel_cells: the file is not a valid zip archive: End of central directory record signature not found. Either not a zip file, or file is truncated.',
    );
    const bomb = await createBinary(ann, 'bomb.xlsx', zipBomb(1100));
    expect(await errorOf(ann, 'R_read_excel_cells', bomb, [])).toBe(
      'R_read_excel_cells: the archive inflates to more than 268435456 bytes (maxZipUncompressedBytes)',
    );
    const platform = createPlatform(engine.store, { fileLimits: { maxExcelCells: 2 } });
    const limited = await as(w, 'ann', { platform });
    expect(
      await errorOf(limited, 'R_read_excel_cells', book, [
        {
          worksheet: 'Orders',
          cells: [
            { col: 'A', row: 1 },
            { col: 'A', row: 2 },
            { col: 'A', row: 3 },
          ],
        },
      ]),
    ).toBe('R_read_excel_cells: 3 cells requested, more than 2 (maxExcelCells)');
  });

  describe('rights', () => {
    it('needs READ on the workbook', async () => {
      const carl = await as(w, 'carl');
      expect(await errorOf(carl, 'R_read_excel_cells', book, [])).toBe(
        `R_read_excel_cells: Access denied: no READ right on file ${book}.`,
      );
    });
  });
});
