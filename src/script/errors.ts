/**
 * The error a script ends with. Its message is what the template (and `<#recover>`'s `.error`)
 * shows: the JavaScript error (`ReferenceError: 'x' is not defined`, or the message alone for a
 * plain Error such as RMPRequest.raiseError's) followed by where it happened in the script
 * (`(script line 3, column 5)`), or the limit that stopped it.
 */
export type ScriptErrorKind =
  /** An exception the script did not catch (including the errors of platform calls). */
  | 'exception'
  /** The script does not parse. */
  | 'syntax'
  /** A limit stopped it. */
  | 'cpu-time'
  | 'wall-time'
  | 'memory'
  | 'stack'
  /** The directive was used wrongly (unknown env, unknown parameter). */
  | 'usage'
  /** The sandbox itself failed (its worker stopped); the server keeps serving. */
  | 'internal'
  /** Refused before running: the account already has its share of scripts waiting (ScriptBusyError). */
  | 'busy';

export class ScriptError extends Error {
  override name = 'ScriptError';
  constructor(
    message: string,
    readonly kind: ScriptErrorKind,
    /** Where in the script (1-based), when known. */
    readonly scriptLine?: number,
    readonly scriptColumn?: number,
    /** The JavaScript error's own name and message, for exceptions. */
    readonly jsName?: string,
    readonly jsMessage?: string,
  ) {
    super(message);
  }
}

/** A script refused because its account's queue of waiting scripts is full: try again later. */
export class ScriptBusyError extends ScriptError {
  override name = 'ScriptBusyError';
  constructor(
    message: string,
    /** A reasonable wait before trying again (an HTTP answer's Retry-After). */
    readonly retryAfterSeconds: number,
  ) {
    super(message, 'busy');
  }
}
