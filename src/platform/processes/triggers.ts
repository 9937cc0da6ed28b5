/**
 * The triggers of stored definitions (docs/hosts.md, "Triggers"): a definition whose start event
 * is an enabled timer or message has one row (`process_triggers`), written in the transaction
 * that saves the definition and deleted with it. A timer's row is its schedule: `claim` moves its
 * next tick with a conditional UPDATE on the tick it read, so of two servers firing the same tick
 * one claims it; the caller claims in the transaction that stores the request it starts.
 */
import { sql, type Store } from '../../store/index.js';
import { PlatformError } from '../errors.js';
import { isPlainObject } from '../model.js';
import type { ProcessDefinition } from './definition.js';
import { graphOf, type FlowNode } from './graph.js';
import { nextTick, scheduledTimer, type StartTimer } from './start-events.js';
import type { CollectionTrigger } from './collection-trigger.js';
import { oneOf } from '../../safety/narrow.js';

const TRIGGER_KINDS = ['timer', 'message', 'collection'] as const;

export interface ProcessTrigger {
  definitionId: number;
  accountId: string;
  /** The start event's id. */
  nodeId: string;
  kind: (typeof TRIGGER_KINDS)[number];
  timer: StartTimer | null;
  message: string | null;
  /** A collection trigger's collection and filter. */
  collection: CollectionTrigger | null;
  /** When the schedule began (the definition saved with this timer): a duration counts from it. */
  anchor: number;
  /** The next tick (epoch ms); null when none is left. */
  nextAt: number | null;
  firedCount: number;
  lastFiredAt: number | null;
  lastRequestId: string | null;
  firedBy: string | null;
}

type TriggerRow = {
  definition_id: number;
  account_id: string;
  node_id: string;
  kind: string;
  timer: string | null;
  message: string | null;
  collection: string | null;
  filter: string | null;
  anchor: number;
  next_at: number | null;
  fired_count: number;
  last_fired_at: number | null;
  last_request_id: string | null;
  fired_by: string | null;
};

/** The start node of a definition that starts requests by itself, if any. */
export function triggerOf(definition: ProcessDefinition): (FlowNode & { kind: 'start' }) | undefined {
  // A definition that cannot run starts nothing: its trigger waits until it is fixed.
  if ((definition.unsupported ?? []).length > 0) return undefined;
  const start = graphOf(definition).nodes.find((n) => n.kind === 'start');
  if (!start || start.kind !== 'start' || start.enabled === false) return undefined;
  return start.timer || start.message !== undefined || start.collection ? start : undefined;
}

export class ProcessTriggers {
  constructor(private readonly store: Store) {}

  /**
   * Makes a definition's trigger row match it (call inside the transaction saving it): none
   * without a trigger; a timer unchanged keeps its schedule, a new or changed one starts again
   * from `now` (a cron cycle without a time zone is stored with the account's: the schedule's); a message name another definition of the account starts on is a conflict.
   */
  async sync(
    accountId: string,
    definitionId: number,
    definition: ProcessDefinition,
    now: number,
  ): Promise<void> {
    const start = triggerOf(definition);
    if (!start) {
      await this.store.run(sql`DELETE FROM process_triggers WHERE definition_id = ${definitionId}`);
      return;
    }
    const existing = await this.find(definitionId);
    if (start.timer) {
      const zone = await this.store.get<{ time_zone: string }>(
        sql`SELECT time_zone FROM accounts WHERE account_id = ${accountId}`,
      );
      const scheduled = scheduledTimer(start.timer, zone?.time_zone);
      const timer = JSON.stringify(scheduled);
      if (
        existing?.kind === 'timer' &&
        existing.nodeId === start.id &&
        JSON.stringify(existing.timer) === timer
      )
        return;
      const next = nextTick(scheduled, now, now - 1);
      await this.store.run(sql`
        INSERT INTO process_triggers (definition_id, account_id, node_id, kind, timer, message, anchor, next_at)
        VALUES (${definitionId}, ${accountId}, ${start.id}, 'timer', ${timer}, NULL, ${now}, ${next})
        ON CONFLICT (definition_id) DO UPDATE SET node_id = excluded.node_id, kind = excluded.kind,
          timer = excluded.timer, message = NULL, collection = NULL, filter = NULL, anchor = excluded.anchor, next_at = excluded.next_at,
          fired_count = 0, last_fired_at = NULL, last_request_id = NULL, fired_by = NULL`);
      return;
    }
    if (start.collection) {
      const { name, filter } = start.collection;
      await this.store.run(sql`
        INSERT INTO process_triggers (definition_id, account_id, node_id, kind, timer, message, collection, filter,
                                      anchor, next_at)
        VALUES (${definitionId}, ${accountId}, ${start.id}, 'collection', NULL, NULL, ${name}, ${JSON.stringify(filter)},
                ${now}, NULL)
        ON CONFLICT (definition_id) DO UPDATE SET node_id = excluded.node_id, kind = excluded.kind,
          timer = NULL, message = NULL, collection = excluded.collection, filter = excluded.filter,
          anchor = excluded.anchor, next_at = NULL,
          fired_count = 0, last_fired_at = NULL, last_request_id = NULL, fired_by = NULL`);
      return;
    }
    const message = start.message!;
    const other = await this.store.get<{ name: string }>(sql`
      SELECT d.name FROM process_triggers t JOIN process_definitions d ON d.id = t.definition_id
      WHERE t.account_id = ${accountId} AND t.message = ${message} AND t.definition_id <> ${definitionId}`);
    if (other)
      throw new PlatformError(
        'conflict',
        `message ${JSON.stringify(message)} already starts process ${JSON.stringify(other.name)}: a message starts one process`,
      );
    await this.store.run(sql`
      INSERT INTO process_triggers (definition_id, account_id, node_id, kind, timer, message, anchor, next_at)
      VALUES (${definitionId}, ${accountId}, ${start.id}, 'message', NULL, ${message}, ${now}, NULL)
      ON CONFLICT (definition_id) DO UPDATE SET node_id = excluded.node_id, kind = excluded.kind,
        timer = NULL, message = excluded.message, collection = NULL, filter = NULL, anchor = excluded.anchor, next_at = NULL,
        fired_count = 0, last_fired_at = NULL, last_request_id = NULL, fired_by = NULL`);
  }

  async find(definitionId: number): Promise<ProcessTrigger | undefined> {
    const row = await this.store.get<TriggerRow>(
      sql`SELECT * FROM process_triggers WHERE definition_id = ${definitionId}`,
    );
    return row && toTrigger(row);
  }

  /** The triggers of an account's definitions, by definition id. */
  async ofAccount(accountId: string): Promise<Map<number, ProcessTrigger>> {
    const rows = await this.store.all<TriggerRow>(
      sql`SELECT * FROM process_triggers WHERE account_id = ${accountId}`,
    );
    return new Map(rows.map((r) => [Number(r.definition_id), toTrigger(r)]));
  }

  /** The definition an enabled message start event of the account starts on `message`. */
  async findMessage(accountId: string, message: string): Promise<ProcessTrigger | undefined> {
    const row = await this.store.get<TriggerRow>(
      sql`SELECT * FROM process_triggers WHERE account_id = ${accountId} AND message = ${message}`,
    );
    return row && toTrigger(row);
  }

  /** Timer schedules of every account whose next tick is due at `now`, the earliest first. */
  async due(now: number, limit: number): Promise<ProcessTrigger[]> {
    const rows = await this.store.all<TriggerRow>(sql`
      SELECT * FROM process_triggers WHERE next_at IS NOT NULL AND next_at <= ${now}
      ORDER BY next_at, definition_id LIMIT ${limit}`);
    return rows.map(toTrigger);
  }

  /**
   * Claims the due tick `trigger.nextAt` for `owner`: the schedule moves to its first tick after
   * `now` (the ticks missed meanwhile fire as this one). False when another claim, or a save of
   * the definition, moved it first.
   */
  async claim(trigger: ProcessTrigger, owner: string, now: number): Promise<boolean> {
    if (trigger.timer === null || trigger.nextAt === null) return false;
    const next = nextTick(trigger.timer, trigger.anchor, Math.max(now, trigger.nextAt));
    const { changes } = await this.store.run(sql`
      UPDATE process_triggers SET next_at = ${next}, fired_count = fired_count + 1,
             last_fired_at = ${now}, fired_by = ${owner}
      WHERE definition_id = ${trigger.definitionId} AND next_at = ${trigger.nextAt}`);
    return changes > 0;
  }

  /** Collection events waiting to be drained (every account's), the oldest first. */
  async events(limit: number): Promise<TriggerEvent[]> {
    const rows = await this.store.all<{ id: number; account_id: string; definition_id: number; doc: string }>(
      sql`SELECT id, account_id, definition_id, doc FROM process_trigger_events ORDER BY id LIMIT ${limit}`,
    );
    return rows.map((r) => ({
      id: Number(r.id),
      accountId: r.account_id,
      definitionId: Number(r.definition_id),
      doc: r.doc,
    }));
  }

  /**
   * Takes a collection event (call in the transaction that stores the request it starts): false
   * when another server took it first. A collection trigger's row counts what it fired.
   */
  async takeEvent(event: TriggerEvent, owner: string, now: number, fired: boolean): Promise<boolean> {
    const { changes } = await this.store.run(sql`DELETE FROM process_trigger_events WHERE id = ${event.id}`);
    if (changes === 0) return false;
    if (fired)
      await this.store.run(sql`
        UPDATE process_triggers SET fired_count = fired_count + 1, last_fired_at = ${now}, fired_by = ${owner}
        WHERE definition_id = ${event.definitionId}`);
    return true;
  }

  /** Notes the request a claimed tick started. */
  async started(definitionId: number, requestId: string): Promise<void> {
    await this.store.run(
      sql`UPDATE process_triggers SET last_request_id = ${requestId} WHERE definition_id = ${definitionId}`,
    );
  }
}

/** A document written to a collection a trigger watches, waiting to be matched and to start a request. */
export interface TriggerEvent {
  id: number;
  accountId: string;
  definitionId: number;
  /** The document as written (JSON). */
  doc: string;
}

function toTrigger(row: TriggerRow): ProcessTrigger {
  return {
    definitionId: Number(row.definition_id),
    accountId: row.account_id,
    nodeId: row.node_id,
    kind: oneOf(TRIGGER_KINDS, row.kind, 'a stored trigger kind'),
    timer: row.timer === null ? null : (JSON.parse(row.timer) as StartTimer),
    message: row.message,
    collection:
      row.collection === null || row.collection === undefined
        ? null
        : { name: row.collection, filter: jsonObject(row.filter) },
    anchor: Number(row.anchor),
    nextAt: row.next_at === null ? null : Number(row.next_at),
    firedCount: Number(row.fired_count),
    lastFiredAt: row.last_fired_at === null ? null : Number(row.last_fired_at),
    lastRequestId: row.last_request_id,
    firedBy: row.fired_by,
  };
}

/** A stored filter (JSON, an object when it was saved). */
function jsonObject(text: string | null): Record<string, unknown> {
  const value: unknown = JSON.parse(text ?? '{}');
  return isPlainObject(value) ? value : {};
}
