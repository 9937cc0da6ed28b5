/**
 * The record of each step a request ran: one per step and iteration, with its status (running,
 * waiting, done, failed, skipped), its lane and user, the manual task or sub-process it made, its
 * result (P_result: what inject_params injects) or its error, and when it started and ended.
 */
import { prefixedColumns, sql, type Row, type Sql, type Store } from '../../store/index.js';
import { notFound } from '../errors.js';
import { fromJson, toJson, toJsonValue } from '../model.js';
import { STEP_TYPES, type StepType } from './definition.js';
import { oneOf } from '../../safety/narrow.js';
import {
  dataWriteReturning,
  requestColumnsAs,
  requestFromColumns,
  type ProcessRequest,
} from '../requests.js';

export const STEP_STATUSES = ['running', 'waiting', 'done', 'failed', 'skipped'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

export type StepError = {
  message: string;
  line?: number;
  column?: number;
  template?: string;
};

/** (A type, not an interface: it is a plain JSON record where Record<string, unknown> is expected.) */
export type StepRecord = {
  id: number;
  requestId: string;
  stepId: number;
  iteration: number;
  type: StepType;
  status: StepStatus;
  laneId: number | null;
  userId: number | null;
  taskId: string | null;
  childRequestId: string | null;
  /** The step's result (null until done). */
  result: unknown;
  error: StepError | null;
  startedAt: number;
  endedAt: number | null;
};

type StepRow = {
  id: number;
  request_id: string;
  step_id: number;
  iteration: number;
  type: string;
  status: string;
  lane_id: number | null;
  user_id: number | null;
  task_id: string | null;
  child_request_id: string | null;
  result: string | null;
  error: string | null;
  started_at: number;
  ended_at: number | null;
};

export type StepChanges = {
  status?: StepStatus;
  result?: unknown;
  error?: StepError;
  taskId?: string;
  childRequestId?: string;
};

export type NewStep = {
  requestId: string;
  stepId: number;
  iteration: number;
  type: StepType;
  laneId: number | null;
  userId: number | null;
  status?: StepStatus;
};

/** A record a statement begins beside its request's other writes (running; its request's id given there). */
export type RecordToBegin = Omit<NewStep, 'status' | 'requestId'>;

/** Every column of a record, each named `b_<column>` (StepRecords.beginning). */
const BEGUN_COLUMNS = prefixedColumns(
  [
    'id',
    'account_id',
    'request_id',
    'step_id',
    'iteration',
    'type',
    'status',
    'lane_id',
    'user_id',
    'task_id',
    'child_request_id',
    'result',
    'error',
    'started_at',
    'ended_at',
  ],
  'b',
);

export class StepRecords {
  constructor(
    private readonly store: Store,
    private readonly clock: () => number,
  ) {}

  async begin(accountId: string, input: NewStep): Promise<StepRecord> {
    const now = this.clock();
    const status = input.status ?? 'running';
    const row = await this.store.get<StepRow>(sql`
      INSERT INTO request_steps (account_id, request_id, step_id, iteration, type, status, lane_id, user_id,
                                 started_at, ended_at)
      VALUES (${accountId}, ${input.requestId}, ${input.stepId}, ${input.iteration}, ${input.type}, ${status},
              ${input.laneId}, ${input.userId}, ${now}, ${status === 'skipped' ? now : null})
      RETURNING *`);
    return toStep(row!);
  }

  /**
   * `begin` of a running step as the last part of one statement (ProcessRuns.moveAfter): the record
   * inserted only when the statement's `moved` returned a row, its columns named `b_<column>`.
   */
  beginning(accountId: string, input: Omit<NewStep, 'status'>): Sql {
    // a SELECT's parameters have no column to take their type from
    const { cast } = this.store.dialect;
    return sql`
      INSERT INTO request_steps (account_id, request_id, step_id, iteration, type, status, lane_id, user_id,
                                 started_at, ended_at)
      SELECT ${accountId}, ${input.requestId}, ${cast(input.stepId, 'integer')}, ${cast(input.iteration, 'integer')},
             ${input.type}, ${'running'}, ${cast(input.laneId, 'bigint')}, ${cast(input.userId, 'bigint')},
             ${cast(this.clock(), 'bigint')}, NULL
      FROM moved
      RETURNING ${BEGUN_COLUMNS}`;
  }

  /** The record a `beginning` inserted, from the row of its statement (`b_` columns stripped). */
  begun(row: Row): StepRecord {
    return toStep(row as StepRow);
  }

  /** Changes a record: its status, result, error, task or child; `done`, `failed` and `skipped` end it. */
  async update(accountId: string, id: number, changes: StepChanges): Promise<StepRecord> {
    const row = await this.store.get<StepRow>(
      sql`UPDATE request_steps SET ${sql.join(this.sets(changes))} WHERE account_id = ${accountId} AND id = ${id} RETURNING *`,
    );
    if (!row) throw notFound(`Step record ${id} not found.`);
    return toStep(row);
  }

  /**
   * `update`, and the row of the record's request but its document (`data`: the caller holds it)
   * read by the same statement where the engine returns a joined row (Dialect.returnsJoined): the
   * process host's step end, which needs the status a script or a cancel may have set. Without
   * `request` the caller reads it (SQLite, or no such request).
   */
  async updateReading(
    accountId: string,
    id: number,
    changes: StepChanges,
    data: Record<string, unknown>,
  ): Promise<{ record: StepRecord; request?: ProcessRequest }> {
    if (!this.store.dialect.returnsJoined) return { record: await this.update(accountId, id, changes) };
    const row = await this.store.get<StepRow & Record<string, unknown>>(sql`
      UPDATE request_steps SET ${sql.join(this.sets(changes))} FROM requests r
      WHERE request_steps.account_id = ${accountId} AND request_steps.id = ${id}
        AND r.account_id = request_steps.account_id AND r.id = request_steps.request_id
      RETURNING request_steps.*, ${requestColumnsAs('r')}`);
    if (!row) return { record: await this.update(accountId, id, changes) };
    return { record: toStep(row), request: requestFromColumns(row, data) };
  }

  /**
   * A step's end as the first part of one statement (ProcessRuns.moveAfter): `WITH … ended AS (…)`,
   * the record changed and its request's columns but the document read (`r_` columns), its
   * document `json` written first when given.
   */
  ending(accountId: string, id: number, changes: StepChanges, requestId: string, json?: string): Sql {
    const source = json === undefined ? sql`requests r` : sql`written r`;
    const written =
      json === undefined
        ? sql``
        : sql`written AS (${dataWriteReturning(accountId, requestId, json, this.clock())}), `;
    return sql`WITH ${written}ended AS (
      UPDATE request_steps SET ${sql.join(this.sets(changes))} FROM ${source}
      WHERE request_steps.account_id = ${accountId} AND request_steps.id = ${id}
        AND r.account_id = request_steps.account_id AND r.id = request_steps.request_id
      RETURNING request_steps.*, ${requestColumnsAs('r')})`;
  }

  /** The record and its request (with the document `data`) an `ending` returned. */
  ended(row: Row, data: Record<string, unknown>): { record: StepRecord; request: ProcessRequest } {
    return { record: toStep(row as StepRow), request: requestFromColumns(row, data) };
  }

  private sets(changes: StepChanges) {
    const sets = [];
    if (changes.status !== undefined) {
      sets.push(sql`status = ${changes.status}`);
      if (changes.status === 'done' || changes.status === 'failed' || changes.status === 'skipped')
        sets.push(sql`ended_at = ${this.clock()}`);
    }
    if (changes.result !== undefined)
      sets.push(sql`result = ${toJson(toJsonValue(changes.result, 'the step result'))}`);
    if (changes.error !== undefined) sets.push(sql`error = ${toJson(changes.error)}`);
    if (changes.taskId !== undefined) sets.push(sql`task_id = ${changes.taskId}`);
    if (changes.childRequestId !== undefined) sets.push(sql`child_request_id = ${changes.childRequestId}`);
    return sets;
  }

  async find(accountId: string, id: number): Promise<StepRecord | undefined> {
    const row = await this.store.get<StepRow>(
      sql`SELECT * FROM request_steps WHERE account_id = ${accountId} AND id = ${id}`,
    );
    return row && toStep(row);
  }

  /** The records of a request, in the order the steps ran. */
  async list(accountId: string, requestId: string): Promise<StepRecord[]> {
    const rows = await this.store.all<StepRow>(
      sql`SELECT * FROM request_steps WHERE account_id = ${accountId} AND request_id = ${requestId} ORDER BY id`,
    );
    return rows.map(toStep);
  }

  /** Deletes the records of one step's iteration (an attempt abandoned by a server that died). */
  async discard(accountId: string, requestId: string, stepId: number, iteration: number): Promise<void> {
    await this.store.run(sql`
      DELETE FROM request_steps WHERE account_id = ${accountId} AND request_id = ${requestId}
        AND step_id = ${stepId} AND iteration = ${iteration}`);
  }

  /** The last step of a request that ended with a result (inject_params), if any. */
  async lastDone(accountId: string, requestId: string): Promise<StepRecord | undefined> {
    const row = await this.store.get<StepRow>(sql`
      SELECT * FROM request_steps WHERE account_id = ${accountId} AND request_id = ${requestId} AND status = 'done'
      ORDER BY id DESC LIMIT 1`);
    return row && toStep(row);
  }
}

function toStep(row: StepRow): StepRecord {
  return {
    id: Number(row.id),
    requestId: row.request_id,
    stepId: Number(row.step_id),
    iteration: Number(row.iteration),
    type: oneOf(STEP_TYPES, row.type, 'a stored step type'),
    status: oneOf(STEP_STATUSES, row.status, 'a stored step status'),
    laneId: row.lane_id === null ? null : Number(row.lane_id),
    userId: row.user_id === null ? null : Number(row.user_id),
    taskId: row.task_id,
    childRequestId: row.child_request_id,
    result: row.result === null ? null : fromJson(row.result),
    error: row.error === null ? null : fromJson(row.error),
    startedAt: Number(row.started_at),
    endedAt: row.ended_at === null ? null : Number(row.ended_at),
  };
}
