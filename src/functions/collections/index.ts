import type { FunctionSpec } from '../spec.js';
import { adminFunctions } from './admin.js';
import { documentFunctions } from './documents.js';
import { transferFunctions } from './transfer.js';

export { DataDocumentLimitError } from './transfer.js';

/** The Collections group of spec 4.2. */
export const collections: FunctionSpec[] = [...documentFunctions, ...transferFunctions, ...adminFunctions];
