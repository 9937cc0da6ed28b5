/**
 * The part of the template engine's API (src/template/index.ts) the function library codes
 * against: how a method is called (`fn.call(env, ...args)`) and what a scope is.
 */
export type { CallEnv, Scope } from '../template/index.js';
/** A string+boolean result (has_right): FreeMarker's multi-typed value, JSON as the boolean. */
export { StringBoolean } from '../template/index.js';
