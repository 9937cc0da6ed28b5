/**
 * flowmark's browser client library: the platform's resources as classes that load and save
 * themselves over HTTP (Atom XML, or its JSON form). Load it from the server as an ES module:
 *
 *   import { Project } from '/client/index.js';
 *   const project = new Project({ id: 12 });
 *   project.load({ onSuccess: (p) => console.log(p.title), onFailure: (e) => console.log(e.code) });
 *   const versions = await project.loadVersions({ pagination: { nb: 10 } });   // the Promise form
 *
 * See docs/client.md.
 */
export * from '../atom/format.js';
export { configure, settings, type ClientSettings } from './context.js';
export { ClientError } from './errors.js';
export type { Format } from './http.js';
export {
  OPERATORS,
  listQuery,
  type Filter,
  type ListOptions,
  type Operator,
  type Pagination,
} from './query.js';
export {
  configUrl,
  entryOf,
  Resource,
  type ResourceInit,
  type ResourceObject,
  type Site,
} from './resource.js';
export type { Callbacks, CommonOptions, Options } from './settle.js';
export { CustomList } from './custom-list.js';
export { Lane } from './lane.js';
export { Pool } from './pool.js';
export {
  Project,
  type LoadOptions,
  type Mode,
  type ProjectVersion,
  type WebInterfaceReport,
  type WorkflowReport,
} from './project.js';
export { ProjectList } from './project-list.js';
export { User } from './user.js';
export { WebInterface, type InterfaceContext } from './web-interface.js';
