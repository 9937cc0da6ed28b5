import type { FunctionSpec } from '../registry.js';
import { cryptoFunctions } from './crypto.js';
import { jsonFunctions } from './json.js';
import { quotingFunctions } from './quoting.js';
import { randomFunctions } from './random.js';
import { transposeFunctions } from './transpose.js';

/** The Utilities group of spec 4.7. */
export const utilities: FunctionSpec[] = [
  ...cryptoFunctions,
  ...jsonFunctions,
  ...randomFunctions,
  ...transposeFunctions,
  ...quotingFunctions,
];
