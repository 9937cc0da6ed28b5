/**
 * The part of the template engine's contract (CONTRACTS.md §1) the function library codes
 * against: how a method is called (`fn.call(env, ...args)`) and what a scope is.
 */
export interface CallEnv {
  /** Current value of a variable as plain JS (undefined = missing). */
  getVariable(name: string): unknown;
  /** Global assignment, for functions that inject values. */
  setVariable?(name: string, value: unknown): void;
  readonly templateName: string;
  readonly locale: string;
  readonly timeZone: string;
}

export interface Scope {
  /** undefined = missing */
  get(name: string): unknown;
}
