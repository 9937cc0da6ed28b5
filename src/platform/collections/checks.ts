/** Checks of names, index keys and sort specifications; the errors they raise. */
import { CollectionError } from './errors.js';
import { isAddressablePath } from '../../store/index.js';
import { assertSafePath, isPlainObject } from './safety.js';
import type { SortSpec } from './types.js';

export function checkName(name: unknown): asserts name is string {
  const control = typeof name === 'string' && [...name].some((c) => c.charCodeAt(0) < 0x20);
  if (typeof name !== 'string' || name === '' || name.length > 255 || control)
    throw new CollectionError('invalid', `invalid collection name ${JSON.stringify(name)}`);
}

export function checkIndexName(name: unknown): void {
  if (typeof name !== 'string' || name === '' || name.length > 120 || name === '_id_')
    throw new CollectionError('invalid', `invalid index name ${JSON.stringify(name)}`);
}

export function checkIndexKeys(keys: unknown): void {
  if (!Array.isArray(keys) || keys.length === 0 || keys.length > 8)
    throw new CollectionError('invalid', 'an index needs 1 to 8 keys');
  for (const key of keys) {
    if (typeof key !== 'string' || !isAddressablePath(key))
      throw new CollectionError('invalid', `invalid index key ${JSON.stringify(key)}`);
    assertSafePath(key);
  }
  if (new Set(keys).size !== keys.length) throw new CollectionError('invalid', 'an index key is repeated');
}

export function checkSort(sort: SortSpec | undefined): SortSpec | undefined {
  if (!sort) return undefined;
  for (const [path, direction] of sort) {
    if (typeof path !== 'string' || path === '') throw new CollectionError('invalid', 'invalid sort key');
    assertSafePath(path);
    if (direction !== 1 && direction !== -1)
      throw new CollectionError('invalid', `sort direction of '${path}' must be 1 or -1`);
  }
  return sort;
}

export function isStage(stage: Record<string, unknown>, op: string): boolean {
  const keys = Object.keys(stage);
  return keys.length === 1 && keys[0] === op;
}

/** A $sort stage's spec as a SortSpec, or undefined when it is not a valid one (mingo reports it). */
export function sortFromObject(spec: unknown): SortSpec | undefined {
  if (!isPlainObject(spec)) return undefined;
  const sort: SortSpec = [];
  for (const [k, d] of Object.entries(spec)) {
    if (k === '' || (d !== 1 && d !== -1)) return undefined;
    sort.push([k, d]);
  }
  return sort.length === 0 ? undefined : sort;
}

export function unknownCollection(ref: string | number): CollectionError {
  return new CollectionError(
    'not-found',
    `collection ${typeof ref === 'number' ? ref : `'${ref}'`} does not exist`,
  );
}
