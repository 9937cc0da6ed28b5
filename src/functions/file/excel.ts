/** Excel workbooks: R_read_excel_cells. */
import type { WorksheetRequest } from '../../platform/files/index.js';
import { readExcelCells } from '../../platform/files/excel.js';
import { isForbiddenKey } from '../../platform/model.js';
import { argumentError } from '../errors.js';
import { defineFunction, type FunctionSpec } from '../spec.js';
import { fileId, platformCall, platformOf, principalOf } from './args.js';

/** Spec 2.2 worksheet descriptor, checked: array of {worksheet, cells: [{col, row}]}. */
function worksheetRequest(fn: string, value: unknown[]): WorksheetRequest[] {
  const fail = (detail: string) => argumentError(fn, 2, 'cells', detail);
  return value.map((sheet, i) => {
    if (typeof sheet !== 'object' || sheet === null || Array.isArray(sheet))
      throw fail(`element ${i} must be an object {worksheet, cells}`);
    const { worksheet, cells, ...rest } = sheet as Record<string, unknown>;
    const extra = Object.keys(rest);
    if (extra.length > 0)
      throw fail(`element ${i} has an unknown field ${JSON.stringify(extra[0])}: worksheet, cells`);
    if (typeof worksheet !== 'string' || worksheet === '')
      throw fail(`element ${i}: worksheet must be a sheet name`);
    if (!Array.isArray(cells)) throw fail(`element ${i}: cells must be an array of {col, row}`);
    return {
      worksheet,
      cells: cells.map((cell, j) => {
        if (typeof cell !== 'object' || cell === null || Array.isArray(cell))
          throw fail(`element ${i}: cell ${j} must be an object {col, row}`);
        const { col, row } = cell as Record<string, unknown>;
        for (const key of Object.keys(cell))
          if (isForbiddenKey(key) || (key !== 'col' && key !== 'row'))
            throw fail(`element ${i}: cell ${j} has an unknown field ${JSON.stringify(key)}: col, row`);
        const ok = (v: unknown) => typeof v === 'string' || typeof v === 'number';
        if (!ok(col) || !ok(row))
          throw fail(`element ${i}: cell ${j} needs col and row (letters or numbers)`);
        return { col: col, row: row };
      }),
    };
  });
}

export const excelFunctions: FunctionSpec[] = [
  defineFunction({
    name: 'R_read_excel_cells',
    aliases: ['read_excel_cells'],
    group: 'File',
    rights: 'service',
    doc:
      'Reads cells of an uploaded xlsx workbook (READ): `cells` is an array of {worksheet, cells: [{col, row}]} ' +
      '(columns as letters or numbers, rows as numbers); the result maps worksheet → row → column → text as ' +
      'requested, "" for an empty cell.',
    returns: 'cells descriptor',
    forms: [
      {
        params: [
          { name: 'fileId', type: 'string' },
          { name: 'cells', type: 'array', doc: 'worksheet descriptor' },
        ],
        async impl(ctx, [id, cells], _call, fn) {
          const platform = platformOf(fn, ctx);
          const request = worksheetRequest(fn, cells);
          const { content } = await platformCall(fn, () =>
            platform.files.read(ctx.accountId, principalOf(ctx), fileId(fn, 1, id)),
          );
          return platformCall(fn, () => readExcelCells(content, request, platform.files.limits));
        },
      },
    ],
  }),
];
