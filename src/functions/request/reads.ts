/**
 * The records a series of evaluation contexts reads — the account, the project, users, their
 * delegations, versions — kept for that series: a process request driven through its steps
 * builds one context a step, and the steps of one drive share these reads instead of reading
 * them again each (docs/performance.md, "Transactions per process step"). A read that fails is
 * not kept.
 */
import type { Account, Project, ProjectVersion, User } from '../../platform/index.js';

/** Values by key, each read once. */
export class Kept<K, V> {
  private readonly values = new Map<K, Promise<V>>();

  once(key: K, read: () => Promise<V>): Promise<V> {
    const known = this.values.get(key);
    if (known) return known;
    const reading = read();
    this.values.set(key, reading);
    reading.catch(() => this.values.delete(key));
    return reading;
  }
}

/** What the requests of one account may share beyond one request (ProcessRunner's account reads). */
export class DirectoryReads {
  readonly accounts = new Kept<string, Account>();
  /** By the reference the context was given (login, email or id). */
  readonly users = new Kept<string | number, User | undefined>();
  readonly delegators = new Kept<number, User[]>();
}

export class ContextReads {
  readonly accounts: Kept<string, Account>;
  readonly projects = new Kept<number, Project>();
  readonly users: Kept<string | number, User | undefined>;
  readonly delegators: Kept<number, User[]>;
  /** By version id, or `<project> <mode>` for a project's current version. */
  readonly versions = new Kept<number | string, ProjectVersion | undefined>();

  /** `directory`: the account, users and delegations, when they are shared with other requests. */
  constructor(directory: DirectoryReads = new DirectoryReads()) {
    this.accounts = directory.accounts;
    this.users = directory.users;
    this.delegators = directory.delegators;
  }
}

/** `read()`, or the value `kept` holds for `key` (read once) when there is one. */
export function readOnce<K, V>(kept: Kept<K, V> | undefined, key: K, read: () => Promise<V>): Promise<V> {
  return kept ? kept.once(key, read) : read();
}
