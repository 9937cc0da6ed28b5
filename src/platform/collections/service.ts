import { randomBytes } from 'node:crypto';
import { Budget } from '../../limits/index.js';
import { sql, type Queryable, type Row, type Sql, type Store } from '../../store/index.js';
import { CollectionError } from './errors.js';
import {
  checkIndexKeys,
  checkIndexName,
  checkName,
  checkSort,
  isStage,
  sortFromObject,
  unknownCollection,
} from './checks.js';
import {
  accountOf,
  and,
  countPrefix,
  DATA_VERSION,
  info,
  limitOffset,
  rowKey,
  scope,
  stateOf,
  stateValue,
  toCollectionRow,
  toIndexDescriptor,
  type CollectionRow,
} from './rows.js';
import { INSERT_BATCH, Writer } from './writer.js';
import { newDocumentId } from './ids.js';
import { createIndexSql, dropIndexSql, type IndexDefinition } from './indexes.js';
import {
  applyUpdate,
  checkSpec,
  compileFilter,
  prepareFilter,
  runPipeline,
  sortDocuments,
  type PreparedFilter,
} from './mingo.js';
import { compilePredicate, compileSort, splitFilter } from './pushdown.js';
import { assertSafePath, isPlainObject, toJsonDocument } from './safety.js';
import { emptyShape, parseShape, serializeShape, type Shape } from './shape.js';
import {
  DEFAULT_COLLECTION_LIMITS,
  type Actor,
  type BudgetOption,
  type CollectionInfo,
  type CollectionLimits,
  type Document,
  type FindOptions,
  type IndexDescriptor,
  type SortSpec,
} from './types.js';

/** A plan made from an older shape than the documents read: plan again. */
class StaleShape extends Error {}

/** A shape under which nothing is pushed down: every path is unknown. */
const NO_PUSHDOWN: Shape = { paths: Object.create(null) as Record<string, number>, overflow: true };

const BATCH = 2000;
/**
 * Documents whose JSON is larger are read one at a time (after their size is charged, or while
 * a scan visits them), so a batch of reads holds at most BATCH × this many bytes.
 */
const INLINE_DOCUMENT_BYTES = 32 * 1024;

/** A document as reads select it (docColumn). */
interface DocRow extends Row {
  seq?: number;
  doc: string | number;
  v?: number;
}

/** The JSON of a document read inline, or the size and seq of a large one. */
function readDoc(value: string | number): { text?: string; size: number; seq: number } {
  const column = String(value);
  if (column.charCodeAt(0) === 123) return { text: column, size: column.length, seq: -1 };
  const [size, seq] = column.split(':');
  return { size: Number(size), seq: Number(seq) };
}
const ID_INDEX: IndexDescriptor = { keys: ['_id'], unique: true, name: '_id_', ascending: true };
const UPDATE_OPERATORS = new Set([
  '$set',
  '$unset',
  '$inc',
  '$mul',
  '$min',
  '$max',
  '$rename',
  '$push',
  '$pull',
  '$pullAll',
  '$addToSet',
  '$pop',
  '$currentDate',
  '$bit',
]);
/** Pipeline stages that would write or read outside the collection: refused. */
const REFUSED_STAGES = new Set(['$out', '$merge', '$lookup', '$graphLookup', '$unionWith', '$documents']);

export interface CollectionServiceOptions {
  limits?: Partial<CollectionLimits>;
  /** New document ids (default: ObjectId-like hex). */
  newId?: () => string;
  /** Epoch milliseconds (default Date.now). */
  clock?: () => number;
}

export interface ImportProgress {
  /** Documents inserted so far. */
  documents: number;
}

/**
 * Document collections of an account, stored in `documents` as JSON and queried with MongoDB
 * syntax: the pushable part of a filter runs as SQL over the JSON column (and the expression
 * indexes R_create_index makes), mingo decides the rest (pushdown.ts). Every call names the
 * acting account and user; rights: a public collection needs no check, otherwise a user of the
 * account must be connected; a read-only collection is modified only by the account's admins.
 */
export class CollectionService {
  readonly limits: CollectionLimits;
  private readonly newId: () => string;
  private readonly clock: () => number;
  private readonly shapes = new Map<number, { version: number; shape: Shape }>();
  /** Collection rows by account and name, as last read; reads verify them in-statement (stateOf). */
  private readonly rows = new Map<string, CollectionRow>();

  constructor(
    private readonly store: Store,
    options: CollectionServiceOptions = {},
  ) {
    this.limits = { ...DEFAULT_COLLECTION_LIMITS, ...options.limits };
    this.clock = options.clock ?? Date.now;
    this.newId = options.newId ?? (() => newDocumentId(this.clock()));
  }

  // ───────────────────────────── collections

  /** The account's collections (only public ones when nobody is connected), by name. */
  async listCollections(
    actor: Actor,
    options: { withCounts?: boolean } = {},
  ): Promise<Array<CollectionInfo & { documents?: number }>> {
    const counts = options.withCounts
      ? sql`, (SELECT count(*) FROM documents d WHERE d.account_id = c.account_id AND d.collection_id = c.id) AS documents`
      : sql``;
    const rows = await this.store.all(
      sql`SELECT c.account_id, c.id, c.name, c.is_public, c.is_readonly, c.shape_version, c.created_at${counts}
          FROM collections c WHERE c.account_id = ${accountOf(actor)} ORDER BY c.name`,
    );
    return rows
      .map((r) => ({
        ...info(toCollectionRow(r)),
        ...(options.withCounts ? { documents: Number(r.documents) } : {}),
      }))
      .filter((c) => c.isPublic || actor.user !== null);
  }

  /** A collection by name or by integer id (a numeric text is a name first, then an id). */
  async getCollection(actor: Actor, ref: string | number): Promise<CollectionInfo | undefined> {
    const row = await this.resolve(actor, ref);
    if (!row) return undefined;
    this.assertCanRead(actor, row);
    return info(row);
  }

  /** True when created, false when a collection of that name already exists (left as it is). */
  async createCollection(
    actor: Actor,
    name: string,
    flags: { isPublic: boolean; isReadonly: boolean },
  ): Promise<boolean> {
    checkName(name);
    this.assertCanCreate(actor, name);
    const inserted = await this.store.get(
      sql`INSERT INTO collections (account_id, name, is_public, is_readonly, shape, shape_version, created_at)
          VALUES (${accountOf(actor)}, ${name}, ${flags.isPublic}, ${flags.isReadonly}, ${serializeShape(emptyShape())}, 0, ${this.clock()})
          ON CONFLICT (account_id, name) DO NOTHING RETURNING id`,
    );
    return inserted !== undefined;
  }

  /** Deletes every document; the collection, its flags and indexes stay. False if unknown. */
  async dropCollection(actor: Actor, name: string): Promise<boolean> {
    const done = await this.write(actor, name, false, async (w) => {
      await w.tx.run(
        sql`DELETE FROM documents WHERE account_id = ${w.accountId} AND collection_id = ${w.row.id}`,
      );
      return true;
    });
    return done === true;
  }

  /** Deletes the collection with its configuration, indexes and documents. False if unknown. */
  async removeCollection(actor: Actor, name: string): Promise<boolean> {
    const done = await this.write(actor, name, false, async (w) => {
      const indexes = await w.tx.all<{ sql_name: string }>(
        sql`SELECT sql_name FROM collection_indexes WHERE account_id = ${w.accountId} AND collection_id = ${w.row.id}`,
      );
      for (const index of indexes)
        for (const ddl of dropIndexSql(this.store.dialect, index.sql_name)) await w.tx.run(ddl);
      await w.tx.run(sql`DELETE FROM collections WHERE account_id = ${w.accountId} AND id = ${w.row.id}`);
      return true;
    });
    this.shapes.clear();
    return done === true;
  }

  /** True when renamed, false when `oldName` does not exist; an error when `newName` is taken. */
  async renameCollection(actor: Actor, oldName: string, newName: string): Promise<boolean> {
    checkName(newName);
    const done = await this.write(actor, oldName, false, async (w) => {
      if (oldName === newName) return true;
      const taken = await w.tx.get(
        sql`SELECT id FROM collections WHERE account_id = ${w.accountId} AND name = ${newName}`,
      );
      if (taken) throw new CollectionError('exists', `collection '${newName}' already exists`);
      // A new version tells readers holding the old name (cached) that it changed.
      await w.tx.run(
        sql`UPDATE collections SET name = ${newName}, shape_version = shape_version + 1
            WHERE account_id = ${w.accountId} AND id = ${w.row.id}`,
      );
      this.rows.delete(rowKey(w.accountId, newName));
      return true;
    });
    return done === true;
  }

  /**
   * Changes the rights flags of a collection (administrators of the account only). False when it
   * does not exist.
   */
  async updateCollection(
    actor: Actor,
    name: string,
    flags: { isPublic?: boolean; isReadonly?: boolean },
  ): Promise<boolean> {
    if (!actor.user?.isAdmin)
      throw new CollectionError(
        'read-only',
        `only an administrator of the account may change the settings of collection '${name}'`,
      );
    const done = await this.write(actor, name, false, async (w) => {
      await w.tx.run(
        sql`UPDATE collections SET is_public = ${flags.isPublic ?? w.row.isPublic}, is_readonly = ${flags.isReadonly ?? w.row.isReadonly},
            shape_version = shape_version + 1 WHERE account_id = ${w.accountId} AND id = ${w.row.id}`,
      );
      return true;
    });
    return done === true;
  }

  // ───────────────────────────── reads

  /** Documents matching `filter` (MongoDB syntax), sorted, skipped and limited like a MongoDB cursor. */
  async find(
    actor: Actor,
    name: string,
    filter: Record<string, unknown>,
    options: FindOptions = {},
  ): Promise<Document[]> {
    const prepared = prepareFilter(filter, options.budget ?? new Budget());
    const sort = checkSort(options.sort);
    return this.read(actor, name, [], (row, shape, check) =>
      this.findIn(row, shape, check, prepared, sort, options.skip ?? 0, options.limit),
    );
  }

  /** The first document matching `filter` in the given order (natural order by default). */
  async findOne(
    actor: Actor,
    name: string,
    filter: Record<string, unknown>,
    options: { sort?: SortSpec } & BudgetOption = {},
  ): Promise<Document | undefined> {
    const [first] = await this.find(actor, name, filter, { ...options, limit: 1 });
    return first;
  }

  count(
    actor: Actor,
    name: string,
    filter: Record<string, unknown>,
    options: BudgetOption = {},
  ): Promise<number> {
    let prepared: PreparedFilter;
    try {
      prepared = prepareFilter(filter, options.budget ?? new Budget());
    } catch (e) {
      return Promise.reject(e);
    }
    return this.read(actor, name, 0, (row, shape, check) => this.countIn(row, shape, check, prepared));
  }

  private countIn(
    row: CollectionRow,
    shape: Shape,
    check: boolean,
    prepared: PreparedFilter,
  ): Promise<number> {
    const predicate = compilePredicate(prepared.split, shape, this.store.dialect);
    if (predicate.exact)
      return this.store
        .get<{ n: number; v: number | null }>(
          predicate.where ? sql`${countPrefix(row)} AND ${predicate.where}` : countPrefix(row),
        )
        .then((result) => {
          if (check) this.expectState(row, result!.v);
          return Number(result!.n);
        });
    return this.countMatches(row, predicate.where, check, prepared);
  }

  private async countMatches(
    row: CollectionRow,
    where: Sql | undefined,
    check: boolean,
    prepared: PreparedFilter,
  ): Promise<number> {
    let n = 0;
    await this.scan(row, where, check, prepared.budget, (doc) => {
      if (prepared.test(doc)) n++;
      return true;
    });
    return n;
  }

  /**
   * Runs a pipeline over the collection. Leading $match stages, then a $sort and $skip/$limit
   * stages, are answered like `find` (pushed to SQL when exact); mingo runs the rest.
   */
  async aggregate(
    actor: Actor,
    name: string,
    stages: Record<string, unknown>[],
    options: BudgetOption = {},
  ): Promise<Record<string, unknown>[]> {
    const budget = options.budget ?? new Budget();
    checkSpec(stages);
    for (const stage of stages) {
      const [op] = Object.keys(stage);
      if (op && REFUSED_STAGES.has(op))
        throw new CollectionError('not-allowed', `operator ${op} is not supported`);
    }
    const matches: Record<string, unknown>[] = [];
    let i = 0;
    for (; i < stages.length && isStage(stages[i]!, '$match') && isPlainObject(stages[i]!.$match); i++)
      matches.push(stages[i]!.$match as Record<string, unknown>);
    const filter = matches.length === 0 ? {} : matches.length === 1 ? matches[0]! : { $and: matches };
    let sort: SortSpec | undefined;
    if (i < stages.length && isStage(stages[i]!, '$sort')) {
      sort = sortFromObject(stages[i]!.$sort);
      if (sort) i++;
    }
    let skip = 0;
    let limit: number | undefined;
    for (; i < stages.length; i++) {
      const stage = stages[i]!;
      const n = isStage(stage, '$skip') ? stage.$skip : isStage(stage, '$limit') ? stage.$limit : undefined;
      if (!Number.isSafeInteger(n) || (n as number) < (isStage(stage, '$limit') ? 1 : 0)) break;
      if (isStage(stage, '$skip')) {
        skip += n as number;
        if (limit !== undefined) limit = Math.max(0, limit - (n as number));
      } else limit = limit === undefined ? (n as number) : Math.min(limit, n as number);
    }
    const rest = stages.slice(i);
    const prepared = prepareFilter(filter, budget);
    const docs = await this.read(actor, name, [] as Document[], (row, shape, check) =>
      this.findIn(row, shape, check, prepared, sort, skip, limit, true),
    );
    if (limit === undefined && docs.length > this.limits.maxInMemoryDocuments) throw this.tooMany();
    return rest.length ? runPipeline(docs, rest, budget) : docs;
  }

  /**
   * How a find would run: the SQL condition pushed down (if any), whether it is exact (no mingo
   * re-check), whether the sort is done by SQL, and the engine's plan of the query.
   */
  async explain(
    actor: Actor,
    name: string,
    filter: Record<string, unknown>,
    options: { sort?: SortSpec } = {},
  ): Promise<{ pushed: boolean; exact: boolean; sortPushed: boolean; plan: string[] }> {
    compileFilter(filter);
    const sort = checkSort(options.sort);
    const dialect = this.store.dialect;
    const result = await this.read(actor, name, undefined, async (row, shape) => {
      const predicate = compilePredicate(splitFilter(filter), shape, dialect);
      const order = sort?.length ? compileSort(sort, shape, dialect) : sql`seq`;
      const query = sql`SELECT doc FROM documents WHERE ${scope(row)}${and(predicate.where)} ORDER BY ${order ?? sql`seq`}`;
      const rows =
        dialect.name === 'sqlite'
          ? await this.store.all<{ detail: string }>(sql`EXPLAIN QUERY PLAN ${query}`)
          : await this.store.all<{ 'QUERY PLAN': string }>(sql`EXPLAIN (COSTS OFF) ${query}`);
      return {
        pushed: predicate.where !== undefined,
        exact: predicate.exact,
        sortPushed: order !== undefined,
        plan: rows.map((r) => String('detail' in r ? r.detail : r['QUERY PLAN'])),
      };
    });
    if (!result) throw unknownCollection(name);
    return result;
  }

  // ───────────────────────────── writes

  /**
   * Stores documents: each gets a string `_id` (a given `_id` replaces the document that has it,
   * keeping its place in natural order). Returns the stored form.
   */
  async save(actor: Actor, name: string, values: unknown[]): Promise<Document[]> {
    const docs = values.map((v) => this.prepareDocument(v));
    const result = await this.write(actor, name, true, async (w) => {
      await w.insert(docs, true);
      return docs;
    });
    return result!;
  }

  /**
   * Applies `change` to the first matching document (or every one with `multi`): update
   * operators (`{"$set": …}`, `$inc`, `$unset` …) or, for a plain object, a replacement keeping
   * `_id`. Returns the number of documents matched.
   */
  async update(
    actor: Actor,
    name: string,
    filter: Record<string, unknown>,
    change: Record<string, unknown>,
    options: { multi: boolean } & BudgetOption,
  ): Promise<number> {
    const budget = options.budget ?? new Budget();
    const query = compileFilter(filter, budget);
    const modify = this.modifier(change, budget);
    const n = await this.write(actor, name, false, async (w) => {
      let matched = 0;
      const predicate = compilePredicate(splitFilter(filter), w.shape, this.store.dialect);
      await this.scan(
        w.row,
        predicate.where,
        false,
        budget,
        async (doc, seq) => {
          if (!predicate.exact && !query.test(doc)) return true;
          matched++;
          await w.replace(seq, modify(doc));
          return options.multi;
        },
        w.tx,
      );
      return matched;
    });
    return n ?? 0;
  }

  /** Deletes the matching documents; returns how many. */
  async remove(
    actor: Actor,
    name: string,
    filter: Record<string, unknown>,
    options: BudgetOption = {},
  ): Promise<number> {
    const budget = options.budget ?? new Budget();
    const query = compileFilter(filter, budget);
    const n = await this.write(actor, name, false, async (w) => {
      const predicate = compilePredicate(splitFilter(filter), w.shape, this.store.dialect);
      if (predicate.exact) {
        const r = await w.tx.run(sql`DELETE FROM documents WHERE ${scope(w.row)}${and(predicate.where)}`);
        return r.changes;
      }
      const doomed: number[] = [];
      await this.scan(
        w.row,
        predicate.where,
        false,
        budget,
        (doc, seq) => {
          if (query.test(doc)) doomed.push(seq);
          return true;
        },
        w.tx,
      );
      for (let i = 0; i < doomed.length; i += INSERT_BATCH)
        await w.tx.run(
          sql`DELETE FROM documents WHERE ${scope(w.row)} AND seq IN (${sql.join(doomed.slice(i, i + INSERT_BATCH))})`,
        );
      return doomed.length;
    });
    return n ?? 0;
  }

  /**
   * Inserts every document of `source` in one transaction (created if needed; emptied first with
   * `drop`): one bad document rolls everything back, leaving the collection as it was.
   */
  async importDocuments(
    actor: Actor,
    name: string,
    source: Iterable<unknown> | AsyncIterable<unknown>,
    options: { drop?: boolean; onProgress?: (p: ImportProgress) => void } = {},
  ): Promise<number> {
    const n = await this.write(actor, name, true, async (w) => {
      if (options.drop) await w.tx.run(sql`DELETE FROM documents WHERE ${scope(w.row)}`);
      let count = 0;
      let batch: Document[] = [];
      for await (const value of source) {
        batch.push(this.prepareDocument(value));
        if (batch.length === INSERT_BATCH) {
          await w.insert(batch, false);
          count += batch.length;
          batch = [];
          options.onProgress?.({ documents: count });
        }
      }
      if (batch.length) await w.insert(batch, false);
      count += batch.length;
      options.onProgress?.({ documents: count });
      return count;
    });
    return n ?? 0;
  }

  // ───────────────────────────── indexes

  async listIndexes(actor: Actor, ref: string | number): Promise<IndexDescriptor[]> {
    const row = await this.resolve(actor, ref);
    if (!row) throw unknownCollection(ref);
    this.assertCanRead(actor, row);
    const rows = await this.store.all(
      sql`SELECT name, keys, is_unique, ascending FROM collection_indexes
          WHERE account_id = ${accountOf(actor)} AND collection_id = ${row.id} ORDER BY created_at, name`,
    );
    return [{ ...ID_INDEX, keys: [...ID_INDEX.keys] }, ...rows.map(toIndexDescriptor)];
  }

  /**
   * Creates a real engine index on the collection (a unique one refuses documents repeating its
   * key values). True when created or when the same index already exists.
   */
  async createIndex(
    actor: Actor,
    ref: string | number,
    name: string,
    def: IndexDefinition,
  ): Promise<boolean> {
    checkIndexName(name);
    checkIndexKeys(def.keys);
    const row0 = await this.resolve(actor, ref);
    if (!row0) throw unknownCollection(ref);
    try {
      await this.write(actor, row0.name, false, async (w) => {
        const existing = await w.tx.get(
          sql`SELECT name, keys, is_unique, ascending FROM collection_indexes
              WHERE account_id = ${w.accountId} AND collection_id = ${w.row.id} AND name = ${name}`,
        );
        if (existing) {
          const d = toIndexDescriptor(existing);
          if (
            JSON.stringify(d.keys) === JSON.stringify(def.keys) &&
            d.unique === def.unique &&
            d.ascending === def.ascending
          )
            return true;
          throw new CollectionError(
            'exists',
            `index '${name}' already exists on collection '${w.row.name}' with other keys or options`,
          );
        }
        const count = await w.tx.get<{ n: number }>(
          sql`SELECT count(*) AS n FROM collection_indexes WHERE account_id = ${w.accountId} AND collection_id = ${w.row.id}`,
        );
        if (Number(count!.n) >= this.limits.maxIndexes)
          throw new CollectionError(
            'too-large',
            `collection '${w.row.name}' already has ${this.limits.maxIndexes} indexes, the most allowed`,
          );
        const sqlName = `fmx_${w.row.id}_${randomBytes(6).toString('hex')}`;
        try {
          for (const ddl of createIndexSql(this.store.dialect, sqlName, w.row.id, def)) await w.tx.run(ddl);
        } catch (e) {
          if (this.store.dialect.uniqueViolation(e))
            throw new CollectionError(
              'duplicate-key',
              `cannot create unique index '${name}': documents of collection '${w.row.name}' repeat the same ${def.keys.join(', ')}`,
            );
          throw e;
        }
        // created_at orders the listing: strictly increasing within the collection.
        const last = await w.tx.get<{ m: number | null }>(
          sql`SELECT max(created_at) AS m FROM collection_indexes WHERE account_id = ${w.accountId} AND collection_id = ${w.row.id}`,
        );
        const createdAt = Math.max(this.clock(), Number(last?.m ?? 0) + 1);
        await w.tx.run(
          sql`INSERT INTO collection_indexes (account_id, collection_id, name, keys, is_unique, ascending, sql_name, created_at)
              VALUES (${w.accountId}, ${w.row.id}, ${name}, ${JSON.stringify(def.keys)}, ${def.unique}, ${def.ascending}, ${sqlName}, ${createdAt})`,
        );
        return true;
      });
    } catch (e) {
      // PostgreSQL reports a failed CREATE UNIQUE INDEX with the same code as a duplicate row.
      if (e instanceof CollectionError || !this.store.dialect.uniqueViolation(e)) throw e;
      throw new CollectionError(
        'duplicate-key',
        `cannot create unique index '${name}': documents of collection '${row0.name}' repeat the same ${def.keys.join(', ')}`,
      );
    }
    return true;
  }

  /** True when deleted, false when the collection has no index of that name. */
  async deleteIndex(actor: Actor, ref: string | number, name: string): Promise<boolean> {
    if (name === '_id_') throw new CollectionError('invalid', `index '_id_' cannot be deleted`);
    const row0 = await this.resolve(actor, ref);
    if (!row0) throw unknownCollection(ref);
    const done = await this.write(actor, row0.name, false, async (w) => {
      const index = await w.tx.get<{ sql_name: string }>(
        sql`SELECT sql_name FROM collection_indexes WHERE account_id = ${w.accountId} AND collection_id = ${w.row.id} AND name = ${name}`,
      );
      if (!index) return false;
      for (const ddl of dropIndexSql(this.store.dialect, index.sql_name)) await w.tx.run(ddl);
      await w.tx.run(
        sql`DELETE FROM collection_indexes WHERE account_id = ${w.accountId} AND collection_id = ${w.row.id} AND name = ${name}`,
      );
      return true;
    });
    return done === true;
  }

  // ───────────────────────────── internals: reading

  /**
   * Runs a read against the collection's current shape; plans again when the documents were read
   * under a newer shape, and after three such races reads without pushdown. With the row and its
   * shape cached, it starts at once (no await before the statement).
   */
  private read<T>(
    actor: Actor,
    name: string,
    none: T,
    run: (row: CollectionRow, shape: Shape, check: boolean) => Promise<T>,
  ): Promise<T> {
    const row = this.rows.get(rowKey(accountOf(actor), name));
    const cached = row && this.shapes.get(row.id);
    if (row && cached && cached.version === row.shapeVersion) {
      this.assertCanRead(actor, row);
      return run(row, cached.shape, true).catch((e: unknown) => {
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
    run: (row: CollectionRow, shape: Shape, check: boolean) => Promise<T>,
    first: number,
  ): Promise<T> {
    const accountId = accountOf(actor);
    for (let attempt = first; ; attempt++) {
      // A cached row is only used where every statement checks the state it read (attempt 0).
      const row =
        (attempt === 0 ? this.rows.get(rowKey(accountId, name)) : undefined) ??
        (await this.lookup(accountId, name));
      if (!row) return none;
      this.assertCanRead(actor, row);
      const pushdown = attempt < 3;
      try {
        return await run(row, pushdown ? await this.shapeOf(row) : NO_PUSHDOWN, pushdown);
      } catch (e) {
        if (!(e instanceof StaleShape)) throw e;
      }
    }
  }

  private async findIn(
    row: CollectionRow,
    shape: Shape,
    check: boolean,
    prepared: PreparedFilter,
    sort: SortSpec | undefined,
    skip: number,
    limit: number | undefined,
    forAggregate = false,
  ): Promise<Document[]> {
    const dialect = this.store.dialect;
    const predicate = compilePredicate(prepared.split, shape, dialect);
    const order = sort?.length ? compileSort(sort, shape, dialect) : sql`seq`;
    if (predicate.exact && order) {
      if (forAggregate && limit === undefined) await this.assertFits(row, predicate.where, skip);
      const rows = await this.store.all<DocRow>(
        sql`SELECT ${this.docColumn()}${this.stateColumn(row)} FROM documents WHERE ${scope(row)}${and(predicate.where)}
            ORDER BY ${order}${sort?.length ? sql`, seq` : sql``}${limitOffset(dialect.name, limit, skip)}`,
      );
      if (check) await this.checkState(row, rows);
      // Every document is charged before a large one is read (a page of 15 MB documents is
      // refused without holding them).
      const what = documentsOf(row);
      const docs = rows.map((r) => readDoc(r.doc));
      for (const d of docs) prepared.budget.allocateString(d.size, what);
      const out: Document[] = [];
      for (const d of docs) {
        // A large document read apart may have changed since the statement: the newer is given.
        const text = d.text ?? (await this.largeDocument(this.store, row, d.seq));
        if (text !== undefined) out.push(JSON.parse(text) as Document);
      }
      return out;
    }
    if (order && !sort?.length) {
      // Natural order, filter not exact: walk the candidates, keep the first matches.
      const out: Document[] = [];
      let seen = 0;
      await this.scan(row, predicate.where, check, prepared.budget, (doc, _seq, size) => {
        if (!prepared.test(doc)) return true;
        if (seen++ >= skip) {
          prepared.budget.allocateString(size, documentsOf(row));
          out.push(doc);
        }
        if (out.length > this.limits.maxInMemoryDocuments) throw this.tooMany();
        return limit === undefined || out.length < limit;
      });
      return out;
    }
    const matches: Document[] = [];
    await this.scan(row, predicate.where, check, prepared.budget, (doc, _seq, size) => {
      if (!prepared.test(doc)) return true;
      prepared.budget.allocateString(size, documentsOf(row));
      matches.push(doc);
      if (matches.length > this.limits.maxInMemoryDocuments) throw this.tooMany();
      return true;
    });
    const sorted = sortDocuments(matches, sort!, prepared.budget);
    return sorted.slice(skip, limit === undefined ? undefined : skip + limit);
  }

  /**
   * Calls `visit` with each candidate document (matching `where`) in natural order, fetched in
   * batches inside one read-only transaction (one snapshot), until `visit` returns false.
   */
  private async scan(
    row: CollectionRow,
    where: Sql | undefined,
    check: boolean,
    budget: Budget,
    /** `size`: the characters of the document's JSON, for what keeps it to charge. */
    visit: (doc: Document, seq: number, size: number) => boolean | Promise<boolean>,
    writeTx?: Queryable,
  ): Promise<void> {
    const what = `query on collection '${row.name}'`;
    const walk = async (db: Queryable) => {
      let last = -1;
      for (let first = true; ; first = false) {
        const rows = await db.all<DocRow>(
          sql`SELECT seq, ${this.docColumn()}${this.stateColumn(row)} FROM documents
              WHERE ${scope(row)}${and(where)} AND seq > ${last} ORDER BY seq LIMIT ${BATCH}`,
        );
        if (check && first) await this.checkState(row, rows);
        for (const r of rows) {
          budget.checkTime(what);
          const d = readDoc(r.doc);
          const text = d.text ?? (await this.largeDocument(db, row, d.seq));
          if (text === undefined) continue;
          if (!(await visit(JSON.parse(text) as Document, Number(r.seq), text.length))) return;
        }
        if (rows.length < BATCH) return;
        last = Number(rows[rows.length - 1]!.seq);
      }
    };
    // Inside a write transaction the walk joins it; a read gets a snapshot of its own.
    if (writeTx) return walk(writeTx);
    return this.store.transaction(walk, { readOnly: true, isolation: 'repeatable read' });
  }

  /**
   * The document column of a read: the JSON of a document up to INLINE_DOCUMENT_BYTES, else
   * `<size in bytes>:<seq>` for largeDocument to read it on its own (one column, as fast as the
   * document alone; JSON text always starts with `{`).
   */
  private docColumn(): Sql {
    const pg = this.store.dialect.name === 'postgres';
    const size = pg ? sql`octet_length(doc::text)` : sql`octet_length(doc)`;
    const doc = pg ? sql`doc::text` : sql`doc`;
    return sql`CASE WHEN ${size} <= ${INLINE_DOCUMENT_BYTES} THEN ${doc} ELSE ${size} || ':' || seq END AS doc`;
  }

  private async largeDocument(db: Queryable, row: CollectionRow, seq: number): Promise<string | undefined> {
    const r = await db.get<{ doc: string }>(
      sql`SELECT doc FROM documents WHERE ${scope(row)} AND seq = ${seq}`,
    );
    return r?.doc;
  }

  private async assertFits(row: CollectionRow, where: Sql | undefined, skip: number): Promise<void> {
    const r = await this.store.get<{ n: number }>(
      sql`SELECT count(*) AS n FROM (SELECT 1 FROM documents WHERE ${scope(row)}${and(where)}
          LIMIT ${this.limits.maxInMemoryDocuments + skip + 1}) AS capped`,
    );
    if (Number(r!.n) - skip > this.limits.maxInMemoryDocuments) throw this.tooMany();
  }

  private tooMany(): CollectionError {
    return new CollectionError(
      'too-large',
      `more than ${this.limits.maxInMemoryDocuments} documents would have to be held in memory: narrow the condition or add $limit`,
    );
  }

  /**
   * The state column of a statement reading documents: PostgreSQL evaluates the subquery once
   * (an InitPlan), in the statement's snapshot. SQLite would evaluate it per row; there the state
   * is checked apart, after the statement (checkStateApart).
   */
  private stateColumn(row: CollectionRow): Sql {
    return this.store.dialect.name === 'postgres' ? sql`, ${stateOf(row)} AS v` : sql``;
  }

  /**
   * Throws StaleShape (and forgets the cached row) when the statement saw another state. Sync
   * when the rows carry the state; otherwise it is read by a statement of its own.
   */
  private checkState(row: CollectionRow, rows: Array<{ v?: number | null }>): void | Promise<void> {
    if (rows.length && rows[0]!.v !== undefined) return this.expectState(row, rows[0]!.v);
    return this.checkStateApart(row);
  }

  /**
   * SQLite: PRAGMA data_version (read after the documents) changes with every commit of another
   * connection; unchanged since the row was last found current, nothing can have changed it.
   * Otherwise the state is read now: the version only grows, so the same version now means the
   * same when the documents were read.
   */
  private async checkStateApart(row: CollectionRow): Promise<void> {
    const dataVersion =
      this.store.dialect.name === 'sqlite'
        ? Number((await this.store.get<{ data_version: number }>(DATA_VERSION))!.data_version)
        : undefined;
    if (dataVersion !== undefined && row.checkedAt === dataVersion) return;
    const r = await this.store.get<{ v: number | null }>(sql`SELECT ${stateOf(row)} AS v`);
    this.expectState(row, r?.v ?? null);
    row.checkedAt = dataVersion;
  }

  private expectState(row: CollectionRow, state: number | null): void {
    if (state === null || Number(state) !== stateValue(row)) {
      this.rows.delete(rowKey(row.accountId, row.name));
      this.shapes.delete(row.id);
      throw new StaleShape();
    }
  }

  /** The collection's row, read now (and cached for the next reads, which check it). */
  private async lookup(accountId: string, name: string): Promise<CollectionRow | undefined> {
    const r = await this.store.get(
      sql`SELECT account_id, id, name, is_public, is_readonly, shape_version, created_at FROM collections
          WHERE account_id = ${accountId} AND name = ${name}`,
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

  private async resolve(actor: Actor, ref: string | number): Promise<CollectionRow | undefined> {
    const accountId = accountOf(actor);
    if (typeof ref === 'string') {
      const byName = await this.lookup(accountId, ref);
      if (byName || !/^\d+$/.test(ref)) return byName;
      ref = Number(ref);
    }
    if (!Number.isSafeInteger(ref)) return undefined;
    const r = await this.store.get(
      sql`SELECT account_id, id, name, is_public, is_readonly, shape_version, created_at FROM collections
          WHERE account_id = ${accountId} AND id = ${ref}`,
    );
    return r ? toCollectionRow(r) : undefined;
  }

  /** The shape of the version the row names (reloaded when the cache is older). */
  private async shapeOf(row: CollectionRow): Promise<Shape> {
    const cached = this.shapes.get(row.id);
    if (cached && cached.version === row.shapeVersion) return cached.shape;
    const r = await this.store.get<{ shape: string; shape_version: number }>(
      sql`SELECT shape, shape_version FROM collections WHERE account_id = ${row.accountId} AND id = ${row.id}`,
    );
    if (!r) throw new StaleShape();
    const entry = { version: Number(r.shape_version), shape: parseShape(r.shape) };
    if (this.shapes.size > 10_000) this.shapes.clear();
    this.shapes.set(row.id, entry);
    // A newer version may carry other rights or another name: start again from a fresh row.
    if (entry.version !== row.shapeVersion) {
      this.rows.delete(rowKey(row.accountId, row.name));
      throw new StaleShape();
    }
    return entry.shape;
  }

  // ───────────────────────────── internals: writing

  /**
   * Runs `fn` in a transaction holding the collection's row lock (created first when `create`);
   * returns undefined when the collection does not exist and `create` is false. Unique-index
   * violations become CollectionErrors naming the index.
   */
  private async write<T>(
    actor: Actor,
    name: string,
    create: boolean,
    fn: (w: Writer) => Promise<T>,
  ): Promise<T | undefined> {
    const accountId = accountOf(actor);
    checkName(name);
    try {
      return await this.store.transaction(async (tx) => {
        let r = await this.lockRow(tx, accountId, name);
        if (!r) {
          if (!create) return undefined;
          this.assertCanCreate(actor, name);
          await tx.run(
            sql`INSERT INTO collections (account_id, name, is_public, is_readonly, shape, shape_version, created_at)
                VALUES (${accountId}, ${name}, ${false}, ${false}, ${serializeShape(emptyShape())}, 0, ${this.clock()})
                ON CONFLICT (account_id, name) DO NOTHING`,
          );
          r = await this.lockRow(tx, accountId, name);
        }
        const row = toCollectionRow(r!);
        this.assertCanWrite(actor, row);
        const writer = new Writer(tx, row, parseShape(String(r!.shape)), this.limits.maxShapePaths);
        const result = await fn(writer);
        await writer.saveShape();
        return result;
      });
    } catch (e) {
      throw await this.explainDuplicate(accountId, name, e);
    } finally {
      this.rows.delete(rowKey(accountId, name));
    }
  }

  private lockRow(tx: Queryable, accountId: string, name: string): Promise<Row | undefined> {
    return tx.get(
      sql`SELECT account_id, id, name, is_public, is_readonly, shape, shape_version, created_at FROM collections
          WHERE account_id = ${accountId} AND name = ${name}${tx.dialect.forUpdate}`,
    );
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
    const keys = (JSON.parse(index.keys) as string[]).join(', ');
    return new CollectionError(
      'duplicate-key',
      `duplicate key: unique index '${index.name}' of collection '${name}' already has a document with the same ${keys}`,
    );
  }

  /** A document as stored: JSON values only, a string `_id` first, within the size limit. */
  private prepareDocument(value: unknown): Document {
    const body = toJsonDocument(value);
    let id = body._id;
    if (id === undefined || id === null) id = this.newId();
    else if (typeof id === 'number' && Number.isFinite(id)) id = String(id);
    else if (typeof id !== 'string' || id === '')
      throw new CollectionError('invalid', '_id must be a non-empty string or a number');
    delete body._id;
    const doc: Document = { _id: id as string, ...body };
    const text = JSON.stringify(doc);
    if (
      text.length * 3 > this.limits.maxDocumentBytes &&
      Buffer.byteLength(text) > this.limits.maxDocumentBytes
    )
      throw new CollectionError(
        'too-large',
        `a document of ${Buffer.byteLength(text)} bytes is larger than the limit of ${this.limits.maxDocumentBytes} bytes`,
      );
    return doc;
  }

  /** The function turning a matched document into its new version. */
  private modifier(change: Record<string, unknown>, budget: Budget): (doc: Document) => Document {
    checkSpec(change);
    const keys = Object.keys(change);
    const operators = keys.filter((k) => k.startsWith('$'));
    if (operators.length === 0) {
      // A replacement: the new body under the old _id.
      const replacement = toJsonDocument(change);
      return (doc) => {
        if (replacement._id !== undefined && String(replacement._id) !== doc._id)
          throw new CollectionError('invalid', `the replacement cannot change _id ('${doc._id}')`);
        return this.prepareDocument({ ...replacement, _id: doc._id });
      };
    }
    if (operators.length !== keys.length)
      throw new CollectionError('invalid', 'an update cannot mix operators ($set …) with plain fields');
    for (const op of operators) {
      if (!UPDATE_OPERATORS.has(op)) throw new CollectionError('invalid', `unknown update operator ${op}`);
      if (!isPlainObject(change[op])) throw new CollectionError('invalid', `${op} needs an object of fields`);
      for (const path of Object.keys(change[op] as object)) {
        assertSafePath(path);
        if (path === '_id' || path.startsWith('_id.'))
          throw new CollectionError('invalid', `the field '_id' cannot be changed`);
      }
    }
    return (doc) => {
      const id = doc._id;
      applyUpdate(doc, change, budget);
      return this.prepareDocument({ ...doc, _id: id });
    };
  }

  // ───────────────────────────── rights

  private assertCanRead(actor: Actor, row: CollectionRow): void {
    if (row.isPublic || actor.user) return;
    throw new CollectionError(
      'access-denied',
      `collection '${row.name}' is not public: only a user of the account may use it`,
    );
  }

  private assertCanWrite(actor: Actor, row: CollectionRow): void {
    this.assertCanRead(actor, row);
    if (row.isReadonly && !actor.user?.isAdmin)
      throw new CollectionError(
        'read-only',
        `collection '${row.name}' is read-only: only an administrator of the account may modify it`,
      );
  }

  private assertCanCreate(actor: Actor, name: string): void {
    if (!actor.user)
      throw new CollectionError(
        'access-denied',
        `only a user of the account may create collection '${name}'`,
      );
  }
}

/** How budget errors name what a query holds: `documents of collection 'orders'`. */
function documentsOf(row: CollectionRow): string {
  return `documents of collection '${row.name}'`;
}
