/**
 * Collection indexes: real engine indexes on `documents`, partial to the collection, over the
 * same field expressions (or key columns) the pushdown writes, so the engine's planner uses them
 * (the DDL is the document dialect's: src/store/documents*.ts).
 *
 * Key columns: where the engine has them, the first fields named by a collection's indexes each
 * get one (filled from the documents here, kept by every write after: writer.ts) until none is
 * free; the others are indexed as expressions. A column is given back when no index names its
 * field any more.
 */
import { randomBytes } from 'node:crypto';
import { sql, type DocumentIndexDefinition } from '../../store/index.js';
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
  try {
    await core.write(actor, row0.name, false, async (w) => {
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
      if (Number(count!.n) >= core.limits.maxIndexes)
        throw new CollectionError(
          'too-large',
          `collection '${w.row.name}' already has ${core.limits.maxIndexes} indexes, the most allowed`,
        );
      const sqlName = `fmx_${w.row.id}_${randomBytes(6).toString('hex')}`;
      const fill = allocateKeyColumns(core, w, def.keys);
      try {
        for (const ddl of documents.createIndex(sqlName, w.row.id, def, w.keys, fill)) await w.tx.run(ddl);
      } catch (e) {
        if (core.store.dialect.uniqueViolation(e)) throw duplicates();
        throw e;
      }
      // created_at orders the listing: strictly increasing within the collection.
      const last = await w.tx.get<{ m: number | null }>(
        sql`SELECT max(created_at) AS m FROM collection_indexes WHERE account_id = ${w.accountId} AND collection_id = ${w.row.id}`,
      );
      const createdAt = Math.max(core.clock(), Number(last?.m ?? 0) + 1);
      await w.tx.run(
        sql`INSERT INTO collection_indexes (account_id, collection_id, name, keys, is_unique, ascending, sql_name, created_at)
            VALUES (${w.accountId}, ${w.row.id}, ${name}, ${JSON.stringify(def.keys)}, ${def.unique}, ${def.ascending}, ${sqlName}, ${createdAt})`,
      );
      return true;
    });
  } catch (e) {
    // PostgreSQL reports a failed CREATE UNIQUE INDEX with the same code as a duplicate row.
    if (e instanceof CollectionError || !core.store.dialect.uniqueViolation(e)) throw e;
    throw duplicates();
  }
  return true;
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
  const done = await core.write(actor, row0.name, false, async (w) => {
    const index = await w.tx.get<{ sql_name: string }>(
      sql`SELECT sql_name FROM collection_indexes WHERE account_id = ${w.accountId} AND collection_id = ${w.row.id} AND name = ${name}`,
    );
    if (!index) return false;
    await w.tx.run(
      sql`DELETE FROM collection_indexes WHERE account_id = ${w.accountId} AND collection_id = ${w.row.id} AND name = ${name}`,
    );
    const released = await releaseKeyColumns(w);
    for (const ddl of core.store.dialect.documents.dropIndex(index.sql_name, w.row.id, released))
      await w.tx.run(ddl);
    return true;
  });
  return done === true;
}

/**
 * Gives each field of `paths` without one a free key column; returns those fields (the index DDL
 * fills their columns from the documents).
 */
function allocateKeyColumns(core: CollectionCore, w: Writer, paths: string[]): string[] {
  const documents = core.store.dialect.documents;
  const keys = Object.assign(dictionary<string>(), w.keys);
  const used = new Set(Object.values(keys));
  const given: string[] = [];
  for (const path of paths) {
    if (path === '_id' || keys[path] !== undefined) continue;
    const free = documents.keyColumnNames.find((c) => !used.has(c));
    if (free === undefined) break;
    keys[path] = free;
    used.add(free);
    given.push(path);
  }
  if (given.length) w.setKeys(keys);
  return given;
}

/**
 * Gives back the key columns of fields no remaining index names; returns those columns (emptied
 * by the drop, so a new owner starts from NULLs).
 */
async function releaseKeyColumns(w: Writer): Promise<string[]> {
  if (Object.keys(w.keys).length === 0) return [];
  const rows = await w.tx.all<{ keys: string }>(
    sql`SELECT keys FROM collection_indexes WHERE account_id = ${w.accountId} AND collection_id = ${w.row.id}`,
  );
  const named = new Set(rows.flatMap((r) => parseIndexKeys(r.keys)));
  const kept = dictionary<string>();
  const released: string[] = [];
  for (const [path, column] of Object.entries(w.keys)) {
    if (named.has(path)) kept[path] = column;
    else released.push(column);
  }
  if (released.length) w.setKeys(kept);
  return released;
}
