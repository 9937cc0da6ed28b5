/**
 * The tokens of a request's parallel branches beyond the run's own (docs/hosts.md, "Tokens, joins
 * and recovery"): one `process_tokens` row each, with its cursor, version (compare-and-set) and
 * lease, so that each branch is claimed, run and resumed on its own; and the arrivals of tokens at
 * joins (`process_join_arrivals`, unique per join and incoming flow or branch). The run's row
 * stays the request's first token and keeps what every token shares (definition, secret, depth).
 */
import { randomBytes } from 'node:crypto';
import { sql, type Store } from '../../store/index.js';
import { fromJson, toJson } from '../model.js';
import { type Lease, notDriving } from './leases.js';
import type { ProcessRun, RunCursor, Token } from './runs.js';

const COLUMNS = sql.raw('id, cursor, user_id, version, recoveries');

type TokenRow = { id: string; cursor: string; user_id: number | null; version: number; recoveries: number };

/** A token waiting at a join: its branch and the result its branch carries. */
export interface JoinArrival {
  node: string;
  arrival: string;
  branch?: string;
  result: unknown;
}

/**
 * What a cursor's move sets besides the cursor, on a run's row or a token's: the lease (taken
 * while ready or running, cleared otherwise) and, when a new step or iteration starts, the count
 * of recoveries from 0.
 */
export function moveSets(run: { cursor: RunCursor }, cursor: RunCursor, lease: Lease | undefined) {
  const active = cursor.phase === 'ready' || cursor.phase === 'running';
  const leaseSet = !active
    ? sql`, lease_owner = NULL, lease_expires = NULL`
    : lease
      ? sql`, lease_owner = ${lease.owner}, lease_expires = ${lease.expires}`
      : sql``;
  const recoveries =
    cursor.step !== run.cursor.step || cursor.iteration !== run.cursor.iteration
      ? sql`, recoveries = 0`
      : sql``;
  return sql`${leaseSet}${recoveries}`;
}

export class ProcessTokens {
  constructor(private readonly store: Store) {}

  /** New rows for tokens a fork sent out, `ready` to take their flow, leased to the forking server. */
  async spawn(run: ProcessRun, tokens: readonly Token[], lease: Lease): Promise<ProcessRun[]> {
    const cursors = tokens.map((token): RunCursor => ({
      step: run.cursor.step,
      iteration: 0,
      phase: 'ready',
      flow: token.flow,
      ...(token.branch !== undefined ? { branch: token.branch } : {}),
      ...(token.result !== undefined ? { carry: token.result } : {}),
    }));
    return this.spawnAt(run, cursors, lease);
  }

  /** New rows for tokens with these cursors (a parallel multi-instance's instances), leased to the caller. */
  async spawnAt(run: ProcessRun, cursors: readonly RunCursor[], lease: Lease): Promise<ProcessRun[]> {
    const spawned: ProcessRun[] = [];
    for (const cursor of cursors) {
      const id = randomBytes(9).toString('base64url');
      await this.store.run(sql`
        INSERT INTO process_tokens (account_id, request_id, id, cursor, user_id, version, lease_owner, lease_expires)
        VALUES (${run.accountId}, ${run.requestId}, ${id}, ${toJson(cursor)}, ${run.userId}, ${0},
                ${lease.owner}, ${lease.expires})`);
      spawned.push({ ...run, token: id, cursor, version: 0, recoveries: 0 });
    }
    return spawned;
  }

  async find(main: ProcessRun, id: string): Promise<ProcessRun | undefined> {
    const row = await this.store.get<TokenRow>(sql`
      SELECT ${COLUMNS} FROM process_tokens
      WHERE account_id = ${main.accountId} AND request_id = ${main.requestId} AND id = ${id}`);
    return row && withRow(main, row);
  }

  /** Every token row of the request. */
  async list(main: ProcessRun): Promise<ProcessRun[]> {
    const rows = await this.store.all<TokenRow>(sql`
      SELECT ${COLUMNS} FROM process_tokens
      WHERE account_id = ${main.accountId} AND request_id = ${main.requestId} ORDER BY id`);
    return rows.map((r) => withRow(main, r));
  }

  /** Compare-and-set of a token's cursor, as ProcessRuns.move. */
  async move(run: ProcessRun, cursor: RunCursor, userId: number | null, lease?: Lease) {
    const row = await this.store.get<TokenRow>(sql`
      UPDATE process_tokens SET cursor = ${toJson(cursor)}, user_id = ${userId}, version = version + 1${moveSets(run, cursor, lease)}
      WHERE account_id = ${run.accountId} AND request_id = ${run.requestId} AND id = ${run.token!}
        AND version = ${run.version}
      RETURNING ${COLUMNS}`);
    return row && withRow(run, row);
  }

  /** Ends a token (compare-and-set): false when it had moved or ended meanwhile. */
  async drop(run: ProcessRun): Promise<boolean> {
    const row = await this.store.get(sql`
      DELETE FROM process_tokens
      WHERE account_id = ${run.accountId} AND request_id = ${run.requestId} AND id = ${run.token!}
        AND version = ${run.version}
      RETURNING id`);
    return row !== undefined;
  }

  /** Ends every token and arrival of a request (it ended). */
  async clear(accountId: string, requestId: string): Promise<void> {
    await this.store.run(
      sql`DELETE FROM process_tokens WHERE account_id = ${accountId} AND request_id = ${requestId}`,
    );
    await this.store.run(
      sql`DELETE FROM process_join_arrivals WHERE account_id = ${accountId} AND request_id = ${requestId}`,
    );
  }

  /** Claims token rows whose lease expired, as ProcessRuns.claimExpired: their ids. */
  async claimExpired(
    lease: Lease,
    now: number,
    limit: number,
    driving: readonly string[],
  ): Promise<Array<{ accountId: string; requestId: string; row: TokenRow }>> {
    const rows = await this.store.all<TokenRow & { account_id: string; request_id: string }>(sql`
      UPDATE process_tokens SET lease_owner = ${lease.owner}, lease_expires = ${lease.expires}, version = version + 1,
        recoveries = recoveries + 1
      WHERE lease_expires < ${now} AND id IN (
        SELECT id FROM process_tokens WHERE lease_expires < ${now}${notDriving(lease, driving)}
        ORDER BY lease_expires LIMIT ${limit}${this.store.dialect.skipLocked})
      RETURNING account_id, request_id, ${COLUMNS}`);
    return rows.map((row) => ({ accountId: row.account_id, requestId: row.request_id, row }));
  }

  async renew(requestIds: readonly string[], lease: Lease): Promise<void> {
    await this.store.run(sql`
      UPDATE process_tokens SET lease_expires = ${lease.expires}
      WHERE lease_owner = ${lease.owner} AND lease_expires IS NOT NULL AND request_id IN (${sql.join(requestIds)})`);
  }

  /** Records a token's arrival at a join; a second arrival on the same flow (or branch) is refused by the key. */
  async arrive(accountId: string, requestId: string, arrival: JoinArrival): Promise<void> {
    await this.store.run(sql`
      INSERT INTO process_join_arrivals (account_id, request_id, node, arrival, branch, result, seq)
      VALUES (${accountId}, ${requestId}, ${arrival.node}, ${arrival.arrival}, ${arrival.branch ?? null},
              ${toJson(arrival.result ?? null)}, ${Date.now()})`);
  }

  /** The arrivals waiting at the request's joins, in the order they came. */
  async arrivals(accountId: string, requestId: string): Promise<JoinArrival[]> {
    const rows = await this.store.all<{
      node: string;
      arrival: string;
      branch: string | null;
      result: string;
    }>(sql`
      SELECT node, arrival, branch, result FROM process_join_arrivals
      WHERE account_id = ${accountId} AND request_id = ${requestId} ORDER BY seq, arrival`);
    return rows.map((r) => ({
      node: r.node,
      arrival: r.arrival,
      ...(r.branch !== null ? { branch: r.branch } : {}),
      result: fromJson(r.result),
    }));
  }

  /** A join went on: its arrivals are consumed. */
  async consume(accountId: string, requestId: string, node: string): Promise<void> {
    await this.store.run(sql`
      DELETE FROM process_join_arrivals
      WHERE account_id = ${accountId} AND request_id = ${requestId} AND node = ${node}`);
  }
}

function withRow(main: ProcessRun, row: TokenRow): ProcessRun {
  return {
    ...main,
    token: row.id,
    cursor: fromJson(row.cursor),
    userId: row.user_id === null ? null : Number(row.user_id),
    version: Number(row.version),
    recoveries: Number(row.recoveries),
  };
}
