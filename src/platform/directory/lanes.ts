/**
 * Pools and their lanes, and who is in a lane. Membership is kept per lane mode (LIVE,
 * ACCEPTANCE) and per source: `manual` (P_add_user_to_lane, the console) or `rule` (computed from
 * the lane's rule by lane jobs, see jobs.ts). A user is in a lane when either source has them.
 * Organisation pools arrange their lanes in a hierarchy (parent lane, manager), see organisation.ts.
 */
import type { Store } from '../../store/index.js';
import { sql } from '../../store/sql.js';
import { MESSAGES, notFound, PlatformError, userNotFound } from '../errors.js';
import {
  DEFAULT_CONTENTION,
  fromJson,
  withContentionRetry,
  type ContentionPolicy,
  type LaneMode,
} from '../model.js';
import { prefixed, toUser, type User, type UserRow } from './users.js';

export interface Pool {
  id: number;
  accountId: string;
  name: string;
  /** Its lanes form an organisation chart (get_manager searches only these). */
  isOrganization: boolean;
  createdAt: number;
}

export interface Lane {
  id: number;
  accountId: string;
  poolId: number;
  name: string;
  /** Organisation pools: the lane above this one. */
  parentId: number | null;
  /** Organisation pools: the user managing this lane. */
  managerId: number | null;
  /** A MongoDB-style filter over users computing LIVE membership (see jobs.ts), or null. */
  rule: Record<string, unknown> | null;
  /** A runtime lane: empty until scripts add users (P_add_user_to_lane); fixed at creation. */
  runtime: boolean;
  createdAt: number;
}

export interface NewLane {
  name: string;
  parentId?: number | null;
  managerId?: number | null;
  runtime?: boolean;
}

type PoolRow = {
  id: number;
  account_id: string;
  name: string;
  is_organization: unknown;
  created_at: number;
};

export type LaneRow = {
  id: number;
  account_id: string;
  pool_id: number;
  name: string;
  parent_id: number | null;
  manager_id: number | null;
  rule: string | null;
  runtime: unknown;
  created_at: number;
};

export type MembershipSource = 'manual' | 'rule';

/** Most users one page of get_lane_users may return. */
export const MAX_PAGE_SIZE = 1000;

export class Lanes {
  constructor(
    private readonly store: Store,
    private readonly clock: () => number,
    private readonly contention: ContentionPolicy = DEFAULT_CONTENTION,
  ) {}

  async createPool(accountId: string, input: { name: string; isOrganization?: boolean }): Promise<Pool> {
    const row = await this.store.get<PoolRow>(sql`
      INSERT INTO pools (account_id, name, is_organization, created_at)
      VALUES (${accountId}, ${checkName(input.name)}, ${input.isOrganization ?? false}, ${this.clock()})
      RETURNING *`);
    return toPool(row!);
  }

  async findPool(accountId: string, id: number): Promise<Pool | undefined> {
    const row = await this.store.get<PoolRow>(
      sql`SELECT * FROM pools WHERE account_id = ${accountId} AND id = ${id}`,
    );
    return row && toPool(row);
  }

  async requirePool(accountId: string, id: number): Promise<Pool> {
    const pool = await this.findPool(accountId, id);
    if (!pool) throw notFound(MESSAGES.poolNotFound);
    return pool;
  }

  async listPools(accountId: string): Promise<Pool[]> {
    const rows = await this.store.all<PoolRow>(
      sql`SELECT * FROM pools WHERE account_id = ${accountId} ORDER BY id`,
    );
    return rows.map(toPool);
  }

  async createLane(accountId: string, poolId: number, input: NewLane): Promise<Lane> {
    await this.requirePool(accountId, poolId);
    if (input.parentId != null) await this.requireInPool(accountId, poolId, input.parentId);
    if (input.managerId != null) await this.requireUser(accountId, input.managerId);
    const row = await this.store.get<LaneRow>(sql`
      INSERT INTO lanes (account_id, pool_id, name, parent_id, manager_id, rule, runtime, created_at)
      VALUES (${accountId}, ${poolId}, ${checkName(input.name)}, ${input.parentId ?? null},
              ${input.managerId ?? null}, ${null}, ${input.runtime ?? false}, ${this.clock()})
      RETURNING *`);
    return toLane(row!);
  }

  /** Moves a lane in its organisation chart or changes its manager. */
  async updateLane(
    accountId: string,
    laneId: number,
    changes: { name?: string; parentId?: number | null; managerId?: number | null },
  ): Promise<Lane> {
    const lane = await this.require(accountId, laneId);
    const sets = [];
    if (changes.name !== undefined) sets.push(sql`name = ${checkName(changes.name)}`);
    if (changes.parentId !== undefined) {
      if (changes.parentId !== null) await this.checkParent(accountId, lane, changes.parentId);
      sets.push(sql`parent_id = ${changes.parentId}`);
    }
    if (changes.managerId !== undefined) {
      if (changes.managerId !== null) await this.requireUser(accountId, changes.managerId);
      sets.push(sql`manager_id = ${changes.managerId}`);
    }
    if (sets.length === 0) return lane;
    const row = await this.store.get<LaneRow>(
      sql`UPDATE lanes SET ${sql.join(sets)} WHERE account_id = ${accountId} AND id = ${laneId} RETURNING *`,
    );
    return toLane(row!);
  }

  async find(accountId: string, laneId: number): Promise<Lane | undefined> {
    const row = await this.store.get<LaneRow>(
      sql`SELECT * FROM lanes WHERE account_id = ${accountId} AND id = ${laneId}`,
    );
    return row && toLane(row);
  }

  /** A lane of the account, or `Lane not found.` */
  async require(accountId: string, laneId: number): Promise<Lane> {
    const lane = await this.find(accountId, laneId);
    if (!lane) throw notFound(MESSAGES.laneNotFound);
    return lane;
  }

  async listLanes(accountId: string, poolId?: number): Promise<Lane[]> {
    const rows = await this.store.all<LaneRow>(sql`
      SELECT * FROM lanes WHERE account_id = ${accountId}
      ${poolId === undefined ? sql`` : sql`AND pool_id = ${poolId}`} ORDER BY id`);
    return rows.map(toLane);
  }

  /**
   * Adds a user to a lane (manual membership) and returns the lane's user ids. One idempotent
   * statement; a transient engine conflict is retried (the spec's contention error after that).
   */
  async addMember(accountId: string, laneId: number, mode: LaneMode, userId: number): Promise<number[]> {
    await this.require(accountId, laneId);
    await this.requireUser(accountId, userId);
    await withContentionRetry(
      this.store,
      () =>
        this.store.run(sql`
        INSERT INTO lane_members (account_id, lane_id, mode, user_id, source, added_at)
        VALUES (${accountId}, ${laneId}, ${mode}, ${userId}, ${'manual'}, ${this.clock()})
        ON CONFLICT (lane_id, mode, user_id, source) DO NOTHING`),
      this.contention,
    );
    return this.memberIds(accountId, laneId, mode);
  }

  /** Removes a user's manual membership of a lane and returns the lane's user ids. */
  async removeMember(accountId: string, laneId: number, mode: LaneMode, userId: number): Promise<number[]> {
    await this.require(accountId, laneId);
    await this.requireUser(accountId, userId);
    await withContentionRetry(
      this.store,
      () =>
        this.store.run(sql`
        DELETE FROM lane_members WHERE account_id = ${accountId} AND lane_id = ${laneId} AND mode = ${mode}
          AND user_id = ${userId} AND source = ${'manual'}`),
      this.contention,
    );
    return this.memberIds(accountId, laneId, mode);
  }

  /** The ids of a lane's users in a mode, ascending. */
  async memberIds(accountId: string, laneId: number, mode: LaneMode): Promise<number[]> {
    const rows = await this.store.all<{ user_id: number }>(sql`
      SELECT DISTINCT user_id FROM lane_members
      WHERE account_id = ${accountId} AND lane_id = ${laneId} AND mode = ${mode} ORDER BY user_id`);
    return rows.map((r) => r.user_id);
  }

  /** One page of a lane's users in a mode, by id. */
  async members(
    accountId: string,
    laneId: number,
    mode: LaneMode,
    page: { first: number; limit: number },
  ): Promise<User[]> {
    const rows = await this.store.all<UserRow>(sql`
      SELECT ${sql.raw(prefixed('u'))} FROM users u
      WHERE u.account_id = ${accountId} AND u.id IN (
        SELECT user_id FROM lane_members WHERE account_id = ${accountId} AND lane_id = ${laneId} AND mode = ${mode})
      ORDER BY u.id LIMIT ${Math.min(page.limit, MAX_PAGE_SIZE)} OFFSET ${page.first}`);
    return rows.map(toUser);
  }

  /** The lanes a user is in, in a mode, by lane id. */
  async lanesOf(accountId: string, userId: number, mode: LaneMode): Promise<Lane[]> {
    const rows = await this.store.all<LaneRow>(sql`
      SELECT * FROM lanes WHERE account_id = ${accountId} AND id IN (
        SELECT lane_id FROM lane_members WHERE account_id = ${accountId} AND user_id = ${userId} AND mode = ${mode})
      ORDER BY id`);
    return rows.map(toLane);
  }

  /** True when the user is in at least one of the lanes, in a mode. */
  async isInAnyLane(
    accountId: string,
    userId: number,
    laneIds: readonly number[],
    mode: LaneMode,
  ): Promise<boolean> {
    const ids = laneIds.filter((id) => Number.isSafeInteger(id));
    if (ids.length === 0) return false;
    const row = await this.store.get(sql`
      SELECT 1 AS found FROM lane_members
      WHERE account_id = ${accountId} AND user_id = ${userId} AND mode = ${mode} AND lane_id IN (${sql.join(ids)})
      LIMIT 1`);
    return row !== undefined;
  }

  private async requireInPool(accountId: string, poolId: number, laneId: number): Promise<Lane> {
    const lane = await this.require(accountId, laneId);
    if (lane.poolId !== poolId) throw new PlatformError('invalid', `lane ${laneId} is not in pool ${poolId}`);
    return lane;
  }

  private async checkParent(accountId: string, lane: Lane, parentId: number): Promise<void> {
    await this.requireInPool(accountId, lane.poolId, parentId);
    // Refuse cycles: the new parent may not be the lane itself or below it.
    for (let id: number | null = parentId, steps = 0; id !== null; steps++) {
      if (id === lane.id || steps > 10_000)
        throw new PlatformError(
          'invalid',
          `lane ${parentId} is below lane ${lane.id}: no cycles in an organisation`,
        );
      id = (await this.require(accountId, id)).parentId;
    }
  }

  private async requireUser(accountId: string, userId: number): Promise<void> {
    const row = await this.store.get(
      sql`SELECT id FROM users WHERE account_id = ${accountId} AND id = ${userId}`,
    );
    if (!row) throw userNotFound(userId);
  }
}

function checkName(name: string): string {
  const text = String(name).trim();
  if (text === '' || text.length > 255)
    throw new PlatformError('invalid', `invalid name ${JSON.stringify(name)}`);
  return text;
}

function toPool(row: PoolRow): Pool {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    isOrganization: Boolean(row.is_organization),
    createdAt: row.created_at,
  };
}

export function toLane(row: LaneRow): Lane {
  return {
    id: row.id,
    accountId: row.account_id,
    poolId: row.pool_id,
    name: row.name,
    parentId: row.parent_id,
    managerId: row.manager_id,
    rule: fromJson(row.rule),
    runtime: Boolean(row.runtime),
    createdAt: row.created_at,
  };
}
