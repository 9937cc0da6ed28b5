/**
 * The services the function library acts on (directory, projects, requests, collections, files …),
 * reached through `ExecutionContext.platform`. Each platform module adds its member to this
 * interface as it lands (declaration merging or a direct edit), e.g.
 * `collections: CollectionService;`.
 *
 * `createPlatform(store)` builds the services over one store (see docs/platform.md).
 */
import type { Store } from '../store/index.js';
import { Accounts } from './accounts.js';
import { Directory } from './directory/index.js';

export interface Platform {
  /** Accounts (customers): locale, time zone, public URLs. */
  accounts: Accounts;
  /** Users, pools, lanes and membership, lane rules and jobs, organisation charts. */
  directory: Directory;
}

export interface PlatformOptions {
  /** Epoch milliseconds for the timestamps the services record (default Date.now). */
  clock?: () => number;
}

/** The platform's services over one store. */
export function createPlatform(store: Store, options: PlatformOptions = {}): Platform {
  const clock = options.clock ?? Date.now;
  return {
    accounts: new Accounts(store, clock),
    directory: new Directory(store, clock),
  };
}

export { PlatformError, MESSAGES, type PlatformErrorCode } from './errors.js';
export { laneModeFor, MODES, type LaneMode, type Mode } from './model.js';
export {
  accessUrl,
  accountUrls,
  DEFAULT_BASE_URL,
  type Account,
  type AccountUrls,
  type NewAccount,
} from './accounts.js';
export type {
  Lane,
  NewLane,
  NewUser,
  Pool,
  User,
  UserChanges,
  UserRef,
  UserStatus,
} from './directory/index.js';
