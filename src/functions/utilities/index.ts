import type { FunctionSpec } from '../registry.js';

/** The Utilities group of spec 4.7. */
export const utilities: FunctionSpec[] = [];
