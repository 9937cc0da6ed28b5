/** Application instances, their history and attached files. See docs/files.md. */
export {
  Applications,
  instanceMissing,
  MAX_HISTORY_ENTRIES,
  type Actor,
  type ApplicationInstance,
  type Attachment,
  type FieldChange,
  type HistoryEntry,
  type InstanceChanges,
  type NewInstance,
} from './service.js';
