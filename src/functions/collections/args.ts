/**
 * What the Collections functions share: reaching the collection service, turning its errors into
 * the function's, and reading the arguments scripts pass (JSON text or hashes, `$query` /
 * `$orderby`, first/limit as numbers or text).
 */
import type { CollectionService, SortSpec } from '../../platform/collections/index.js';
import { CollectionError } from '../../platform/collections/errors.js';
import { CONTENTION_MESSAGE, isContention } from '../../store/contention.js';
import { type Budget, BudgetExceededError, chargeCopy } from '../../limits/index.js';
import { isHash, parseJsonObjectText } from '../coercion.js';
import { budgetOf, type ExecutionContext } from '../context.js';
import { argumentError, FunctionError, messageOf } from '../errors.js';
import { neutraliseQuery, requestTexts } from './request-input.js';

export function collectionsOf(fn: string, ctx: ExecutionContext): CollectionService {
  const service = (ctx.platform as { collections?: CollectionService } | undefined)?.collections;
  if (!service) throw new FunctionError(fn, 'the collection service is not available in this context');
  return service;
}

/** The part of the file service (src/platform/files) import_objects reads uploads with. */
export interface UploadedFiles {
  read(
    accountId: string,
    principal: {
      userId: number | null;
      isAdmin: boolean;
      mode: ExecutionContext['mode'];
      requestId?: string | null;
    },
    id: string,
  ): Promise<{ content: Buffer }>;
}

export function filesOf(fn: string, ctx: ExecutionContext): UploadedFiles {
  const service = (ctx.platform as { files?: UploadedFiles } | undefined)?.files;
  if (!service) throw new FunctionError(fn, 'the file service is not available in this context');
  return service;
}

/**
 * Runs service work; a CollectionError becomes `fn: <reason>`, a budget error keeps its kind with
 * the function's name in front, and the store's lock wait the platform's contention message.
 */
export async function collectionCall<T>(fn: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof CollectionError) throw new FunctionError(fn, e.message);
    if (e instanceof BudgetExceededError)
      throw new BudgetExceededError(`${fn}: ${e.message}`, e.limit, `${fn}: ${e.what}`);
    if (isContention(e)) throw new FunctionError(fn, CONTENTION_MESSAGE);
    throw e;
  }
}

/**
 * Plain JSON-able values from template values: Maps become objects, dates (FmDate) ISO-8601 UTC
 * text. What the service cannot store it refuses with the field's name.
 */
export function toPlain(value: unknown): unknown {
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), toPlain(v)]));
  if (Array.isArray(value)) return value.map(toPlain);
  if (value !== null && typeof value === 'object') {
    const date = value as { epochMs?: unknown; kind?: unknown };
    if (!isHash(value) && typeof date.epochMs === 'number' && typeof date.kind === 'string')
      return new Date(date.epochMs).toISOString();
    if (isHash(value)) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = toPlain(v);
      return out;
    }
  }
  return value;
}

/**
 * A condition argument (hash or JSON text), or undefined when it is empty (missing, blank text,
 * `{}`), for the function to raise its own "empty condition" error. Request input in it is taken
 * literally (request-input.ts).
 */
export function condition(
  fn: string,
  index: number,
  name: string,
  value: unknown,
  ctx: ExecutionContext,
): Record<string, unknown> | undefined {
  chargeArgument(budgetOf(ctx), fn, index, name, value);
  const parsed = objectArgument(fn, index, name, neutraliseQuery(fn, index, name, value, requestTexts(ctx)));
  return parsed === undefined || Object.keys(parsed).length === 0 ? undefined : parsed;
}

/**
 * Charges the copy a function is about to make of an argument (limits/chargeCopy): shared
 * structure too large to copy is refused before any walk expands it.
 */
export function chargeArgument(
  budget: Budget,
  fn: string,
  index: number,
  name: string,
  value: unknown,
): void {
  chargeCopy(budget, value, `${fn}: argument ${index} (${name})`);
}

/** A hash or the JSON text of an object; undefined for missing or blank. */
export function objectArgument(
  fn: string,
  index: number,
  name: string,
  value: unknown,
): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') {
    if (value.trim() === '') return undefined;
    let parsed: unknown;
    try {
      parsed = parseJsonObjectText(value);
    } catch (e) {
      throw argumentError(fn, index, name, `is not valid JSON: ${messageOf(e)}`);
    }
    if (!isHash(parsed)) throw argumentError(fn, index, name, 'must be a JSON object');
    return parsed;
  }
  if (isHash(value)) return toPlain(value) as Record<string, unknown>;
  throw argumentError(fn, index, name, 'must be a hash or the JSON text of an object');
}

/** A query with `$query` / `$orderby` taken apart (an array `$orderby` keeps its order). */
export function splitQuery(
  fn: string,
  index: number,
  name: string,
  query: Record<string, unknown>,
): { filter: Record<string, unknown>; sort?: SortSpec } {
  if (!('$query' in query) && !('$orderby' in query)) return { filter: query };
  const rawFilter = query.$query ?? {};
  if (!isHash(rawFilter)) throw argumentError(fn, index, name, '$query must be an object');
  const sort = query.$orderby === undefined ? undefined : orderBy(fn, index, name, query.$orderby);
  const extra = Object.keys(query).filter((k) => k !== '$query' && k !== '$orderby');
  if (extra.length)
    throw argumentError(fn, index, name, `cannot mix $query/$orderby with ${extra.join(', ')}`);
  return { filter: rawFilter, sort };
}

function orderBy(fn: string, index: number, name: string, value: unknown): SortSpec {
  const entries: Array<[string, unknown]> = [];
  if (Array.isArray(value)) {
    for (const item of value) {
      if (!isHash(item))
        throw argumentError(fn, index, name, '$orderby entries must be objects like {"field": 1}');
      entries.push(...Object.entries(item));
    }
  } else if (isHash(value)) entries.push(...Object.entries(value));
  else throw argumentError(fn, index, name, '$orderby must be an object or an array of objects');
  return entries.map(([field, dir]) => {
    const d = typeof dir === 'string' ? Number(dir.trim()) : dir;
    if (d !== 1 && d !== -1)
      throw argumentError(fn, index, name, `$orderby direction of '${field}' must be 1 or -1`);
    return [field, d];
  });
}

const UNPARSABLE_PAGE = 'Unable to parse skip index or limit value.';
export const MAX_LIST = 1000;

/** first (default 0) and limit (default and at most 1000; 0 means the most) of list_objects. */
export function paging(fn: string, first: unknown, limit: unknown): { skip: number; limit: number } {
  const parse = (v: unknown, fallback: number): number => {
    if (v === undefined || v === null) return fallback;
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\+?\d+\s*$/.test(v) ? Number(v) : NaN;
    if (!Number.isSafeInteger(n) || n < 0) throw new FunctionError(fn, UNPARSABLE_PAGE);
    return n;
  };
  const skip = parse(first, 0);
  const l = parse(limit, MAX_LIST);
  return { skip, limit: l === 0 ? MAX_LIST : Math.min(l, MAX_LIST) };
}
