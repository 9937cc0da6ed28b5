/**
 * Lane rules and lane jobs. A lane may carry a rule: a MongoDB-style filter over its account's
 * users ({login, email, name, profile, status, language, isAdmin, metadata}); the users matching
 * it are the lane's computed LIVE members (source `rule`). Setting a rule, or creating or
 * changing a user while rules exist, queues membership recomputations (lane jobs) that a worker
 * runs (`run`); get_lane_job_number counts a lane's pending ones (0 = membership up to date).
 */
import type { Query } from 'mingo';
import { sql, type Store } from '../../store/index.js';
import { PlatformError } from '../errors.js';
import { isForbiddenKey, isPlainObject, toJson, toJsonObject } from '../model.js';
import { toLane, type Lane, type LaneRow, type Lanes } from './lanes.js';
import { USER_COLUMNS, toUser, type User, type UserRow } from './users.js';
import { errorMessage } from '../../errors/index.js';

const SCRIPT_OPERATORS = new Set(['$where', '$function', '$accumulator', '$expr']);
const USER_BATCH = 500;

type JobRow = {
  id: number;
  lane_id: number;
  user_id: number | null;
};

export class LaneJobs {
  constructor(
    private readonly store: Store,
    private readonly lanes: Lanes,
    private readonly clock: () => number,
  ) {}

  /** Sets (or with null removes) a lane's rule and queues the recomputation of its membership. */
  async setRule(accountId: string, laneId: number, rule: Record<string, unknown> | null): Promise<Lane> {
    const lane = await this.lanes.require(accountId, laneId);
    if (lane.runtime && rule !== null)
      throw new PlatformError(
        'invalid',
        `lane ${laneId} is a runtime lane: its users come from scripts, not a rule`,
      );
    const checked = rule === null ? null : (await compileRule(rule)).rule;
    return this.store.transaction(async (tx) => {
      const row = await tx.get<LaneRow>(sql`
        UPDATE lanes SET rule = ${checked === null ? null : toJson(checked)}
        WHERE account_id = ${accountId} AND id = ${laneId} RETURNING *`);
      await tx.run(sql`INSERT INTO lane_jobs (account_id, lane_id, user_id, created_at)
                       VALUES (${accountId}, ${laneId}, ${null}, ${this.clock()})`);
      return toLane(row!);
    });
  }

  /** Queues, for every lane of the account that has a rule, the recomputation of one user's membership. */
  async userChanged(accountId: string, userId: number): Promise<void> {
    await this.store.run(sql`
      INSERT INTO lane_jobs (account_id, lane_id, user_id, created_at)
      SELECT account_id, id, ${userId}, ${this.clock()} FROM lanes WHERE account_id = ${accountId} AND rule IS NOT NULL`);
  }

  /** get_lane_job_number: the lane's pending recomputations. */
  async pending(accountId: string, laneId: number): Promise<number> {
    const row = await this.store.get<{ n: number }>(
      sql`SELECT COUNT(*) AS n FROM lane_jobs WHERE account_id = ${accountId} AND lane_id = ${laneId}`,
    );
    return Number(row?.n ?? 0);
  }

  /**
   * Runs up to `max` pending jobs, oldest first (of one account, or of all), and returns how many
   * ran. A job is idempotent, so two workers running the same one do no harm.
   */
  async run(options: { accountId?: string; max?: number } = {}): Promise<number> {
    const jobs = await this.store.all<JobRow & { account_id: string }>(sql`
      SELECT id, account_id, lane_id, user_id FROM lane_jobs
      ${options.accountId === undefined ? sql`` : sql`WHERE account_id = ${options.accountId}`}
      ORDER BY id LIMIT ${options.max ?? 100}`);
    for (const job of jobs) {
      await this.store.transaction(async (tx) => {
        const lane = await this.lanes.find(job.account_id, job.lane_id);
        if (lane) {
          if (job.user_id === null) await this.recomputeLane(lane);
          else await this.recomputeUser(lane, job.user_id);
        }
        await tx.run(sql`DELETE FROM lane_jobs WHERE id = ${job.id}`);
      });
    }
    return jobs.length;
  }

  /**
   * Runs pending jobs every `intervalMs` (never two runs at once) until the returned stop is
   * called; for a server process. Errors are given to `onError` and the worker goes on.
   */
  runPeriodically(intervalMs: number, onError: (error: unknown) => void = () => {}): () => void {
    let running = false;
    const timer = setInterval(async () => {
      if (running) return;
      running = true;
      try {
        while ((await this.run({ max: 100 })) === 100);
      } catch (e) {
        onError(e);
      } finally {
        running = false;
      }
    }, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  private async recomputeLane(lane: Lane): Promise<void> {
    await this.store.run(sql`
      DELETE FROM lane_members WHERE account_id = ${lane.accountId} AND lane_id = ${lane.id} AND source = ${'rule'}`);
    if (!lane.rule) return;
    const query = (await compileRule(lane.rule)).query;
    for (let after = 0; ;) {
      const rows = await this.store.all<UserRow>(sql`
        SELECT ${USER_COLUMNS} FROM users WHERE account_id = ${lane.accountId} AND id > ${after}
        ORDER BY id LIMIT ${USER_BATCH}`);
      if (rows.length === 0) break;
      for (const user of rows.map(toUser))
        if (query.test(ruleSubject(user))) await this.addRuleMember(lane, user.id);
      after = rows[rows.length - 1]!.id;
    }
  }

  private async recomputeUser(lane: Lane, userId: number): Promise<void> {
    const row = await this.store.get<UserRow>(
      sql`SELECT ${USER_COLUMNS} FROM users WHERE account_id = ${lane.accountId} AND id = ${userId}`,
    );
    const matches =
      row !== undefined &&
      lane.rule !== null &&
      (await compileRule(lane.rule)).query.test(ruleSubject(toUser(row)));
    if (matches) await this.addRuleMember(lane, userId);
    else
      await this.store.run(sql`
        DELETE FROM lane_members WHERE account_id = ${lane.accountId} AND lane_id = ${lane.id}
          AND user_id = ${userId} AND source = ${'rule'}`);
  }

  private async addRuleMember(lane: Lane, userId: number): Promise<void> {
    await this.store.run(sql`
      INSERT INTO lane_members (account_id, lane_id, mode, user_id, source, added_at)
      VALUES (${lane.accountId}, ${lane.id}, ${'LIVE'}, ${userId}, ${'rule'}, ${this.clock()})
      ON CONFLICT (lane_id, mode, user_id, source) DO NOTHING`);
  }
}

/** What a lane rule is matched against. */
function ruleSubject(user: User): Record<string, unknown> {
  return {
    id: user.id,
    login: user.login,
    email: user.email,
    name: user.name,
    profile: user.profile,
    status: user.status,
    language: user.language,
    isAdmin: user.isAdmin,
    metadata: user.metadata,
  };
}

/** Checks a rule (no script operator, no prototype key) and compiles it (mingo is loaded on first use). */
async function compileRule(rule: unknown): Promise<{ rule: Record<string, unknown>; query: Query }> {
  if (!isPlainObject(rule)) throw new PlatformError('invalid', 'a lane rule must be an object');
  const copy = toJsonObject(rule, 'the lane rule');
  checkRule(copy);
  const { Query } = await import('mingo');
  try {
    return { rule: copy, query: new Query(copy, { scriptEnabled: false }) };
  } catch (e) {
    throw new PlatformError('invalid', `invalid lane rule: ${errorMessage(e)}`);
  }
}

function checkRule(value: unknown): void {
  if (Array.isArray(value)) return value.forEach(checkRule);
  if (!isPlainObject(value)) return;
  for (const [key, inner] of Object.entries(value)) {
    if (SCRIPT_OPERATORS.has(key))
      throw new PlatformError('not-allowed', `operator ${key} is not allowed in a lane rule`);
    if (key.split('.').some(isForbiddenKey))
      throw new PlatformError('not-allowed', `field ${key} is not allowed in a lane rule`);
    checkRule(inner);
  }
}
