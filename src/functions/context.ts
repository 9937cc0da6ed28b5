import { randomBytes } from 'node:crypto';
import type { Platform } from '../platform/index.js';
import { Budget, type EvaluationLimits } from '../limits/index.js';

export type Mode = 'LIVE' | 'ACCEPTANCE' | 'TEST';
export type Surface = 'process-task' | 'manual-task-input' | 'web-interface' | 'composite-api' | 'eval';

export const MODES: readonly Mode[] = ['LIVE', 'ACCEPTANCE', 'TEST'];

export interface ExecutionUser {
  id: number;
  login: string;
  isAdmin: boolean;
}

export interface CompositeResponse {
  status?: number;
  statusName?: string;
  description?: string;
  headers: Record<string, string>;
}

export interface ExecutionLimits {
  /** Maximum size of a request's data document, in bytes (inject_objects, script steps). */
  dataDocumentBytes: number;
  /** The deployment's limits of one evaluation (FLOWMARK_EVAL_*): each evaluation's budget starts from them. */
  evaluation?: Partial<EvaluationLimits>;
}

/** Everything one evaluation of a script carries: who, where, in which mode, and with which services. */
export interface ExecutionContext {
  accountId: string;
  /** Current user (after impersonation); null when nobody is connected. */
  user: ExecutionUser | null;
  mode: Mode;
  surface: Surface;
  projectId?: number;
  /**
   * The project whose stored script this is (a process step or task, a composite API, a web
   * interface; docs/platform.md "Rights"): the script acts with that project's design authority
   * for the functions whose rule is the design right or depends on it, whoever runs it. Unset for
   * ad-hoc evaluation (the eval endpoint, the playground, `flowmark render`).
   */
  designedIn?: number;
  requestId?: string;
  /**
   * Times a function of this context wrote the current request's data document (inject_params,
   * inject_objects …): the process host, which holds the document through a step, reads it again
   * when this changed.
   */
  requestDataWrites?: number;
  /**
   * The lane the current step runs in (process tasks, manual tasks): the default lane of the
   * R_read_file_* / R_update_file_* lane functions. Set by the host that runs the step.
   */
  laneId?: number;
  /**
   * The application (web-interface) instance being computed: set while computing the input
   * variables of a manual task (attach_file) or rendering a web interface (get_history).
   */
  applicationInstanceId?: string;
  /** Account settings; default en_US / UTC. */
  locale: string;
  timeZone: string;
  /** Epoch milliseconds (injectable for tests). */
  clock: () => number;
  /** Uniform in [0, 1) (injectable for tests): get_random, get_random_gaussian. */
  random: () => number;
  /**
   * Cryptographically strong bytes (injectable for tests): cipher's IV, uuid. Optional so a
   * context written against the contract stays valid; `node:crypto` randomBytes when absent.
   */
  randomBytes?: (size: number) => Uint8Array;
  platform: Platform;
  /** Composite APIs: what set_status and P_custom_header shape. */
  response?: CompositeResponse;
  limits: ExecutionLimits;
  /**
   * The evaluation's budget (steps, wall time, bytes allocated, output): created by the host for
   * each evaluation and handed to the template render, the query engine and the script backends.
   * Absent in contexts built by hand; `budgetOf` then gives the context a default one.
   */
  budget?: Budget;
  /**
   * The texts starting with `$` in the request's input (template/provenance.ts requestStrings):
   * a collection query never reads one of them as a field path or variable.
   */
  requestStrings?: ReadonlySet<string>;
  /**
   * The language the page asked for (a web interface opened with `?P_language=fr`): i18n and
   * get_i18n translate into it by default, before the connected user's language.
   */
  language?: string;
}

/** The context's budget, a default one made on first use when the host gave none. */
export function budgetOf(ctx: ExecutionContext): Budget {
  return (ctx.budget ??= new Budget(ctx.limits?.evaluation));
}

/** A fresh budget for an evaluation that starts now (a host's render), put on the context. */
export function startEvaluation(ctx: ExecutionContext): Budget {
  return (ctx.budget = new Budget(ctx.limits?.evaluation));
}

export const DEFAULT_LIMITS: ExecutionLimits = { dataDocumentBytes: 5 * 1024 * 1024 };

/**
 * A context with the platform's defaults (account "default", mode TEST, surface eval, en_US, UTC,
 * real clock and randomness) and the given fields on top.
 */
export function createExecutionContext(fields: Partial<ExecutionContext> = {}): ExecutionContext {
  return {
    accountId: 'default',
    user: null,
    mode: 'TEST',
    surface: 'eval',
    locale: 'en_US',
    timeZone: 'UTC',
    clock: Date.now,
    random: Math.random,
    randomBytes: (size) => randomBytes(size),
    platform: {} as Platform,
    ...fields,
    limits: { ...DEFAULT_LIMITS, ...fields.limits },
  };
}

/** The context's strong random bytes, falling back to node:crypto. */
export function strongRandomBytes(ctx: ExecutionContext, size: number): Uint8Array {
  return ctx.randomBytes ? ctx.randomBytes(size) : randomBytes(size);
}
