/**
 * The File group of spec 4.4 (deprecated forms as overloads) and the file-rights functions of
 * the Request group (spec 4.5, R_read_file_* / R_update_file_*). See docs/files.md.
 */
import type { FunctionSpec } from '../spec.js';
import { excelFunctions } from './excel.js';
import { readFunctions } from './read.js';
import { rightsFunctions } from './rights.js';
import { writeFunctions } from './write.js';
import { zipFunctions } from './zip.js';

export const file: FunctionSpec[] = [...readFunctions, ...writeFunctions, ...zipFunctions, ...excelFunctions];

export const fileRights: FunctionSpec[] = rightsFunctions;

export { fileDescriptor, principalOf, type FileDescriptor } from './args.js';
