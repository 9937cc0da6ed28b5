/** Projects and what hangs off them: versions, pools, web interfaces, custom lists, vaults. */
import { CustomLists } from './custom-lists.js';
import { Projects } from './projects.js';
import { Vaults } from './vaults.js';
import { WebInterfaces } from './web-interfaces.js';

export type { CustomList } from './custom-lists.js';
export type { NewProject, Project, ProjectVersion } from './projects.js';
export {
  INTERFACE_CONTEXTS,
  NO_TAG,
  isInterfaceContext,
  webInterfaceUrl,
  type Application,
  type InterfaceContext,
  type NewWebInterface,
  type WebInterface,
} from './web-interfaces.js';
export { CustomLists, Projects, Vaults, WebInterfaces };
