/**
 * The services the function library acts on (directory, projects, requests, collections, files …),
 * reached through `ExecutionContext.platform`. Each platform module adds its member to this
 * interface as it lands (declaration merging or a direct edit), e.g.
 * `collections: CollectionService;`.
 *
 * `createPlatform(store)` builds the services over one store (see docs/platform.md).
 */
import { changeCounts } from './change-counts.js';
import type { Store } from '../store/index.js';
import { Accounts } from './accounts.js';
import { Applications } from './applications/index.js';
import { CollectionService, type CollectionLimits } from './collections/index.js';
import { Counters } from './counters.js';
import { Directory } from './directory/index.js';
import { FileService, type FileLimits } from './files/index.js';
import { Dictionaries } from './i18n.js';
import { Locks, type WaitTimer } from './locks.js';
import { Logs } from './logs.js';
import { AuditLog } from './audit.js';
import { ArtefactVersions } from './versions.js';
import { DEFAULT_CONTENTION, type ContentionPolicy } from './model.js';
import { OAuth2Tokens } from './oauth2.js';
import { CustomLists, Projects, Vaults, WebInterfaces } from './projects/index.js';
import { Requests } from './requests.js';
import { Rights } from './rights.js';
import { Processes } from './processes/index.js';
import { CompositeApis, WebInterfaceTemplates } from './scripted/index.js';

export interface Platform {
  /** Accounts (customers): locale, time zone, public URLs. */
  accounts: Accounts;
  /** Users, pools, lanes and membership, lane rules and jobs, organisation charts. */
  directory: Directory;
  /** Projects: versions and their modes, pools, child projects, metadata, P_log attribute. */
  projects: Projects;
  webInterfaces: WebInterfaces;
  customLists: CustomLists;
  /** One vault per project and mode. */
  vaults: Vaults;
  /** i18n dictionaries per project, with an account-wide fallback. */
  i18n: Dictionaries;
  /** OAuth2 service tokens per service and mode. */
  oauth2: OAuth2Tokens;
  counters: Counters;
  locks: Locks;
  logs: Logs;
  /** Process requests: status, data document, P_locks, P_message, initiator, parent (docs/hosts.md). */
  requests: Requests;
  /** Uploaded files: content, descriptors, per-user and per-lane rights, zip and xlsx (docs/files.md). */
  files: FileService;
  /** Application instances: metadata, history, attached files (docs/files.md). */
  applications: Applications;
  /** Document collections with MongoDB queries, indexes and rights (docs/collections.md). */
  collections: CollectionService;
  /** Process definitions, runs, step records and manual tasks (docs/hosts.md). */
  processes: Processes;
  /** Composite APIs: HTTP routes answered by a script (docs/hosts.md). */
  compositeApis: CompositeApis;
  /** The templates of web interfaces (docs/hosts.md). */
  webInterfaceTemplates: WebInterfaceTemplates;
  /** Who may do what: design grants and the predicates the REST routes and the functions share. */
  rights: Rights;
  /** Every administrative or design change made through the API, before and after (docs/server.md). */
  audit: AuditLog;
  /** The saved versions of every designed artefact, and the definitions requests run (docs/deploy.md). */
  versions: ArtefactVersions;
}

export interface PlatformOptions {
  /** Epoch milliseconds for the timestamps the services record (default Date.now). */
  clock?: () => number;
  /** Bounds of the file service (default DEFAULT_FILE_LIMITS of src/platform/files). */
  fileLimits?: Partial<FileLimits>;
  /** Bounds of the collection service (default DEFAULT_COLLECTION_LIMITS of src/platform/collections). */
  collectionLimits?: Partial<CollectionLimits>;
  /**
   * How next_value and lane membership changes retry a conflicting write before
   * `Counter already being modified, cannot increment it.` (default DEFAULT_CONTENTION: 8 tries).
   */
  contention?: Partial<ContentionPolicy>;
  /** The monotonic clock and sleep of R_lock's wait (default performance.now and a real timer). */
  lockTimer?: WaitTimer;
  /**
   * Where the counts of changes to composite APIs and to users and delegations are kept
   * (changeCountsBuffer): the HTTP thread and the evaluation threads of a server process share one,
   * so a write seen by one drops what the others kept (default: this platform's own).
   */
  changeCounts?: SharedArrayBuffer;
}

/** The platform's services over one store. */
export function createPlatform(store: Store, options: PlatformOptions = {}): Platform {
  const clock = options.clock ?? Date.now;
  const contention = { ...DEFAULT_CONTENTION, ...options.contention };
  const counts = changeCounts(options.changeCounts);
  const directory = new Directory(store, clock, contention, counts.directory);
  const files = new FileService(store, directory, clock, options.fileLimits);
  const versions = new ArtefactVersions(store, clock);
  const processes = new Processes(store, clock, versions);
  return {
    accounts: new Accounts(store, clock),
    directory,
    projects: new Projects(store, clock),
    webInterfaces: new WebInterfaces(store, clock),
    customLists: new CustomLists(store, clock, versions),
    vaults: new Vaults(store, clock),
    i18n: new Dictionaries(store, versions),
    oauth2: new OAuth2Tokens(store, clock),
    counters: new Counters(store, contention),
    locks: new Locks(store, options.lockTimer),
    logs: new Logs(store, clock),
    requests: new Requests(store, clock),
    files,
    applications: new Applications(store, files, clock),
    collections: new CollectionService(store, { clock, limits: options.collectionLimits }),
    processes,
    compositeApis: new CompositeApis(store, clock, processes.definitions, versions, counts.routes),
    webInterfaceTemplates: new WebInterfaceTemplates(store, clock, versions),
    rights: new Rights(store, clock),
    audit: new AuditLog(store, clock),
    versions,
  };
}

export { PlatformError, MESSAGES, PLATFORM_ERROR_STATUS, type PlatformErrorCode } from './errors.js';
export {
  asSentence,
  canAdministerAccount,
  canChangeMetadata,
  canReadRequest,
  canSeePrivate,
  notAllowed,
  Rights,
  RIGHTS_MESSAGES,
  userChangeRefusal,
  type Actor,
} from './rights.js';
export {
  DEFAULT_CONTENTION,
  laneModeFor,
  MODES,
  type ContentionPolicy,
  type LaneMode,
  type Mode,
} from './model.js';
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
export type {
  Application,
  CustomList,
  InterfaceContext,
  NewProject,
  NewWebInterface,
  Project,
  ProjectVersion,
  WebInterface,
} from './projects/index.js';
export { INTERFACE_CONTEXTS, isInterfaceContext, NO_TAG, webInterfaceUrl } from './projects/index.js';
export { DEFAULT_LOCK_LEASE_MS, MAX_LOCK_WAIT_MS, type LockLease, type WaitTimer } from './locks.js';
export {
  isLogged,
  isLogLevel,
  LOG_LEVELS,
  logThreshold,
  truncateLogMessage,
  type LogEntry,
  type LogLevel,
  type LogThreshold,
} from './logs.js';
export { STATUS_RUNNING, type LockRecord, type NewRequest, type ProcessRequest } from './requests.js';
export {
  isFinalStatus,
  REQUEST_STATUSES,
  STATUS_ABORTED,
  STATUS_CANCELLED,
  STATUS_COMPLETED,
  STATUS_KILLED,
  STATUS_OUTDATED,
  STATUS_WAITING,
  type RequestStatus,
} from './requests.js';
export { normaliseLanguage } from './i18n.js';
export { changeCountsBuffer } from './change-counts.js';
export {
  ARTEFACT_KINDS,
  SYSTEM_AUTHOR,
  VERSION_PAGE_MAX,
  type ArtefactKind,
  type ArtefactVersion,
  type Author,
  type VersionSummary,
} from './versions.js';
export { editInput, MAX_PAGE_SIZE, type Json } from './directory/index.js';
