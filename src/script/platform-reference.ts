/**
 * What the platform's public JavaScript ES6 API reference (docs.runmyprocess.com, API_Reference:
 * RunMyScript and the RMS_* pages) documents, as far as its text could be read: the objects, the
 * method names, their documented parameters. docs/script.md's "Documented names" table is
 * generated from this list against the built API (`documentedNames`), and a test fails when a
 * name listed as offered is missing from the objects, so the table cannot drift.
 *
 * `source` says how the name is known: `page` — the method's own section (syntax, parameters);
 * `index` — only the index of the RunMyScript page ("22. Update Field (updateMany)"), the JS name
 * being read from that title. `missing` explains a documented name flowmark does not offer.
 */
import type { ScriptApi, ScriptMethod, ScriptObjectName } from './api.js';

export interface DocumentedMethod {
  object: ScriptObjectName;
  name: string;
  /** The documented parameters (`?` optional), or the index title when only that is known. */
  documented: string;
  source: 'page' | 'index';
  /** Why flowmark does not offer it (absent: it is offered). */
  missing?: string;
}

const page = (object: ScriptObjectName, name: string, documented: string): DocumentedMethod => ({
  object,
  name,
  documented,
  source: 'page',
});
const index = (object: ScriptObjectName, name: string, title: string): DocumentedMethod => ({
  object,
  name,
  documented: title,
  source: 'index',
});

export const DOCUMENTED_METHODS: readonly DocumentedMethod[] = [
  // RunMyScript index, "RMPCollections" (7–24).
  index('RMPCollection', 'aggregate', 'Aggregate'),
  index('RMPCollection', 'countDocuments', 'Count Documents'),
  page('RMPCollection', 'createCollection', 'name, isPublic, isReadOnly'),
  index('RMPCollection', 'createIndex', 'Create Index'),
  index('RMPCollection', 'deleteIndex', 'Delete Index'),
  index('RMPCollection', 'importCSV', 'Import CSV'),
  index('RMPCollection', 'importJSON', 'Import JSON'),
  index('RMPCollection', 'list', 'List'),
  index('RMPCollection', 'listIndexes', 'List Index'),
  index('RMPCollection', 'removeCollection', 'Remove Collection'),
  index('RMPCollection', 'removeField', 'Remove Field'),
  index('RMPCollection', 'removeObjects', 'Remove Objects'),
  index('RMPCollection', 'renameCollection', 'Rename Collection'),
  index('RMPCollection', 'saveObject', 'Save Object'),
  index('RMPCollection', 'saveObjects', 'Save Objects'),
  index('RMPCollection', 'updateMany', 'Update Field (updateMany)'),
  index('RMPCollection', 'updateOne', 'Update Field (updateOne)'),
  index('RMPCollection', 'updateObjects', 'Update Objects'),
  // RunMyScript page: how a script returns its result.
  page('RMPData', 'setOutput', 'value'),
  // RMS_Request (60–85).
  page('RMPRequest', 'addUserToLane', 'laneId, userId'),
  page('RMPRequest', 'getNextUrl', 'stepId, isPublic, appCtx?'),
  page('RMPRequest', 'getRequestInfo', 'requestId?'),
  index('RMPRequest', 'getTaskUrl', 'Get Task URL'),
  index('RMPRequest', 'injectParams', 'Inject Params'),
  index('RMPRequest', 'lock', 'Lock'),
  index('RMPRequest', 'raiseError', 'Raise Error'),
  index('RMPRequest', 'readFileAddLane', 'Read File Add Lane with (fileIds, laneIds) / (fileIds)'),
  index('RMPRequest', 'readFileAddUser', 'Read File Add User with (fileIds, userIds) / (fileIds)'),
  index('RMPRequest', 'readFileRemoveLane', 'Read File Remove Lane with (fileIds, laneIds) / (fileIds)'),
  index('RMPRequest', 'readFileRemoveUser', 'Read File Remove User with (fileIds, userIds) / (fileIds)'),
  index('RMPRequest', 'removeUserFromLane', 'Remove User From Lane'),
  index('RMPRequest', 'setRequestStatus', 'Set Request Status'),
  index('RMPRequest', 'unlock', 'Unlock'),
  index('RMPRequest', 'updateFileAddLane', 'Update File Add Lane with (fileIds, laneIds) / (fileIds)'),
  index('RMPRequest', 'updateFileAddUser', 'Update File Add User with (fileIds, userIds) / (fileIds)'),
  index('RMPRequest', 'updateFileRemoveLane', 'Update File Remove Lane with (fileIds, laneIds) / (fileIds)'),
  index('RMPRequest', 'updateFileRemoveUser', 'Update File Remove User with (fileIds, userIds) / (fileIds)'),
  // RMS_User.
  page('RMPUser', 'getApplications', 'login?, appContext?, mode?, isTagged?'),
  page('RMPUser', 'getLanes', 'login? → [{"id": String, "name": String}]'),
  index('RMPUser', 'getLaneUsers', 'Get Lane Users'),
];

export type DocumentedStatus =
  | { kind: 'present'; method: ScriptMethod }
  | { kind: 'alias'; method: ScriptMethod; of: string }
  | { kind: 'missing'; reason: string };

/** How flowmark offers a documented name: as it is, as an alias of another method, or not. */
export function documentedStatus(
  api: ScriptApi,
  entry: DocumentedMethod,
  camelCase: (fn: string) => string,
): DocumentedStatus {
  const method = api.objects[entry.object].find((m) => m.name === entry.name);
  if (!method) return { kind: 'missing', reason: entry.missing ?? 'not offered' };
  if (method.function && camelCase(method.function) !== entry.name)
    return { kind: 'alias', method, of: camelCase(method.function) };
  return { kind: 'present', method };
}
