/**
 * Manual tasks: one per manual step and iteration of a request, named `<request>.<step>.<iteration>`
 * (so its URL is known before it exists: get_next_url). A task is OPEN until one submission moves
 * it to SUBMITTED (compare-and-set: a second submission finds it submitted), or CANCELLED when its
 * request ends first.
 */
import { sql, type Store } from '../../store/index.js';
import { notFound } from '../errors.js';
import { fromJson, toJson, toJsonObject } from '../model.js';
import { oneOf } from '../../safety/narrow.js';

export const TASK_STATUSES = ['OPEN', 'SUBMITTED', 'CANCELLED'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export interface TaskRef {
  requestId: string;
  stepId: number;
  iteration: number;
}

export interface ManualTask extends TaskRef {
  id: string;
  accountId: string;
  laneId: number | null;
  /** The application instance of the task's form (attach_file). */
  instanceId: string | null;
  status: TaskStatus;
  /** The fields a submission may carry; null: any. */
  fields: string[] | null;
  /** The submission (P_result of the step's output variables). */
  result: Record<string, unknown> | null;
  createdAt: number;
  submittedAt: number | null;
  submittedBy: number | null;
}

type TaskRow = {
  account_id: string;
  id: string;
  request_id: string;
  step_id: number;
  iteration: number;
  lane_id: number | null;
  instance_id: string | null;
  status: string;
  fields: string | null;
  result: string | null;
  created_at: number;
  submitted_at: number | null;
  submitted_by: number | null;
};

export function taskId(ref: TaskRef): string {
  return `${ref.requestId}.${ref.stepId}.${ref.iteration}`;
}

export const taskMissing = () => notFound('Task not found.');

export class ManualTasks {
  constructor(
    private readonly store: Store,
    private readonly clock: () => number,
  ) {}

  async create(
    accountId: string,
    input: TaskRef & { laneId: number | null; instanceId: string | null; fields: string[] | null },
  ): Promise<ManualTask> {
    const row = await this.store.get<TaskRow>(sql`
      INSERT INTO request_tasks (account_id, id, request_id, step_id, iteration, lane_id, instance_id, status, fields,
                                 created_at)
      VALUES (${accountId}, ${taskId(input)}, ${input.requestId}, ${input.stepId}, ${input.iteration}, ${input.laneId},
              ${input.instanceId}, ${'OPEN'}, ${input.fields === null ? null : toJson(input.fields)}, ${this.clock()})
      RETURNING *`);
    return toTask(row!);
  }

  async find(accountId: string, ref: TaskRef): Promise<ManualTask | undefined> {
    const row = await this.store.get<TaskRow>(
      sql`SELECT * FROM request_tasks WHERE account_id = ${accountId} AND id = ${taskId(ref)}`,
    );
    return row && toTask(row);
  }

  /** Marks an OPEN task submitted with its data; undefined when it was not OPEN any more. */
  async submit(
    accountId: string,
    ref: TaskRef,
    result: Record<string, unknown>,
    userId: number | null,
  ): Promise<ManualTask | undefined> {
    const row = await this.store.get<TaskRow>(sql`
      UPDATE request_tasks SET status = 'SUBMITTED', result = ${toJson(toJsonObject(result, 'the submission'))},
             submitted_at = ${this.clock()}, submitted_by = ${userId}
      WHERE account_id = ${accountId} AND id = ${taskId(ref)} AND status = 'OPEN'
      RETURNING *`);
    return row && toTask(row);
  }

  /** Cancels one task if it is still OPEN (its deadline passed); false when it was not. */
  async cancelIfOpen(accountId: string, ref: TaskRef): Promise<boolean> {
    const { changes } = await this.store.run(sql`
      UPDATE request_tasks SET status = 'CANCELLED'
      WHERE account_id = ${accountId} AND id = ${taskId(ref)} AND status = 'OPEN'`);
    return changes > 0;
  }

  /** Deletes an OPEN task and its timers (a step re-run from its start). */
  async discard(accountId: string, ref: TaskRef): Promise<void> {
    await this.store.run(sql`
      DELETE FROM process_timers WHERE account_id = ${accountId} AND request_id = ${ref.requestId}
        AND step_id = ${ref.stepId} AND iteration = ${ref.iteration}`);
    await this.store.run(sql`
      DELETE FROM request_tasks WHERE account_id = ${accountId} AND id = ${taskId(ref)} AND status = 'OPEN'`);
  }

  /** Tasks OPEN in every account (the metrics' `flowmark_open_tasks`; index request_tasks_open). */
  async countOpenEverywhere(): Promise<number> {
    const row = await this.store.get<{ n: number | string }>(
      sql`SELECT COUNT(*) AS n FROM request_tasks WHERE status = 'OPEN'`,
    );
    return Number(row?.n ?? 0);
  }

  /** Cancels the OPEN tasks of a request (it ended); returns how many. */
  async cancelOpen(accountId: string, requestId: string): Promise<number> {
    const { changes } = await this.store.run(sql`
      UPDATE request_tasks SET status = 'CANCELLED'
      WHERE account_id = ${accountId} AND request_id = ${requestId} AND status = 'OPEN'`);
    return changes;
  }

  /** How many tasks a step of a request has made (the iteration its next task will have). */
  async countForStep(accountId: string, requestId: string, stepId: number): Promise<number> {
    const row = await this.store.get<{ n: number }>(sql`
      SELECT COUNT(*) AS n FROM request_tasks
      WHERE account_id = ${accountId} AND request_id = ${requestId} AND step_id = ${stepId}`);
    return Number(row?.n ?? 0);
  }

  /** The tasks of a request, oldest first. */
  async list(accountId: string, requestId: string): Promise<ManualTask[]> {
    const rows = await this.store.all<TaskRow>(sql`
      SELECT * FROM request_tasks WHERE account_id = ${accountId} AND request_id = ${requestId}
      ORDER BY created_at, step_id, iteration`);
    return rows.map(toTask);
  }
}

function toTask(row: TaskRow): ManualTask {
  return {
    id: row.id,
    accountId: row.account_id,
    requestId: row.request_id,
    stepId: Number(row.step_id),
    iteration: Number(row.iteration),
    laneId: row.lane_id === null ? null : Number(row.lane_id),
    instanceId: row.instance_id,
    status: oneOf(TASK_STATUSES, row.status, 'a stored task status'),
    fields: row.fields === null ? null : fromJson(row.fields),
    result: row.result === null ? null : fromJson(row.result),
    createdAt: Number(row.created_at),
    submittedAt: row.submitted_at === null ? null : Number(row.submitted_at),
    submittedBy: row.submitted_by === null ? null : Number(row.submitted_by),
  };
}
