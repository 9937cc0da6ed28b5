/**
 * Who may do what with a collection: a public collection needs no check, otherwise a user of the
 * account must be connected; a read-only collection is modified only by the account's admins;
 * only a user creates collections. (The account scope itself is in every statement: rows.ts.)
 */
import { CollectionError } from './errors.js';
import type { CollectionRow } from './rows.js';
import type { Actor } from './types.js';

export function assertCanRead(actor: Actor, row: CollectionRow): void {
  if (row.isPublic || actor.user) return;
  throw new CollectionError(
    'access-denied',
    `collection '${row.name}' is not public: only a user of the account may use it`,
  );
}

export function assertCanWrite(actor: Actor, row: CollectionRow): void {
  assertCanRead(actor, row);
  if (row.isReadonly && !actor.user?.isAdmin)
    throw new CollectionError(
      'read-only',
      `collection '${row.name}' is read-only: only an administrator of the account may modify it`,
    );
}

export function assertCanCreate(actor: Actor, name: string): void {
  if (!actor.user)
    throw new CollectionError('access-denied', `only a user of the account may create collection '${name}'`);
}

/** Changing a collection's rights flags: administrators of the account only. */
export function assertCanConfigure(actor: Actor, name: string): void {
  if (!actor.user?.isAdmin)
    throw new CollectionError(
      'read-only',
      `only an administrator of the account may change the settings of collection '${name}'`,
    );
}
