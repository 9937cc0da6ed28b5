/**
 * Managers in organisation charts (get_manager). An organisation is a pool flagged
 * `isOrganization`; its lanes form a tree (parent lane) and a lane may have a manager. The
 * level-1 manager of a user is the manager of their unit (the lowest-id organisation lane they
 * belong to in the LIVE configuration, or manage); when they manage it themselves, or it has no
 * manager, the search climbs to the parent lane. Each further level starts again from the
 * manager just found, at the lane where they were found.
 */
import { sql, type Store } from '../../store/index.js';
import { MESSAGES, notFound, PlatformError } from '../errors.js';
import { toLane, type Lane, type LaneRow } from './lanes.js';

const MAX_CLIMB = 10_000;

export class Organisation {
  constructor(private readonly store: Store) {}

  /** The user id of the `level`-th manager above a user, or `No manager found.` */
  async managerOf(accountId: string, userId: number, level: number): Promise<number> {
    if (!Number.isSafeInteger(level) || level < 1)
      throw new PlatformError('invalid', 'the level must be 1 or more');
    let lane = await this.unitOf(accountId, userId);
    let subject = userId;
    for (let found = 0; found < level; found++) {
      let steps = 0;
      while (lane && (lane.managerId === null || lane.managerId === subject)) {
        if (++steps > MAX_CLIMB) throw notFound(MESSAGES.noManager);
        lane = lane.parentId === null ? undefined : await this.lane(accountId, lane.parentId);
      }
      if (!lane) throw notFound(MESSAGES.noManager);
      subject = lane.managerId!;
    }
    return subject;
  }

  /** The user's unit: the lowest-id organisation lane they are a LIVE member of, or manage. */
  private async unitOf(accountId: string, userId: number): Promise<Lane | undefined> {
    const row = await this.store.get<LaneRow>(sql`
      SELECT l.* FROM lanes l JOIN pools p ON p.id = l.pool_id
      WHERE l.account_id = ${accountId} AND p.is_organization = ${true}
        AND (l.manager_id = ${userId} OR l.id IN (
          SELECT lane_id FROM lane_members WHERE account_id = ${accountId} AND user_id = ${userId} AND mode = ${'LIVE'}))
      ORDER BY l.id LIMIT 1`);
    return row && toLane(row);
  }

  private async lane(accountId: string, id: number): Promise<Lane | undefined> {
    const row = await this.store.get<LaneRow>(
      sql`SELECT * FROM lanes WHERE account_id = ${accountId} AND id = ${id}`,
    );
    return row && toLane(row);
  }
}
