/**
 * Every migration, in the order they apply: ONE LINE PER MIGRATION. To add one, create
 * `NNNN_what.ts` here (default export `defineMigration({ id: 'NNNN_what', up })`, see
 * 0001_collections.ts) and append its line below. Released migrations are never edited.
 */
import type { Migration } from '../migrate.js';

const modules: Array<{ default: Migration }> = await Promise.all([
  import('./0001_collections.js'),
  import('./0002_uploads.js'),
  import('./0100_directory.js'),
  import('./0101_projects.js'),
  import('./0102_runtime.js'),
  import('./0110_files.js'),
  import('./0111_applications.js'),
  import('./0300_server_auth.js'),
  import('./0400_processes.js'),
  import('./0410_durable_requests.js'),
  import('./0500_rights.js'),
  import('./0510_document_keys.js'),
  import('./0520_running_requests.js'),
  import('./0530_request_keys.js'),
  import('./0540_run_recoveries.js'),
  import('./0600_sorted_key_indexes.js'),
  import('./0610_request_list.js'),
  import('./0620_process_triggers.js'),
  import('./0650_open_tasks.js'),
  import('./0660_audit_log.js'),
  import('./0670_documents_fillfactor.js'),
  import('./0675_composite_process.js'),
  import('./0676_collection_triggers.js'),
  import('./0690_artefact_versions.js'),
  import('./0695_account_cells.js'),
  import('./0700_process_tokens.js'),
  import('./0790_sqlite_document_keys.js'),
]);

export const migrations: readonly Migration[] = modules.map((m) => m.default);
