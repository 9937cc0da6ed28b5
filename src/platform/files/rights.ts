/**
 * Who may do what with a file. A principal is the caller of a file operation: a user (or nobody),
 * whether they administer the account, the execution mode (lane membership is per mode: LIVE and
 * TEST see LIVE lanes, ACCEPTANCE sees ACCEPTANCE ones) and the request they run in.
 *
 * A principal may READ a file when any of these holds, and WRITE (change, delete, change rights)
 * when one of the marked ones does:
 * - * they administer the account;
 * - * they own it (created it), or it has no owner and was created in their request;
 * - * their user id, or a lane they are in, is granted WRITE;
 * - their user id, or a lane they are in, is granted READ;
 * - the file is PUBLIC.
 * WRITE implies READ. The grants are kept as four lists (user READ, user WRITE, lane READ,
 * lane WRITE) and shown as such (spec 2.2, file rights result); the owner's rights are implicit.
 */
import type { Mode } from '../model.js';

export const ACCESSES = ['READ', 'WRITE'] as const;
export type Access = (typeof ACCESSES)[number];
export const RIGHT_KINDS = ['user', 'lane'] as const;
export type RightKind = (typeof RIGHT_KINDS)[number];
export type Visibility = 'PRIVATE' | 'PUBLIC';

export const VISIBILITIES: readonly Visibility[] = ['PRIVATE', 'PUBLIC'];

export interface Principal {
  /** The connected user (after impersonation), or null when nobody is connected. */
  userId: number | null;
  isAdmin: boolean;
  mode: Mode;
  /** The process request the operation runs in, if any. */
  requestId?: string | null;
}

/** The operator of the CLI and other trusted maintenance: every right, owns nothing. */
export const SYSTEM_PRINCIPAL: Principal = Object.freeze({ userId: null, isAdmin: true, mode: 'LIVE' });

/** Spec 2.2: the rights of one file. Ids ascending. */
export interface FileRights {
  user: { READ: number[]; WRITE: number[] };
  lane: { READ: number[]; WRITE: number[] };
}

export interface Grant {
  kind: RightKind;
  access: Access;
  principalId: number;
}

export function emptyRights(): FileRights {
  return { user: { READ: [], WRITE: [] }, lane: { READ: [], WRITE: [] } };
}

export function rightsOf(grants: readonly Grant[]): FileRights {
  const rights = emptyRights();
  for (const g of grants) rights[g.kind][g.access].push(g.principalId);
  for (const kind of ['user', 'lane'] as const)
    for (const access of ['READ', 'WRITE'] as const) rights[kind][access].sort((a, b) => a - b);
  return rights;
}

export interface FileOwnership {
  ownerId: number | null;
  ownerRequest: string | null;
  visibility: Visibility;
}

/** The rights the principal holds without looking at grants (admin, owner, owning request, PUBLIC). */
export function implicitAccess(principal: Principal, file: FileOwnership): Access | undefined {
  if (principal.isAdmin) return 'WRITE';
  if (principal.userId !== null && file.ownerId === principal.userId) return 'WRITE';
  if (file.ownerId === null && file.ownerRequest !== null && principal.requestId === file.ownerRequest)
    return 'WRITE';
  if (file.visibility === 'PUBLIC') return 'READ';
  return undefined;
}

/** The strongest right the grants give a user in the given lanes. */
export function grantedAccess(
  grants: readonly Grant[],
  userId: number | null,
  laneIds: ReadonlySet<number>,
): Access | undefined {
  let best: Access | undefined;
  for (const g of grants) {
    const applies =
      g.kind === 'user' ? userId !== null && g.principalId === userId : laneIds.has(g.principalId);
    if (!applies) continue;
    if (g.access === 'WRITE') return 'WRITE';
    best = 'READ';
  }
  return best;
}

export function allows(held: Access | undefined, wanted: Access): boolean {
  return held === 'WRITE' || (held === 'READ' && wanted === 'READ');
}
