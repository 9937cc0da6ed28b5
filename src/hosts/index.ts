/**
 * The evaluation hosts behind the HTTP server (docs/hosts.md): composite APIs, web interfaces,
 * manual tasks and process requests. `createHosts(platform)` gives the object `flowmark serve`
 * hands to the server (src/server/hosts.ts: ServerHosts; the shapes match structurally).
 *
 *   const hosts = { ...evalHost(platform), ...createHosts(platform) };
 *   const app = await createServer({ store, platform, hosts });
 */
import type { Mode } from '../functions/context.js';
import {
  canReadRequest,
  PLATFORM_ERROR_STATUS,
  PlatformError,
  type Platform,
  type ProcessRequest,
} from '../platform/index.js';
import type { TaskRef } from '../platform/processes/index.js';
import { CompositeHost, type CompositeHostOptions } from './composite.js';
import { errorAnswer, queryValue, type Answer, type Exchange, type HostCaller } from './http.js';
import {
  ProcessHost,
  type ProcessHostOptions,
  type RequestView,
  type StartedView,
  type TaskView,
} from './processes/host.js';
import { ProcessSweeper, type SweeperOptions } from './processes/sweeper.js';
import { messageProcess } from './processes/triggers.js';
import { taskErrorPage, taskLoginPage, taskPage, wantsHtml } from './task-page.js';
import { WebInterfaceHost } from './web-interface.js';
import { isRecord, propertyOf } from '../safety/narrow.js';

export { CompositeHost } from './composite.js';
export { WebInterfaceHost } from './web-interface.js';
export { ProcessHost, type RequestView, type StartInput, type TaskView } from './processes/host.js';
export type { ProcessEvent } from './processes/runner.js';
export { ProcessSweeper, type SweeperOptions } from './processes/sweeper.js';
export { nextTimerEvent, type PendingTimerEvent } from './processes/timer-events.js';
export { typedValue } from './typing.js';
export type { Answer, Exchange, HostCaller } from './http.js';

export type HostsOptions = CompositeHostOptions &
  ProcessHostOptions & {
    /** The sweeper's settings (resuming runs other servers lost, firing timers). */
    sweeper?: SweeperOptions;
  };

/** A request as the API shows it: without its account. */
export type RequestBody = Omit<RequestView, 'request'> & { request: Omit<ProcessRequest, 'accountId'> };
/**
 * What a start answers: the request's id and, once it waited or ended in time, the request as
 * read then (a start answered while its request still runs has only the id).
 */
export interface StartedRequest {
  requestId: string;
  request?: RequestBody['request'];
  replayed?: boolean;
}

/** Where a manual task is: the URL `task/<requestId>/<stepId>/<iteration>`. */
export type TaskAddress = TaskRef;

/**
 * The hosts as the server's seam names them (src/server/hosts.ts: ServerHosts, matched
 * structurally): composite APIs, web interfaces, manual tasks, and process requests.
 */
export interface Hosts {
  /** At once when nothing waits (a trivial script, routes and context cached), else a promise. */
  composite(exchange: Exchange): Answer | Promise<Answer>;
  webInterface(exchange: Exchange & { webInterfaceId: number }): Promise<Answer>;
  /** GET (the task's form data) and POST (a submission) of `/live/<account>/task/<request>/<step>/<iteration>`. */
  task(exchange: Exchange & { task: TaskAddress }): Promise<Answer>;
  /** POST /api/v1/requests: starts a stored process as the caller (its initiator), in a mode, with data. */
  startRequest(input: {
    caller: HostCaller;
    process: number | string;
    mode: Mode;
    data: Record<string, unknown>;
    /** The client's Idempotency-Key: a retry gets the request the first start created (`replayed`). */
    idempotencyKey?: string;
    /** Told the request's id once it is stored, before its steps run. */
    onCreated?: (requestId: string) => void;
  }): Promise<StartedRequest>;
  /** POST /api/v1/messages/:name: starts the process whose message start event has that name, as startRequest. */
  sendMessage(input: {
    caller: HostCaller;
    message: string;
    mode: Mode;
    data: Record<string, unknown>;
    idempotencyKey?: string;
    onCreated?: (requestId: string) => void;
  }): Promise<StartedRequest>;
  /** A request with its steps and tasks (its initiator and administrators). */
  describeRequest(caller: HostCaller, requestId: string): Promise<RequestBody>;
  /** Resumes a request paused by P_set_request_status(102) (its initiator and administrators). */
  resumeRequest(caller: HostCaller, requestId: string): Promise<RequestBody>;
  /** Cancels a running or waiting request: status 400 (its initiator and administrators). */
  cancelRequest(caller: HostCaller, requestId: string): Promise<RequestBody>;
  /** What runs while the server serves: the process sweeper (started when it is ready, stopped on close). */
  background: ProcessSweeper;
}

export function createHosts(platform: Platform, options: HostsOptions = {}): Hosts {
  const processes = new ProcessHost(platform, options);
  const composite = new CompositeHost(platform, options);
  const webInterfaces = new WebInterfaceHost(platform, options);

  /** The request, if the caller may see it (its initiator, administrators); otherwise not found. */
  const visible = async (caller: HostCaller, requestId: string) => {
    const request = await platform.requests.find(caller.accountId, requestId);
    if (!request || !canReadRequest(caller.user, request))
      throw new PlatformError('not-found', 'Request not found.');
    return request;
  };

  /** Starts a stored process as the caller (startRequest, and sendMessage once its process is known). */
  const start = async (
    { caller, mode, data, idempotencyKey, onCreated }: Omit<Parameters<Hosts['startRequest']>[0], 'process'>,
    process: number | string,
  ): Promise<StartedRequest> => {
    const view = await processes.started(caller.accountId, {
      process,
      data,
      user: caller.user.id,
      mode,
      ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
      ...(onCreated ? { onCreated } : {}),
    });
    return started(view);
  };

  return {
    background: new ProcessSweeper(processes.runner, options.sweeper),
    composite: (exchange) => composite.handle(exchange),
    webInterface: (exchange) => webInterfaces.render(exchange),
    task: (exchange) => taskExchange(processes, exchange),
    startRequest: (input) => start(input, input.process),
    sendMessage: async (input) =>
      start(input, await messageProcess(platform, input.caller.accountId, input.message)),
    async describeRequest(caller, requestId) {
      await visible(caller, requestId);
      return toBody(await processes.view(caller.accountId, requestId));
    },
    async resumeRequest(caller, requestId) {
      await visible(caller, requestId);
      return toBody(await processes.resume(caller.accountId, requestId));
    },
    async cancelRequest(caller, requestId) {
      await visible(caller, requestId);
      return toBody(await processes.stop(caller.accountId, requestId, 400));
    },
  };
}

/** A start's answer: the request as its last step left it, and whether it was replayed. */
function started(view: StartedView): StartedRequest {
  const { accountId: _account, ...request } = view.request;
  return { requestId: request.id, request, ...(view.replayed ? { replayed: true } : {}) };
}

function toBody(view: RequestView): RequestBody {
  const { accountId: _account, ...request } = view.request;
  return { ...view, request };
}

/**
 * GET: the task as its form shows it; POST: a submission (JSON object or form fields). A browser
 * (`Accept: text/html`) gets the task as an HTML page (src/hosts/task-page.ts), errors as pages
 * with the same status, and a form submission is answered with a redirect (303) to the task's
 * page, which then confirms it.
 */
async function taskExchange(
  processes: ProcessHost,
  exchange: Exchange & { task: TaskAddress },
): Promise<Answer> {
  if (!wantsHtml(exchange.headers)) return taskJson(processes, exchange);
  try {
    const answer = await taskJson(processes, exchange);
    if (answer.status >= 400) {
      const message = String(propertyOf(answer.body, 'message') ?? 'The task failed.');
      if (answer.status === 401 && exchange.method.toUpperCase() !== 'POST') {
        const back = `/live/${encodeURIComponent(exchange.accountId)}/${exchange.path}${queryText(exchange.query)}`;
        return withHeaders(taskLoginPage(message, exchange.accountId, back), answer);
      }
      return withHeaders(taskErrorPage(answer.status, message), answer);
    }
    const method = exchange.method.toUpperCase();
    if (method === 'POST') {
      const query = new URLSearchParams();
      const token = queryValue(exchange.query, 'token');
      if (token !== undefined) query.set('token', token);
      const context = queryValue(exchange.query, 'P_context');
      if (context !== undefined) query.set('P_context', context);
      query.set('submitted', '1');
      const location = `/live/${encodeURIComponent(exchange.accountId)}/${exchange.path}?${query.toString()}`;
      return { status: 303, headers: { location }, body: null };
    }
    const page = taskPage(answer.body as unknown as TaskView, {
      submitted: queryValue(exchange.query, 'submitted') === '1',
    });
    if (method === 'HEAD') page.body = null;
    return page;
  } catch (e) {
    if (e instanceof PlatformError) return taskErrorPage(PLATFORM_ERROR_STATUS[e.code], e.message);
    throw e;
  }
}

/** `?a=1&b=2` of a query (its first value of each name), or '' when it has none. */
function queryText(query: Exchange['query']): string {
  const params = new URLSearchParams();
  for (const name of Object.keys(query)) {
    const value = queryValue(query, name);
    if (value !== undefined) params.set(name, value);
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** What a platform error answers (as the server's error handler maps it). */
function withHeaders(page: Answer, from: Answer): Answer {
  return { ...page, headers: { ...from.headers, ...page.headers } };
}

async function taskJson(processes: ProcessHost, exchange: Exchange & { task: TaskAddress }): Promise<Answer> {
  const token = queryValue(exchange.query, 'token');
  const actor = exchange.caller
    ? { id: exchange.caller.user.id, isAdmin: exchange.caller.user.isAdmin }
    : null;
  if (!actor && token === undefined)
    return errorAnswer(
      401,
      'unauthenticated',
      'Authentication required: log in, send an API token, or use the public URL.',
    );
  const { requestId, stepId, iteration } = exchange.task;
  const ref: TaskRef = { requestId, stepId, iteration };
  const access = { actor, ...(token !== undefined ? { token } : {}) };
  const method = exchange.method.toUpperCase();
  if (method === 'GET' || method === 'HEAD') {
    const task = await processes.task(exchange.accountId, ref, access);
    return { status: 200, headers: {}, body: method === 'HEAD' ? null : { ...task } };
  }
  if (method !== 'POST') {
    const answer = errorAnswer(405, 'method-not-allowed', `A task answers GET and POST, not ${method}.`);
    answer.headers.allow = 'GET, POST';
    return answer;
  }
  let fields: unknown = exchange.body ?? {};
  if (typeof fields === 'string') fields = Object.fromEntries(new URLSearchParams(fields));
  if (Buffer.isBuffer(fields) || !isRecord(fields))
    return errorAnswer(400, 'invalid', 'A submission is a JSON object or form fields.');
  const view = await processes.submitTask(exchange.accountId, ref, {
    fields,
    ...access,
  });
  return { status: 200, headers: {}, body: { ...toBody(view) } };
}
