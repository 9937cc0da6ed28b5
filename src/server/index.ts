/** The HTTP server (Fastify): see app.ts for the layout and docs/server.md for the API. */
export { API_PREFIX, createServer, SESSION_COOKIE, type ServerOptions } from './app.js';
export type { Api, ServerDeps } from './deps.js';
export { ApiError, type ErrorBody } from './errors.js';
export type {
  Caller,
  EvalError,
  EvalInput,
  EvalOutput,
  HostResponse,
  HttpExchange,
  LogLine,
  RequestRun,
  ServerHosts,
  StartRequestInput,
  TaskAddress,
} from './hosts.js';
export { ApiTokens, type ApiToken } from './auth/tokens.js';
export { Sessions } from './auth/sessions.js';
