/**
 * What the route modules work with: the platform's services, the server's own stores, the hosts,
 * and the typed Fastify instance they register on.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { EvaluationLimits } from '../limits/index.js';
import type { CollectionService } from '../platform/collections/index.js';
import type { Platform } from '../platform/index.js';
import type { Store } from '../store/index.js';
import type { CallerCache } from './auth/cache.js';
import type { Sessions } from './auth/sessions.js';
import type { LoginThrottle } from './auth/throttle.js';
import type { ApiTokens } from './auth/tokens.js';
import type { ServerHosts } from './hosts.js';

export type Api = FastifyInstance<
  Server,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export interface ServerSettings {
  /** Name of the session cookie. */
  cookieName: string;
  /** Send the session cookie with `Secure` (behind HTTPS). */
  secureCookies: boolean;
  /** Largest uploaded file, in bytes. */
  uploadBytes: number;
  /**
   * Largest body of a route that takes a data document (POST /requests, /messages/{name}, /eval):
   * the data document's maximum plus the body limit of every other route, for the rest of the
   * body and its spacing. The document itself is then checked against its own maximum.
   */
  dataBodyBytes: number;
  /** The account a login without `account` goes to (the one `flowmark serve` created first). */
  defaultAccountId: string | undefined;
  /** The limits of one evaluation, which a REST request that queries is too (FLOWMARK_EVAL_*). */
  evaluationLimits: Partial<EvaluationLimits>;
}

export interface ServerDeps {
  store: Store;
  platform: Platform;
  collections: CollectionService;
  sessions: Sessions;
  tokens: ApiTokens;
  /** Callers of recent credentials; cleared on every change to users, tokens or sessions. */
  callerCache: CallerCache;
  /** Failed logins per account and login, and per client address. */
  throttle: { login: LoginThrottle; address: LoginThrottle };
  hosts: ServerHosts;
  clock: () => number;
  settings: ServerSettings;
}
