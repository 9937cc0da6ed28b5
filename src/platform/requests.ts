/**
 * Process requests: project, version, mode, status code, data document, P_locks, P_message,
 * initiator and parent. The process host runs them step by step with what src/platform/processes
 * keeps (definitions, runs, step records, manual tasks; docs/hosts.md).
 */
import { randomUUID } from 'node:crypto';
import type { Row, Store } from '../store/index.js';
import { prefixedColumns, unprefixed } from '../store/prefixed.js';
import { releaseAllStatement } from './locks.js';
import { sql, type Sql } from '../store/sql.js';
import { MESSAGES, notFound, PlatformError } from './errors.js';
import { metricSinks } from '../metrics/hooks.js';
import { fromJson, isMode, storedMode, toJson, toJsonObject, type Mode } from './model.js';

/** Status of a request that is running (the others: REQUEST_STATUSES below). */
export const STATUS_RUNNING = 101;

/**
 * The statuses of a process request (the platform's codes; docs/hosts.md). 101 runs; 102 waits
 * (a manual task, a sub-process, or a resume after P_set_request_status(102)); the others are
 * final: the request runs no further step.
 */
export const REQUEST_STATUSES = {
  101: { name: 'ACTIVE', meaning: 'running' },
  102: { name: 'WAITING', meaning: 'waiting for a manual task, a sub-process or a resume' },
  201: { name: 'COMPLETED', meaning: 'ended without error' },
  301: { name: 'ABORTED', meaning: 'ended by a failing step, or aborted by its script' },
  302: { name: 'KILLED', meaning: 'stopped by its script or an administrator' },
  400: { name: 'CANCELLED', meaning: 'cancelled by a user' },
  401: { name: 'OUTDATED', meaning: 'ended because it timed out' },
} as const;
export type RequestStatus = keyof typeof REQUEST_STATUSES;
export const STATUS_WAITING = 102;
export const STATUS_COMPLETED = 201;
export const STATUS_ABORTED = 301;
export const STATUS_KILLED = 302;
export const STATUS_CANCELLED = 400;
export const STATUS_OUTDATED = 401;

/** The filters of Requests.list and count. */
export interface RequestFilters {
  projectId?: number;
  initiatorId?: number;
  status?: number;
  /** Requests running the stored process definition of this id. */
  processId?: number;
}

function requestFilters(accountId: string, options: RequestFilters) {
  const where = [sql`account_id = ${accountId}`];
  if (options.projectId !== undefined) where.push(sql`project_id = ${options.projectId}`);
  if (options.initiatorId !== undefined) where.push(sql`initiator_id = ${options.initiatorId}`);
  if (options.status !== undefined) where.push(sql`status = ${options.status}`);
  // No index of its own: each row of the list's order is checked on process_runs' primary key
  // (PostgreSQL may prefer a semi-join and a sort when the account's runs are few).
  if (options.processId !== undefined)
    where.push(sql`EXISTS (SELECT 1 FROM process_runs r WHERE r.account_id = requests.account_id
      AND r.request_id = requests.id AND r.definition_id = ${options.processId})`);
  return where;
}

/** A request as the request list shows it: everything but its data document and P_locks. */
export type RequestSummary = Omit<ProcessRequest, 'data' | 'locks'>;

/** The paging of Requests.page: after the request `before` (keyset), then skip `first`, at most `limit`. */
export interface RequestPaging {
  /** The id of the last request of the previous page: the page starts after it. */
  before?: string;
  first?: number;
  limit?: number;
}

const SUMMARY_COLUMNS = sql.raw(
  'account_id, id, project_id, version_id, mode, status, p_message, initiator_id, parent_id, created_at, updated_at',
);

/**
 * The request list's statement: newest first (ties by id), each filter served by an index ending
 * in the same order (migration 0610_request_list), so a page reads its rows and stops, and
 * `before` is a keyset: the rows after the cursor's (created_at, id), with no OFFSET walked.
 */
export function requestPageQuery(accountId: string, options: RequestFilters & RequestPaging = {}): Sql {
  const where = requestFilters(accountId, options);
  if (options.before !== undefined) {
    const cursor = sql`(SELECT created_at FROM requests WHERE account_id = ${accountId} AND id = ${options.before})`;
    // The first term bounds the index range; the second only drops the cursor's ties before it.
    where.push(sql`created_at <= ${cursor} AND (created_at < ${cursor} OR id > ${options.before})`);
  }
  const limit = Math.max(0, Math.min(options.limit ?? 100, 1000));
  const first = Math.max(0, options.first ?? 0);
  return sql`SELECT ${SUMMARY_COLUMNS} FROM requests WHERE ${sql.join(where, ' AND ')}
    ORDER BY created_at DESC, id LIMIT ${limit}${first > 0 ? sql` OFFSET ${first}` : sql``}`;
}

/** The statuses a request ends with: after them it runs no further step. */
export const FINAL_STATUSES: readonly number[] = [201, 301, 302, 400, 401];

/** A status after which a request runs no further step (FINAL_STATUSES). */
export function isFinalStatus(status: number): boolean {
  return FINAL_STATUSES.includes(status);
}

/** An entry of P_locks: a lock the request took (start) and released (end), epoch ms. */
export interface LockRecord {
  name: string;
  start: number;
  end?: number;
}

export interface ProcessRequest {
  id: string;
  accountId: string;
  projectId: number | null;
  versionId: number | null;
  mode: Mode;
  status: number;
  /** The data document (the request's variables). */
  data: Record<string, unknown>;
  locks: LockRecord[];
  /** P_message: the last message P_log wrote ('' when none). */
  message: string;
  initiatorId: number | null;
  parentId: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface NewRequest {
  id?: string;
  projectId?: number | null;
  versionId?: number | null;
  mode: Mode;
  status?: number;
  data?: Record<string, unknown>;
  initiatorId?: number | null;
  parentId?: string | null;
  /**
   * The client's Idempotency-Key (unique per account and initiator) and the fingerprint of what
   * it asked: a retry with the key finds this request (findByKey) instead of starting another.
   */
  idempotency?: { key: string; fingerprint: string };
}

/** The unique index a second request with the same Idempotency-Key violates. */
const IDEMPOTENCY_INDEX = 'requests_idempotency';

export interface RequestChanges {
  status?: number;
  data?: Record<string, unknown>;
  locks?: LockRecord[];
  message?: string;
}

type RequestRow = {
  account_id: string;
  id: string;
  project_id: number | null;
  version_id: number | null;
  mode: string;
  status: number;
  data: string;
  p_locks: string;
  p_message: string;
  initiator_id: number | null;
  parent_id: string | null;
  created_at: number;
  updated_at: number;
};

export class Requests {
  constructor(
    private readonly store: Store,
    private readonly clock: () => number,
  ) {}

  async create(accountId: string, input: NewRequest): Promise<ProcessRequest> {
    const { statement, id } = await this.inserting(accountId, input);
    const row = await this.store.get<RequestRow>(sql`${statement} RETURNING *`);
    if (!row) throw new PlatformError('conflict', `request ${id} already exists`);
    countStatus(row.status);
    return toRequest(row);
  }

  /**
   * `create` as the first part of one statement (Processes.createStarted): the INSERT, without
   * its RETURNING, once the input is checked, and the request's id; its row is none when the id
   * is taken.
   */
  async inserting(accountId: string, input: NewRequest): Promise<{ statement: Sql; id: string }> {
    if (!isMode(input.mode)) throw new PlatformError('invalid', `invalid mode ${JSON.stringify(input.mode)}`);
    const id = input.id ?? randomUUID();
    if (!/^[A-Za-z0-9_.-]{1,128}$/.test(id))
      throw new PlatformError('invalid', `invalid request id ${JSON.stringify(id)}`);
    if (input.projectId != null) {
      const project = await this.store.get(
        sql`SELECT id FROM projects WHERE account_id = ${accountId} AND id = ${input.projectId}`,
      );
      if (!project) throw notFound(MESSAGES.projectNotFound);
    }
    const now = this.clock();
    const statement = sql`
      INSERT INTO requests (account_id, id, project_id, version_id, mode, status, data, p_locks, p_message,
                            initiator_id, parent_id, created_at, updated_at, idempotency_key, idempotency_fingerprint)
      VALUES (${accountId}, ${id}, ${input.projectId ?? null}, ${input.versionId ?? null}, ${input.mode},
              ${input.status ?? STATUS_RUNNING}, ${toJson(toJsonObject(input.data ?? {}, 'the data document'))},
              ${'[]'}, ${''}, ${input.initiatorId ?? null}, ${input.parentId ?? null}, ${now}, ${now},
              ${input.idempotency?.key ?? null}, ${input.idempotency?.fingerprint ?? null})
      ON CONFLICT (account_id, id) DO NOTHING`;
    return { statement, id };
  }

  /** True when `error` is the refusal of a second request with an Idempotency-Key already used. */
  isKeyTaken(error: unknown): boolean {
    return this.store.dialect.uniqueViolation(error)?.constraint === IDEMPOTENCY_INDEX;
  }

  /** The request an initiator created with an Idempotency-Key, with the fingerprint of what was asked. */
  async findByKey(
    accountId: string,
    initiatorId: number,
    key: string,
  ): Promise<{ request: ProcessRequest; fingerprint: string } | undefined> {
    const row = await this.store.get<RequestRow & { idempotency_fingerprint: string }>(sql`
      SELECT * FROM requests
      WHERE account_id = ${accountId} AND initiator_id = ${initiatorId} AND idempotency_key = ${key}`);
    return row && { request: toRequest(row), fingerprint: row.idempotency_fingerprint };
  }

  async find(accountId: string, id: string): Promise<ProcessRequest | undefined> {
    const row = await this.store.get<RequestRow>(
      sql`SELECT * FROM requests WHERE account_id = ${accountId} AND id = ${id}`,
    );
    return row && toRequest(row);
  }

  /** A request of the account, or `Request not found.` */
  async require(accountId: string, id: string): Promise<ProcessRequest> {
    const request = await this.find(accountId, id);
    if (!request) throw notFound(MESSAGES.requestNotFound);
    return request;
  }

  /**
   * The account's requests, newest first: all, or those of a project, an initiator or a status
   * (the console's and the API's request list). At most 1000 a page.
   */
  async list(
    accountId: string,
    options: {
      projectId?: number;
      initiatorId?: number;
      status?: number;
      first?: number;
      limit?: number;
    } = {},
  ): Promise<ProcessRequest[]> {
    const where = requestFilters(accountId, options);
    const limit = Math.max(0, Math.min(options.limit ?? 100, 1000));
    const rows = await this.store.all<RequestRow>(sql`
      SELECT * FROM requests WHERE ${sql.join(where, ' AND ')}
      ORDER BY created_at DESC, id LIMIT ${limit} OFFSET ${Math.max(0, options.first ?? 0)}`);
    return rows.map(toRequest);
  }

  /**
   * A page of the request list (REST and console): the summaries of the requests matching the
   * filters, newest first, after the request `before` when given (which must match the same
   * filters, else `before: no request 'x' in this list`).
   */
  async page(accountId: string, options: RequestFilters & RequestPaging = {}): Promise<RequestSummary[]> {
    if (options.before !== undefined) {
      const where = requestFilters(accountId, options);
      const cursor = await this.store.get(
        sql`SELECT id FROM requests WHERE ${sql.join(where, ' AND ')} AND id = ${options.before}`,
      );
      if (!cursor) throw new PlatformError('invalid', `before: no request '${options.before}' in this list`);
    }
    const rows = await this.store.all<SummaryRow>(requestPageQuery(accountId, options));
    return rows.map(toSummary);
  }

  /** How many requests match the filters of `list` (without its paging). */
  async count(accountId: string, options: RequestFilters = {}): Promise<number> {
    const row = await this.store.get<{ n: number | string }>(sql`
      SELECT COUNT(*) AS n FROM requests WHERE ${sql.join(requestFilters(accountId, options), ' AND ')}`);
    return Number(row?.n ?? 0);
  }

  async update(accountId: string, id: string, changes: RequestChanges): Promise<ProcessRequest> {
    if (changes.data !== undefined) await this.keepStepData(accountId, id);
    const sets = [sql`updated_at = ${this.clock()}`];
    if (changes.status !== undefined) {
      if (!Number.isSafeInteger(changes.status)) throw new PlatformError('invalid', 'a status is an integer');
      sets.push(sql`status = ${changes.status}`);
    }
    if (changes.data !== undefined)
      sets.push(sql`data = ${toJson(toJsonObject(changes.data, 'the data document'))}`);
    if (changes.locks !== undefined) sets.push(sql`p_locks = ${toJson(changes.locks)}`);
    if (changes.message !== undefined) sets.push(sql`p_message = ${changes.message}`);
    const row = await this.store.get<RequestRow>(
      sql`UPDATE requests SET ${sql.join(sets)} WHERE account_id = ${accountId} AND id = ${id} RETURNING *`,
    );
    if (!row) throw notFound(MESSAGES.requestNotFound);
    if (changes.status !== undefined) countStatus(row.status);
    return toRequest(row);
  }

  /**
   * Writes the data document a process step leaves, in the transaction that ends the step (the
   * process host's one write of it per step): `json` is its text, already checked (JSON values
   * only, within the size limit). Nothing is read back.
   */
  async writeStepData(accountId: string, id: string, json: string): Promise<void> {
    const { changes } = await this.store.run(sql`
      UPDATE requests SET updated_at = ${this.clock()}, data = ${json} WHERE account_id = ${accountId} AND id = ${id}`);
    if (changes === 0) throw notFound(MESSAGES.requestNotFound);
  }

  /**
   * The data document, its row locked until the transaction ends (PostgreSQL; SQLite has one writer
   * at a time): what parallel branches of a request read to merge their variables into, so no
   * branch's write is lost to another's (the process host). The lock is the one the write that
   * follows takes anyway (NO KEY UPDATE): a join's arrival, whose foreign key checks the row
   * (KEY SHARE), does not wait for it.
   */
  async lockedData(accountId: string, id: string): Promise<Record<string, unknown>> {
    const row = await this.store.get<{ data: string }>(sql`
      SELECT data FROM requests WHERE account_id = ${accountId} AND id = ${id}${this.store.dialect.forNoKeyUpdate}`);
    if (!row) throw notFound(MESSAGES.requestNotFound);
    return fromJson<Record<string, unknown>>(row.data);
  }

  /**
   * A request with the data document the caller holds already (the process host, within a step):
   * every other column is read, the document is neither read nor parsed again.
   */
  async requireWithData(
    accountId: string,
    id: string,
    data: Record<string, unknown>,
  ): Promise<ProcessRequest> {
    const row = await this.store.get<Omit<RequestRow, 'data'>>(sql`
      SELECT ${sql.raw(WITHOUT_DATA)} FROM requests WHERE account_id = ${accountId} AND id = ${id}`);
    if (!row) throw notFound(MESSAGES.requestNotFound);
    return { ...toRequest({ ...row, data: 'null' }), data };
  }

  /**
   * Before the data document of a request whose process step is running changes in the middle of
   * the step, the step's run keeps the document as it was when the step started (once a step: a
   * step that re-runs after its server stopped starts from it, docs/hosts.md). A step whose only
   * write is its last (writeStepData) needs no copy: nothing of it was committed before.
   */
  private async keepStepData(accountId: string, id: string): Promise<void> {
    await this.store.run(sql`
      UPDATE process_runs SET step_data = (SELECT data FROM requests WHERE account_id = ${accountId} AND id = ${id})
      WHERE account_id = ${accountId} AND request_id = ${id} AND step_data IS NULL AND lease_owner IS NOT NULL`);
  }

  /**
   * Changes the status only when it is one of `from`, in one statement: the hosts' guard against
   * two callers moving the same request (two resumes, a resume and a cancel). Undefined when the
   * status was none of them, or the request does not exist. `also`: a statement that runs whatever
   * the status (the process host's release of the request's locks), in the same statement where
   * the engine allows (Dialect.modifyingWith), else before it.
   */
  async transition(
    accountId: string,
    id: string,
    from: readonly number[],
    to: number,
    also?: Sql,
  ): Promise<ProcessRequest | undefined> {
    if (!Number.isSafeInteger(to)) throw new PlatformError('invalid', 'a status is an integer');
    const joined = also !== undefined && this.store.dialect.modifyingWith;
    if (also !== undefined && !joined) await this.store.run(also);
    const row = await this.store.get<RequestRow>(sql`
      ${joined ? sql`WITH released AS (${also}) ` : sql``}UPDATE requests SET status = ${to}, updated_at = ${this.clock()}
      WHERE account_id = ${accountId} AND id = ${id} AND status IN (${sql.join(from)})
      RETURNING *`);
    if (row) countStatus(row.status);
    return row && toRequest(row);
  }
}

const STATUS_LABELS: ReadonlySet<string> = new Set(
  Object.keys(REQUEST_STATUSES).concat(String(STATUS_RUNNING)),
);

/** A status written, for `flowmark_process_requests_total` (a status outside the platform's codes: `other`). */
function countStatus(status: number | string): void {
  const label = String(status);
  metricSinks.requestStatus(STATUS_LABELS.has(label) ? label : 'other');
}

type SummaryRow = Omit<RequestRow, 'data' | 'p_locks'>;

const COLUMNS_BUT_DATA = [
  'account_id',
  'id',
  'project_id',
  'version_id',
  'mode',
  'status',
  'p_locks',
  'p_message',
  'initiator_id',
  'parent_id',
  'created_at',
  'updated_at',
];
const WITHOUT_DATA = COLUMNS_BUT_DATA.join(', ');

function toSummary(row: SummaryRow): RequestSummary {
  return {
    id: row.id,
    accountId: row.account_id,
    projectId: row.project_id,
    versionId: row.version_id,
    mode: storedMode(row.mode),
    status: row.status,
    message: row.p_message,
    initiatorId: row.initiator_id,
    parentId: row.parent_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * A request's columns but its document, each named `r_<column>`, from the row of `alias`: for a
 * statement that reads them beside another table's row (StepRecords.updateReading).
 */
export function requestColumnsAs(alias: string): Sql {
  return prefixedColumns(COLUMNS_BUT_DATA, 'r', alias);
}

/**
 * Writes a request's data document (`json`, checked) returning its other columns: the first part
 * of a step's end in one statement (StepRecords.ending).
 */
export function dataWriteReturning(accountId: string, id: string, json: string, now: number): Sql {
  return sql`UPDATE requests SET updated_at = ${now}, data = ${json} WHERE account_id = ${accountId} AND id = ${id}
    RETURNING ${sql.raw(WITHOUT_DATA)}`;
}

/**
 * A request's end as an entry of a step's end in one statement (Processes.endStep): its status set
 * from running or waiting once the statement's `moved` returned a row, its columns named
 * `f_<column>`; `released` in the same `WITH` releases its locks.
 */
export function finishStatements(
  accountId: string,
  id: string,
  status: number,
  now: number,
  lockOwner: string,
): { finished: Sql; released: Sql } {
  const columns = requestColumnsPrefixed('f');
  return {
    finished: sql`UPDATE requests SET status = ${status}, updated_at = ${now}
      WHERE account_id = ${accountId} AND id = ${id} AND status IN (${STATUS_RUNNING}, ${STATUS_WAITING})
        AND EXISTS (SELECT 1 FROM moved)
      RETURNING ${columns}`,
    released: sql`${releaseAllStatement(accountId, lockOwner)} AND EXISTS (SELECT 1 FROM moved)`,
  };
}

/** Every column of a request, each named `<prefix>_<column>` (read back with returnedRequest, the prefix stripped). */
export function requestColumnsPrefixed(prefix: string): Sql {
  return prefixedColumns([...COLUMNS_BUT_DATA, 'data'], prefix);
}

/** The request an entry of a statement returned (its columns, prefix stripped), its status counted as `create` and `transition` count it. */
export function returnedRequest(row: Row): ProcessRequest {
  const request = toRequest(row as RequestRow);
  countStatus(request.status);
  return request;
}

/** The request such a statement read (its `r_` columns), with the document the caller holds. */
export function requestFromColumns(row: Row, data: Record<string, unknown>): ProcessRequest {
  return { ...toRequest({ ...unprefixed(row, 'r'), data: 'null' } as RequestRow), data };
}

function toRequest(row: RequestRow): ProcessRequest {
  const { message, initiatorId, parentId, createdAt, updatedAt, ...head } = toSummary(row);
  return {
    ...head,
    data: fromJson(row.data),
    locks: fromJson(row.p_locks),
    message,
    initiatorId,
    parentId,
    createdAt,
    updatedAt,
  };
}
