/**
 * The file service: uploaded files with a descriptor, their content on the store (BLOB/BYTEA),
 * per-user and per-lane rights, ZIP and xlsx reading under hard limits. See docs/files.md.
 */
export {
  FileService,
  uploadedFileMissing,
  type FileChanges,
  type NewFile,
  type RightsChange,
  type StoredFile,
} from './service.js';
export {
  emptyRights,
  SYSTEM_PRINCIPAL,
  VISIBILITIES,
  type Access,
  type FileRights,
  type Principal,
  type RightKind,
  type Visibility,
} from './rights.js';
export { DEFAULT_FILE_LIMITS, fileLimits, type FileLimits } from './limits.js';
export {
  ALGORITHMS,
  bytesToText,
  DEFAULT_CHARSET,
  describeAlgorithms,
  isCharset,
  parseAlgorithm,
  textToBytes,
  type Algorithm,
} from './codec.js';
export { detectContentType, isTextType } from './content-type.js';
export { readExcelCells, type CellsDescriptor, type WorksheetRequest } from './excel.js';
export { replaceText, type ReplaceRequest } from './replace.js';
export { buildZip, checkZip, extractZip, ZipLimitError } from './zip.js';
