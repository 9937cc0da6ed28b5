/**
 * The evaluation hosts behind the HTTP server (docs/hosts.md): composite APIs, web interfaces,
 * manual tasks and process requests. `createHosts(platform)` gives the object `flowmark serve`
 * hands to the server (src/server/hosts.ts: ServerHosts; the shapes match structurally).
 *
 *   const hosts = { ...evalHost(platform), ...createHosts(platform) };
 *   const app = await createServer({ store, platform, hosts });
 */
import type { Mode } from '../functions/context.js';
import { PlatformError, type Platform, type ProcessRequest } from '../platform/index.js';
import type { TaskRef } from '../platform/processes/index.js';
import { CompositeHost, type CompositeHostOptions } from './composite.js';
import { errorAnswer, queryValue, type Answer, type Exchange, type HostCaller } from './http.js';
import { ProcessHost, type ProcessHostOptions, type RequestView } from './processes/host.js';
import { WebInterfaceHost } from './web-interface.js';

export { CompositeHost } from './composite.js';
export { WebInterfaceHost } from './web-interface.js';
export { ProcessHost, type RequestView, type StartInput, type TaskView } from './processes/host.js';
export type { ProcessEvent } from './processes/runner.js';
export { typedValue } from './typing.js';
export type { Answer, Exchange, HostCaller } from './http.js';

export type HostsOptions = CompositeHostOptions & ProcessHostOptions;

/** A request as the API shows it: without its account. */
export type RequestBody = Omit<RequestView, 'request'> & { request: Omit<ProcessRequest, 'accountId'> };

export interface ProcessesSeam {
  /** Starts a stored process (any user) or an inline definition (administrators) as the caller. */
  start(input: {
    caller: HostCaller;
    process?: number | string;
    definition?: unknown;
    data?: Record<string, unknown>;
    mode?: Mode;
  }): Promise<RequestBody>;
  /** A request with its steps and tasks (its initiator and administrators). */
  describe(caller: HostCaller, requestId: string): Promise<RequestBody>;
  /** Resumes a request paused by P_set_request_status(102) (its initiator and administrators). */
  resume(caller: HostCaller, requestId: string): Promise<RequestBody>;
  /** Cancels a running or waiting request: status 400 (its initiator and administrators). */
  cancel(caller: HostCaller, requestId: string): Promise<RequestBody>;
}

export interface Hosts {
  composite(exchange: Exchange): Promise<Answer>;
  webInterface(exchange: Exchange & { webInterfaceId: number }): Promise<Answer>;
  /** GET (the task's form data) and POST (a submission) of `/live/<account>/task/<request>/<step>/<iteration>`. */
  task(exchange: Exchange & TaskRef): Promise<Answer>;
  processes: ProcessesSeam;
}

export function createHosts(platform: Platform, options: HostsOptions = {}): Hosts {
  const processes = new ProcessHost(platform, options);
  const composite = new CompositeHost(platform, options);
  const webInterfaces = new WebInterfaceHost(platform, options);

  /** The request, if the caller may see it (its initiator, administrators); otherwise not found. */
  const visible = async (caller: HostCaller, requestId: string) => {
    const request = await platform.requests.find(caller.accountId, requestId);
    if (!request || (!caller.user.isAdmin && request.initiatorId !== caller.user.id))
      throw new PlatformError('not-found', 'Request not found.');
    return request;
  };

  return {
    composite: (exchange) => composite.handle(exchange),
    webInterface: (exchange) => webInterfaces.render(exchange),
    task: (exchange) => taskExchange(processes, exchange),
    processes: {
      async start({ caller, process, definition, data, mode }) {
        if (definition !== undefined && !caller.user.isAdmin)
          throw new PlatformError(
            'not-allowed',
            'Only an administrator may start an inline process definition.',
          );
        const view = await processes.start(caller.accountId, {
          ...(process !== undefined ? { process } : {}),
          ...(definition !== undefined ? { definition } : {}),
          data: data ?? {},
          user: caller.user.id,
          mode: mode ?? 'TEST',
        });
        return toBody(view);
      },
      async describe(caller, requestId) {
        await visible(caller, requestId);
        return toBody(await processes.view(caller.accountId, requestId));
      },
      async resume(caller, requestId) {
        await visible(caller, requestId);
        return toBody(await processes.resume(caller.accountId, requestId));
      },
      async cancel(caller, requestId) {
        await visible(caller, requestId);
        return toBody(await processes.stop(caller.accountId, requestId, 400));
      },
    },
  };
}

function toBody(view: RequestView): RequestBody {
  const { accountId: _account, ...request } = view.request;
  return { ...view, request };
}

/** GET: the task as its form shows it; POST: a submission (JSON object or form fields). */
async function taskExchange(processes: ProcessHost, exchange: Exchange & TaskRef): Promise<Answer> {
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
  const ref: TaskRef = {
    requestId: exchange.requestId,
    stepId: exchange.stepId,
    iteration: exchange.iteration,
  };
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
  if (Buffer.isBuffer(fields) || typeof fields !== 'object' || fields === null || Array.isArray(fields))
    return errorAnswer(400, 'invalid', 'A submission is a JSON object or form fields.');
  const view = await processes.submitTask(exchange.accountId, ref, {
    fields: fields as Record<string, unknown>,
    ...access,
  });
  return { status: 200, headers: {}, body: { ...toBody(view) } };
}
