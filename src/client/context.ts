/**
 * The library's settings for the page: the default server, the account ("customer") the
 * resources live in, an API token, and the default failure handler. The account is found by
 * asking the server who is logged in (GET /api/v1/auth/me) the first time a resource needs it,
 * unless configured or carried by the resource (its URN).
 */
import type { ClientError } from './errors.js';

export interface ClientSettings {
  /** The server (default: the page's origin). */
  baseUrl: string | undefined;
  /** The account the resources belong to (default: the logged-in user's). */
  customer: string | undefined;
  /** An API token sent as `Authorization: Bearer …` (default: none; the session cookie is used). */
  token: string | undefined;
  /** Called with the error of a callback-form call that has no onFailure (default: console.error). */
  onFailure: (error: ClientError) => void;
}

export const settings: ClientSettings = {
  baseUrl: undefined,
  customer: undefined,
  token: undefined,
  onFailure: (error) => console.error(`flowmark: ${error.status} ${error.code}: ${error.message}`),
};

const customers = new Map<string, Promise<string>>();

/** Changes the settings; forgets the accounts found so far (after a login or logout, call it). */
export function configure(changes: Partial<ClientSettings>): ClientSettings {
  Object.assign(settings, changes);
  customers.clear();
  return settings;
}

/** The base URL without its trailing slash: the given one, the configured one, or the page's origin. */
export function resolveBaseUrl(...candidates: Array<string | undefined>): string {
  const chosen = [...candidates, settings.baseUrl].find((c) => c !== undefined && c !== '');
  const origin = (globalThis as { location?: { origin: string } }).location?.origin;
  const base = chosen ?? origin;
  if (base === undefined) throw new Error('no baseUrl: pass one (there is no page origin here)');
  return base.replace(/\/+$/, '');
}

/** The account to address at a server: configured, or the logged-in user's (asked once per server). */
export function resolveCustomer(
  baseUrl: string,
  fetchMe: (baseUrl: string) => Promise<string>,
): Promise<string> {
  if (settings.customer !== undefined) return Promise.resolve(settings.customer);
  let known = customers.get(baseUrl);
  if (!known) {
    known = fetchMe(baseUrl);
    customers.set(baseUrl, known);
    known.catch(() => customers.delete(baseUrl));
  }
  return known;
}
