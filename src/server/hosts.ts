/**
 * The seam between the HTTP server and the evaluation hosts (src/hosts). The server owns HTTP:
 * routing, authentication, limits, error bodies; a host owns evaluation: it receives plain data
 * (who calls, in which account, the HTTP exchange) and returns plain data the server sends back.
 * `flowmark serve` passes the implementations from src/hosts; a server without one answers the
 * matching routes with 501.
 */
import type { Mode } from '../functions/context.js';
import type { EvalInput, EvalOutput } from '../hosts/eval-host.js';
import type { Answer, Exchange } from '../hosts/http.js';
import type { StartedRequest } from '../hosts/index.js';

/** Who is calling: a user of the account, authenticated by session or API token. */
export interface Caller {
  accountId: string;
  user: { id: number; login: string; isAdmin: boolean };
  via: 'session' | 'token';
}

// POST /api/v1/eval: the eval host's input and output (src/hosts/eval-host.ts).
export type { EvalError, EvalInput, EvalOutput, LogLine } from '../hosts/eval-host.js';

/** POST /api/v1/requests: start a process request from a stored definition. */
export interface StartRequestInput {
  caller: Caller;
  /** The stored process definition, by id or name. */
  process: number | string;
  mode: Mode;
  /** The initial data document. */
  data: Record<string, unknown>;
  /** The `Idempotency-Key` header: a retry with it gets the request the first call created. */
  idempotencyKey?: string;
}

/** POST /api/v1/messages/:name: start the stored process whose message start event has that name. */
export interface SendMessageInput {
  caller: Caller;
  /** The message's name. */
  message: string;
  mode: Mode;
  /** The message's body: the request's data document. */
  data: Record<string, unknown>;
  /** The `Idempotency-Key` header: a retry with it gets the request the first call created. */
  idempotencyKey?: string;
}

/** A manual task's place in its request (the URL `task/<requestId>/<stepId>/<iteration>`). */
export interface TaskAddress {
  requestId: string;
  stepId: number;
  iteration: number;
}

/**
 * One HTTP exchange handed to a host (composite APIs, web interfaces, manual tasks): the hosts'
 * own shape (src/hosts/http.ts), with the server's caller, which says how it authenticated.
 */
export interface HttpExchange extends Exchange {
  /** The authenticated user of that account, or null (anonymous, or a user of another account). */
  caller: Caller | null;
}

/** What a host answers; the server applies it as it is (a JSON body is sent as JSON). */
export type HostResponse = Answer;

export interface ServerHosts {
  /** POST /api/v1/eval */
  evaluate?(input: EvalInput): Promise<EvalOutput>;
  /** ANY /live/:account/composite/* — a composite API (the answer at once when nothing waits). */
  composite?(exchange: HttpExchange): HostResponse | Promise<HostResponse>;
  /** GET /live/:account/webinterface/:id — a web interface page (P_mode, P_context in the query). */
  webInterface?(exchange: HttpExchange & { webInterfaceId: number }): Promise<HostResponse>;
  /**
   * GET|POST /live/:account/task/:requestId/:stepId/:iteration — open or submit a manual task
   * (the public URL carries `?token=`; the private one needs a caller of the account).
   */
  task?(exchange: HttpExchange & { task: TaskAddress }): Promise<HostResponse>;
  /** POST /api/v1/requests — start a request; the server answers with the stored request. */
  startRequest?(input: StartRequestInput): Promise<StartedRequest>;
  /** POST /api/v1/messages/:name — start the process of a message start event; answered as startRequest. */
  sendMessage?(input: SendMessageInput): Promise<StartedRequest>;
  /** GET /api/v1/requests/:id/run — the request with its steps and tasks (its initiator, administrators). */
  describeRequest?(caller: Caller, requestId: string): Promise<RequestRun>;
  /** POST /api/v1/requests/:id/resume — continue a request paused by P_set_request_status(102). */
  resumeRequest?(caller: Caller, requestId: string): Promise<RequestRun>;
  /** POST /api/v1/requests/:id/cancel — end a running or waiting request (status 400). */
  cancelRequest?(caller: Caller, requestId: string): Promise<RequestRun>;
  /** Work beside the requests (the process sweeper): started once the server is ready, stopped when it closes. */
  background?: { start(): void; stop(): Promise<void> };
}

/** A process request as its host sees it: the stored request, its process, steps and tasks. */
export interface RequestRun {
  request: object;
  process: string;
  steps: object[];
  tasks: object[];
}
