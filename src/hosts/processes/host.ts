/**
 * The process host (docs/hosts.md): starts process requests from a definition (inline or stored),
 * lets manual tasks be read and submitted (by a user of the step's lane, or by whoever holds the
 * task's public URL), resumes paused requests, cancels requests, and describes a request with
 * its steps and tasks.
 *
 *   const host = new ProcessHost(platform);
 *   const { request } = await host.start('acme', { definition, data: { amount: 12 }, user: 'ann', mode: 'LIVE' });
 *   await host.submitTask('acme', { requestId: request.id, stepId: 2, iteration: 0 }, { fields: { ok: true }, user: ann });
 */
import { createHash } from 'node:crypto';
import type { Mode } from '../../functions/context.js';
import {
  accountUrls,
  laneModeFor,
  PlatformError,
  type Platform,
  type ProcessRequest,
  type UserRef,
} from '../../platform/index.js';
import {
  isTaskToken,
  parseDefinition,
  stepById,
  taskMissing,
  taskUrl,
  type ManualTask,
  type ProcessDefinition,
  type StepRecord,
  type TaskRef,
} from '../../platform/processes/index.js';
import { ProcessRunner, type NewRun, type RunnerOptions } from './runner.js';
import { serveMessages } from './triggers.js';

export type ProcessHostOptions = RunnerOptions;

/** Who acts: a user of the account (the server's caller), or nobody. */
export interface Actor {
  id: number;
  isAdmin: boolean;
}

export interface StartInput {
  /** An inline definition (checked), or … */
  definition?: unknown;
  /** … a stored one, by id or name. */
  process?: number | string;
  /** The initial data document. */
  data?: Record<string, unknown>;
  /** The initiator (login, email or id); null/absent: nobody. The steps run as them (P_user). */
  user?: UserRef | null;
  /** Default TEST. */
  mode?: Mode;
  /** Default: the definition's project. */
  projectId?: number;
  /**
   * The client's Idempotency-Key (needs `user`): a start with a key the initiator already used
   * answers that request (`replayed`) instead of starting another; with another process, mode or
   * data it is refused (409).
   */
  idempotencyKey?: string;
  /** Told the new request's id once it is stored, before its steps run. */
  onCreated?: (requestId: string) => void;
}

export type TaskView = {
  id: string;
  requestId: string;
  stepId: number;
  iteration: number;
  name: string;
  status: ManualTask['status'];
  laneId: number | null;
  fields: string[] | null;
  widgets: string[];
  /** The form's data: the values of the step's input variables. */
  data: Record<string, unknown>;
  /** The submission, once submitted. */
  result: Record<string, unknown> | null;
  /** The private URL (a user of the lane opens it; scripts give the public one with get_task_url). */
  url: string;
  createdAt: number;
  submittedAt: number | null;
  submittedBy: number | null;
  /** Where its request is now: what a submission led to (the task page tells it). */
  request: { status: number; message: string } | null;
};

export interface RequestView {
  request: ProcessRequest;
  /** The name of the process it runs. */
  process: string;
  steps: StepRecord[];
  tasks: TaskView[];
  /** Set when a start with an Idempotency-Key found the request an earlier start created. */
  replayed?: true;
}

/** A started request as it stood when its start answered; `replayed`: an earlier start's (Idempotency-Key). */
export interface StartedView {
  request: ProcessRequest;
  replayed?: true;
}

export class ProcessHost {
  readonly runner: ProcessRunner;

  constructor(
    readonly platform: Platform,
    options: ProcessHostOptions = {},
  ) {
    this.runner = new ProcessRunner(platform, options);
    serveMessages(this.runner);
  }

  /** Starts a request and runs it until it waits or ends; returns where it is. */
  async start(accountId: string, input: StartInput): Promise<RequestView> {
    const { request, replayed } = await this.started(accountId, input);
    return { ...(await this.view(accountId, request.id)), ...(replayed ? { replayed } : {}) };
  }

  /**
   * Starts a request and runs it until it waits or ends; returns the request then: as its end
   * stored it, else read (POST /api/v1/requests answers it, without the steps `start` reads).
   */
  async started(accountId: string, input: StartInput): Promise<StartedView> {
    if (input.definition !== undefined && input.process !== undefined)
      throw new PlatformError('invalid', 'give a definition or a stored process, not both');
    const reads = this.runner.startReads(accountId);
    // what a start reads (the definition, its lanes, the initiator)
    const read = async () => {
      let definition: ProcessDefinition;
      let definitionId: number | null = null;
      let definitionVersionId: number | null = null;
      if (input.definition !== undefined) definition = parseDefinition(input.definition);
      else if (input.process !== undefined) {
        const stored = await this.platform.processes.definitions.require(accountId, input.process);
        definition = stored.definition;
        definitionId = stored.id;
        definitionVersionId = stored.versionId;
      } else throw new PlatformError('invalid', 'a process definition is needed');
      await this.checkLanes(accountId, definition);
      let initiatorId: number | null = null;
      if (input.user !== undefined && input.user !== null) {
        // read with the account's other starts (ProcessRunner.startReads); one kept as missing is read again
        const ref = input.user;
        const users = this.platform.directory.users;
        const user =
          (await reads.users.once(ref, () => users.require(accountId, ref))) ??
          (await users.require(accountId, ref));
        if (user.status === 'blocked')
          throw new PlatformError('not-allowed', `user ${user.login} is blocked`);
        initiatorId = user.id;
        // the steps run as the initiator: their contexts have it read
        void reads.users.once(user.id, async () => user);
      }
      const mode = input.mode ?? 'TEST';
      const data = input.data ?? {};
      return {
        definition,
        definitionId,
        definitionVersionId,
        data,
        mode,
        projectId: input.projectId ?? definition.project,
        initiatorId,
        userId: initiatorId,
        parentId: null,
        depth: 0,
      } satisfies NewRun;
    };
    if (input.idempotencyKey === undefined) {
      // the reads commit with the request's creation (one transaction)
      const started = await this.runner.start(accountId, read, input.onCreated, reads);
      return {
        request: started.ended ?? (await this.platform.requests.require(accountId, started.requestId)),
      };
    }
    // with a key: the reads, then the key's earlier request, then the creation
    const run = await this.platform.processes.transaction(read);
    const { definition, definitionId, mode, projectId, data, initiatorId } = run;
    if (initiatorId === null) throw new PlatformError('invalid', 'an Idempotency-Key needs an initiator');
    const fingerprint = createHash('sha256')
      .update(JSON.stringify([definitionId ?? definition.name, mode, projectId ?? null, data]))
      .digest('base64url');
    const idempotency = { key: input.idempotencyKey, fingerprint };
    const earlier = await this.replay(accountId, initiatorId, idempotency);
    if (earlier) return earlier;
    let started: { requestId: string; ended: ProcessRequest | undefined };
    try {
      started = await this.runner.start(accountId, { ...run, idempotency }, input.onCreated, reads);
    } catch (e) {
      // The same key sent twice at once: the other start committed first.
      const earlier = this.platform.requests.isKeyTaken(e)
        ? await this.replay(accountId, initiatorId, idempotency)
        : undefined;
      if (earlier) return earlier;
      throw e;
    }
    return {
      request: started.ended ?? (await this.platform.requests.require(accountId, started.requestId)),
    };
  }

  /** The request an earlier start with this Idempotency-Key created (refused when it asked something else). */
  private async replay(
    accountId: string,
    initiatorId: number,
    idempotency: { key: string; fingerprint: string },
  ): Promise<StartedView | undefined> {
    const earlier = await this.platform.requests.findByKey(accountId, initiatorId, idempotency.key);
    if (!earlier) return undefined;
    if (earlier.fingerprint !== idempotency.fingerprint)
      throw new PlatformError(
        'conflict',
        `Idempotency-Key ${JSON.stringify(idempotency.key)} was used for another request (another process, mode or data)`,
      );
    return { request: earlier.request, replayed: true };
  }

  /** A request with its steps and tasks. */
  async view(accountId: string, requestId: string): Promise<RequestView> {
    // one consistent reading, in one transaction
    return this.platform.processes.transaction(async () => {
      const request = await this.platform.requests.require(accountId, requestId);
      const run = await this.platform.processes.runs.find(accountId, requestId);
      const steps = await this.platform.processes.steps.list(accountId, requestId);
      const tasks = await this.platform.processes.tasks.list(accountId, requestId);
      const views: TaskView[] = [];
      for (const t of tasks) views.push(await this.taskView(accountId, t));
      return { request, process: run?.definition.name ?? '', steps, tasks: views };
    });
  }

  /** A task as its form shows it, if `actor` (or the public token) may reach it. */
  async task(
    accountId: string,
    ref: TaskRef,
    access: { actor: Actor | null; token?: string },
  ): Promise<TaskView> {
    const task = await this.reachableTask(accountId, ref, access);
    return this.taskView(accountId, task);
  }

  /** Submits a task (see ProcessRunner.submit) if `actor` (or the public token) may; returns the request. */
  async submitTask(
    accountId: string,
    ref: TaskRef,
    submission: { fields: Record<string, unknown>; actor: Actor | null; token?: string },
  ): Promise<RequestView> {
    await this.reachableTask(accountId, ref, submission);
    await this.runner.submit(accountId, ref, submission.fields, submission.actor?.id ?? null);
    return this.view(accountId, ref.requestId);
  }

  /** Continues a request paused by P_set_request_status(102). */
  async resume(accountId: string, requestId: string): Promise<RequestView> {
    await this.runner.resume(accountId, requestId);
    return this.view(accountId, requestId);
  }

  /** Ends a running or waiting request: 400 CANCELLED (a user), 302 KILLED or 401 OUTDATED. */
  async stop(accountId: string, requestId: string, status: 400 | 302 | 401 = 400): Promise<RequestView> {
    await this.runner.stop(accountId, requestId, status);
    return this.view(accountId, requestId);
  }

  /** Every lane a step (of the definition or of its inline sub-processes) names exists in the account. */
  private async checkLanes(accountId: string, definition: ProcessDefinition): Promise<void> {
    for (const step of definition.steps) {
      if (step.lane !== null && !(await this.platform.directory.lanes.find(accountId, step.lane)))
        throw new PlatformError(
          'invalid',
          `step ${step.id} of ${JSON.stringify(definition.name)}: lane ${step.lane} not found`,
        );
      if (step.type === 'subprocess' && typeof step.process !== 'string')
        await this.checkLanes(accountId, step.process);
    }
  }

  /**
   * A task `access` may reach: with the token of its public URL, anyone; otherwise a user of the
   * account who administers it, or is in the step's lane (in the request's mode), or — for a
   * step without a lane — started the request. Another request's or account's task is not found.
   */
  private async reachableTask(
    accountId: string,
    ref: TaskRef,
    access: { actor: Actor | null; token?: string },
  ): Promise<ManualTask> {
    const task = await this.platform.processes.tasks.find(accountId, ref);
    if (!task) throw taskMissing();
    if (access.token !== undefined) {
      const run = await this.platform.processes.runs.require(accountId, ref.requestId);
      if (isTaskToken(run.secret, ref, access.token)) return task;
      throw new PlatformError('not-allowed', 'The task token is not valid for this task.');
    }
    const actor = access.actor;
    if (!actor)
      throw new PlatformError('not-allowed', 'The task needs a user of the account, or its public URL.');
    if (actor.isAdmin) return task;
    const request = await this.platform.requests.require(accountId, ref.requestId);
    if (task.laneId !== null) {
      const inLane = await this.platform.directory.lanes.isInAnyLane(
        accountId,
        actor.id,
        [task.laneId],
        laneModeFor(request.mode),
      );
      if (inLane) return task;
      throw new PlatformError('not-allowed', `Only a user of lane ${task.laneId} may open this task.`);
    }
    if (request.initiatorId === actor.id) return task;
    throw new PlatformError('not-allowed', 'Only the user who started the request may open this task.');
  }

  private async taskView(accountId: string, task: ManualTask): Promise<TaskView> {
    const run = await this.platform.processes.runs.find(accountId, task.requestId);
    const step = run ? stepById(run.definition, task.stepId) : undefined;
    const instance = task.instanceId
      ? await this.platform.applications.find(accountId, task.instanceId)
      : undefined;
    const account = await this.platform.accounts.require(accountId);
    const request = await this.platform.requests.find(accountId, task.requestId);
    return {
      id: task.id,
      requestId: task.requestId,
      stepId: task.stepId,
      iteration: task.iteration,
      name: step?.name ?? '',
      status: task.status,
      laneId: task.laneId,
      fields: task.fields,
      widgets: step?.type === 'manual' ? step.widgets : [],
      data: instance?.data ?? {},
      result: task.result,
      url: taskUrl(accountUrls(account).live, task),
      createdAt: task.createdAt,
      submittedAt: task.submittedAt,
      submittedBy: task.submittedBy,
      request: request ? { status: request.status, message: request.message } : null,
    };
  }
}
