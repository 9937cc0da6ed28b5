/** Collections (spec 4.2): reading and writing documents. */
import { assertSafeSpec } from '../../platform/collections/safety.js';
import { CollectionError } from '../../platform/collections/errors.js';
import { isHash } from '../coercion.js';
import { budgetOf } from '../context.js';
import { argumentError, FunctionError } from '../errors.js';
import { defineFunction, type FunctionSpec } from '../spec.js';
import type { Budget } from '../../limits/index.js';
import {
  chargeArgument,
  collectionCall,
  collectionsOf,
  condition,
  MAX_LIST,
  objectArgument,
  paging,
  splitQuery,
  toPlain,
} from './args.js';
import { neutralisePipeline, requestTexts, scriptUpdate, type RequestTexts } from './request-input.js';

const NAME = { name: 'name', type: 'string', doc: 'name of the collection' } as const;

export const documentFunctions: FunctionSpec[] = [
  defineFunction({
    name: 'list_objects',
    group: 'Collections',
    rights: 'service',
    doc:
      'Documents of a collection matching a query (MongoDB syntax), in natural order unless the query has ' +
      '`$query` and `$orderby` (an array of `{"field": 1}` keeps the order of its entries). `first` skips ' +
      'documents (default 0); `limit` caps the result (default and at most 1000).',
    returns: 'array of objects',
    forms: [
      {
        params: [
          { name: 'query', type: 'any', doc: 'condition: hash or JSON text, may carry $query and $orderby' },
          NAME,
          { name: 'first', type: 'any', optional: true, doc: 'documents to skip (default 0)' },
          {
            name: 'limit',
            type: 'any',
            optional: true,
            doc: 'most documents returned (default and maximum 1000)',
          },
        ],
        async impl(ctx, [query, name, first, limit], _call, fn) {
          const page = paging(fn, first, limit);
          const q = condition(fn, 1, 'query', query, ctx);
          const { filter, sort } = q ? splitQuery(fn, 1, 'query', q) : { filter: {}, sort: undefined };
          if (Object.keys(filter).length === 0)
            throw new FunctionError(fn, 'Cannot list objects with an empty condition.');
          return collectionCall(fn, () =>
            collectionsOf(fn, ctx).find(ctx, name, filter, {
              sort,
              skip: page.skip,
              limit: page.limit,
              budget: budgetOf(ctx),
            }),
          );
        },
      },
    ],
  }),
  defineFunction({
    name: 'count_objects',
    group: 'Collections',
    rights: 'service',
    doc: 'Number of documents of a collection matching a condition.',
    returns: 'integer',
    forms: [
      {
        params: [{ name: 'where', type: 'any', doc: 'condition: hash or JSON text' }, NAME],
        async impl(ctx, [where, name], _call, fn) {
          const filter = condition(fn, 1, 'where', where, ctx);
          if (!filter) throw new FunctionError(fn, 'Cannot count objects with an empty condition.');
          return collectionCall(fn, () =>
            collectionsOf(fn, ctx).count(ctx, name, filter, { budget: budgetOf(ctx) }),
          );
        },
      },
    ],
  }),
  defineFunction({
    name: 'load_object',
    group: 'Collections',
    rights: 'service',
    doc: 'The first document matching a condition (natural order, or `$orderby`), or an empty hash when none does.',
    returns: 'object',
    forms: [
      {
        params: [
          { name: 'where', type: 'any', doc: 'condition: hash or JSON text, may carry $query and $orderby' },
          NAME,
        ],
        async impl(ctx, [where, name], _call, fn) {
          const q = condition(fn, 1, 'where', where, ctx);
          const { filter, sort } = q ? splitQuery(fn, 1, 'where', q) : { filter: {}, sort: undefined };
          if (Object.keys(filter).length === 0)
            throw new FunctionError(fn, 'Cannot load an object with an empty condition.');
          const doc = await collectionCall(fn, () =>
            collectionsOf(fn, ctx).findOne(ctx, name, filter, { sort, budget: budgetOf(ctx) }),
          );
          return doc ?? {};
        },
      },
    ],
  }),
  defineFunction({
    name: 'save_object',
    group: 'Collections',
    rights: 'service',
    doc:
      'Stores an object, or an array of objects, and returns the stored form with its string `_id`. ' +
      'An object carrying the `_id` of a stored document replaces it. The collection is created if needed.',
    returns: 'object or array',
    forms: [
      {
        params: [
          {
            name: 'object',
            type: ['object', 'array'],
            doc: 'object or array of objects (or their JSON text)',
          },
          NAME,
        ],
        async impl(ctx, [object, name], _call, fn) {
          chargeArgument(budgetOf(ctx), fn, 1, 'object', object);
          const many = Array.isArray(object);
          const values = (many ? object : [object]).map((v, i) => {
            const plain = toPlain(v);
            if (!isHash(plain)) throw argumentError(fn, 1, 'object', `element ${i} is not an object`);
            return plain;
          });
          const stored = await collectionCall(fn, () => collectionsOf(fn, ctx).save(ctx, name, values));
          return many ? stored : stored[0];
        },
      },
    ],
  }),
  defineFunction({
    name: 'remove_objects',
    group: 'Collections',
    rights: 'service',
    doc: 'Deletes the documents matching a condition; returns how many.',
    returns: 'integer',
    forms: [
      {
        params: [{ name: 'where', type: 'any', doc: 'condition: hash or JSON text' }, NAME],
        async impl(ctx, [where, name], _call, fn) {
          const filter = condition(fn, 1, 'where', where, ctx);
          if (!filter) throw new FunctionError(fn, 'Cannot remove objects with an empty condition.');
          return collectionCall(fn, () =>
            collectionsOf(fn, ctx).remove(ctx, name, filter, { budget: budgetOf(ctx) }),
          );
        },
      },
    ],
  }),
  defineFunction({
    name: 'update_objects',
    group: 'Collections',
    rights: 'service',
    doc:
      'Updates the first document matching `where` (every one with `multi`) with the object held by the ' +
      'variable named `variable`: update operators (`{"$set": …}`, `$inc`, `$unset` …) or a whole new ' +
      'document (its `_id` is kept). Returns the number of documents matched.',
    returns: 'integer',
    forms: [
      {
        params: [
          { name: 'where', type: 'any', doc: 'condition: JSON text or hash' },
          {
            name: 'variable',
            type: 'any',
            doc: 'NAME of the variable holding the new object (or its update operators)',
          },
          NAME,
          {
            name: 'multi',
            type: 'boolean',
            optional: true,
            default: false,
            doc: 'true: every matching document',
          },
        ],
        async impl(ctx, [where, variable, name, multi], env, fn) {
          const filter = condition(fn, 1, 'where', where, ctx);
          if (!filter) throw new FunctionError(fn, 'Cannot update objects with an empty condition.');
          let value: unknown = variable;
          if (typeof variable === 'string') value = env.getVariable(variable);
          else if (variable !== undefined && variable !== null && !isHash(variable))
            throw argumentError(fn, 2, 'variable', 'must be the name of a variable');
          chargeArgument(budgetOf(ctx), fn, 2, 'variable', value);
          const change = objectArgument(fn, 2, 'variable', scriptUpdate(fn, 2, 'variable', value));
          if (!change) throw new FunctionError(fn, 'Cannot update objects with a null object.');
          return collectionCall(fn, () =>
            collectionsOf(fn, ctx).update(ctx, name, filter, change, {
              multi: multi,
              budget: budgetOf(ctx),
            }),
          );
        },
      },
    ],
  }),
  defineFunction({
    name: 'update_field',
    group: 'Collections',
    rights: 'service',
    doc:
      'Updates fields of the first document matching `where` (every one with `multi`): `fieldname` holds ' +
      'the fields to set (`{"status": "done"}`) or update operators (`{"$inc": {"n": 1}}`). Returns the ' +
      'number of documents matched.',
    returns: 'integer',
    forms: [
      {
        params: [
          { name: 'where', type: 'any', doc: 'condition: JSON text or hash' },
          { name: 'fieldname', type: 'any', doc: 'fields to set, or update operators (hash or JSON text)' },
          NAME,
          {
            name: 'multi',
            type: 'boolean',
            optional: true,
            default: false,
            doc: 'true: every matching document',
          },
        ],
        async impl(ctx, [where, fieldname, name, multi], _call, fn) {
          const filter = condition(fn, 1, 'where', where, ctx);
          if (!filter) throw new FunctionError(fn, 'Cannot update objects fields with an empty condition.');
          chargeArgument(budgetOf(ctx), fn, 2, 'fieldname', fieldname);
          const spec = objectArgument(fn, 2, 'fieldname', scriptUpdate(fn, 2, 'fieldname', fieldname));
          if (!spec || Object.keys(spec).length === 0)
            throw argumentError(fn, 2, 'fieldname', 'must name the fields to update');
          // Plain fields are set; operators ($inc …) pass through (a mix is refused by the service).
          const change = Object.keys(spec).some((k) => k.startsWith('$')) ? spec : { $set: spec };
          return collectionCall(fn, () =>
            collectionsOf(fn, ctx).update(ctx, name, filter, change, {
              multi: multi,
              budget: budgetOf(ctx),
            }),
          );
        },
      },
    ],
  }),
  defineFunction({
    name: 'remove_field',
    group: 'Collections',
    rights: 'service',
    doc: 'Removes a field from the first document matching `where` (every one with `multi`); returns the number of documents matched.',
    returns: 'integer',
    forms: [
      {
        params: [
          { name: 'where', type: 'any', doc: 'condition: hash or JSON text' },
          { name: 'fieldname', type: 'string', doc: 'field to remove (dotted path allowed)' },
          NAME,
          {
            name: 'multi',
            type: 'boolean',
            optional: true,
            default: false,
            doc: 'true: every matching document (default false)',
          },
        ],
        async impl(ctx, [where, fieldname, name, multi], _call, fn) {
          const filter = condition(fn, 1, 'where', where, ctx) ?? {};
          const field = fieldname.trim();
          if (field === '' || field === '_id')
            throw argumentError(fn, 2, 'fieldname', `cannot be '${field}'`);
          return collectionCall(fn, () =>
            collectionsOf(fn, ctx).update(
              ctx,
              name,
              filter,
              { $unset: { [field]: '' } },
              { multi: multi, budget: budgetOf(ctx) },
            ),
          );
        },
      },
    ],
  }),
  defineFunction({
    name: 'aggregate_collection',
    group: 'Collections',
    rights: 'service',
    doc:
      'Runs an aggregation pipeline (MongoDB syntax) over a collection. Each pipeline argument is one stage ' +
      '(object) or a list of stages (array); they run one after the other. At most the first 1000 documents ' +
      'are returned. $where, $function and $accumulator are refused; so are $out, $merge, $lookup, ' +
      '$graphLookup and $unionWith.',
    returns: 'array of documents',
    forms: [
      {
        params: [
          NAME,
          {
            name: 'pipeline',
            type: 'any',
            variadic: true,
            doc: 'stage object or array of stages (or their JSON text)',
          },
        ],
        async impl(ctx, [name, ...pipelines], _call, fn) {
          const stages: Record<string, unknown>[] = [];
          const texts = requestTexts(ctx);
          pipelines.forEach((p, i) => stages.push(...pipelineStages(fn, p, i + 1, budgetOf(ctx), texts)));
          const result = await collectionCall(fn, () =>
            collectionsOf(fn, ctx).aggregate(ctx, name, stages, { budget: budgetOf(ctx) }),
          );
          return result.length > MAX_LIST ? result.slice(0, MAX_LIST) : result;
        },
      },
    ],
  }),
];

/** The stages of one pipeline argument, or `Invalid pipeline at position N.` */
function pipelineStages(
  fn: string,
  value: unknown,
  position: number,
  budget: Budget,
  texts: RequestTexts,
): Record<string, unknown>[] {
  const invalid = () => new FunctionError(fn, `Invalid pipeline at position ${position}.`);
  let v: unknown = value;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      throw invalid();
    }
  }
  chargeArgument(budget, fn, position + 1, 'pipeline', v);
  v = toPlain(neutralisePipeline(fn, position + 1, 'pipeline', v, texts));
  try {
    assertSafeSpec(v);
  } catch (e) {
    if (e instanceof CollectionError) throw new FunctionError(fn, e.message);
    throw e;
  }
  const stages = Array.isArray(v) ? v : [v];
  if (stages.length === 0) throw invalid();
  for (const stage of stages) {
    if (!isHash(stage)) throw invalid();
    const keys = Object.keys(stage);
    if (keys.length !== 1 || !STAGE_NAMES.has(keys[0])) throw invalid();
  }
  return stages as Record<string, unknown>[];
}

/** The stages of MongoDB's aggregation language mingo implements. */
const STAGE_NAMES = new Set([
  '$addFields',
  '$bucket',
  '$bucketAuto',
  '$count',
  '$densify',
  '$documents',
  '$facet',
  '$fill',
  '$graphLookup',
  '$group',
  '$limit',
  '$lookup',
  '$match',
  '$merge',
  '$out',
  '$project',
  '$redact',
  '$replaceRoot',
  '$replaceWith',
  '$sample',
  '$set',
  '$setWindowFields',
  '$skip',
  '$sort',
  '$sortByCount',
  '$unionWith',
  '$unset',
  '$unwind',
]);
