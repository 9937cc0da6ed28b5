/**
 * Who may do what, in one place: the REST routes (src/server) and the library functions
 * (src/functions) both ask these predicates, so a script can never do what its user could not do
 * through the REST API (docs/platform.md, "Rights"). An actor is a user of the account, or null
 * when nobody is connected (an anonymous call of a public composite API).
 *
 * The design right: administrators of the account design every project; other users design the
 * projects they were granted (`grantDesign`). Designers write scripts, so evaluating an arbitrary
 * template (POST /api/v1/eval) needs it.
 */
import type { Store } from '../store/index.js';
import { sql } from '../store/sql.js';
import { MESSAGES, notFound, PlatformError } from './errors.js';
import type { Lane } from './directory/lanes.js';

export interface Actor {
  id: number;
  isAdmin: boolean;
}

/** The refusals, in the words users see (the function layer prefixes its name). */
export const RIGHTS_MESSAGES = {
  anonymous: 'this function needs a connected user; the script runs anonymously',
  admin: 'only an administrator of the account may call this function',
  design: (projectId: number) =>
    `only an administrator of the account or a designer of project ${projectId} may call this function`,
  otherPreferences: "only an administrator of the account may read or change another user's preferences",
  metadata: "only an administrator of the account may change a user's metadata",
  laneNotRuntime: (laneId: number) => `Lane ${laneId} is not a runtime lane.`,
  laneMembership: (laneId: number) =>
    `only an administrator of the account or a designer of a project using the pool of lane ${laneId} may change its users`,
  customList: (listId: string) =>
    `only an administrator of the account or a designer of the project of custom list ${listId} may change it`,
  otherRequest: "only an administrator of the account or the request's initiator may read another request",
  evaluate: (projectId: number) =>
    `Evaluating a template needs the design right on project ${projectId} or the account's administrator right.`,
  evaluateWithoutProject:
    "Evaluating a template without a project needs the account's administrator right; a designer gives the projectId of a project they design.",
  evaluateInRequest: (requestId: string) =>
    `Evaluating a template in request ${requestId} needs the design right on its project or the account's administrator right.`,
  evaluateAs: 'Only an administrator of the account may evaluate as another user.',
  exportBundle: (projectId: number) =>
    `Exporting project ${projectId} needs the design right on it or the account's administrator right.`,
} as const;

/** Fields of their own user that users may change without the administrator right. */
const SELF_FIELDS = new Set(['name', 'email', 'language', 'preferences', 'password', 'currentPassword']);

export function canAdministerAccount(actor: Actor | null): boolean {
  return actor?.isAdmin === true;
}

/** A user's private data (preferences): the user and administrators. */
export function canSeePrivate(actor: Actor | null, targetUserId: number): boolean {
  return actor !== null && (actor.isAdmin || actor.id === targetUserId);
}

/** Public metadata feeds lane rules, so only administrators change it (anyone's, their own included). */
export function canChangeMetadata(actor: Actor | null): boolean {
  return canAdministerAccount(actor);
}

/** A request's data: its initiator and administrators. */
export function canReadRequest(actor: Actor | null, request: { initiatorId: number | null }): boolean {
  return actor !== null && (actor.isAdmin || request.initiatorId === actor.id);
}

/**
 * Why an actor may not change these fields of a user (PATCH /users/:id), or undefined when they
 * may: administrators change anything, users their own name, email, language, preferences, password.
 */
export function userChangeRefusal(actor: Actor, targetUserId: number, fields: string[]): string | undefined {
  if (actor.isAdmin) return undefined;
  if (actor.id !== targetUserId) return 'Only an administrator of the account may change another user.';
  const refused = fields.filter((f) => !SELF_FIELDS.has(f));
  return refused.length > 0
    ? `Only an administrator of the account may change ${refused.join(', ')}.`
    : undefined;
}

export class Rights {
  constructor(
    private readonly store: Store,
    private readonly clock: () => number,
  ) {}

  /** Grants a user the design right on a project (idempotent). */
  async grantDesign(accountId: string, projectId: number, userId: number): Promise<void> {
    await this.requireRow(
      sql`SELECT id FROM projects WHERE account_id = ${accountId} AND id = ${projectId}`,
      MESSAGES.projectNotFound,
    );
    await this.requireRow(
      sql`SELECT id FROM users WHERE account_id = ${accountId} AND id = ${userId}`,
      MESSAGES.userNotFound,
    );
    await this.store.run(sql`
      INSERT INTO project_designers (account_id, project_id, user_id, granted_at)
      VALUES (${accountId}, ${projectId}, ${userId}, ${this.clock()})
      ON CONFLICT (project_id, user_id) DO NOTHING`);
  }

  /** Takes the design right back; false when the user did not hold it. */
  async revokeDesign(accountId: string, projectId: number, userId: number): Promise<boolean> {
    await this.requireRow(
      sql`SELECT id FROM projects WHERE account_id = ${accountId} AND id = ${projectId}`,
      MESSAGES.projectNotFound,
    );
    const { changes } = await this.store.run(sql`
      DELETE FROM project_designers
      WHERE account_id = ${accountId} AND project_id = ${projectId} AND user_id = ${userId}`);
    return changes > 0;
  }

  /** The users granted the design right on a project (administrators design every project without a grant). */
  async designers(accountId: string, projectId: number): Promise<number[]> {
    await this.requireRow(
      sql`SELECT id FROM projects WHERE account_id = ${accountId} AND id = ${projectId}`,
      MESSAGES.projectNotFound,
    );
    const rows = await this.store.all<{ user_id: number }>(sql`
      SELECT user_id FROM project_designers
      WHERE account_id = ${accountId} AND project_id = ${projectId} ORDER BY user_id`);
    return rows.map((r) => Number(r.user_id));
  }

  /** Administrators, and users granted the design right on the project. */
  async canDesign(accountId: string, actor: Actor | null, projectId: number): Promise<boolean> {
    if (actor === null) return false;
    if (actor.isAdmin) return true;
    const row = await this.store.get(sql`
      SELECT 1 AS found FROM project_designers
      WHERE account_id = ${accountId} AND project_id = ${projectId} AND user_id = ${actor.id}`);
    return row !== undefined;
  }

  /**
   * POST /api/v1/eval: the refusal, or undefined when the actor may evaluate a template in the
   * project (none: administrators only) as the user named (another user: administrators only).
   */
  async evaluationRefusal(
    accountId: string,
    actor: Actor & { login: string },
    projectId: number | undefined,
    asUser: string | undefined,
  ): Promise<string | undefined> {
    if (asUser !== undefined && asUser !== actor.login && !actor.isAdmin) return RIGHTS_MESSAGES.evaluateAs;
    if (projectId === undefined) return actor.isAdmin ? undefined : RIGHTS_MESSAGES.evaluateWithoutProject;
    return (await this.canDesign(accountId, actor, projectId))
      ? undefined
      : RIGHTS_MESSAGES.evaluate(projectId);
  }

  /**
   * Adding or removing a lane's users: administrators on any lane; designers of a project using
   * the lane's pool on its runtime lanes (the platform's "ADMIN, DESIGNER or SUPERVISOR").
   */
  async canWriteLaneMembership(
    accountId: string,
    actor: Actor | null,
    lane: Lane,
    /** The project of the stored script making the change (its design authority). */
    designedIn?: number,
  ): Promise<boolean> {
    if (actor?.isAdmin) return true;
    if (!lane.runtime) return false;
    if (designedIn !== undefined) {
      const used = await this.store.get(sql`
        SELECT 1 AS found FROM project_pools
        WHERE account_id = ${accountId} AND project_id = ${designedIn} AND pool_id = ${lane.poolId}`);
      if (used) return true;
    }
    if (actor === null) return false;
    const row = await this.store.get(sql`
      SELECT 1 AS found FROM project_designers d
      JOIN project_pools p ON p.project_id = d.project_id AND p.account_id = d.account_id
      WHERE d.account_id = ${accountId} AND d.user_id = ${actor.id} AND p.pool_id = ${lane.poolId}`);
    return row !== undefined;
  }

  /** Changing a custom list: administrators, and designers of the list's project. */
  async canWriteCustomList(
    accountId: string,
    actor: Actor | null,
    list: { projectId: number | null },
    /** The project of the stored script making the change (its design authority). */
    designedIn?: number,
  ): Promise<boolean> {
    if (actor?.isAdmin) return true;
    if (designedIn !== undefined && list.projectId === designedIn) return true;
    return list.projectId !== null && this.canDesign(accountId, actor, list.projectId);
  }

  private async requireRow(query: ReturnType<typeof sql>, message: string): Promise<void> {
    if (!(await this.store.get(query))) throw notFound(message);
  }
}

/** A function's refusal as a REST answer's sentence: `Only an administrator … may change it.` */
export function asSentence(reason: string): string {
  return `${reason.charAt(0).toUpperCase()}${reason.slice(1)}.`;
}

/** A refusal as the platform raises it (the server answers 403, a function `name: message`). */
export function notAllowed(message: string): PlatformError {
  return new PlatformError('not-allowed', message);
}
