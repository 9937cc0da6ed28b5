/**
 * The composite API host (docs/hosts.md): answers `ANY /live/<account>/composite/<path>` with the
 * script of the account's route matching the method and path. The script sees the HTTP request as
 * P_method, P_path, P_params (the pattern's `:name` segments), P_header, P_query and P_body; its
 * output is the body; set_status and P_custom_header shape the rest of the response.
 *
 * Routes are kept per account for `routeCacheMs` (default 1 s; at once after a change made
 * through the same platform) with their compiled templates, and the context of a user's calls for
 * `contextCacheMs` (1 s): a call of a trivial script makes no query to the store.
 */
import {
  DEFAULT_LIMITS,
  type CompositeResponse,
  type ExecutionContext,
  type ExecutionLimits,
} from '../functions/context.js';
import {
  builtEvaluationState,
  contextFor,
  shareBuiltState,
  type EvaluationState,
} from '../functions/request/index.js';
import { Budget, resolvedLimits, type EvaluationLimits } from '../limits/index.js';
import type { Platform } from '../platform/index.js';
import type { ProcessDefinition } from '../platform/processes/index.js';
import type { CompositeApi } from '../platform/scripted/index.js';
import {
  compile,
  markRequestInput,
  prepareRender,
  requestStrings,
  TemplateError,
  type PreparedRender,
  type Template,
} from '../template/index.js';
import { CallScope, PLATFORM_SETTINGS } from './evaluate.js';
import { busyAnswer, errorAnswer, type Answer, type Exchange } from './http.js';
import { runCallProcess } from './composite-process.js';
import { failureMessage, loggedMessage, StepFailure, stepError } from './processes/failure.js';
import { typedValue } from './typing.js';
import { isRecord } from '../safety/narrow.js';

export interface CompositeHostOptions {
  clock?: () => number;
  random?: () => number;
  randomBytes?: (size: number) => Uint8Array;
  limits?: Partial<ExecutionLimits>;
  /** How long an account's routes are reused before they are read again (default 1000 ms). */
  routeCacheMs?: number;
  /**
   * How long the context of a route's calls by one user is reused (default 1000 ms): account
   * settings, P_user and P_version seen by composite APIs may lag a change by that much.
   */
  contextCacheMs?: number;
}

/** The methods a route answers, in the order an Allow header lists them. */
const ALLOWABLE = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

interface Route {
  api: CompositeApi;
  /** The key of its callers' contexts, but the user (contextKey). */
  contextPrefix: string;
  /** Compiled on first use. */
  template?: Template;
  /** Literal segments, or a parameter's name. */
  segments: ({ literal: string } | { param: string })[];
  literals: number;
  /** The route's process definition, read on its first call (kept with the route). */
  process?: Promise<ProcessDefinition>;
  /** Its templates, compiled on first use. */
  processTemplates?: Map<string, Template>;
}

interface CachedContext {
  readAt: number;
  ready: Promise<Prepared>;
  /** Once resolved: the context, its evaluation state and its render options, which every call shares. */
  value?: Prepared;
}

/**
 * What the calls of a context share, made once: the context (account settings, user, mode,
 * project), its evaluation state (P_user, P_version …) and the render options (locale, time zone,
 * the platform's settings). Each call has its own context on top, evaluation state copy, budget,
 * response and Env; nothing a call writes reaches this.
 */
interface Prepared {
  ctx: ExecutionContext;
  state: EvaluationState;
  render: PreparedRender;
}

/** Routes' contexts are shared by account, mode and project; each user has their own. */
function contextKey(route: Route, userId: number | null): string {
  return userId === null ? route.contextPrefix : `${route.contextPrefix}${userId}`;
}

function trimSlashes(path: string): string {
  let start = 0;
  let end = path.length;
  while (start < end && path.charCodeAt(start) === 0x2f) start++;
  while (end > start && path.charCodeAt(end - 1) === 0x2f) end--;
  return start === 0 && end === path.length ? path : path.slice(start, end);
}

interface RouteTable {
  readAt: number;
  changes: number;
  routes: Route[];
  /** The route each method and path called so far matched (dropped with the table; bounded). */
  matched: Map<string, Map<string, Matched>>;
  matchedCount: number;
}

interface Matched {
  route: Route;
  params: Record<string, string>;
  /** Whether params has entries (each call then gets its own copy). */
  hasParams: boolean;
}

/** How many method-and-path matches an account's table keeps before it starts again. */
const MATCHES_KEPT = 1000;

export class CompositeHost {
  private readonly tables = new Map<string, RouteTable>();
  private readonly contexts = new Map<string, CachedContext>();
  private readonly limits: ExecutionLimits;
  /** Each call's budget starts from these (startEvaluation's, resolved once). */
  private readonly evaluationLimits: Readonly<EvaluationLimits>;

  constructor(
    readonly platform: Platform,
    readonly options: CompositeHostOptions = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.evaluationLimits = resolvedLimits(this.limits.evaluation);
  }

  /**
   * The answer to one call: at once when the account's routes and the caller's context are held
   * already and the script waits for nothing (a trivial script makes no promise), else a promise.
   * Never throws: an unexpected error rejects.
   */
  handle(exchange: Exchange): Answer | Promise<Answer> {
    try {
      const now = Date.now(); // one clock reading for both caches
      const table = this.cachedRoutes(exchange.accountId, now);
      if (!table) return this.loadRoutes(exchange.accountId).then((t) => this.route(exchange, t, Date.now()));
      return this.route(exchange, table, now);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** The call of the route the method and path match, with the caller's context. */
  private route(exchange: Exchange, table: RouteTable, now: number): Answer | Promise<Answer> {
    const path = trimSlashes(exchange.path);
    const method = exchange.method.toUpperCase();
    const found = this.matched(table, method, path);
    if ('answer' in found) return found.answer;
    const { route } = found;
    const params = found.hasParams ? { ...found.params } : {};
    const api = route.api;
    if (!api.isPublic && !exchange.caller)
      return errorAnswer(401, 'unauthenticated', 'Authentication required: log in or send an API token.');
    const userId = exchange.caller?.user.id ?? null;
    const key = contextKey(route, userId);
    const shared = this.cachedContext(key, now);
    if (!shared)
      return this.loadContext(key, exchange.accountId, userId, api).then((loaded) =>
        this.call(exchange, method, path, route, params, loaded),
      );
    return this.call(exchange, method, path, route, params, shared);
  }

  /** Runs the route's script for one call. */
  private call(
    exchange: Exchange,
    method: string,
    path: string,
    route: Route,
    params: Record<string, string>,
    shared: Prepared,
  ): Answer | Promise<Answer> {
    const api = route.api;
    const response: CompositeResponse = { headers: {} };
    // The call's own context: the shared one underneath (read through the prototype), its response,
    // budget and evaluation state (P_locks, P_message, lock owner) on top.
    const ctx = Object.create(shared.ctx) as ExecutionContext;
    ctx.response = response;
    ctx.requestStrings = requestStrings(
      exchange.headers,
      exchange.query,
      Buffer.isBuffer(exchange.body) ? undefined : exchange.body,
    );
    const budget = (ctx.budget = new Budget(this.evaluationLimits));
    const state = shareBuiltState(shared.state, ctx);
    const parameters: Record<string, unknown> = {
      P_method: method,
      P_path: path,
      P_params: params,
      P_header: requestInput(exchange.headers),
      P_query: requestInput(exchange.query),
      P_body: Buffer.isBuffer(exchange.body)
        ? exchange.body.toString('base64')
        : markRequestInput(exchange.body),
    };
    if (api.process !== null)
      return this.withProcess(exchange, route, ctx, state, budget, shared, parameters).then((computed) =>
        computed.kind === 'answer'
          ? computed.answer
          : this.respond(exchange, method, route, ctx, state, budget, shared, parameters, computed.data),
      );
    // Nothing is computed ahead of the one script (docs/hosts.md, "Composite APIs").
    return this.respond(exchange, method, route, ctx, state, budget, shared, parameters, {});
  }

  /** Renders the route's template (with a process: its response template) with P_computed. */
  private respond(
    exchange: Exchange,
    method: string,
    route: Route,
    ctx: ExecutionContext,
    state: EvaluationState,
    budget: Budget,
    shared: Prepared,
    parameters: Record<string, unknown>,
    computed: Record<string, unknown>,
  ): Answer | Promise<Answer> {
    const api = route.api;
    const response = ctx.response!;
    let rendered: string | Promise<string>;
    try {
      const template = (route.template ??= compile(api.template, {
        name: `composite ${api.method} ${api.path}`,
      }));
      parameters.P_computed = computed;
      rendered = template.renderPrepared(new CallScope(ctx, state, parameters), shared.render, budget);
    } catch (e) {
      return this.scriptFailed(exchange, api, e);
    }
    if (typeof rendered === 'string') return answerOf(method, rendered, response);
    return rendered.then(
      (output) => answerOf(method, output, response),
      (e: unknown) => this.scriptFailed(exchange, api, e),
    );
  }

  /**
   * Runs the route's process to its end in the call (composite-process.ts): its final data
   * document, or the answer of its failure.
   */
  private async withProcess(
    exchange: Exchange,
    route: Route,
    ctx: ExecutionContext,
    state: EvaluationState,
    budget: Budget,
    shared: Prepared,
    parameters: Record<string, unknown>,
  ): Promise<{ kind: 'data'; data: Record<string, unknown> } | { kind: 'answer'; answer: Answer }> {
    const api = route.api;
    try {
      const definition = await this.processOf(route);
      const data = await runCallProcess(definition, {
        ctx,
        state,
        budget,
        render: shared.render,
        parameters: { ...parameters },
        dataDocumentBytes: this.limits.dataDocumentBytes,
        templates: (route.processTemplates ??= new Map()),
      });
      return { kind: 'data', data };
    } catch (e) {
      if (!(e instanceof TemplateError) && !(e instanceof StepFailure)) throw e;
      const busy = e instanceof TemplateError ? busyAnswer(e) : undefined;
      return { kind: 'answer', answer: busy ?? (await this.failed(exchange, api, e, true)) };
    }
  }

  /** The stored definition a route names, read once for the route (a missing one is read again at the next call). */
  private processOf(route: Route): Promise<ProcessDefinition> {
    const name = route.api.process!;
    route.process ??= this.platform.processes.definitions.find(route.api.accountId, name).then((stored) => {
      if (stored) return stored.definition;
      route.process = undefined;
      throw new StepFailure(`no process definition is named ${JSON.stringify(name)}`);
    });
    return route.process;
  }

  /** A script's error: 429 when the script sandboxes are busy (busyAnswer), else `failed`; anything else is thrown on. */
  private scriptFailed(exchange: Exchange, api: CompositeApi, e: unknown): Answer | Promise<Answer> {
    if (!(e instanceof TemplateError)) throw e;
    return busyAnswer(e) ?? this.failed(exchange, api, e);
  }

  /**
   * A context for calls of a route by a user (or anonymous): built by contextFor (account settings,
   * P_user, P_version …) and kept `contextCacheMs`; each call gets a copy with its own response,
   * P_locks, P_message and lock owner.
   */
  private cachedContext(key: string, now: number): Prepared | undefined {
    const cached = this.contexts.get(key);
    if (cached?.value && now - cached.readAt < (this.options.contextCacheMs ?? 1000)) return cached.value;
    return undefined;
  }

  private async loadContext(
    key: string,
    accountId: string,
    userId: number | null,
    api: CompositeApi,
  ): Promise<Prepared> {
    const pending = this.contexts.get(key);
    if (pending && !pending.value && Date.now() - pending.readAt < (this.options.contextCacheMs ?? 1000))
      return pending.ready;
    const { clock, random, randomBytes } = this.options;
    const ready = contextFor({
      platform: this.platform,
      account: accountId,
      user: userId,
      mode: api.mode,
      surface: 'composite-api',
      ...(api.projectId !== null ? { project: api.projectId } : {}),
      designed: true,
      limits: this.limits,
      ...(clock ? { clock } : {}),
      ...(random ? { random } : {}),
      ...(randomBytes ? { randomBytes } : {}),
    }).then(prepared);
    if (this.contexts.size > 10_000) this.contexts.clear();
    const entry: CachedContext = { readAt: Date.now(), ready };
    this.contexts.set(key, entry);
    try {
      entry.value = await ready;
      return entry.value;
    } catch (e) {
      if (this.contexts.get(key) === entry) this.contexts.delete(key);
      throw e;
    }
  }

  /** The account's routes, while fresh: read again after `routeCacheMs` or a change through this platform. */
  private cachedRoutes(accountId: string, now: number): RouteTable | undefined {
    const cached = this.tables.get(accountId);
    if (
      cached &&
      cached.changes === this.platform.compositeApis.changes &&
      now - cached.readAt < (this.options.routeCacheMs ?? 1000)
    )
      return cached;
    return undefined;
  }

  private async loadRoutes(accountId: string): Promise<RouteTable> {
    const changes = this.platform.compositeApis.changes;
    const readAt = Date.now();
    const routes = (await this.platform.compositeApis.list(accountId)).map((api) =>
      compileRoute(accountId, api),
    );
    if (this.tables.size > 10_000) this.tables.clear();
    const table: RouteTable = { readAt, changes, routes, matched: new Map(), matchedCount: 0 };
    this.tables.set(accountId, table);
    return table;
  }

  /** The route for a method and path: the match made before while the table lasts, else `match`. */
  private matched(table: RouteTable, method: string, path: string): Matched | { answer: Answer } {
    let byPath = table.matched.get(method);
    const known = byPath?.get(path);
    if (known) return known;
    const found = this.match(table.routes, method, path);
    if ('answer' in found) return found;
    if (table.matchedCount >= MATCHES_KEPT) {
      table.matched.clear();
      table.matchedCount = 0;
      byPath = undefined;
    }
    if (!byPath) table.matched.set(method, (byPath = new Map()));
    const matched: Matched = { ...found, hasParams: Object.keys(found.params).length > 0 };
    byPath.set(path, matched);
    table.matchedCount++;
    return matched;
  }

  private match(
    routes: Route[],
    method: string,
    path: string,
  ): { route: Route; params: Record<string, string> } | { answer: Answer } {
    const segments = path === '' ? [] : path.split('/');
    let best: { route: Route; params: Record<string, string>; exact: boolean } | undefined;
    const allowed = new Set<string>();
    for (const route of routes) {
      const params = matchSegments(route, segments);
      if (!params) continue;
      const m = route.api.method;
      for (const each of m === 'ANY' ? ALLOWABLE : [m]) allowed.add(each);
      const fits = m === 'ANY' || m === method || (method === 'HEAD' && m === 'GET');
      if (!fits) continue;
      const exact = m !== 'ANY';
      if (
        !best ||
        route.literals > best.route.literals ||
        (route.literals === best.route.literals && exact && !best.exact)
      )
        best = { route, params, exact };
    }
    if (best) return { route: best.route, params: best.params };
    if (allowed.size === 0)
      return { answer: errorAnswer(404, 'not-found', `No composite API answers ${method} /${path}.`) };
    const answer = errorAnswer(
      405,
      'method-not-allowed',
      `The composite API /${path} does not answer ${method}.`,
    );
    answer.headers.allow = ALLOWABLE.filter((m) => allowed.has(m)).join(', ');
    return { answer };
  }

  /**
   * A script that failed: 500 `script-error`; the details (message, line, column) go to callers
   * who may see them — administrators, and everyone outside LIVE — and always to the account's log.
   */
  private async failed(
    exchange: Exchange,
    api: CompositeApi,
    e: TemplateError | StepFailure,
    inProcess = false,
  ): Promise<Answer> {
    const error = stepError(e);
    // A failure of the route's process names its step's template (`step 1 (Price) script, line …`).
    const where = inProcess
      ? `, process ${JSON.stringify(api.process)}: ${error.template === undefined ? '' : `${error.template}, `}`
      : ', ';
    const at = error.template === undefined ? '' : `line ${error.line}, column ${error.column}: `;
    await this.platform.logs.write(exchange.accountId, {
      requestId: null,
      projectId: api.projectId,
      userId: exchange.caller?.user.id ?? null,
      mode: api.mode,
      level: 'SEVERE',
      message: `composite API ${api.method} /${api.path}${where}${at}${loggedMessage(e, error)}`,
    });
    if (api.mode !== 'LIVE' || exchange.caller?.user.isAdmin) {
      const message = inProcess
        ? `process ${JSON.stringify(api.process)}: ${failureMessage(error)}`
        : error.message;
      if (error.template === undefined) return errorAnswer(500, 'script-error', message);
      return errorAnswer(500, 'script-error', message, { line: error.line, column: error.column });
    }
    return errorAnswer(500, 'script-error', "The composite API's script failed (see the account's log).");
  }
}

/** What the calls of a context share (see Prepared); its state is built by contextFor already. */
function prepared(ctx: ExecutionContext): Prepared {
  const state = builtEvaluationState(ctx);
  if (!state) throw new Error('composite API: the context has no evaluation state');
  const render = prepareRender({
    locale: ctx.locale,
    timeZone: ctx.timeZone,
    now: ctx.clock,
    settings: PLATFORM_SETTINGS,
  });
  return { ctx, state, render };
}

/**
 * markRequestInput, skipped for what it would leave unmarked anyway: the usual headers or query, a
 * flat object of strings none of whose keys starts with `$`.
 */
function requestInput<T>(value: T): T {
  if (isRecord(value)) {
    const fields = value;
    let flat = true;
    for (const key in fields)
      if (key.charCodeAt(0) === 0x24 || typeof fields[key] !== 'string') {
        flat = false;
        break;
      }
    if (flat) return value;
  }
  return markRequestInput(value);
}

/** Whether the output is a JSON object or array by the typing rule (a cheap look at its first character first). */
function isJsonContainer(output: string): boolean {
  let i = 0;
  let c = output.charCodeAt(0);
  while (c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a) c = output.charCodeAt(++i);
  return (c === 0x7b || c === 0x5b) && typeof typedValue(output) === 'object';
}

function compileRoute(accountId: string, api: CompositeApi): Route {
  const segments = api.path
    .split('/')
    .map((s) => (s.startsWith(':') ? { param: s.slice(1) } : { literal: s }));
  return {
    api,
    contextPrefix: `${accountId}|${api.mode}|${api.projectId ?? ''}|`,
    segments,
    literals: segments.filter((s) => 'literal' in s).length,
  };
}

function matchSegments(route: Route, segments: string[]): Record<string, string> | undefined {
  if (route.segments.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const pattern = route.segments[i]!;
    if ('literal' in pattern) {
      if (pattern.literal !== segments[i]) return undefined;
    } else params[pattern.param] = segments[i]!;
  }
  return params;
}

/**
 * The response: set_status's code (default 200) and reason phrase, P_custom_header's headers, the
 * output as body — `application/json` when it is a JSON object or array (typing rule), else
 * `text/plain`, unless the script set Content-Type. An empty output after set_status with a
 * description sends `{"status", "name", "description"}` as JSON.
 */
function answerOf(method: string, output: string, response: CompositeResponse): Answer {
  const status = response.status ?? 200;
  // The call's own response: its headers become the answer's (nothing else holds them).
  const headers = response.headers;
  let hasType = false;
  for (const h in headers)
    if (h.length === 12 && h.toLowerCase() === 'content-type') {
      hasType = true;
      break;
    }
  let body: Answer['body'] = output;
  if (response.description !== undefined && output.trim() === '') {
    body = { status, name: response.statusName ?? '', description: response.description };
  } else if (!hasType) {
    headers['content-type'] = isJsonContainer(output)
      ? 'application/json; charset=utf-8'
      : 'text/plain; charset=utf-8';
  }
  if (method === 'HEAD' || status === 204 || status === 304) body = null;
  return { status, headers, body, ...(response.statusName ? { statusMessage: response.statusName } : {}) };
}
