/** Collections (spec 4.2): collections themselves and their indexes. */
import { argumentError } from '../errors.js';
import { defineFunction, type FunctionSpec, type ParamSpec } from '../spec.js';
import { collectionCall, collectionsOf } from './args.js';

const NAME = { name: 'name', type: 'string', doc: 'name of the collection' } satisfies ParamSpec;
const ID = {
  name: 'id',
  type: ['integer', 'string'],
  doc: 'integer id of the collection (shown by the collections listing) or its name',
} satisfies ParamSpec;

export const adminFunctions: FunctionSpec[] = [
  defineFunction({
    name: 'create_collection',
    group: 'Collections',
    rights: 'service',
    doc:
      'Creates a collection. `is_public`: usable without rights check; `is_readonly`: only administrators of ' +
      'the account may modify it. Returns true, or false when a collection of that name already exists (unchanged).',
    returns: 'boolean',
    forms: [
      {
        params: [
          NAME,
          { name: 'is_public', type: 'boolean', doc: 'true: accessible without rights check' },
          {
            name: 'is_readonly',
            type: 'boolean',
            doc: 'true: only modifiable by an administrator of the account',
          },
        ],
        impl: (ctx, [name, isPublic, isReadonly], _call, fn) =>
          collectionCall(fn, () =>
            collectionsOf(fn, ctx).createCollection(ctx, name, {
              isPublic: isPublic,
              isReadonly: isReadonly,
            }),
          ),
      },
    ],
  }),
  defineFunction({
    name: 'drop_collection',
    group: 'Collections',
    rights: 'service',
    doc: 'Empties a collection: every document is deleted; the collection, its settings and indexes remain. False when it does not exist.',
    returns: 'boolean',
    forms: [
      {
        params: [NAME],
        impl: (ctx, [name], _call, fn) =>
          collectionCall(fn, () => collectionsOf(fn, ctx).dropCollection(ctx, name)),
      },
    ],
  }),
  defineFunction({
    name: 'remove_collection',
    group: 'Collections',
    rights: 'service',
    doc: 'Deletes a collection with its configuration, indexes and documents. False when it does not exist.',
    returns: 'boolean',
    forms: [
      {
        params: [NAME],
        impl: (ctx, [name], _call, fn) =>
          collectionCall(fn, () => collectionsOf(fn, ctx).removeCollection(ctx, name)),
      },
    ],
  }),
  defineFunction({
    name: 'rename_collection',
    group: 'Collections',
    rights: 'service',
    doc: 'Renames a collection: true, or false when `old_name` does not exist; an error when `new_name` is taken.',
    returns: 'boolean',
    forms: [
      {
        params: [
          { name: 'old_name', type: 'string', doc: 'current name' },
          { name: 'new_name', type: 'string', doc: 'new name' },
        ],
        impl: (ctx, [oldName, newName], _call, fn) =>
          collectionCall(fn, () => collectionsOf(fn, ctx).renameCollection(ctx, oldName, newName)),
      },
    ],
  }),
  defineFunction({
    name: 'R_create_index',
    group: 'Collections',
    rights: 'service',
    doc:
      'Creates an index (a real database index) on fields of a collection. A unique index refuses a document ' +
      'whose key values another document already has (documents missing a key are not checked). Returns true.',
    returns: 'boolean',
    forms: [
      {
        params: [
          ID,
          { name: 'name', type: 'string', doc: 'name of the index' },
          { name: 'keys', type: 'array', doc: 'field paths, e.g. ["customer", "date"]' },
          {
            name: 'unique',
            type: 'boolean',
            optional: true,
            default: false,
            doc: 'refuse repeated key values',
          },
          { name: 'ascending', type: 'boolean', optional: true, default: true, doc: 'index order' },
        ],
        impl(ctx, [id, name, keys, unique, ascending], _call, fn) {
          if (!keys.every((k) => typeof k === 'string'))
            throw argumentError(fn, 3, 'keys', 'must be an array of field names');
          return collectionCall(fn, () =>
            collectionsOf(fn, ctx).createIndex(ctx, id, name, {
              keys: keys,
              unique: unique,
              ascending: ascending,
            }),
          );
        },
      },
    ],
  }),
  defineFunction({
    name: 'R_delete_index',
    group: 'Collections',
    rights: 'service',
    doc: 'Deletes an index of a collection: true, or false when it has no index of that name (`_id_` cannot be deleted).',
    returns: 'boolean',
    forms: [
      {
        params: [ID, { name: 'name', type: 'string', doc: 'name of the index' }],
        impl: (ctx, [id, name], _call, fn) =>
          collectionCall(fn, () => collectionsOf(fn, ctx).deleteIndex(ctx, id, name)),
      },
    ],
  }),
  defineFunction({
    name: 'R_list_indexes',
    group: 'Collections',
    rights: 'service',
    doc: 'The indexes of a collection, `_id_` first: {keys, unique, name, ascending} each.',
    returns: 'array of index descriptors',
    forms: [
      {
        params: [ID],
        impl: (ctx, [id], _call, fn) => collectionCall(fn, () => collectionsOf(fn, ctx).listIndexes(ctx, id)),
      },
    ],
  }),
];
