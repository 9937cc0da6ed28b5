/**
 * Pagination and filters of the list methods, as the platform's list parameters:
 * `{nb, first}` and `[{filter, operator, value}]` become `nb=…&first=…&filter=A B&operator=EE IS&value=x NULL`.
 */
import { invalidArgument } from './errors.js';

export const OPERATORS = ['EE', 'NE', 'CONTAINS', 'IN', 'IS', 'GT', 'LT', 'GE', 'LE'] as const;
export type Operator = (typeof OPERATORS)[number];

export interface Pagination {
  /** How many entries (1 to 1000; the server's default is 100). */
  nb?: number;
  /** The index of the first entry (default 0). */
  first?: number;
  /** A field to order by, and the direction. */
  orderby?: string;
  order?: 'ASC' | 'DESC';
}

export interface Filter {
  /** The field (each list names its fields: docs/client.md). */
  filter: string;
  operator: Operator;
  /** IS takes 'NULL' or 'NOT_NULL'; IN an array (or values separated by |). Values may not hold spaces. */
  value: string | number | boolean | Array<string | number | boolean>;
}

export interface ListOptions {
  pagination?: Pagination;
  filters?: Filter[];
}

/** The query string of a list call ('' when nothing is asked), or invalid-argument. */
export function listQuery(options: ListOptions = {}): string {
  const query = new URLSearchParams();
  const p = options.pagination ?? {};
  for (const name of ['nb', 'first'] as const) {
    const n = p[name];
    if (n === undefined) continue;
    if (!Number.isInteger(n) || n < (name === 'nb' ? 1 : 0))
      throw invalidArgument(
        `pagination.${name}: expected an integer ${name === 'nb' ? '≥ 1' : '≥ 0'}, got ${String(n)}`,
      );
    query.set(name, String(n));
  }
  if (p.orderby !== undefined) query.set('orderby', p.orderby);
  if (p.order !== undefined) query.set('order', p.order);
  const filters = options.filters ?? [];
  if (!Array.isArray(filters))
    throw invalidArgument('filters: expected an array of {filter, operator, value}');
  if (filters.length > 0) {
    const names: string[] = [];
    const operators: string[] = [];
    const values: string[] = [];
    filters.forEach((f, i) => {
      const where = `filters[${i}]`;
      if (typeof f?.filter !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(f.filter))
        throw invalidArgument(`${where}.filter: expected a field name, got ${JSON.stringify(f?.filter)}`);
      const operator = String(f.operator).toUpperCase();
      if (!(OPERATORS as readonly string[]).includes(operator))
        throw invalidArgument(
          `${where}.operator: one of ${OPERATORS.join(', ')}, not ${JSON.stringify(f.operator)}`,
        );
      const value = Array.isArray(f.value) ? f.value.map(String).join('|') : String(f.value);
      if (value === '' || /\s/.test(value))
        throw invalidArgument(
          `${where}.value: the list parameters cannot carry an empty value or spaces (${JSON.stringify(value)})`,
        );
      names.push(f.filter);
      operators.push(operator);
      values.push(value);
    });
    query.set('filter', names.join(' '));
    query.set('operator', operators.join(' '));
    query.set('value', values.join(' '));
  }
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}
