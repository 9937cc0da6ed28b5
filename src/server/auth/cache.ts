/**
 * Who a credential (API token or session id) stood for, remembered for a moment so a client
 * sending many requests costs no store lookups per request. This process forgets everything on
 * its own changes (logout, token revoked, user changed or blocked); another server process on the
 * same database sees such a change at most `ttlMs` later. Bounded in size.
 */
import type { Caller } from '../hosts.js';

export const DEFAULT_CALLER_CACHE_MS = 2000;
const MAX_ENTRIES = 10_000;

export class CallerCache {
  private readonly entries = new Map<string, { caller: Caller; expires: number }>();

  constructor(
    private readonly clock: () => number,
    readonly ttlMs: number = DEFAULT_CALLER_CACHE_MS,
  ) {}

  get(key: string): Caller | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= this.clock()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.caller;
  }

  set(key: string, caller: Caller): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { caller, expires: this.clock() + this.ttlMs });
  }

  /** Forgets every credential (a user, token or session changed). */
  clear(): void {
    this.entries.clear();
  }
}
