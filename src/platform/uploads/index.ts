/**
 * Uploaded files are the file service's (src/platform/files): this path stays for the modules
 * that knew the first, minimal store (import_objects reads an upload with
 * `platform.files.read(accountId, principal, id)`; an unknown id is
 * `Uploaded file X doesn't exist.`).
 */
export * from '../files/index.js';
