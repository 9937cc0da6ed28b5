/**
 * Building the ExecutionContext of one evaluation for a user and mode (`contextFor`), the state
 * an evaluation keeps beside it (P_locks, P_message, the lock owner, the log threshold …) and the
 * platform's internal parameters every script sees (`internalParameters`):
 *
 *   const platform = createPlatform(store);
 *   const ctx = await contextFor({ platform, account: 'acme', user: 'ann', mode: 'LIVE', project: 3 });
 *   const scope = await internalParameters(ctx);   // P_customer, P_mode, P_user … (read live)
 *
 * A context made another way (createExecutionContext) gets its state on first use, derived from
 * the context's fields.
 */
import { randomUUID } from 'node:crypto';
import type {
  Account,
  AccountUrls,
  LockRecord,
  LogThreshold,
  Platform,
  ProcessRequest,
  Project,
  User,
  UserRef,
} from '../../platform/index.js';
import { accountUrls, DEFAULT_BASE_URL } from '../../platform/accounts.js';
import { PlatformError } from '../../platform/errors.js';
import { logThreshold } from '../../platform/logs.js';
import type { Store } from '../../store/index.js';
import {
  createExecutionContext,
  type CompositeResponse,
  type ExecutionContext,
  type ExecutionLimits,
  type Mode,
  type Surface,
} from '../context.js';
import type { Scope } from '../template-types.js';
import { requestDescriptor, userParameter } from './descriptors.js';
import { readOnce, type ContextReads } from './reads.js';
import { scriptUrls } from './script-urls.js';

export interface ContextOptions {
  /** The platform services (or `store`, from which they are made once per store). */
  platform?: Platform;
  store?: Store;
  account: string;
  /** The connected user: login, email or id; null/absent = nobody. */
  user?: UserRef | null;
  /** Default: the request's mode, else TEST. */
  mode?: Mode;
  /** Default: eval. */
  surface?: Surface;
  /** Default: the request's project. */
  project?: number;
  request?: string;
  /** The request itself when the caller has read it already (a process step): not read again. */
  requestRead?: ProcessRequest;
  /** The project version running (P_version); default the request's, else the project's latest in the mode. */
  version?: number;
  /** The resource's P_log attribute; default the project's, else the mode's rule. */
  logLevel?: LogThreshold;
  clock?: () => number;
  random?: () => number;
  randomBytes?: (size: number) => Uint8Array;
  limits?: Partial<ExecutionLimits>;
  response?: CompositeResponse;
  /**
   * The script is stored in its project (a process step, a composite API, a web interface): it
   * acts with the project's design authority (ExecutionContext.designedIn), whoever runs it.
   */
  designed?: boolean;
  /** Records the contexts of a series share (a process request's steps): read once for them all. */
  reads?: ContextReads;
}

/** What an evaluation keeps beside its context. */
export interface EvaluationState {
  urls: AccountUrls;
  /** P_user and P_connected_user (undefined when nobody is connected). */
  user: Record<string, unknown> | undefined;
  /** P_language: the connected user's language, else the account's. */
  language: string;
  /** P_initiator: the request's initiator, else the connected user. */
  initiator: Record<string, unknown> | undefined;
  /** P_request (undefined outside a request). */
  request: Record<string, unknown> | undefined;
  /** P_version: the version's name, '' when none applies. */
  version: string;
  logThreshold: LogThreshold;
  /** P_locks of this evaluation (persisted on the request when there is one). */
  locks: LockRecord[];
  /** P_message: the last message P_log wrote. */
  message: string;
  /** Who holds the locks this evaluation takes: the request, else the evaluation. */
  lockOwner: string;
}

export const INTERNAL_PARAMETERS = [
  'P_customer',
  'P_mode',
  'P_user',
  'P_urls',
  'P_version',
  'P_initiator',
  'P_request',
  'P_locks',
  'P_message',
  'P_connected_user',
  'P_language',
] as const;

/** Each context's state: a promise while it is being built, the state itself once it is. */
const states = new WeakMap<ExecutionContext, EvaluationState | Promise<EvaluationState>>();
/**
 * The state shareBuiltState gives a call's context, as the context's own property under a symbol
 * only this module knows (cheaper than an entry in `states` per call). Own only: a context made
 * over that one (Object.create) does not inherit it, and gets its own state on first use.
 */
const OWN_STATE = Symbol('evaluation state');
type WithState = ExecutionContext & { [OWN_STATE]?: EvaluationState };

function ownState(ctx: ExecutionContext): EvaluationState | undefined {
  return Object.prototype.hasOwnProperty.call(ctx, OWN_STATE) ? (ctx as WithState)[OWN_STATE] : undefined;
}

/**
 * Lock owners of evaluations outside a request: unique across calls (a counter) and across the
 * processes sharing a store (a random prefix drawn once per process), without a UUID per call.
 */
const EVALUATION_PREFIX = `evaluation:${randomUUID()}-`;
let evaluations = 0;
function evaluationOwner(): string {
  return EVALUATION_PREFIX + (++evaluations).toString(36);
}
const platforms = new WeakMap<Store, Platform>();

/** The ExecutionContext of one evaluation, with the user resolved and the internal parameters prepared. */
export async function contextFor(options: ContextOptions): Promise<ExecutionContext> {
  const platform = options.platform ?? (await platformFor(options.store));
  const { reads } = options;
  const account = await readOnce(reads?.accounts, options.account, () =>
    platform.accounts.require(options.account),
  );
  let request: ProcessRequest | undefined;
  if (options.request !== undefined)
    request =
      options.requestRead?.id === options.request && options.requestRead.accountId === account.id
        ? options.requestRead
        : await platform.requests.require(account.id, options.request);
  const mode = options.mode ?? request?.mode ?? 'TEST';
  const projectId = options.project ?? request?.projectId ?? undefined;
  const project =
    projectId !== undefined
      ? await readOnce(reads?.projects, projectId, () => platform.projects.require(account.id, projectId))
      : undefined;
  let user = null;
  let found: User | undefined;
  if (options.user !== undefined && options.user !== null) {
    const ref = options.user;
    found = await readOnce(reads?.users, ref, () => platform.directory.users.find(account.id, ref));
    if (!found)
      throw new PlatformError('not-found', `user ${options.user} not found in account ${account.id}`);
    if (found.status === 'blocked') throw new PlatformError('not-allowed', `user ${found.login} is blocked`);
    user = { id: found.id, login: found.login, isAdmin: found.isAdmin };
  }
  const ctx = createExecutionContext({
    accountId: account.id,
    user,
    mode,
    surface: options.surface ?? 'eval',
    ...(projectId !== undefined ? { projectId } : {}),
    ...(options.designed && projectId !== undefined ? { designedIn: projectId } : {}),
    ...(request ? { requestId: request.id } : {}),
    locale: account.locale,
    timeZone: account.timeZone,
    platform,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.random ? { random: options.random } : {}),
    ...(options.randomBytes ? { randomBytes: options.randomBytes } : {}),
    ...(options.response ? { response: options.response } : {}),
    limits: options.limits as ExecutionLimits | undefined,
  });
  // what was read above is not read again
  const building = buildState(ctx, platform, {
    request,
    version: options.version,
    logLevel: options.logLevel,
    read: { account, project, user: found },
    ...(reads ? { reads } : {}),
  });
  states.set(ctx, building);
  states.set(ctx, await building);
  return ctx;
}

/** The evaluation state of a context (made on first use for contexts built elsewhere). */
export function evaluationState(ctx: ExecutionContext): Promise<EvaluationState> {
  const state = ownState(ctx) ?? states.get(ctx);
  if (state) return state instanceof Promise ? state : Promise.resolve(state);
  const building = buildState(ctx, ctx.platform, {});
  states.set(ctx, building);
  void building.then(
    (built) => states.get(ctx) === building && states.set(ctx, built),
    () => undefined,
  );
  return building;
}

/** The state of a context when it is built already (contextFor's contexts are), else undefined. */
export function builtEvaluationState(ctx: ExecutionContext): EvaluationState | undefined {
  const state = ownState(ctx) ?? states.get(ctx);
  return state instanceof Promise ? undefined : state;
}

/**
 * Gives a context the evaluation state of another (hosts that serve many calls alike — composite
 * APIs — build one context with contextFor, keep it briefly, and give each call a copy of the
 * context with a copy of its state: fresh P_locks, P_message and lock owner, the rest shared).
 */
export async function shareEvaluationState(from: ExecutionContext, to: ExecutionContext): Promise<void> {
  shareBuiltState(builtEvaluationState(from) ?? (await evaluationState(from)), to);
}

/**
 * shareEvaluationState from a state built already, at once; returns the copy `to` now has. Only
 * the shared parts are shared: the copy's P_locks, P_message and lock owner are its own, and a
 * change of its P_user (impersonate) is its own too.
 */
export function shareBuiltState(from: EvaluationState, to: ExecutionContext): EvaluationState {
  const state: EvaluationState = {
    urls: from.urls,
    user: from.user,
    language: from.language,
    initiator: from.initiator,
    request: from.request,
    version: from.version,
    logThreshold: from.logThreshold,
    locks: [],
    message: '',
    lockOwner: evaluationOwner(),
  };
  (to as WithState)[OWN_STATE] = state;
  return state;
}

/**
 * The platform's internal parameters as a scope: P_customer, P_mode, P_user, P_urls, P_version,
 * P_initiator, P_request, P_locks, P_message, P_connected_user, P_language. Read live: P_locks and P_message follow R_lock,
 * R_unlock and P_log, P_user follows impersonate. A missing value (P_user when nobody is
 * connected, P_request outside a request) is undefined.
 */
export async function internalParameters(ctx: ExecutionContext): Promise<Scope> {
  return internalParameterScope(ctx, builtEvaluationState(ctx) ?? (await evaluationState(ctx)));
}

/** internalParameters over the context's state, given (its builtEvaluationState or shareBuiltState's copy). */
export function internalParameterScope(ctx: ExecutionContext, state: EvaluationState): Scope {
  return { get: (name) => internalParameter(ctx, state, name) };
}

/** One internal parameter (undefined for another name), read from the context and its state. */
export function internalParameter(ctx: ExecutionContext, state: EvaluationState, name: string): unknown {
  switch (name) {
    case 'P_customer':
      return ctx.accountId;
    case 'P_mode':
      return ctx.mode;
    case 'P_user':
      return state.user;
    case 'P_urls':
      return scriptUrls(state.urls);
    case 'P_version':
      return state.version;
    case 'P_initiator':
      return state.initiator;
    case 'P_request':
      return state.request;
    case 'P_locks':
      return state.locks.map((l) => ({ ...l }));
    case 'P_message':
      return state.message;
    case 'P_connected_user':
      return state.user;
    case 'P_language':
      return state.language;
    default:
      return undefined;
  }
}

/** The plain values of the internal parameters (for hosts that return them, and tests). */
export async function internalParameterValues(ctx: ExecutionContext): Promise<Record<string, unknown>> {
  const scope = await internalParameters(ctx);
  const out: Record<string, unknown> = {};
  for (const name of INTERNAL_PARAMETERS) {
    const value = scope.get(name);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** The platform over `store`, its ~60 modules loaded only here (a render without a store never needs them). */
async function platformFor(store: Store | undefined): Promise<Platform> {
  if (!store) throw new Error('contextFor: give platform or store');
  let platform = platforms.get(store);
  if (!platform) {
    const { createPlatform } = await import('../../platform/index.js');
    platform = platforms.get(store);
    if (!platform) platforms.set(store, (platform = createPlatform(store)));
  }
  return platform;
}

async function buildState(
  ctx: ExecutionContext,
  platform: Platform | undefined,
  options: {
    request?: ProcessRequest;
    version?: number;
    logLevel?: LogThreshold;
    /** Records the caller read already (contextFor): the context's account, project and user. */
    read?: { account: Account; project: Project | undefined; user: User | undefined };
    reads?: ContextReads;
  },
): Promise<EvaluationState> {
  const hasPlatform = Boolean((platform as Partial<Platform> | undefined)?.directory);
  if (!platform || !hasPlatform) return detachedState(ctx, options.logLevel);
  const now = ctx.clock();
  const { read, reads } = options;
  const account = read ? read.account : await platform.accounts.get(ctx.accountId);
  let request = options.request;
  if (!request && ctx.requestId !== undefined)
    request = await platform.requests.find(ctx.accountId, ctx.requestId);
  const connected = !ctx.user
    ? undefined
    : read?.user?.id === ctx.user.id
      ? read.user
      : await platform.directory.users.find(ctx.accountId, ctx.user.id);
  const user = connected ? await userParameter(platform, connected, now, reads) : undefined;
  let initiator = user;
  let initiatorUser = connected;
  if (request?.initiatorId != null && request.initiatorId !== connected?.id) {
    const initiatorId = request.initiatorId;
    initiatorUser = await readOnce(reads?.users, initiatorId, () =>
      platform.directory.users.find(ctx.accountId, initiatorId),
    );
    initiator = initiatorUser ? await userParameter(platform, initiatorUser, now, reads) : undefined;
  }
  const project =
    ctx.projectId === undefined
      ? undefined
      : read
        ? read.project
        : await platform.projects.find(ctx.accountId, ctx.projectId);
  const versionId = options.version ?? request?.versionId ?? undefined;
  const current = (id: number, mode: 'ACCEPTANCE' | 'LIVE') =>
    readOnce(reads?.versions, `${id} ${mode}`, () =>
      platform.projects.currentVersion(ctx.accountId, id, mode),
    );
  const version =
    versionId !== undefined
      ? await readOnce(reads?.versions, versionId, () =>
          platform.projects.findVersion(ctx.accountId, versionId),
        )
      : project && ctx.mode !== 'TEST'
        ? ((ctx.mode === 'ACCEPTANCE' ? await current(project.id, 'ACCEPTANCE') : undefined) ??
          (await current(project.id, 'LIVE')))
        : undefined;
  return {
    urls: accountUrls({ id: ctx.accountId, baseUrl: account?.baseUrl ?? DEFAULT_BASE_URL }),
    user,
    language: connected?.language ?? languageOf(account?.locale ?? ctx.locale),
    initiator,
    request: request
      ? await requestDescriptor(
          platform,
          request,
          false,
          request.initiatorId === initiatorUser?.id ? initiatorUser : undefined,
          reads,
        )
      : undefined,
    version: version?.name ?? '',
    logThreshold: logThreshold(ctx.mode, options.logLevel ?? project?.logLevel),
    locks: request ? request.locks.map((l) => ({ ...l })) : [],
    message: request?.message ?? '',
    lockOwner: request ? `request:${request.id}` : evaluationOwner(),
  };
}

/** The state of a context without platform services (a pure-utilities evaluation). */
function detachedState(ctx: ExecutionContext, logLevel?: LogThreshold): EvaluationState {
  const user = ctx.user
    ? {
        id: ctx.user.id,
        login: ctx.user.login,
        name: ctx.user.login,
        profile: '',
        extended: {},
        delegators: [],
      }
    : undefined;
  return {
    urls: accountUrls({ id: ctx.accountId, baseUrl: DEFAULT_BASE_URL }),
    user,
    language: languageOf(ctx.locale),
    initiator: user,
    request: undefined,
    version: '',
    logThreshold: logThreshold(ctx.mode, logLevel),
    locks: [],
    message: '',
    lockOwner: evaluationOwner(),
  };
}

/** After impersonate: the connected user's P_user follows. */
export async function refreshUser(ctx: ExecutionContext, platform: Platform): Promise<void> {
  const state = await evaluationState(ctx);
  const user = ctx.user ? await platform.directory.users.find(ctx.accountId, ctx.user.id) : undefined;
  state.user = user ? await userParameter(platform, user, ctx.clock()) : undefined;
  if (user) state.language = user.language;
}

/** The language of a locale (`fr_FR` → `fr`). */
function languageOf(locale: string): string {
  return locale.split(/[_-]/)[0].toLowerCase();
}
