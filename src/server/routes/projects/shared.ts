/**
 * What the project route modules and routes/designs.ts share: a project, web interface or custom
 * list as the API shows it (without its account), and the fields a custom list page sorts by.
 */
import type {
  CustomList as CustomListRecord,
  Project as ProjectRecord,
  WebInterface as WebInterfaceRecord,
} from '../../../platform/projects/index.js';

export const LIST_FIELDS = ['id', 'projectId', 'name', 'updatedAt'];

export const toProjectBody = ({ accountId: _a, ...project }: ProjectRecord) => project;
export const toInterfaceBody = ({ accountId: _a, ...wi }: WebInterfaceRecord) => wi;
export const toCustomListBody = ({ accountId: _a, ...list }: CustomListRecord) => list;
