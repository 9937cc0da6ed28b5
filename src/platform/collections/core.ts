/**
 * What every part of the collection service shares: the store, the limits, the cached collection
 * rows and their plans (shape and key columns), and the two ways in — `read` (against a cached
 * plan, checked in-statement, planned again when stale) and `write` (a transaction holding the
 * collection's row lock).
 */
import { sql, type KeyColumns, type Queryable, type Row, type Store } from '../../store/index.js';
import { checkName } from './checks.js';
import { CollectionError } from './errors.js';
import { newDocumentId } from './ids.js';
import { assertCanCreate, assertCanRead, assertCanWrite } from './rights.js';
import { accountOf, rowKey, stateOf, stateValue, toCollectionRow, type CollectionRow } from './rows.js';
import { emptyShape, parseShape, serializeShape, type Shape } from './shape.js';
import { DEFAULT_COLLECTION_LIMITS, type Actor, type CollectionLimits } from './types.js';
import { Writer } from './writer.js';
import { dictionary, isRecord } from '../../safety/narrow.js';
import { parseIndexKeys } from './safety.js';

/** A plan made from an older shape than the documents read: plan again. */
export class StaleShape extends Error {}

/** What a read plans with: the shape of the collection and the key columns of its fields. */
export interface Plan {
  shape: Shape;
  keys: KeyColumns;
}

/** A plan under which nothing is pushed down: every path is unknown. */
const NO_PUSHDOWN: Plan = {
  shape: { paths: dictionary<number>(), overflow: true },
  keys: Object.freeze({}),
};

export interface CollectionServiceOptions {
  limits?: Partial<CollectionLimits>;
  /** New document ids (default: ObjectId-like hex). */
  newId?: () => string;
  /** Epoch milliseconds (default Date.now). */
  clock?: () => number;
  /**
   * False: every update reads, applies mingo's updater and writes back (set-update.ts is not
   * tried); for comparing the two paths.
   */
  setBasedUpdates?: boolean;
}

export type ReadRun<T> = (row: CollectionRow, plan: Plan, check: boolean) => Promise<T>;

const ROW_COLUMNS = sql`account_id, id, name, is_public, is_readonly, shape_version, created_at`;

/** The key columns of a collection row, keeping only columns the engine has. */
export function parseKeys(
  text: unknown,
  allowed: readonly string[],
  which: 'filled' | 'filling' = 'filled',
): KeyColumns {
  let raw: unknown = JSON.parse(typeof text === 'string' && text !== '' ? text : '{}');
  // `$filling` (writer.ts serializeKeys): the columns an index build is still filling
  if (which === 'filling') raw = isRecord(raw) ? raw.$filling : undefined;
  const keys = dictionary<string>();
  if (isRecord(raw))
    for (const [path, column] of Object.entries(raw))
      if (typeof column === 'string' && allowed.includes(column)) keys[path] = column;
  return keys;
}

const planKey = (row: CollectionRow): string => `${row.accountId}\n${row.id}`;

export class CollectionCore {
  readonly limits: CollectionLimits;
  readonly newId: () => string;
  readonly clock: () => number;
  readonly setBasedUpdates: boolean;
  /** Plans by account and collection id (ids are per database: with cells, two accounts may share one). */
  private readonly plans = new Map<string, { version: number; plan: Plan }>();
  /** Collection rows by account and name, as last read; reads verify them in-statement (stateOf). */
  private readonly rows = new Map<string, CollectionRow>();

  constructor(
    readonly store: Store,
    options: CollectionServiceOptions = {},
  ) {
    this.limits = { ...DEFAULT_COLLECTION_LIMITS, ...options.limits };
    this.clock = options.clock ?? Date.now;
    this.setBasedUpdates = options.setBasedUpdates ?? true;
    this.newId = options.newId ?? (() => newDocumentId(this.clock()));
  }

  /** Forgets every cached plan (after a collection is removed). */
  forgetPlans(): void {
    this.plans.clear();
  }

  forgetRow(accountId: string, name: string): void {
    this.rows.delete(rowKey(accountId, name));
  }

  tooMany(): CollectionError {
    return new CollectionError(
      'too-large',
      `more than ${this.limits.maxInMemoryDocuments} documents would have to be held in memory: narrow the condition or add $limit`,
    );
  }

  // ───────────────────────────── reads

  /**
   * Runs a read against the collection's current plan; plans again when the documents were read
   * under a newer shape, and after three such races reads without pushdown. With the row and its
   * plan cached, it starts at once (no await before the statement).
   */
  read<T>(actor: Actor, name: string, none: T, run: ReadRun<T>): Promise<T> {
    const row = this.rows.get(rowKey(accountOf(actor), name));
    const cached = row && this.plans.get(planKey(row));
    if (row && cached && cached.version === row.shapeVersion) {
      assertCanRead(actor, row);
      return run(row, cached.plan, true).catch((e: unknown) => {
        if (e instanceof StaleShape) return this.readAgain(actor, name, none, run, 1);
        throw e;
      });
    }
    return this.readAgain(actor, name, none, run, 0);
  }

  private async readAgain<T>(
    actor: Actor,
    name: string,
    none: T,
    run: ReadRun<T>,
    first: number,
  ): Promise<T> {
    const accountId = accountOf(actor);
    for (let attempt = first; ; attempt++) {
      // A cached row is only used where every statement checks the state it read (attempt 0).
      const row =
        (attempt === 0 ? this.rows.get(rowKey(accountId, name)) : undefined) ??
        (await this.lookup(accountId, name));
      if (!row) return none;
      assertCanRead(actor, row);
      const pushdown = attempt < 3;
      try {
        return await run(row, pushdown ? await this.planOf(row) : NO_PUSHDOWN, pushdown);
      } catch (e) {
        if (!(e instanceof StaleShape)) throw e;
      }
    }
  }

  /**
   * Throws StaleShape (and forgets the cached row) when the statement saw another state. Sync
   * when the rows carry the state; otherwise it is read by a statement of its own.
   */
  checkState(row: CollectionRow, rows: Array<{ v?: number | null }>): void | Promise<void> {
    if (rows.length && rows[0]!.v !== undefined) return this.expectState(row, rows[0]!.v);
    return this.checkStateApart(row);
  }

  /**
   * Where the engine has a data version (SQLite's PRAGMA data_version, read after the documents,
   * changes with every commit of another connection): unchanged since the row was last found
   * current, nothing can have changed it. Otherwise the state is read now: the version only
   * grows, so the same version now means the same when the documents were read.
   */
  private async checkStateApart(row: CollectionRow): Promise<void> {
    const probe = this.store.dialect.documents.dataVersion;
    const dataVersion = probe ? Number(Object.values((await this.store.get(probe))!)[0]) : undefined;
    if (dataVersion !== undefined && row.checkedAt === dataVersion) return;
    const r = await this.store.get<{ v: number | null }>(sql`SELECT ${stateOf(row)} AS v`);
    this.expectState(row, r?.v ?? null);
    row.checkedAt = dataVersion;
  }

  expectState(row: CollectionRow, state: number | null): void {
    if (state === null || Number(state) !== stateValue(row)) {
      this.rows.delete(rowKey(row.accountId, row.name));
      this.plans.delete(planKey(row));
      throw new StaleShape();
    }
  }

  /** The collection's row, read now (and cached for the next reads, which check it). */
  private async lookup(accountId: string, name: string): Promise<CollectionRow | undefined> {
    const r = await this.store.get(
      sql`SELECT ${ROW_COLUMNS} FROM collections WHERE account_id = ${accountId} AND name = ${name}`,
    );
    const key = rowKey(accountId, name);
    if (!r) {
      this.rows.delete(key);
      return undefined;
    }
    const row = toCollectionRow(r);
    if (this.rows.size > 10_000) this.rows.clear();
    this.rows.set(key, row);
    return row;
  }

  /** A collection by name or by integer id (a numeric text is a name first, then an id). */
  async resolve(actor: Actor, ref: string | number): Promise<CollectionRow | undefined> {
    const accountId = accountOf(actor);
    if (typeof ref === 'string') {
      const byName = await this.lookup(accountId, ref);
      if (byName || !/^\d+$/.test(ref)) return byName;
      ref = Number(ref);
    }
    if (!Number.isSafeInteger(ref)) return undefined;
    const r = await this.store.get(
      sql`SELECT ${ROW_COLUMNS} FROM collections WHERE account_id = ${accountId} AND id = ${ref}`,
    );
    return r ? toCollectionRow(r) : undefined;
  }

  /** The plan of the version the row names (reloaded when the cache is older). */
  private async planOf(row: CollectionRow): Promise<Plan> {
    const cached = this.plans.get(planKey(row));
    if (cached && cached.version === row.shapeVersion) return cached.plan;
    const r = await this.store.get<{ shape: string; key_columns: string; shape_version: number }>(
      sql`SELECT shape, key_columns, shape_version FROM collections WHERE account_id = ${row.accountId} AND id = ${row.id}`,
    );
    if (!r) throw new StaleShape();
    const plan = {
      shape: parseShape(r.shape),
      keys: parseKeys(r.key_columns, this.store.dialect.documents.keyColumnNames),
    };
    const entry = { version: Number(r.shape_version), plan };
    if (this.plans.size > 10_000) this.plans.clear();
    this.plans.set(planKey(row), entry);
    // A newer version may carry other rights or another name: start again from a fresh row.
    if (entry.version !== row.shapeVersion) {
      this.rows.delete(rowKey(row.accountId, row.name));
      throw new StaleShape();
    }
    return plan;
  }

  // ───────────────────────────── writes

  /**
   * Runs `fn` in a transaction holding the collection's row lock (created first when `create`);
   * returns undefined when the collection does not exist and `create` is false. Unique-index
   * violations become CollectionErrors naming the index.
   */
  async write<T>(
    actor: Actor,
    name: string,
    create: boolean,
    fn: (w: Writer) => Promise<T>,
  ): Promise<T | undefined> {
    const accountId = accountOf(actor);
    checkName(name);
    try {
      return await this.store.transaction(async (tx) => {
        let r = await lockRow(tx, accountId, name);
        if (!r) {
          if (!create) return undefined;
          assertCanCreate(actor, name);
          await tx.run(
            sql`INSERT INTO collections (account_id, name, is_public, is_readonly, shape, shape_version, created_at)
                VALUES (${accountId}, ${name}, ${false}, ${false}, ${serializeShape(emptyShape())}, 0, ${this.clock()})
                ON CONFLICT (account_id, name) DO NOTHING`,
          );
          r = await lockRow(tx, accountId, name);
        }
        const row = toCollectionRow(r!);
        assertCanWrite(actor, row);
        const writer = new Writer(
          tx,
          row,
          parseShape(String(r!.shape)),
          parseKeys(r!.key_columns, tx.dialect.documents.keyColumnNames),
          this.limits.maxShapePaths,
          parseKeys(r!.key_columns, tx.dialect.documents.keyColumnNames, 'filling'),
        );
        writer.triggered = Boolean(r!.triggered);
        const result = await fn(writer);
        await writer.recordTriggers(this.clock());
        await writer.saveShape();
        return result;
      });
    } catch (e) {
      throw await this.explainDuplicate(accountId, name, e);
    } finally {
      this.rows.delete(rowKey(accountId, name));
    }
  }

  private async explainDuplicate(accountId: string, name: string, e: unknown): Promise<unknown> {
    const violation = this.store.dialect.uniqueViolation(e);
    if (!violation || e instanceof CollectionError) return e;
    const sqlName = violation.constraint.replace(/_u$/, '');
    const index = await this.store.get<{ name: string; keys: string }>(
      sql`SELECT name, keys FROM collection_indexes WHERE account_id = ${accountId} AND sql_name = ${sqlName}`,
    );
    if (!index)
      return new CollectionError(
        'duplicate-key',
        `duplicate key: collection '${name}' already has a document with the same _id`,
      );
    const keys = parseIndexKeys(index.keys).join(', ');
    return new CollectionError(
      'duplicate-key',
      `duplicate key: unique index '${index.name}' of collection '${name}' already has a document with the same ${keys}`,
    );
  }
}

function lockRow(tx: Queryable, accountId: string, name: string): Promise<Row | undefined> {
  return tx.get(
    // whether a process's collection trigger watches it (read with the lock: no query more)
    sql`SELECT ${ROW_COLUMNS}, shape, key_columns,
               EXISTS (SELECT 1 FROM process_triggers t
                       WHERE t.account_id = collections.account_id AND t.collection = collections.name) AS triggered
        FROM collections WHERE account_id = ${accountId} AND name = ${name}${tx.dialect.forUpdate}`,
  );
}
