/**
 * The run of a process request: the definition it runs (a version, versions.ts: changing a stored
 * definition does not change requests already started; the row references the version, whose
 * parsed definition each thread keeps in memory), where it is (the cursor), who acts (P_user: the
 * initiator, then whoever submitted the last manual task), how deep it is among sub-processes,
 * and the secret its public task URLs are signed with. The cursor moves by compare-and-set on
 * `version`, so two hosts never run the same step of a request. While the run is `ready` or
 * `running` it holds a lease (leases.ts): each move writes it, moving to a waiting phase clears
 * it. Before the data document changes in the middle of a step, the run keeps it as it was when
 * the step started, to restore if the step re-runs (Requests.update; a step whose one write ends it
 * needs no copy).
 */
import { randomBytes } from 'node:crypto';
import { prefixedColumns, sql, unprefixed, type Row, type Sql, type Store } from '../../store/index.js';
import { notFound } from '../errors.js';
import { fromJson, toJson } from '../model.js';
import { FINAL_STATUSES, STATUS_ABORTED, STATUS_RUNNING, STATUS_WAITING } from '../requests.js';
import type { ProcessDefinition } from './definition.js';
import { type Lease, notDriving } from './leases.js';
import type { ArtefactVersions } from '../versions.js';
import { isRecord } from '../../safety/narrow.js';
import { moveSets, ProcessTokens } from './tokens.js';

/** Every column but the step's data snapshot (read only when a run is resumed). */
const COLUMN_NAMES = [
  'account_id',
  'request_id',
  'definition_id',
  'definition_version_id',
  'cursor',
  'user_id',
  'secret',
  'depth',
  'version',
  'recoveries',
];
const COLUMNS = sql.raw(COLUMN_NAMES.join(', '));
/** The same, each named `m_<column>` (moveAfter). */
const MOVED_COLUMNS = prefixedColumns(COLUMN_NAMES, 'm');
/** The columns a new run is inserted with. */
const INSERTED = sql.raw(
  'account_id, request_id, definition_id, definition_version_id, cursor, user_id, secret, depth, version, lease_owner, lease_expires',
);
/** Where a new run stands unless told: before the first step of its steps. */
export const FIRST_CURSOR: RunCursor = { step: 0, iteration: 0, phase: 'ready' };
/** Key of the HMAC tokens of a new run's public task URLs. */
const newSecret = () => randomBytes(32).toString('base64url');

/** What a new run is stored with. */
export interface NewRunRow {
  requestId: string;
  /** What it runs: a version of a stored definition (its row id), else this definition (kept by content). */
  definition: ProcessDefinition;
  definitionVersionId?: number | null;
  definitionId?: number | null;
  userId: number | null;
  depth: number;
  lease: Lease;
  cursor?: RunCursor;
}

/** A request in one of these does not move on after a step (final statuses, and waiting). */
const BLOCKING_STATUSES = [STATUS_WAITING, ...FINAL_STATUSES];

/**
 * Where a request is. `phase`: ready — the step's iteration is to run; running — a host runs it;
 * task — it waits for its manual task; child — it waits for its sub-process; paused — the script
 * asked to wait (P_set_request_status(102)) and the request waits for a resume; ended.
 */
export interface RunCursor {
  /** Index of the current step in the definition's steps. */
  step: number;
  /** The iteration of the step (0 outside a loop). */
  iteration: number;
  phase: 'ready' | 'running' | 'task' | 'child' | 'paused' | 'timer' | 'idle' | 'ended';
  /** A loop's bound, fixed when its first iteration starts: the count, or the items iterated over. */
  loop?: { count?: number; items?: unknown[] };
  /** The record of the step that waits (task, child). */
  record?: number;
  /** The sub-process request the step waits for. */
  child?: string;
  /** A node of the graph to leave before running (the start event of a graph). */
  at?: string;
  /** The attempt of the step's iteration (retry policy), 0 for the first. */
  attempt?: number;
  /** The branch the running token is on, the waiting tokens, the arrivals at joins (walk.ts). */
  branch?: string;
  tokens?: Token[];
  joins?: Record<string, Record<string, { branch?: string; result: unknown }>>;
  /** Parameters the step sees beside its own (P_branch_xxx after a join, P_error after a boundary event). */
  params?: Record<string, unknown>;
  /** A token a fork sent out: the sequence flow it takes before running, the result its branch carries. */
  flow?: string;
  carry?: unknown;
  /** The run's row once its request forked: its other tokens are rows of their own (tokens.ts). */
  forked?: true;
  /** One instance (its iteration) of a parallel multi-instance step, a token of its own. */
  instance?: true;
}

/** A token waiting to take a sequence flow, on a branch, carrying its branch's last result. */
export interface Token {
  flow: string;
  branch?: string;
  result?: unknown;
}

/** The part of a cursor that says where a request's tokens are. */
export type TokenState = Pick<RunCursor, 'branch' | 'tokens' | 'joins' | 'params'>;

export interface ProcessRun {
  accountId: string;
  requestId: string;
  definitionId: number | null;
  /** The row id of the version of the definition it runs (artefact_versions). */
  definitionVersionId: number;
  /** That version's definition, without its BPMN text (shared between runs: never changed). */
  definition: ProcessDefinition;
  cursor: RunCursor;
  /** The user the steps run as (P_user); null: nobody. */
  userId: number | null;
  /** Key of the HMAC tokens of the request's public task URLs (never shown). */
  secret: string;
  /** 0 for a top-level request, parent's depth + 1 for a sub-process. */
  depth: number;
  version: number;
  /** Times it was resumed after its server or thread stopped while it ran this step. */
  recoveries: number;
  /** A token row of a forked request (tokens.ts); undefined: the run's own row. */
  token?: string;
  /** Tokens the move that returned this run sent out (rows, ready): the mover drives them. */
  spawned?: ProcessRun[];
}

/** Whether a run's request has (or had) parallel tokens: its moves then take the request's token lock. */
export const isForked = (run: ProcessRun): boolean => run.token !== undefined || run.cursor.forked === true;

type RunRow = {
  account_id: string;
  request_id: string;
  definition_id: number | null;
  definition_version_id: number | string;
  cursor: string;
  user_id: number | null;
  secret: string;
  depth: number;
  version: number;
  recoveries: number;
};

/** Parsed definitions kept per version row id (versions never change); the oldest go first. */
const CACHED_DEFINITIONS = 500;

export class ProcessRuns {
  readonly tokens: ProcessTokens;
  private readonly definitions = new Map<number, ProcessDefinition>();
  /**
   * Inline definitions' version rows written by a creation not known to be committed: SQLite
   * gives a rolled-back row's id again, so they are not cached until `committed`.
   */
  private readonly uncommitted = new Set<number>();

  constructor(
    private readonly store: Store,
    private readonly versions: ArtefactVersions,
  ) {
    this.tokens = new ProcessTokens(store);
  }

  /** The definition of a version row: from memory, else read and parsed once. */
  private async definitionOf(accountId: string, versionId: number): Promise<ProcessDefinition> {
    const known = this.definitions.get(versionId);
    if (known) return known;
    // the version's body is a definition parseDefinition wrote when it was saved
    const body = await this.versions.bodyOf<ProcessDefinition>(accountId, versionId);
    if (!isRecord(body)) throw new Error(`process run: definition version ${versionId} not found`);
    const { bpmn: _source, ...definition } = body;
    if (this.uncommitted.has(versionId)) return definition;
    if (this.definitions.size >= CACHED_DEFINITIONS)
      this.definitions.delete(this.definitions.keys().next().value!);
    this.definitions.set(versionId, definition);
    return definition;
  }

  private async toRun(row: RunRow): Promise<ProcessRun> {
    const versionId = Number(row.definition_version_id);
    return {
      accountId: row.account_id,
      requestId: row.request_id,
      definitionId: row.definition_id === null ? null : Number(row.definition_id),
      definitionVersionId: versionId,
      definition: await this.definitionOf(row.account_id, versionId),
      cursor: fromJson(row.cursor),
      userId: row.user_id === null ? null : Number(row.user_id),
      secret: row.secret,
      depth: Number(row.depth),
      version: Number(row.version),
      recoveries: Number(row.recoveries),
    };
  }

  async create(accountId: string, input: NewRunRow): Promise<ProcessRun> {
    const { cursor, versionId } = await this.creating(accountId, input);
    const row = await this.store.get<RunRow>(sql`
      INSERT INTO process_runs (${INSERTED})
      VALUES (${accountId}, ${input.requestId}, ${input.definitionId ?? null}, ${versionId},
              ${toJson(cursor)}, ${input.userId}, ${newSecret()}, ${input.depth}, ${0},
              ${input.lease.owner}, ${input.lease.expires})
      RETURNING ${COLUMNS}`);
    return this.toRun(row!);
  }

  /**
   * `create` as a part of one statement (Processes.createStarted): the run inserted once the
   * entry `after` returned a row (its request), returning its columns named `m_<column>` (read
   * with `inserted`); undefined when its definition is not a stored version yet (`create` keeps
   * it first).
   */
  inserting(accountId: string, input: NewRunRow, after: string): Sql | undefined {
    if (input.definitionVersionId === undefined || input.definitionVersionId === null) return undefined;
    const cursor: RunCursor = input.cursor ?? FIRST_CURSOR;
    // a SELECT's parameters have no column to take their type from
    const { cast } = this.store.dialect;
    return sql`
      INSERT INTO process_runs (${INSERTED})
      SELECT ${accountId}, ${input.requestId}, ${cast(input.definitionId ?? null, 'bigint')},
             ${cast(input.definitionVersionId, 'bigint')}, ${cast(toJson(cursor), 'json')},
             ${cast(input.userId, 'bigint')}, ${newSecret()}, ${cast(input.depth, 'integer')}, ${cast(0, 'integer')},
             ${input.lease.owner}, ${cast(input.lease.expires, 'bigint')}
      FROM ${sql.raw(after)}
      RETURNING ${MOVED_COLUMNS}`;
  }

  /** The run an `inserting` entry or a move (moveAfter) returned, from its `m_` columns; undefined when none. */
  async returned(row: Row): Promise<ProcessRun | undefined> {
    const own = unprefixed(row, 'm');
    return own.version === null || own.version === undefined ? undefined : this.toRun(own as RunRow);
  }

  private async creating(
    accountId: string,
    input: NewRunRow,
  ): Promise<{ cursor: RunCursor; versionId: number }> {
    const cursor: RunCursor = input.cursor ?? FIRST_CURSOR;
    let versionId = input.definitionVersionId;
    if (versionId === undefined || versionId === null) {
      const kept = await this.versions.requestDefinition(accountId, input.definition);
      versionId = kept.id;
      if (kept.inserted) this.uncommitted.add(versionId);
    }
    return { cursor, versionId };
  }

  /** The creation of `run` committed: its definition's version may be cached. */
  committed(run: ProcessRun): void {
    this.uncommitted.delete(run.definitionVersionId);
  }

  async find(accountId: string, requestId: string): Promise<ProcessRun | undefined> {
    const row = await this.store.get<RunRow>(
      sql`SELECT ${COLUMNS} FROM process_runs WHERE account_id = ${accountId} AND request_id = ${requestId}`,
    );
    return row && this.toRun(row);
  }

  async require(accountId: string, requestId: string): Promise<ProcessRun> {
    const run = await this.find(accountId, requestId);
    if (!run) throw notFound('Request not found.');
    return run;
  }

  /**
   * The process of each of these requests that runs one (the request list's column): the name of
   * its definition and, when it was started from a stored definition, that definition's id.
   */
  async processesOf(
    accountId: string,
    requestIds: readonly string[],
  ): Promise<Map<string, { name: string; definitionId: number | null }>> {
    const found = new Map<string, { name: string; definitionId: number | null }>();
    if (requestIds.length === 0) return found;
    const name = this.store.dialect.jsonText(sql.raw('v.body'), ['name']);
    const rows = await this.store.all<{
      request_id: string;
      name: string | null;
      definition_id: number | string | null;
    }>(sql`
      SELECT r.request_id, ${name} AS name, r.definition_id FROM process_runs r
      JOIN artefact_versions v ON v.id = r.definition_version_id
      WHERE r.account_id = ${accountId} AND r.request_id IN (${sql.join([...requestIds])})`);
    for (const row of rows)
      found.set(row.request_id, {
        name: row.name ?? '',
        definitionId: row.definition_id === null ? null : Number(row.definition_id),
      });
    return found;
  }

  /**
   * Moves the cursor (and optionally the acting user) when the run is still at `version`;
   * undefined when another host moved it first. `lease`: the mover's, kept while the run is
   * ready or running (without one the row's lease stays as it is).
   */
  async move(
    run: ProcessRun,
    cursor: RunCursor,
    userId: number | null = run.userId,
    lease?: Lease,
  ): Promise<ProcessRun | undefined> {
    const pending = cursor.tokens ?? [];
    if (pending.length > 0) {
      // A fork: the tokens it sent out beside this one become rows, with this move.
      const { tokens: _t, ...rest } = cursor;
      return this.store.transaction(async () => {
        const moved = await this.move(
          run,
          { ...rest, ...(run.token ? {} : { forked: true as const }) },
          userId,
          lease,
        );
        if (!moved) return undefined;
        const spawned = await this.tokens.spawn(moved, pending, lease ?? { owner: '', expires: 0 });
        return { ...moved, spawned };
      });
    }
    if (run.cursor.forked && !run.token && !cursor.forked) cursor = { ...cursor, forked: true };
    // the tokens of a forked request move side by side: each move locks the request's row first
    if (run.cursor.forked || run.token) await this.lockRequest(run.accountId, run.requestId);
    if (run.token) return this.tokens.move(run, cursor, userId, lease);
    const row = await this.store.get<RunRow>(
      sql`${this.moveOf(run, cursor, userId, lease)} RETURNING ${COLUMNS}`,
    );
    return row && this.toRun(row);
  }

  /**
   * The move of a run that was never forked, as a statement (`move`, and a step's end that moves
   * in the same statement: moveAfter); `where` adds a condition.
   */
  private moveOf(
    run: ProcessRun,
    cursor: RunCursor,
    userId: number | null,
    lease: Lease | undefined,
    where: Sql = sql``,
  ): Sql {
    // a step that starts has changed nothing yet: its copy of the document is taken before its
    // first write in the middle of the step, if it makes one (Requests.update); a forked request's
    // branches write the document at once, so its copy is never restored (runner: resumeLost)
    const starts =
      cursor.phase === 'running' &&
      (run.cursor.phase !== 'running' ||
        cursor.step !== run.cursor.step ||
        cursor.iteration !== run.cursor.iteration);
    // an ended run keeps no copy either (as finish)
    const snapshot = starts || cursor.phase === 'ended' ? sql`, step_data = NULL` : sql``;
    return sql`
      UPDATE process_runs SET cursor = ${toJson(cursor)}, user_id = ${userId}, version = version + 1${moveSets(run, cursor, lease)}${snapshot}
      WHERE account_id = ${run.accountId} AND request_id = ${run.requestId} AND version = ${run.version}${where}`;
  }

  /**
   * A step's end and the move of its run in one statement, where the engine allows data-modifying
   * statements in a WITH (Dialect.modifyingWith): `ending` is that statement's first part, a
   * `WITH … AS (…)` list whose last entry `ended` returns one row with a column `r_status` (the
   * request's status); the run moves only when that status lets it (neither final nor waiting).
   * `after`: more entries, after `moved` (which they may read); those with a `prefix` return at
   * most one row, their columns named `<prefix>_<column>`. The row `ended` returned, the run moved
   * (undefined when it did not: the status, or another server moved it) and the rows of `after`
   * by prefix (undefined when none). Undefined for a forked run, a fork, or an engine without it:
   * the caller makes them one by one.
   */
  async moveAfter<T extends Row>(
    ending: Sql,
    run: ProcessRun,
    cursor: RunCursor,
    userId: number | null,
    lease: Lease,
    after: readonly { name: string; statement: Sql; prefix?: string }[] = [],
  ): Promise<
    { ended: T; moved: ProcessRun | undefined; returned: Record<string, Row | undefined> } | undefined
  > {
    if (!this.store.dialect.modifyingWith || run.token || run.cursor.forked || cursor.tokens?.length)
      return undefined;
    const go = sql` AND EXISTS (SELECT 1 FROM ended WHERE ended.r_status NOT IN (${sql.join(BLOCKING_STATUSES)}))`;
    const more = after.map((a) => sql`, ${sql.raw(a.name)} AS (${a.statement})`);
    const joined = after.filter((a) => a.prefix !== undefined);
    const row = await this.store.get<Row>(sql`
      ${ending}, moved AS (${this.moveOf(run, cursor, userId, lease, go)} RETURNING ${MOVED_COLUMNS})${sql.join(more, '')}
      SELECT ended.*, moved.*${sql.join(
        joined.map((a) => sql`, ${sql.raw(a.name)}.*`),
        '',
      )} FROM ended LEFT JOIN moved ON true${sql.join(
        joined.map((a) => sql` LEFT JOIN ${sql.raw(a.name)} ON true`),
        '',
      )}`);
    if (!row) return undefined;
    const prefixes = ['m', ...joined.map((a) => a.prefix!)].map((p) => `${p}_`);
    const ended: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(row))
      if (!prefixes.some((p) => key.startsWith(p))) ended[key] = value;
    const returned: Record<string, Row | undefined> = {};
    for (const { prefix } of joined) {
      const group = unprefixed(row, prefix!);
      returned[prefix!] = Object.values(group).some((v) => v !== null) ? group : undefined;
    }
    return {
      ended: ended as T,
      moved: await this.returned(row),
      returned,
    };
  }

  /**
   * Marks the run ended whatever its version (a request that ended, failed or was cancelled);
   * `current`: the run as the caller's transaction last wrote it (not read again).
   */
  async finish(accountId: string, requestId: string, current?: ProcessRun): Promise<void> {
    const run = current ?? (await this.require(accountId, requestId));
    await this.store.run(sql`
      UPDATE process_runs SET cursor = ${toJson({ ...run.cursor, phase: 'ended' })}, version = version + 1,
        lease_owner = NULL, lease_expires = NULL, step_data = NULL
      WHERE account_id = ${accountId} AND request_id = ${requestId}`);
    if (run.cursor.forked) await this.tokens.clear(accountId, requestId);
  }

  /**
   * Locks the request's tokens until the transaction ends (the request's row, then the run's row, on
   * PostgreSQL; SQLite's write transaction holds the database): joins, ends and waits of tokens are
   * decided one at a time.
   */
  async lockTokens(accountId: string, requestId: string): Promise<ProcessRun> {
    await this.lockRequest(accountId, requestId);
    const row = await this.store.get<RunRow>(sql`
      SELECT ${COLUMNS} FROM process_runs WHERE account_id = ${accountId} AND request_id = ${requestId}${this.store.dialect.forUpdate}`);
    if (!row) throw notFound('Request not found.');
    return this.toRun(row);
  }

  /**
   * Locks the request's row until the transaction ends (PostgreSQL; nothing on SQLite). One order
   * for every process transaction: the request's row before its run's, and the run's before its
   * token rows (a step's end writes the document, then moves its token). Two transactions of one
   * request (two branches, a branch and a cancel) then never wait on each other in a circle, a
   * deadlock PostgreSQL would end by rolling one back. A transaction that writes a run or a token
   * row before the request's row takes this lock first.
   */
  async lockRequest(accountId: string, requestId: string): Promise<void> {
    if (!this.store.dialect.locksRows) return;
    await this.store.get(sql`
      SELECT 1 FROM requests WHERE account_id = ${accountId} AND id = ${requestId}${this.store.dialect.forNoKeyUpdate}`);
  }

  /** A token of the request: its run's row (undefined token) or a token row. */
  async token(accountId: string, requestId: string, token?: string): Promise<ProcessRun | undefined> {
    const main = await this.find(accountId, requestId);
    if (!main || token === undefined) return main;
    return this.tokens.find(main, token);
  }

  /** Every token of the request: the run's row, then the token rows of a forked request. */
  async allTokens(accountId: string, requestId: string): Promise<ProcessRun[]> {
    const main = await this.find(accountId, requestId);
    if (!main) return [];
    return main.cursor.forked ? [main, ...(await this.tokens.list(main))] : [main];
  }

  /** Takes the run's lease whatever its phase (work owed on it: a request a timer ended). */
  async lease(accountId: string, requestId: string, lease: Lease): Promise<void> {
    await this.store.run(sql`
      UPDATE process_runs SET lease_owner = ${lease.owner}, lease_expires = ${lease.expires}, version = version + 1
      WHERE account_id = ${accountId} AND request_id = ${requestId}`);
  }

  /**
   * Claims up to `limit` runs whose lease expired before `now` (their server died or stalled):
   * one conditional UPDATE, so two sweepers never claim the same run (the dialect's `skipLocked`).
   */
  /**
   * Claims the runs and token rows whose lease expired, but for those of the requests `driving`
   * that `lease.owner` still drives (LeaseKeeper.driving).
   */
  async claimExpired(
    lease: Lease,
    now: number,
    limit: number,
    driving: readonly string[] = [],
  ): Promise<ProcessRun[]> {
    // runs and token rows in one transaction: a sweep costs what it did before tokens were rows
    return this.store.transaction(() => this.claimExpiredRows(lease, now, limit, driving));
  }

  private async claimExpiredRows(
    lease: Lease,
    now: number,
    limit: number,
    driving: readonly string[],
  ): Promise<ProcessRun[]> {
    const rows = await this.store.all<RunRow>(sql`
      UPDATE process_runs SET lease_owner = ${lease.owner}, lease_expires = ${lease.expires}, version = version + 1,
        recoveries = recoveries + 1
      WHERE lease_expires < ${now} AND request_id IN (
        SELECT request_id FROM process_runs WHERE lease_expires < ${now}${notDriving(lease, driving)}
        ORDER BY lease_expires LIMIT ${limit}${this.store.dialect.skipLocked})
      RETURNING ${COLUMNS}`);
    const runs = await Promise.all(rows.map((row) => this.toRun(row)));
    const tokens = await this.tokens.claimExpired(lease, now, limit, driving);
    for (const { accountId, requestId, row } of tokens) {
      const main = await this.find(accountId, requestId);
      if (main) {
        const token = await this.tokens.find(main, row.id);
        if (token) runs.push(token);
      }
    }
    return runs;
  }

  /**
   * Ends (301, with `message`) the running requests created before `before` that have no run: a
   * server of an older version stopped between writing a request and its run, and such a request
   * has no lease for a sweeper to find. Requests of other origins (the demo's, which name a project
   * version) are left alone. Returns the requests ended.
   */
  async endOrphans(
    before: number,
    now: number,
    message: string,
  ): Promise<Array<{ accountId: string; id: string }>> {
    const rows = await this.store.all<{ account_id: string; id: string }>(sql`
      UPDATE requests SET status = ${STATUS_ABORTED}, p_message = ${message}, updated_at = ${now}
      WHERE status = ${STATUS_RUNNING} AND version_id IS NULL AND created_at < ${before}
        AND NOT EXISTS (SELECT 1 FROM process_runs r
                        WHERE r.account_id = requests.account_id AND r.request_id = requests.id)
      RETURNING account_id, id`);
    return rows.map((r) => ({ accountId: r.account_id, id: r.id }));
  }

  /** Extends the leases `owner` holds on these requests. */
  async renew(requestIds: readonly string[], lease: Lease): Promise<void> {
    if (requestIds.length === 0) return;
    await this.store.transaction(() => this.renewRows(requestIds, lease));
  }

  private async renewRows(requestIds: readonly string[], lease: Lease): Promise<void> {
    await this.store.run(sql`
      UPDATE process_runs SET lease_expires = ${lease.expires}
      WHERE lease_owner = ${lease.owner} AND lease_expires IS NOT NULL AND request_id IN (${sql.join(requestIds)})`);
    await this.tokens.renew(requestIds, lease);
  }

  /** The data document as it was when the current step started running, if kept. */
  async stepData(accountId: string, requestId: string): Promise<Record<string, unknown> | undefined> {
    const row = await this.store.get<{ step_data: string | null }>(
      sql`SELECT step_data FROM process_runs WHERE account_id = ${accountId} AND request_id = ${requestId}`,
    );
    return row?.step_data == null ? undefined : fromJson(row.step_data);
  }
}
