/** Project bundles: a project moved between stores and engines as a zip of JSON files (docs/deploy.md). */
export { BUNDLE_FORMAT, MANIFEST, type BundleFiles, type Manifest } from './format.js';
export { exportProject, type ExportOptions } from './export.js';
export {
  importBundle,
  readManifest,
  type BundleChange,
  type ChangeAction,
  type ImportOptions,
  type ImportResult,
} from './import.js';
export { packBundle, unpackBundle } from './zip.js';
