/** The catalog: listing, creating, emptying, removing, renaming and configuring collections. */
import { sql } from '../../store/index.js';
import { checkName } from './checks.js';
import type { CollectionCore } from './core.js';
import { CollectionError } from './errors.js';
import { assertCanConfigure, assertCanCreate, assertCanRead } from './rights.js';
import { accountOf, info, toCollectionRow } from './rows.js';
import { emptyShape, serializeShape } from './shape.js';
import type { Actor, CollectionInfo } from './types.js';

/** The account's collections (only public ones when nobody is connected), by name. */
export async function listCollections(
  core: CollectionCore,
  actor: Actor,
  options: { withCounts?: boolean } = {},
): Promise<Array<CollectionInfo & { documents?: number }>> {
  const counts = options.withCounts
    ? sql`, (SELECT count(*) FROM documents d WHERE d.account_id = c.account_id AND d.collection_id = c.id) AS documents`
    : sql``;
  const rows = await core.store.all(
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
export async function getCollection(
  core: CollectionCore,
  actor: Actor,
  ref: string | number,
): Promise<CollectionInfo | undefined> {
  const row = await core.resolve(actor, ref);
  if (!row) return undefined;
  assertCanRead(actor, row);
  return info(row);
}

/** True when created, false when a collection of that name already exists (left as it is). */
export async function createCollection(
  core: CollectionCore,
  actor: Actor,
  name: string,
  flags: { isPublic: boolean; isReadonly: boolean },
): Promise<boolean> {
  checkName(name);
  assertCanCreate(actor, name);
  const inserted = await core.store.get(
    sql`INSERT INTO collections (account_id, name, is_public, is_readonly, shape, shape_version, created_at)
        VALUES (${accountOf(actor)}, ${name}, ${flags.isPublic}, ${flags.isReadonly}, ${serializeShape(emptyShape())}, 0, ${core.clock()})
        ON CONFLICT (account_id, name) DO NOTHING RETURNING id`,
  );
  return inserted !== undefined;
}

/** Deletes every document; the collection, its flags and indexes stay. False if unknown. */
export async function dropCollection(core: CollectionCore, actor: Actor, name: string): Promise<boolean> {
  const done = await core.write(actor, name, false, async (w) => {
    await w.tx.run(
      sql`DELETE FROM documents WHERE account_id = ${w.accountId} AND collection_id = ${w.row.id}`,
    );
    return true;
  });
  return done === true;
}

/** Deletes the collection with its configuration, indexes and documents. False if unknown. */
export async function removeCollection(core: CollectionCore, actor: Actor, name: string): Promise<boolean> {
  const done = await core.write(actor, name, false, async (w) => {
    const indexes = await w.tx.all<{ sql_name: string }>(
      sql`SELECT sql_name FROM collection_indexes WHERE account_id = ${w.accountId} AND collection_id = ${w.row.id}`,
    );
    for (const index of indexes)
      for (const ddl of core.store.dialect.documents.dropIndex(index.sql_name, w.row.id)) await w.tx.run(ddl);
    await w.tx.run(sql`DELETE FROM collections WHERE account_id = ${w.accountId} AND id = ${w.row.id}`);
    return true;
  });
  core.forgetPlans();
  return done === true;
}

/** True when renamed, false when `oldName` does not exist; an error when `newName` is taken. */
export async function renameCollection(
  core: CollectionCore,
  actor: Actor,
  oldName: string,
  newName: string,
): Promise<boolean> {
  checkName(newName);
  const done = await core.write(actor, oldName, false, async (w) => {
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
    core.forgetRow(w.accountId, newName);
    return true;
  });
  return done === true;
}

/**
 * Changes the rights flags of a collection (administrators of the account only). False when it
 * does not exist.
 */
export async function updateCollection(
  core: CollectionCore,
  actor: Actor,
  name: string,
  flags: { isPublic?: boolean; isReadonly?: boolean },
): Promise<boolean> {
  assertCanConfigure(actor, name);
  const done = await core.write(actor, name, false, async (w) => {
    await w.tx.run(
      sql`UPDATE collections SET is_public = ${flags.isPublic ?? w.row.isPublic}, is_readonly = ${flags.isReadonly ?? w.row.isReadonly},
          shape_version = shape_version + 1 WHERE account_id = ${w.accountId} AND id = ${w.row.id}`,
    );
    return true;
  });
  return done === true;
}
