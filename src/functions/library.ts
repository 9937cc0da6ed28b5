/**
 * Every group module of the library, one line each. Read lazily by the registry (group modules
 * import the registry, so nothing here may be evaluated at load time).
 */
import type { FunctionSpec } from './spec.js';
import { application } from './application/index.js';
import { collections } from './collections/index.js';
import { composite } from './composite/index.js';
import { file, fileRights } from './file/index.js';
import { request } from './request/index.js';
import { user } from './user/index.js';
import { utilities } from './utilities/index.js';

export function libraryGroups(): ReadonlyArray<readonly FunctionSpec[]> {
  return [
    utilities, // Utilities
    request, // Request (+ i18n of Application)
    user, // User
    file, // File
    fileRights, // Request: R_read_file_* / R_update_file_*
    application, // Application (i18n is with request)
    collections, // Collections
    composite, // Composite API
  ];
}
