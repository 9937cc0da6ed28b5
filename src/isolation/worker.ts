/**
 * An evaluation worker (docs/server.md "Isolation"): a worker thread of the evaluation pool with
 * its own store connection, the whole function library, the hosts and the collection service.
 * It runs the tasks of one account side by side — a host's method or a collection call — and
 * answers plain data or the error as the API would answer it. Every budget started here
 * publishes its deadline to its task's shared slot, which the HTTP thread watches: a task that
 * outruns its deadline is stopped by terminating this thread.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { loadConfig } from '../config/index.js';
import type { ExecutionLimits } from '../functions/context.js';
import { defaultRegistry } from '../functions/registry.js';
import { evalHost } from '../hosts/eval-host.js';
import { createHosts } from '../hosts/index.js';
import { Budget, onEvaluationStart, type EvaluationLimits } from '../limits/index.js';
import { CollectionService } from '../platform/collections/index.js';
import { createPlatform } from '../platform/index.js';
import type {
  LeaseKeeper,
  ProcessRun,
  ProcessTimer,
  ProcessTrigger,
  TriggerEvent,
} from '../platform/processes/index.js';
import { fireCollectionEvent, fireSchedule } from '../hosts/processes/triggers.js';
import type { LeaseNotice } from './thread-main.js';
import { configureScripts, type ScriptChanges } from '../script/index.js';
import { toErrorBody } from '../server/errors.js';
import { inCell, openStore } from '../store/index.js';
import {
  asBuffer,
  BUDGET_ARGUMENT,
  PROGRESS_ARGUMENT,
  type Progress,
  type EvaluationReply,
  type EvaluationTask,
  type HostMethod,
} from './protocol.js';
import { propertyOf } from '../safety/narrow.js';
import { tracing } from '../traces/hooks.js';

/** What the pool hands each worker it starts. */
export interface WorkerSettings {
  limits: Partial<ExecutionLimits>;
  evaluationLimits: Partial<EvaluationLimits>;
  scripts: ScriptChanges;
  /** FLOWMARK_LOCK_WAIT_MS, as the server process opens its own store with. */
  lockWaitMs?: number;
  /**
   * The owner of the leases on process runs: the server process's, so a run its sweeper claimed
   * is renewed by the thread that resumes it (each thread renews only the runs it drives).
   */
  leaseOwner?: string;
  /** The counts of changes, shared with the HTTP thread (PlatformOptions.changeCounts). */
  changeCounts?: SharedArrayBuffer;
}

/** The task an evaluation belongs to: where its deadline goes, and by when it must answer. */
interface TaskScope {
  slot: number;
  respondBy: number | undefined;
}

async function start(
  settings: WorkerSettings,
  deadlines: Float64Array,
  leases: (notice: LeaseNotice) => void,
): Promise<
  (task: EvaluationTask, progress: (p: Progress) => void) => EvaluationReply | Promise<EvaluationReply>
> {
  const scope = new AsyncLocalStorage<TaskScope>();
  onEvaluationStart((wallTimeMs) => {
    const task = scope.getStore();
    if (!task) return wallTimeMs;
    const now = Date.now();
    const room = task.respondBy === undefined ? wallTimeMs : Math.min(wallTimeMs, task.respondBy - now);
    deadlines[task.slot] = Math.max(deadlines[task.slot]!, now + room);
    return room;
  });

  configureScripts(settings.scripts);
  await defaultRegistry().loadAll();
  // The store opens at start, and again on the next task after it failed (the database was down
  // when the thread started): the task answers the store's error (503) rather than the thread dying.
  let opened: ReturnType<typeof open> | undefined;
  const keeper: LeaseKeeper = {
    hold: (requestId) => leases({ hold: true, requestId }),
    release: (requestId) => leases({ hold: false, requestId }),
    // the HTTP thread's heartbeat holds every thread's runs; its sweeper asks that one
    driving: () => [],
  };
  const services = () =>
    (opened ??= open(settings, keeper).catch((e: unknown) => {
      opened = undefined;
      throw e;
    }));
  void services().catch(() => undefined);

  // once open, a task reaches them without waiting a turn for the promise
  let ready: Awaited<ReturnType<typeof open>> | undefined;
  /** A task's reply: at once when its host answered at once (no promise, no turn in between). */
  function run(
    task: EvaluationTask,
    progress: (p: Progress) => void,
  ): EvaluationReply | Promise<EvaluationReply> {
    if (!ready)
      return services().then((opened) => {
        ready = opened;
        return run(task, progress);
      });
    const { hosts, methods, collections } = ready;
    switch (task.kind) {
      case 'host': {
        const args = task.args.map(withBuffers);
        if (
          (task.method === 'startRequest' || task.method === 'sendMessage') &&
          args[0] &&
          typeof args[0] === 'object'
        )
          // the caller learns the request's id even if this thread is stopped while it runs
          (args[0] as { onCreated?: unknown }).onCreated = (requestId: string) => progress({ requestId });
        const value = (methods[task.method] as (...a: unknown[]) => unknown).apply(hosts, args);
        return value instanceof Promise ? value.then(answered) : { ok: true, value };
      }
      case 'collections':
        return collectionCall(collections, task, progress);
    }
  }

  async function collectionCall(
    collections: CollectionService,
    task: EvaluationTask & { kind: 'collections' },
    progress: (p: Progress) => void,
  ): Promise<EvaluationReply> {
    const budget = new Budget(settings.evaluationLimits);
    const method = (collections as unknown as Record<string, unknown>)[task.method];
    if (typeof method !== 'function' || task.method.startsWith('_'))
      throw new Error(`the collection service has no method ${task.method}`);
    const args = task.args.map((a) => withBudget(a, budget, progress));
    const value = await (method as (...a: unknown[]) => unknown).apply(collections, args);
    return { ok: true, value, allocated: budget.allocated };
  }

  return function handle(
    task: EvaluationTask,
    progress: (p: Progress) => void,
  ): EvaluationReply | Promise<EvaluationReply> {
    try {
      const scoped = () =>
        inCell(task.cell, () =>
          scope.run({ slot: task.slot, respondBy: task.respondBy }, () => run(task, progress)),
        );
      const traced = tracing;
      let reply: EvaluationReply | Promise<EvaluationReply>;
      if (!traced) reply = scoped();
      else {
        const name = task.kind === 'host' ? task.method : `collections.${task.method}`;
        reply = traced.task(`evaluate ${name}`, { 'flowmark.task': name }, task.trace, async () => scoped());
      }
      return reply instanceof Promise ? reply.catch(failed) : reply;
    } catch (e) {
      return failed(e);
    }
  };
}

/** A task's value as its reply. */
function answered(value: unknown): EvaluationReply {
  return { ok: true, value };
}

/** A task's error as the reply the API answers. */
function failed(e: unknown): EvaluationReply {
  const reply = toErrorBody(e);
  return {
    ok: false,
    error: {
      ...reply,
      ...(reply.internal ? { detail: e instanceof Error ? (e.stack ?? String(e)) : String(e) } : {}),
    },
  };
}

/** The store and what works over it: the platform, the hosts, the collection service. */
async function open(settings: WorkerSettings, leases: LeaseKeeper) {
  const store = await openStore({
    ...loadConfig(),
    ...(settings.lockWaitMs !== undefined ? { lockWaitMs: settings.lockWaitMs } : {}),
  });
  const platform = createPlatform(
    store,
    settings.changeCounts ? { changeCounts: settings.changeCounts } : {},
  );
  const limits = settings.limits;
  // With the server's lease owner, the HTTP thread renews the leases of the runs driven here.
  const lease = settings.leaseOwner !== undefined ? { lease: { owner: settings.leaseOwner }, leases } : {};
  const hosts = { ...evalHost(platform, { limits }), ...createHosts(platform, { limits, ...lease }) };
  const { runner } = hosts.background;
  const methods: Record<HostMethod, (...args: never[]) => unknown> = {
    evaluate: hosts.evaluate,
    composite: hosts.composite,
    webInterface: hosts.webInterface,
    task: hosts.task,
    startRequest: hosts.startRequest,
    sendMessage: hosts.sendMessage,
    describeRequest: hosts.describeRequest,
    resumeRequest: hosts.resumeRequest,
    cancelRequest: hosts.cancelRequest,
    recoverRun: (run: ProcessRun) => runner.recover(run),
    fireTimer: (timer: ProcessTimer) => runner.fireTimer(timer),
    fireSchedule: (trigger: ProcessTrigger) => fireSchedule(runner, trigger),
    fireCollectionEvent: (event: TriggerEvent) => fireCollectionEvent(runner, event),
  };
  return { hosts, methods, collections: new CollectionService(store) };
}

/** The exchange's body a Buffer again (structured clone made it a Uint8Array). */
function withBuffers(arg: unknown): unknown {
  if (arg && typeof arg === 'object' && 'body' in arg) arg.body = asBuffer(arg.body);
  return arg;
}

/**
 * An options argument whose budget stayed on the HTTP thread gets this task's budget, and one
 * whose progress callback stayed there a callback that reports to it.
 */
function withBudget(arg: unknown, budget: Budget, progress: (p: Progress) => void): unknown {
  if (!arg || typeof arg !== 'object') return arg;
  let out: object = arg;
  if (propertyOf(arg, 'budget') === BUDGET_ARGUMENT) out = { ...out, budget };
  if (propertyOf(arg, 'onProgress') === PROGRESS_ARGUMENT) out = { ...out, onProgress: progress };
  return out;
}

export default start;
