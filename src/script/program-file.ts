/** The files the script workers start from (config/built-files.ts: always the built JavaScript). */
import { pathToFileURL } from 'node:url';
import { builtSibling } from '../config/built-files.js';

/** `relative` (to src/script, without extension, e.g. `worker/quickjs-main`) as a built file's URL. */
export function builtScriptFile(relative: string, extension: 'js' | 'cjs' = 'js'): URL {
  return pathToFileURL(builtSibling(import.meta.url, `${relative}.${extension}`, 'the script worker'));
}
