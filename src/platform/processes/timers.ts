/**
 * The timers of manual tasks (docs/hosts.md, "Deadlines and reminders"): one row per deadline or
 * reminder, due at an epoch-ms time. A timer fires once: `markFired` is a conditional UPDATE
 * made in the same transaction as the timer's effect, so of two servers only one fires it, and a
 * server that dies before its commit leaves it to the next.
 */
import { sql, type Store } from '../../store/index.js';
import type { TaskRef } from './tasks.js';
import { oneOf } from '../../safety/narrow.js';

/** `wait`: an intermediate timer catch event (its node id in `message`); `boundary`: a timer boundary event (`<record>:<node id>`). */
export const TIMER_KINDS = ['deadline', 'reminder', 'wait', 'boundary'] as const;
export type TimerKind = (typeof TIMER_KINDS)[number];

export interface ProcessTimer {
  id: number;
  accountId: string;
  requestId: string;
  stepId: number;
  iteration: number;
  kind: TimerKind;
  dueAt: number;
  /** A reminder's template. */
  message: string | null;
  firedAt: number | null;
}

type TimerRow = {
  id: number;
  account_id: string;
  request_id: string;
  step_id: number;
  iteration: number;
  kind: string;
  due_at: number;
  message: string | null;
  fired_at: number | null;
};

export class ProcessTimers {
  constructor(private readonly store: Store) {}

  /** Timers due at `now` and not fired, in every account (the metrics' `flowmark_timers_due`). */
  async countDue(now: number): Promise<number> {
    const row = await this.store.get<{ n: number | string }>(
      sql`SELECT COUNT(*) AS n FROM process_timers WHERE fired_at IS NULL AND due_at <= ${now}`,
    );
    return Number(row?.n ?? 0);
  }

  async create(
    accountId: string,
    ref: TaskRef,
    timer: { kind: TimerKind; dueAt: number; message?: string | null },
  ): Promise<ProcessTimer> {
    const row = await this.store.get<TimerRow>(sql`
      INSERT INTO process_timers (account_id, request_id, step_id, iteration, kind, due_at, message)
      VALUES (${accountId}, ${ref.requestId}, ${ref.stepId}, ${ref.iteration}, ${timer.kind}, ${timer.dueAt},
              ${timer.message ?? null})
      RETURNING *`);
    return toTimer(row!);
  }

  /** Timers of every account due at `now` and not fired, the earliest first. */
  async due(now: number, limit: number): Promise<ProcessTimer[]> {
    const rows = await this.store.all<TimerRow>(sql`
      SELECT * FROM process_timers WHERE fired_at IS NULL AND due_at <= ${now} ORDER BY due_at, id LIMIT ${limit}`);
    return rows.map(toTimer);
  }

  /** A request's timers, in the order they were made. */
  async list(accountId: string, requestId: string): Promise<ProcessTimer[]> {
    const rows = await this.store.all<TimerRow>(
      sql`SELECT * FROM process_timers WHERE account_id = ${accountId} AND request_id = ${requestId} ORDER BY id`,
    );
    return rows.map(toTimer);
  }

  /** Marks a timer fired by `owner`; false when it had fired already. */
  async markFired(id: number, owner: string, now: number): Promise<boolean> {
    const { changes } = await this.store.run(
      sql`UPDATE process_timers SET fired_at = ${now}, fired_by = ${owner} WHERE id = ${id} AND fired_at IS NULL`,
    );
    return changes > 0;
  }
}

function toTimer(row: TimerRow): ProcessTimer {
  return {
    id: Number(row.id),
    accountId: row.account_id,
    requestId: row.request_id,
    stepId: Number(row.step_id),
    iteration: Number(row.iteration),
    kind: oneOf(TIMER_KINDS, row.kind, 'a stored timer kind'),
    dueAt: Number(row.due_at),
    message: row.message,
    firedAt: row.fired_at === null ? null : Number(row.fired_at),
  };
}
