/** transpose: an object of columns ↔ an array of row objects. */
import { describeValue, isHash } from '../coercion.js';
import { argumentError } from '../errors.js';
import { defineFunction, type FunctionSpec } from '../spec.js';
import { PROTOTYPE_KEYS as FORBIDDEN } from '../../safety/index.js';

type Row = Record<string, unknown>;

function checkName(name: string): void {
  if (FORBIDDEN.has(name))
    throw argumentError('transpose', 1, 'input', `the key ${JSON.stringify(name)} is not allowed`);
}

/** [{a:1,b:2},{a:3}] → {a:[1,3], b:[2,null]}: every key seen, null where a row lacks it. */
export function rowsToColumns(rows: unknown[]): Record<string, unknown[]> {
  const columns: Record<string, unknown[]> = {};
  rows.forEach((row, i) => {
    if (!isHash(row))
      throw argumentError('transpose', 1, 'input', `row ${i + 1} is ${describeValue(row)}, expected a hash`);
    for (const key of Object.keys(row)) {
      if (!Object.prototype.hasOwnProperty.call(columns, key)) {
        checkName(key);
        columns[key] = new Array(rows.length).fill(null);
      }
    }
  });
  rows.forEach((row, i) => {
    for (const [key, value] of Object.entries(row as Row)) columns[key][i] = value ?? null;
  });
  return columns;
}

/** {a:[1,3], b:[2]} → [{a:1,b:2},{a:3,b:null}]: as many rows as the longest column. */
export function columnsToRows(columns: Row): Row[] {
  let length = 0;
  for (const [key, column] of Object.entries(columns)) {
    checkName(key);
    if (!Array.isArray(column))
      throw argumentError(
        'transpose',
        1,
        'input',
        `column ${JSON.stringify(key)} is ${describeValue(column)}, expected a sequence`,
      );
    length = Math.max(length, column.length);
  }
  const rows: Row[] = [];
  for (let i = 0; i < length; i++) {
    const row: Row = {};
    for (const [key, column] of Object.entries(columns)) row[key] = (column as unknown[])[i] ?? null;
    rows.push(row);
  }
  return rows;
}

export const transposeFunctions: FunctionSpec[] = [
  defineFunction({
    name: 'transpose',
    group: 'Utilities',
    rights: 'none',
    doc:
      'Turns an object of columns ({"a":[1,2],"b":[3,4]}) into an array of row objects ([{"a":1,"b":3},{"a":2,"b":4}]) and the reverse. ' +
      'Short columns and rows lacking a key give null.',
    returns: 'array or object',
    flags: { webInterface: true, pure: true },
    forms: [
      {
        params: [{ name: 'input', type: ['object', 'array'] }],
        impl: (_ctx, args) =>
          Array.isArray(args[0]) ? rowsToColumns(args[0]) : columnsToRows(args[0] as Row),
      },
    ],
  }),
];
