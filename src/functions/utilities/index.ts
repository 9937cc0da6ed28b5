import type { FunctionSpec } from '../spec.js';
import { conversionFunctions } from './conversions.js';
import { cryptoFunctions } from './crypto.js';
import { dateFunctions } from './dates.js';
import { encodingFunctions } from './encoding.js';
import { jsonFunctions } from './json.js';
import { quotingFunctions } from './quoting.js';
import { randomFunctions } from './random.js';
import { transposeFunctions } from './transpose.js';
import { variableFunctions } from './variables.js';

/** The Utilities group of spec 4.7. */
export const utilities: FunctionSpec[] = [
  ...dateFunctions,
  ...cryptoFunctions,
  ...encodingFunctions,
  ...conversionFunctions,
  ...jsonFunctions,
  ...randomFunctions,
  ...transposeFunctions,
  ...variableFunctions,
  ...quotingFunctions,
];
