/**
 * The HTTP exchange as the hosts receive it and the answer they give, declared once: the server's
 * seam (src/server/hosts.ts) builds on them, as the server sits above the hosts.
 */
import { ScriptBusyError } from '../script/errors.js';
import { storeFaultAnswer } from '../store/index.js';
import type { TemplateError } from '../template/index.js';

export interface HostCaller {
  accountId: string;
  user: { id: number; login: string; isAdmin: boolean };
}

export interface Exchange {
  accountId: string;
  /** The authenticated user of that account, or null. */
  caller: HostCaller | null;
  method: string;
  /** The path after the route family's prefix, without the query. */
  path: string;
  /** Lower-case names; the server's credentials removed. */
  headers: Record<string, string>;
  query: Record<string, string | string[]>;
  /** Parsed JSON, text for text/* and form bodies, a Buffer for anything else, undefined when empty. */
  body: unknown;
}

export interface Answer {
  status: number;
  /** The reason phrase (set_status's `name`); the server sends the standard one when absent. */
  statusMessage?: string;
  headers: Record<string, string>;
  body: string | Buffer | Record<string, unknown> | unknown[] | null;
}

/** The server's error body shape, `{status, code, message}`. */
export function errorAnswer(
  status: number,
  code: string,
  message: string,
  extra: Record<string, unknown> = {},
): Answer {
  return { status, headers: {}, body: { status, code, message, ...extra } };
}

/**
 * A store fault under the template's error: 409 contention / 503 unavailable (with Retry-After) /
 * 507 insufficient-storage (store/faults.ts). Else
 * 429 with Retry-After when the template failed because a script was refused for its account's
 * full queue (the scripts are shared fairly between accounts: docs/server.md "Limits").
 */
export function busyAnswer(e: TemplateError): Answer | undefined {
  const fault = storeFaultAnswer(e);
  if (fault) {
    const answer = errorAnswer(fault.status, fault.code, fault.message);
    if (fault.retryAfter !== undefined) answer.headers['retry-after'] = String(fault.retryAfter);
    return answer;
  }
  if (!(e.cause instanceof ScriptBusyError)) return undefined;
  const answer = errorAnswer(429, 'too-many-scripts', e.cause.message);
  answer.headers['retry-after'] = String(e.cause.retryAfterSeconds);
  return answer;
}

/** One value of a query parameter (the first when repeated). */
export function queryValue(query: Exchange['query'], name: string): string | undefined {
  const value = query[name];
  return Array.isArray(value) ? value[0] : value;
}
