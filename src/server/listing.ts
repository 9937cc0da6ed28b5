/**
 * Paging, filters and order of list routes, in the platform's REST conventions: `first` and `nb`;
 * `orderby` and `order` (ASC/DESC); and parallel space-separated lists `filter=A B`,
 * `operator=EE IS`, `value=x NULL` (operators EE, NE, IS (NULL / NOT_NULL), CONTAINS, IN with `|`
 * between values, GT, LT, GE, LE). A route names the fields it lets clients filter and order by.
 */
import { Type, type Static } from 'typebox';
import { badRequest } from './errors.js';
import { propertyOf } from '../safety/narrow.js';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

export const ListQuery = Type.Object({
  first: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  nb: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })),
  orderby: Type.Optional(Type.String({ maxLength: 100 })),
  order: Type.Optional(Type.String({ pattern: '^(ASC|DESC|asc|desc)$' })),
  filter: Type.Optional(Type.String({ maxLength: 1000 })),
  operator: Type.Optional(Type.String({ maxLength: 1000 })),
  value: Type.Optional(Type.String({ maxLength: 10_000 })),
});
export type ListQuery = Static<typeof ListQuery>;

const OPERATORS = new Set(['EE', 'NE', 'IS', 'CONTAINS', 'IN', 'GT', 'LT', 'GE', 'LE']);

interface Condition {
  field: string;
  operator: string;
  value: string;
}

/** Filters, orders and pages `items` by the query; `fields` are the names a client may use. */
export function listPage<T extends object>(
  items: readonly T[],
  query: ListQuery,
  fields: readonly string[],
): { items: T[]; total: number; first: number; nb: number } {
  const conditions = parseConditions(query, fields);
  const get = (item: T, field: string) => propertyOf(item, field);
  let selected = items.filter((item) => conditions.every((c) => matches(get(item, c.field), c)));
  if (query.orderby !== undefined) {
    const field = query.orderby;
    if (!fields.includes(field))
      throw badRequest(`orderby: unknown field ${JSON.stringify(field)} (one of ${fields.join(', ')})`);
    const sign = query.order?.toUpperCase() === 'DESC' ? -1 : 1;
    selected = [...selected].sort((a, b) => sign * compare(get(a, field), get(b, field)));
  }
  const first = query.first ?? 0;
  const nb = query.nb ?? DEFAULT_PAGE_SIZE;
  return { items: selected.slice(first, first + nb), total: selected.length, first, nb };
}

function parseConditions(query: ListQuery, fields: readonly string[]): Condition[] {
  if (query.filter === undefined || query.filter.trim() === '') return [];
  const names = query.filter.trim().split(/ +/);
  const operators = (query.operator ?? '').trim().split(/ +/);
  const values = (query.value ?? '').split(' ');
  if (operators.length !== names.length || values.length !== names.length)
    throw badRequest(
      `filter, operator and value must list as many entries (${names.length} filters, ${operators.length} operators, ${values.length} values)`,
    );
  return names.map((field, i) => {
    const operator = operators[i]!.toUpperCase();
    if (!fields.includes(field))
      throw badRequest(`filter: unknown field ${JSON.stringify(field)} (one of ${fields.join(', ')})`);
    if (!OPERATORS.has(operator))
      throw badRequest(
        `operator: unknown operator ${JSON.stringify(operators[i])} (one of ${[...OPERATORS].join(', ')})`,
      );
    const value = values[i]!;
    if (operator === 'IS' && value !== 'NULL' && value !== 'NOT_NULL')
      throw badRequest(`value: the operator IS takes NULL or NOT_NULL, not ${JSON.stringify(value)}`);
    return { field, operator, value };
  });
}

function matches(actual: unknown, c: Condition): boolean {
  switch (c.operator) {
    case 'IS':
      return c.value === 'NULL' ? actual == null : actual != null;
    case 'CONTAINS':
      if (Array.isArray(actual)) return actual.some((v) => String(v) === c.value);
      return actual != null && String(actual).toLowerCase().includes(c.value.toLowerCase());
    case 'IN':
      return c.value.split('|').some((v) => compare(actual, v) === 0);
    case 'EE':
      return actual != null && compare(actual, c.value) === 0;
    case 'NE':
      return actual == null || compare(actual, c.value) !== 0;
    case 'GT':
      return actual != null && compare(actual, c.value) > 0;
    case 'LT':
      return actual != null && compare(actual, c.value) < 0;
    case 'GE':
      return actual != null && compare(actual, c.value) >= 0;
    default:
      return actual != null && compare(actual, c.value) <= 0;
  }
}

/** Numbers numerically (a text compared with a number is read as one), the rest as text. */
function compare(a: unknown, b: unknown): number {
  if (a == null || b == null) return a == null ? (b == null ? 0 : -1) : 1;
  if (typeof a === 'number' || typeof b === 'number') {
    const x = Number(a);
    const y = Number(b);
    if (!Number.isNaN(x) && !Number.isNaN(y)) return x - y;
  }
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
