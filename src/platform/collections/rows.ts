/**
 * A collection's row as the service caches it, and the SQL fragments made from it once (scope,
 * state, count prefix) for the statements on its documents.
 */
import { sql, type Row, type Sql } from '../../store/index.js';
import type { Actor, CollectionInfo, IndexDescriptor } from './types.js';
import { parseIndexKeys } from './safety.js';

export interface CollectionRow extends CollectionInfo {
  accountId: string;
  shapeVersion: number;
  /** SQLite: the PRAGMA data_version at which this row was last found current. */
  checkedAt?: number;
}

export function rowKey(accountId: string, name: string): string {
  return `${accountId}\0${name}`;
}

export function accountOf(actor: Actor): string {
  if (typeof actor.accountId !== 'string' || actor.accountId === '')
    throw new Error('collections: no account');
  return actor.accountId;
}

export function toCollectionRow(r: Row): CollectionRow {
  return {
    id: Number(r.id),
    name: String(r.name),
    isPublic: Boolean(r.is_public),
    isReadonly: Boolean(r.is_readonly),
    shapeVersion: Number(r.shape_version),
    createdAt: Number(r.created_at),
    accountId: String(r.account_id),
  };
}

export function info(row: CollectionRow): CollectionInfo {
  return {
    id: row.id,
    name: row.name,
    isPublic: row.isPublic,
    isReadonly: row.isReadonly,
    createdAt: row.createdAt,
  };
}

export function toIndexDescriptor(r: Row): IndexDescriptor {
  return {
    keys: parseIndexKeys(r.keys),
    unique: Boolean(r.is_unique),
    name: String(r.name),
    ascending: Boolean(r.ascending),
  };
}

/** The scope every statement on documents carries; the literal collection id lets the planner use partial indexes. */
export const scopes = new WeakMap<CollectionRow, Sql>();
export function scope(row: CollectionRow): Sql {
  let s = scopes.get(row);
  if (!s)
    scopes.set(row, (s = sql`account_id = ${row.accountId} AND collection_id = ${sql.literal(row.id)}`));
  return s;
}

export function and(where: Sql | undefined): Sql {
  return where ? sql` AND ${where}` : sql``;
}

/**
 * `SELECT count(*) AS n, <state> AS v FROM documents WHERE <scope>`, made once per row: one row,
 * so the state subquery runs once on both engines.
 */
export const countPrefixes = new WeakMap<CollectionRow, Sql>();
export function countPrefix(row: CollectionRow): Sql {
  let s = countPrefixes.get(row);
  if (!s)
    countPrefixes.set(
      row,
      (s = sql`SELECT count(*) AS n, ${stateOf(row)} AS v FROM documents WHERE ${scope(row)}`),
    );
  return s;
}

/**
 * The collection's state as a statement sees it: its version, NULL once it is removed. The
 * version grows with every change of shape, name or rights flags (renameCollection,
 * updateCollection), so the same version proves that the plan and the rights check, made from a
 * cached row, were those of the data read.
 */
export const states = new WeakMap<CollectionRow, Sql>();
export function stateOf(row: CollectionRow): Sql {
  let s = states.get(row);
  if (!s)
    states.set(
      row,
      (s = sql`(SELECT shape_version FROM collections WHERE id = ${sql.literal(row.id)} AND account_id = ${row.accountId})`),
    );
  return s;
}

export function stateValue(row: CollectionRow): number {
  return row.shapeVersion;
}
