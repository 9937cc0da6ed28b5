/**
 * What the HTTP thread holds in place of the hosts and the collection service: objects of the
 * same shape whose every call is a task of the evaluation pool (docs/server.md "Isolation"). The
 * routes do not change; only the thread that computes does.
 */
import type { Budget } from '../limits/index.js';
import type { CollectionService } from '../platform/collections/index.js';
import { RelayedError } from '../server/errors.js';
import type { ServerHosts } from '../server/hosts.js';
import type { SweepWork } from '../hosts/processes/sweeper.js';
import type { LeaseKeeper } from '../platform/processes/index.js';
import { EvaluationStopped, type EvaluationPool } from './pool.js';
import {
  asBuffer,
  BUDGET_ARGUMENT,
  PROGRESS_ARGUMENT,
  type EvaluationReply,
  type HostMethod,
  type Progress,
} from './protocol.js';
import { propertyOf } from '../safety/narrow.js';

/** The account of a task that names none (a collection call without an actor). */
export const SYSTEM_ACCOUNT = '';

/** A host method run by the pool under `account`: its value, or the error the API answers. */
function hostCall(pool: EvaluationPool) {
  return (account: string, method: HostMethod, args: unknown[]): Promise<unknown> =>
    pool.run(account, { kind: 'host', method, args }).then(unwrap, relayed);
}

/** A host's answer to an HTTP exchange: its body a Buffer again when it was one. */
function answered(reply: EvaluationReply): never {
  const a = unwrap(reply) as { body: unknown };
  a.body = asBuffer(a.body);
  return a as never;
}

/** The hosts, each call run by the pool under the caller's account. */
export function remoteHosts(pool: EvaluationPool): Required<Omit<ServerHosts, 'background'>> {
  const call = hostCall(pool);
  /**
   * A start answers once its request waits or ends, or once its caller has waited a wall time:
   * then with the request still running (101), which goes on in its thread. A start whose thread
   * was stopped after the request was stored answers that request too: it is durable, and the
   * sweeper resumes it once its lease lapses.
   */
  const starting =
    (method: 'startRequest' | 'sendMessage') => async (input: { caller: { accountId: string } }) => {
      const answerBy = Date.now() + pool.settings.wallTimeMs;
      let created: string | undefined;
      let answerRunning: ((requestId: string) => void) | undefined;
      let timer: NodeJS.Timeout | undefined;
      const running = new Promise<EvaluationReply>((resolve) => {
        answerRunning = (requestId) => resolve({ ok: true, value: { requestId } });
      });
      const reply = pool.run(input.caller.accountId, { kind: 'host', method, args: [input] }, (p) => {
        if (typeof p.requestId !== 'string' || created !== undefined) return;
        created = p.requestId;
        const requestId = p.requestId;
        timer = setTimeout(() => answerRunning?.(requestId), Math.max(0, answerBy - Date.now()));
        timer.unref();
      });
      const finished = reply.catch((e: unknown) => {
        if (e instanceof EvaluationStopped && created !== undefined)
          return { ok: true as const, value: { requestId: created } };
        throw e;
      });
      try {
        return unwrap(await relay(Promise.race([finished, running]))) as never;
      } finally {
        clearTimeout(timer);
        // a start answered while running goes on: what it ends with is the request's to store
        finished.catch(() => undefined);
      }
    };
  // one promise per call from the pool's on: this is the hot path of the composite APIs
  const answer = (account: string, method: HostMethod, args: unknown[]): Promise<never> =>
    pool.run(account, { kind: 'host', method, args }).then(answered, relayed);
  return {
    evaluate: (input) => call(input.caller.accountId, 'evaluate', [input]) as never,
    composite: (exchange) => answer(exchange.accountId, 'composite', [exchange]),
    webInterface: (exchange) => answer(exchange.accountId, 'webInterface', [exchange]),
    task: (exchange) => answer(exchange.accountId, 'task', [exchange]),
    startRequest: starting('startRequest') as RemoteHosts['startRequest'],
    sendMessage: starting('sendMessage') as RemoteHosts['sendMessage'],
    describeRequest: (caller, id) => call(caller.accountId, 'describeRequest', [caller, id]) as never,
    resumeRequest: (caller, id) => call(caller.accountId, 'resumeRequest', [caller, id]) as never,
    cancelRequest: (caller, id) => call(caller.accountId, 'cancelRequest', [caller, id]) as never,
  };
}

type RemoteHosts = Required<Omit<ServerHosts, 'background'>>;

/**
 * The sweeper's work on the runs and timers it claimed (hosts/processes/sweeper.ts), run by the
 * pool under the run's account: the claim is bookkeeping, resuming a run evaluates its steps.
 * `leases` renews a claimed run's lease from its claim on, while the task waits for a thread and
 * starts (else a slow start would let it lapse, and another claim count a recovery that was not).
 */
export function remoteSweeps(pool: EvaluationPool, leases: LeaseKeeper): SweepWork {
  const call = hostCall(pool);
  return {
    recover: async (run) => {
      leases.hold(run.requestId);
      try {
        await call(run.accountId, 'recoverRun', [run]);
      } finally {
        leases.release(run.requestId);
      }
    },
    fireTimer: async (timer) => (await call(timer.accountId, 'fireTimer', [timer])) as boolean,
    fireSchedule: async (trigger) => (await call(trigger.accountId, 'fireSchedule', [trigger])) as boolean,
    fireCollectionEvent: async (event) =>
      (await call(event.accountId, 'fireCollectionEvent', [event])) === true,
    driving: () => leases.driving(),
  };
}

/**
 * The methods of the collection service that evaluate what the caller sent: queries, update
 * operators, pipelines, documents to check and store. The others (the catalog, indexes) read and
 * write rows the way any REST route does and stay on the HTTP thread, so a request is one task.
 */
const EVALUATING: ReadonlySet<string> = new Set([
  'find',
  'findOne',
  'count',
  'aggregate',
  'explain',
  'save',
  'update',
  'remove',
  'importFile',
]);

/**
 * The collection service whose evaluating calls run in the pool: an options argument's budget
 * stays here, the worker charges one of the same limits, and what it charged is added to this
 * one. The import (whose source is a stream of the uploaded file) runs on `local`, as the catalog.
 */
export function remoteCollections(pool: EvaluationPool, local: CollectionService): CollectionService {
  const methods = new Map<string, (...args: unknown[]) => Promise<unknown>>();
  return new Proxy(local, {
    get(target, name, receiver) {
      if (typeof name !== 'string' || !EVALUATING.has(name))
        return Reflect.get(target, name, receiver) as unknown;
      const own: unknown = Reflect.get(target, name, receiver);
      if (typeof own !== 'function') return own;
      let method = methods.get(name);
      if (!method) {
        method = async (...args: unknown[]) => {
          const budgets: Budget[] = [];
          let onProgress: ((p: Progress) => void) | undefined;
          const sent = args.map((a) => {
            if (!a || typeof a !== 'object' || Array.isArray(a) || ArrayBuffer.isView(a)) return a;
            const { budget, onProgress: progress } = a as {
              budget?: Budget;
              onProgress?: (p: Progress) => void;
            };
            if (typeof progress === 'function') {
              onProgress = progress;
              a = { ...(a as object), onProgress: PROGRESS_ARGUMENT };
            }
            if (!budget || typeof budget !== 'object') return a;
            budgets.push(budget);
            return { ...(a as object), budget: BUDGET_ARGUMENT };
          });
          const accountId = propertyOf(args[0], 'accountId');
          const account = typeof accountId === 'string' ? accountId : SYSTEM_ACCOUNT;
          const reply = await relay(
            pool.run(account, { kind: 'collections', method: name, args: sent }, onProgress),
          );
          const value = unwrap(reply);
          if (reply.ok && reply.allocated) for (const b of budgets) b.allocated += reply.allocated;
          return value;
        };
        methods.set(name, method);
      }
      return method;
    },
  });
}

/** The pool's refusal or stop as the error the API answers. */
async function relay(reply: Promise<EvaluationReply>): Promise<EvaluationReply> {
  return reply.catch(relayed);
}

function relayed(e: unknown): never {
  if (!(e instanceof EvaluationStopped)) throw e;
  const internal = e.status >= 500 && e.code === 'internal';
  throw new RelayedError(
    {
      body: {
        status: e.status,
        code: e.code,
        message: internal ? 'Internal server error.' : e.message,
      },
      internal,
      ...(e.retryAfter !== undefined ? { retryAfter: e.retryAfter } : {}),
    },
    internal ? e.message : undefined,
  );
}

function unwrap(reply: EvaluationReply): unknown {
  if (reply.ok) return reply.value;
  throw new RelayedError(reply.error, reply.error.detail);
}
