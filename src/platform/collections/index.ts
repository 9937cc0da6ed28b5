export { CollectionService, type CollectionServiceOptions, type ImportProgress } from './service.js';
export { CollectionError, type CollectionErrorCode } from './errors.js';
export type { IndexDefinition } from './indexes.js';
export {
  DEFAULT_COLLECTION_LIMITS,
  type Actor,
  type BudgetOption,
  type CollectionInfo,
  type CollectionLimits,
  type Document,
  type FindOptions,
  type IndexDescriptor,
  type SortSpec,
} from './types.js';
export { importOptions, readImport, type ImportOptions } from './import.js';
export { assertSafeSpec } from './safety.js';
export { checkSpec } from './mingo.js';
/** The store's lock errors, answered as contention (src/store/contention.ts). */
export { CONTENTION_MESSAGE, isContention } from '../../store/index.js';
