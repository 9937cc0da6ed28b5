/**
 * Collection indexes: real engine indexes on `documents`, partial to the collection, over the
 * same field expressions (or key columns) the pushdown writes, so the engine's planner uses them
 * (the DDL is the document dialect's: src/store/documents*.ts).
 *
 * Key columns: where the engine has them, the first fields named by a collection's indexes each
 * get one (filled from the documents here, kept by every write after: writer.ts) until none is
 * free; the others are indexed as expressions. A column is given back when no index names its
 * field any more.
 *
 * A build that gives a field a column runs in three steps, so that it never holds the
 * collection (or the documents table's pages) for the whole fill:
 * 1. one transaction creates the engine index and records the index and its new columns as
 *    *filling* (`collections.key_columns`, `$filling`): from its commit on, every write keeps
 *    them in step, and no read uses them;
 * 2. the columns are filled slice by slice, a transaction each (FILL_SLICES; the dialect's
 *    fillKeyColumns says why slices keep the table from growing), alongside other writes;
 * 3. one transaction, under the collection's lock, fills what the slices missed and moves the
 *    columns to the filled ones: from then on reads use them.
 * An engine whose createIndex fills the columns itself (`fillsInCreate`: SQLite, one writer at a
 * time, fills them before a sorted build of the index) has them filled at step 1's commit: no
 * step 2 or 3.
 * A build stopped between 1 and 3 (a crash, a lost connection) leaves a listed index whose
 * columns are filling: reads stay exact (they read the field from `doc`), and calling
 * create_index again with the same definition runs steps 2 and 3, delete_index removes it.
 */
import { randomBytes } from 'node:crypto';
import { sql, type DocumentIndexDefinition, type KeyColumns, type Sql } from '../../store/index.js';
import { checkIndexKeys, checkIndexName, unknownCollection } from './checks.js';
import type { CollectionCore } from './core.js';
import { CollectionError } from './errors.js';
import { assertCanRead } from './rights.js';
import { accountOf, toIndexDescriptor } from './rows.js';
import type { Actor, IndexDescriptor } from './types.js';
import type { Writer } from './writer.js';
import { dictionary } from '../../safety/narrow.js';
import { parseIndexKeys } from './safety.js';

export type IndexDefinition = DocumentIndexDefinition;

const ID_INDEX: IndexDescriptor = { keys: ['_id'], unique: true, name: '_id_', ascending: true };

export async function listIndexes(
  core: CollectionCore,
  actor: Actor,
  ref: string | number,
): Promise<IndexDescriptor[]> {
  const row = await core.resolve(actor, ref);
  if (!row) throw unknownCollection(ref);
  assertCanRead(actor, row);
  const rows = await core.store.all(
    sql`SELECT name, keys, is_unique, ascending FROM collection_indexes
        WHERE account_id = ${accountOf(actor)} AND collection_id = ${row.id} ORDER BY created_at, name`,
  );
  return [{ ...ID_INDEX, keys: [...ID_INDEX.keys] }, ...rows.map(toIndexDescriptor)];
}

/**
 * Creates a real engine index on the collection (a unique one refuses documents repeating its
 * key values). True when created or when the same index already exists.
 */
export async function createIndex(
  core: CollectionCore,
  actor: Actor,
  ref: string | number,
  name: string,
  def: IndexDefinition,
): Promise<boolean> {
  checkIndexName(name);
  checkIndexKeys(def.keys);
  const row0 = await core.resolve(actor, ref);
  if (!row0) throw unknownCollection(ref);
  const documents = core.store.dialect.documents;
  const duplicates = () =>
    new CollectionError(
      'duplicate-key',
      `cannot create unique index '${name}': documents of collection '${row0.name}' repeat the same ${def.keys.join(', ')}`,
    );
  let build: { sqlName: string; columns: KeyColumns } | undefined;
  try {
    build = await core.write(actor, row0.name, false, async (w) => {
      const existing = await w.tx.get(
        sql`SELECT name, keys, is_unique, ascending, sql_name FROM collection_indexes
            WHERE account_id = ${w.accountId} AND collection_id = ${w.row.id} AND name = ${name}`,
      );
      if (existing) {
        const d = toIndexDescriptor(existing);
        if (
          JSON.stringify(d.keys) === JSON.stringify(def.keys) &&
          d.unique === def.unique &&
          d.ascending === def.ascending
        )
          return { sqlName: String(existing.sql_name), columns: fillingOf(w, def.keys) };
        throw new CollectionError(
          'exists',
          `index '${name}' already exists on collection '${w.row.name}' with other keys or options`,
        );
      }
      const count = await w.tx.get<{ n: number }>(
        sql`SELECT count(*) AS n FROM collection_indexes WHERE account_id = ${w.accountId} AND collection_id = ${w.row.id}`,
      );
      if (Number(count!.n) >= core.limits.maxIndexes)
        throw new CollectionError(
          'too-large',
          `collection '${w.row.name}' already has ${core.limits.maxIndexes} indexes, the most allowed`,
        );
      const sqlName = `fmx_${w.row.id}_${randomBytes(6).toString('hex')}`;
      allocateKeyColumns(core, w, def.keys);
      const columns = fillingOf(w, def.keys);
      try {
        for (const ddl of documents.createIndex(sqlName, w.row.id, def, w.writtenKeys, Object.keys(columns)))
          await w.tx.run(ddl);
      } catch (e) {
        if (core.store.dialect.uniqueViolation(e)) throw duplicates();
        throw e;
      }
      const filled = documents.fillsInCreate ? markFilled(w, columns) : columns;
      // created_at orders the listing: strictly increasing within the collection.
      const last = await w.tx.get<{ m: number | null }>(
        sql`SELECT max(created_at) AS m FROM collection_indexes WHERE account_id = ${w.accountId} AND collection_id = ${w.row.id}`,
      );
      const createdAt = Math.max(core.clock(), Number(last?.m ?? 0) + 1);
      await w.tx.run(
        sql`INSERT INTO collection_indexes (account_id, collection_id, name, keys, is_unique, ascending, sql_name, created_at)
            VALUES (${w.accountId}, ${w.row.id}, ${name}, ${JSON.stringify(def.keys)}, ${def.unique}, ${def.ascending}, ${sqlName}, ${createdAt})`,
      );
      return { sqlName, columns: filled };
    });
  } catch (e) {
    // PostgreSQL reports a failed CREATE UNIQUE INDEX with the same code as a duplicate row.
    if (e instanceof CollectionError || !core.store.dialect.uniqueViolation(e)) throw e;
    throw duplicates();
  }
  if (build && Object.keys(build.columns).length) {
    try {
      await fillKeyColumns(core, actor, row0.name, build.columns);
    } catch (e) {
      if (e instanceof CollectionError || !core.store.dialect.uniqueViolation(e)) throw e;
      // The documents repeat a key of the unique index: the build is undone.
      await core.write(actor, row0.name, false, (w) =>
        dropIndexWhere(core, w, sql`sql_name = ${build!.sqlName}`),
      );
      throw duplicates();
    }
  }
  return true;
}

/** How many slices a key column is filled in (each a transaction of its own). */
const FILL_SLICES = 16;

/** Steps 2 and 3 of a build (above): fills `columns` (field path → column, filling). */
async function fillKeyColumns(core: CollectionCore, actor: Actor, name: string, columns: KeyColumns) {
  const documents = core.store.dialect.documents;
  const first = await core.resolve(actor, name);
  if (!first) return;
  // A transaction each: one chosen as a deadlock's victim (a write locking the same rows in
  // another order) runs again.
  for (let index = 0; index < FILL_SLICES; index++) {
    const slice = documents.fillKeyColumns(first.id, columns, { index, of: FILL_SLICES });
    await core.store.transaction((tx) => tx.run(slice));
  }
  await core.write(actor, name, false, async (w) => {
    // Still filling, the same columns (a delete_index may have given them back meanwhile).
    const filled = dictionary<string>();
    const filling = Object.assign(dictionary<string>(), w.filling);
    for (const [path, column] of Object.entries(columns))
      if (filling[path] === column) {
        filled[path] = column;
        delete filling[path];
      }
    if (!Object.keys(filled).length) return;
    // The slices ran beside other writes; under the collection's lock none does: one more pass
    // (reading the collection, writing what differs, nothing after complete slices) proves the
    // columns complete before reads use them.
    await w.tx.run(documents.fillKeyColumns(w.row.id, filled));
    w.setKeys(Object.assign(dictionary<string>(), w.keys, filled), filling);
    if (documents.analyze) await w.tx.run(documents.analyze);
  });
}

/** Moves `columns` from the filling key columns to the filled ones; returns what is left to fill (none). */
function markFilled(w: Writer, columns: KeyColumns): KeyColumns {
  if (!Object.keys(columns).length) return columns;
  const filling = Object.assign(dictionary<string>(), w.filling);
  for (const path of Object.keys(columns)) delete filling[path];
  w.setKeys(Object.assign(dictionary<string>(), w.keys, columns), filling);
  return {};
}

/** The filling key columns of `paths` (field path → column). */
function fillingOf(w: Writer, paths: readonly string[]): KeyColumns {
  const out = dictionary<string>();
  for (const path of paths) {
    const column = w.filling[path];
    if (column !== undefined) out[path] = column;
  }
  return out;
}

/** True when deleted, false when the collection has no index of that name. */
export async function deleteIndex(
  core: CollectionCore,
  actor: Actor,
  ref: string | number,
  name: string,
): Promise<boolean> {
  if (name === '_id_') throw new CollectionError('invalid', `index '_id_' cannot be deleted`);
  const row0 = await core.resolve(actor, ref);
  if (!row0) throw unknownCollection(ref);
  const done = await core.write(actor, row0.name, false, (w) => dropIndexWhere(core, w, sql`name = ${name}`));
  return done === true;
}

/** Drops the collection's index `which` selects (a condition on collection_indexes); false when none. */
async function dropIndexWhere(core: CollectionCore, w: Writer, which: Sql): Promise<boolean> {
  const index = await w.tx.get<{ sql_name: string }>(
    sql`SELECT sql_name FROM collection_indexes WHERE account_id = ${w.accountId} AND collection_id = ${w.row.id} AND ${which}`,
  );
  if (!index) return false;
  await w.tx.run(
    sql`DELETE FROM collection_indexes WHERE account_id = ${w.accountId} AND collection_id = ${w.row.id} AND sql_name = ${index.sql_name}`,
  );
  const released = await releaseKeyColumns(w);
  for (const ddl of core.store.dialect.documents.dropIndex(index.sql_name, w.row.id, released))
    await w.tx.run(ddl);
  return true;
}

/** Gives each field of `paths` without one a free key column, to be filled (w.filling). */
function allocateKeyColumns(core: CollectionCore, w: Writer, paths: string[]): void {
  const documents = core.store.dialect.documents;
  const filling = Object.assign(dictionary<string>(), w.filling);
  const used = new Set([...Object.values(w.keys), ...Object.values(filling)]);
  let given = 0;
  for (const path of paths) {
    if (path === '_id' || w.keys[path] !== undefined || filling[path] !== undefined) continue;
    const free = documents.keyColumnNames.find((c) => !used.has(c));
    if (free === undefined) break;
    filling[path] = free;
    used.add(free);
    given++;
  }
  if (given) w.setKeys(w.keys, filling);
}

/**
 * Gives back the key columns of fields no remaining index names; returns those columns (emptied
 * by the drop, so a new owner starts from NULLs).
 */
async function releaseKeyColumns(w: Writer): Promise<string[]> {
  if (Object.keys(w.writtenKeys).length === 0) return [];
  const rows = await w.tx.all<{ keys: string }>(
    sql`SELECT keys FROM collection_indexes WHERE account_id = ${w.accountId} AND collection_id = ${w.row.id}`,
  );
  const named = new Set(rows.flatMap((r) => parseIndexKeys(r.keys)));
  const released: string[] = [];
  const keep = (columns: KeyColumns) => {
    const kept = dictionary<string>();
    for (const [path, column] of Object.entries(columns)) {
      if (named.has(path)) kept[path] = column;
      else released.push(column);
    }
    return kept;
  };
  const keys = keep(w.keys);
  const filling = keep(w.filling);
  if (released.length) w.setKeys(keys, filling);
  return released;
}
