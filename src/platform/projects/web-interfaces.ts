/**
 * Web interfaces of projects, and the applications a user may launch (get_applications). A web
 * interface is offered in the modes its project has versions in: LIVE shows those with a LIVE
 * version, ACCEPTANCE those with a LIVE or ACCEPTANCE version (the ACCEPTANCE one launched when
 * both exist), TEST nothing. It lists the contexts it runs in (web, mobile, tablet), its tags,
 * and the lanes allowed to launch it (none = every user of the account).
 */
import type { Store } from '../../store/index.js';
import { sql } from '../../store/sql.js';
import { MESSAGES, notFound, PlatformError } from '../errors.js';
import { fromJson, isForbiddenKey, toJson, type Mode } from '../model.js';
import { isOneOf } from '../../safety/narrow.js';

/** The group of get_applications(…, tagged = true) holding the untagged web interfaces. */
export const NO_TAG = 'NO_TAG';

export const INTERFACE_CONTEXTS = ['web', 'mobile', 'tablet'] as const;
export type InterfaceContext = (typeof INTERFACE_CONTEXTS)[number];

export interface WebInterface {
  id: number;
  accountId: string;
  projectId: number;
  title: string;
  description: string;
  /** URL of a thumbnail image ('' when none). */
  thumb: string;
  tags: string[];
  contexts: InterfaceContext[];
  /** Lanes whose users may launch it; empty = every user. */
  lanes: number[];
  createdAt: number;
}

export interface NewWebInterface {
  title: string;
  description?: string;
  thumb?: string;
  tags?: string[];
  contexts?: InterfaceContext[];
  lanes?: number[];
}

/** One application a user may launch, in the mode it would run in. */
export interface Application {
  webInterface: WebInterface;
  mode: 'LIVE' | 'ACCEPTANCE';
}

type WebInterfaceRow = {
  id: number;
  account_id: string;
  project_id: number;
  title: string;
  description: string;
  thumb: string;
  tags: string;
  contexts: string;
  lanes: string;
  created_at: number;
};

export class WebInterfaces {
  constructor(
    private readonly store: Store,
    private readonly clock: () => number,
  ) {}

  async create(accountId: string, projectId: number, input: NewWebInterface): Promise<WebInterface> {
    const project = await this.store.get(
      sql`SELECT id FROM projects WHERE account_id = ${accountId} AND id = ${projectId}`,
    );
    if (!project) throw notFound(MESSAGES.projectNotFound);
    const f = checkInterface(input);
    const row = await this.store.get<WebInterfaceRow>(sql`
      INSERT INTO web_interfaces (account_id, project_id, title, description, thumb, tags, contexts, lanes, created_at)
      VALUES (${accountId}, ${projectId}, ${f.title}, ${f.description}, ${f.thumb}, ${toJson(f.tags)},
              ${toJson(f.contexts)}, ${toJson(f.lanes)}, ${this.clock()})
      RETURNING *`);
    return toWebInterface(row!);
  }

  /** Replaces every field of a web interface (as for create); it keeps its id, project and template. */
  async update(accountId: string, id: number, input: NewWebInterface): Promise<WebInterface> {
    const f = checkInterface(input);
    const row = await this.store.get<WebInterfaceRow>(sql`
      UPDATE web_interfaces SET title = ${f.title}, description = ${f.description}, thumb = ${f.thumb},
             tags = ${toJson(f.tags)}, contexts = ${toJson(f.contexts)}, lanes = ${toJson(f.lanes)}
      WHERE account_id = ${accountId} AND id = ${id} RETURNING *`);
    if (!row) throw notFound('Web interface not found.');
    return toWebInterface(row);
  }

  async find(accountId: string, id: number): Promise<WebInterface | undefined> {
    const row = await this.store.get<WebInterfaceRow>(
      sql`SELECT * FROM web_interfaces WHERE account_id = ${accountId} AND id = ${id}`,
    );
    return row && toWebInterface(row);
  }

  /** Every web interface of the account, by id. */
  async listAll(accountId: string): Promise<WebInterface[]> {
    const rows = await this.store.all<WebInterfaceRow>(
      sql`SELECT * FROM web_interfaces WHERE account_id = ${accountId} ORDER BY id`,
    );
    return rows.map(toWebInterface);
  }

  /** Deletes a web interface and its template; false when the account has no such interface. */
  async delete(accountId: string, id: number): Promise<boolean> {
    return this.store.transaction(async (tx) => {
      await tx.run(
        sql`DELETE FROM web_interface_templates WHERE account_id = ${accountId} AND web_interface_id = ${id}`,
      );
      const { changes } = await tx.run(
        sql`DELETE FROM web_interfaces WHERE account_id = ${accountId} AND id = ${id}`,
      );
      return changes > 0;
    });
  }

  async list(accountId: string, projectId: number): Promise<WebInterface[]> {
    const rows = await this.store.all<WebInterfaceRow>(
      sql`SELECT * FROM web_interfaces WHERE account_id = ${accountId} AND project_id = ${projectId} ORDER BY id`,
    );
    return rows.map(toWebInterface);
  }

  /**
   * The applications a user may launch in a mode and context, by title then id. `userLanes` are
   * the user's lanes in the mode's lane configuration.
   */
  async applications(
    accountId: string,
    options: { mode: Mode; context: InterfaceContext; userLanes: readonly number[] },
  ): Promise<Application[]> {
    if (options.mode === 'TEST') return [];
    const modes = options.mode === 'LIVE' ? ['LIVE'] : ['LIVE', 'ACCEPTANCE'];
    const versions = await this.store.all<{ project_id: number; mode: string }>(sql`
      SELECT DISTINCT project_id, mode FROM project_versions
      WHERE account_id = ${accountId} AND mode IN (${sql.join(modes)})`);
    const projectMode = new Map<number, 'LIVE' | 'ACCEPTANCE'>();
    for (const v of versions)
      if (v.mode === 'ACCEPTANCE' || !projectMode.has(v.project_id))
        projectMode.set(v.project_id, v.mode as 'LIVE');
    if (projectMode.size === 0) return [];
    const rows = await this.store.all<WebInterfaceRow>(sql`
      SELECT * FROM web_interfaces WHERE account_id = ${accountId} AND project_id IN (${sql.join([...projectMode.keys()])})
      ORDER BY title, id`);
    const lanes = new Set(options.userLanes);
    return rows
      .map(toWebInterface)
      .filter((w) => w.contexts.includes(options.context))
      .filter((w) => w.lanes.length === 0 || w.lanes.some((id) => lanes.has(id)))
      .map((w) => ({ webInterface: w, mode: projectMode.get(w.projectId)! }));
  }
}

function checkInterface(input: NewWebInterface) {
  const title = String(input.title ?? '').trim();
  if (title === '' || title.length > 255)
    throw new PlatformError('invalid', `invalid title ${JSON.stringify(input.title)}`);
  const contexts = input.contexts ?? ['web'];
  for (const c of contexts)
    if (!isInterfaceContext(c))
      throw new PlatformError('invalid', `invalid context ${JSON.stringify(c)}: web, mobile or tablet`);
  const tags = (input.tags ?? []).map((t) => String(t).trim()).filter((t) => t !== '');
  for (const tag of tags)
    if (isForbiddenKey(tag) || tag === NO_TAG)
      throw new PlatformError('invalid', `invalid tag ${JSON.stringify(tag)}`);
  const lanes = input.lanes ?? [];
  if (!lanes.every((id) => Number.isSafeInteger(id)))
    throw new PlatformError('invalid', 'lanes must be lane ids');
  return {
    title,
    description: input.description ?? '',
    thumb: input.thumb ?? '',
    tags,
    contexts: [...new Set(contexts)],
    lanes,
  };
}

export function isInterfaceContext(value: unknown): value is InterfaceContext {
  return isOneOf(INTERFACE_CONTEXTS, value);
}

/** Where a web interface is launched (see docs/platform.md): `<live URL>webinterface/<id>` plus mode and context. */
export function webInterfaceUrl(
  liveUrl: string,
  id: number,
  mode: 'LIVE' | 'ACCEPTANCE',
  context: InterfaceContext,
): string {
  const query = new URLSearchParams();
  if (mode === 'ACCEPTANCE') query.set('P_mode', 'ACCEPTANCE');
  if (context !== 'web') query.set('P_context', context);
  const text = query.toString();
  return `${liveUrl}webinterface/${id}${text ? `?${text}` : ''}`;
}

function toWebInterface(row: WebInterfaceRow): WebInterface {
  return {
    id: row.id,
    accountId: row.account_id,
    projectId: row.project_id,
    title: row.title,
    description: row.description,
    thumb: row.thumb,
    tags: fromJson(row.tags),
    contexts: fromJson(row.contexts),
    lanes: fromJson(row.lanes),
    createdAt: row.created_at,
  };
}
