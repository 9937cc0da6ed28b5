/**
 * A collection trigger (docs/hosts.md, "Collection triggers"): a start event that starts a request
 * when a document matching `filter` is inserted or updated in the collection `name` of the
 * account. The filter is a stored query, checked when the definition is saved as a collection
 * query is (operators, no `$where`, bounded regexes); documents are only ever matched against it.
 */
import { Budget } from '../../limits/index.js';
import { errorMessage } from '../../errors/index.js';
import { compileFilter } from '../collections/mingo.js';
import { PlatformError } from '../errors.js';
import { isPlainObject } from '../model.js';

export interface CollectionTrigger {
  /** The collection of the account whose writes it watches. */
  name: string;
  /** A collection query: the documents that start a request. `{}`: every document. */
  filter: Record<string, unknown>;
}

const NAME = /^[^\p{Cc}]{1,255}$/u;

export function parseCollectionTrigger(value: unknown, path: string): CollectionTrigger {
  if (!isPlainObject(value)) throw invalid(path, 'must be {"name": …, "filter": {…}}');
  for (const key of Object.keys(value))
    if (key !== 'name' && key !== 'filter')
      throw invalid(path, `has an unknown field ${JSON.stringify(key)}`);
  if (typeof value.name !== 'string' || !NAME.test(value.name))
    throw invalid(
      `${path}.name`,
      'must be a collection name of 1 to 255 characters without control characters',
    );
  const filter = value.filter ?? {};
  if (!isPlainObject(filter)) throw invalid(`${path}.filter`, 'must be a query object ({"status": "new"})');
  try {
    compileFilter(filter, new Budget());
  } catch (e) {
    throw invalid(`${path}.filter`, errorMessage(e));
  }
  return { name: value.name, filter };
}

/** Whether a written document matches a trigger's filter (checked when saved: compiles). */
export function matchesTrigger(filter: Record<string, unknown>, doc: Record<string, unknown>): boolean {
  return compileFilter(filter, new Budget()).test(doc);
}

function invalid(path: string, message: string): PlatformError {
  return new PlatformError('invalid', `${path}: ${message}`);
}
