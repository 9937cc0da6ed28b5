/**
 * Every group module of the library, one line each. Read lazily by the registry (group modules
 * import the registry, so nothing here may be evaluated at load time).
 */
import type { FunctionSpec } from './spec.js';
import { collections } from './collections/index.js';
import { request } from './request/index.js';
import { user } from './user/index.js';
import { utilities } from './utilities/index.js';

export function libraryGroups(): ReadonlyArray<readonly FunctionSpec[]> {
  return [
    utilities, // Utilities
    request, // Request (+ i18n of Application)
    user, // User
    collections, // Collections
  ];
}
