/**
 * The two forms of every method. Given `onSuccess`, a method calls exactly one of onSuccess
 * (with its result) or onFailure (with a ClientError; without onFailure, the default failure
 * handler), once, and returns a Promise that resolves when the callback has run and never
 * rejects. Without `onSuccess`, it returns a Promise of the result that rejects with the
 * ClientError. An exception thrown by a callback is reported (reportError / console.error),
 * never turned into a call of onFailure.
 */
import { ClientError, invalidArgument, toClientError } from './errors.js';
import { settings } from './context.js';

export interface Callbacks<R> {
  onSuccess: (result: R) => void;
  onFailure?: (error: ClientError) => void;
  /** The server's base URL (default: the resource's, the configured one, or the page's origin). */
  baseUrl?: string;
}

/** The options of the Promise form (no callbacks). */
export interface CommonOptions {
  /** The server's base URL (default: the resource's, the configured one, or the page's origin). */
  baseUrl?: string;
  onSuccess?: undefined;
  onFailure?: undefined;
}

/** Either form's options, with the method's extra members `E`. */
export type Options<R, E = object> = (Callbacks<R> | CommonOptions) & E;

export function settle<R>(
  options: { onSuccess?: unknown; onFailure?: unknown } | undefined,
  work: () => Promise<R> | R,
): Promise<R | void> {
  const onSuccess = options?.onSuccess;
  const onFailure = options?.onFailure;
  let result: Promise<R>;
  try {
    if (onSuccess !== undefined && typeof onSuccess !== 'function')
      throw invalidArgument('onSuccess must be a function');
    if (onFailure !== undefined && typeof onFailure !== 'function')
      throw invalidArgument('onFailure must be a function');
    result = Promise.resolve(work());
  } catch (e) {
    result = Promise.reject(e);
  }
  if (typeof onSuccess !== 'function') {
    return result.catch((e: unknown) => {
      throw toClientError(e);
    });
  }
  return result.then(
    (value) => guarded(onSuccess as (v: R) => void, value),
    (e: unknown) =>
      guarded((onFailure as ((e: ClientError) => void) | undefined) ?? settings.onFailure, toClientError(e)),
  );
}

function guarded<T>(callback: (value: T) => void, value: T): void {
  try {
    callback(value);
  } catch (e) {
    const report = (globalThis as { reportError?: (e: unknown) => void }).reportError;
    if (report) report(e);
    else console.error(e);
  }
}

export { ClientError };
