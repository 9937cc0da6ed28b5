/** The User group of spec 4.6: all 16 functions. */
import type { FunctionSpec } from '../spec.js';
import { applicationFunctions } from './applications.js';
import { identityFunctions } from './identity.js';
import { laneFunctions } from './lanes.js';
import { profileFunctions } from './profile.js';

export const user: FunctionSpec[] = [
  ...applicationFunctions,
  ...laneFunctions,
  ...profileFunctions,
  ...identityFunctions,
];
