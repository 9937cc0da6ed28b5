/**
 * The platform's records as Atom entries, and Atom entries read back as service input: the
 * mapping docs/client.md documents. `content` holds the resource's data: a project's `content`
 * object, a custom list's items; for every other kind the record as the JSON API shows it.
 */
import type { ApplicationInstance } from '../../platform/applications/index.js';
import type { Lane, LogThreshold, Pool, ProcessRequest, User } from '../../platform/index.js';
import type { CustomList, Project, ProjectVersion, WebInterface } from '../../platform/projects/index.js';
import {
  categoryTerm,
  parseResourceUrn,
  resourceUrn,
  type AtomEntry,
  type AtomFeed,
  type AtomLink,
} from '../../atom/format.js';
import { badRequest } from '../errors.js';
import { toUserBody } from '../routes/users.js';

/** Where the entries' links point: the server's origin and the account. */
export interface Site {
  origin: string;
  account: string;
}

export const iso = (ms: number) => new Date(ms).toISOString();

/** `<origin>/config/<account>/<path…>`: the URL of an Atom resource. */
export function configUrl(site: Site, ...path: Array<string | number>): string {
  return `${site.origin}/config/${encodeURIComponent(site.account)}/${path.map((p) => encodeURIComponent(String(p))).join('/')}`;
}

/** The feeds hanging off a project, by link rel (and path segment). */
export const PROJECT_FEEDS = {
  children: 'child',
  customlists: 'customlist',
  lanes: 'lane',
  lanesandpools: 'laneandpool',
  versions: 'version',
  webinterfaces: 'webinterface',
  wfreports: 'wfreport',
  wireports: 'wireport',
} as const;

export function projectEntry(site: Site, project: Project, author: User | undefined): AtomEntry {
  const self = configUrl(site, 'project', project.id);
  const link: AtomLink[] = [{ rel: 'self', href: self }];
  if (project.parentId !== null)
    link.push({ rel: 'parent', href: configUrl(site, 'project', project.parentId) });
  for (const [rel, path] of Object.entries(PROJECT_FEEDS)) link.push({ rel, href: `${self}/${path}` });
  const category = [{ term: project.type, label: 'type' }];
  if (project.logLevel !== null) category.push({ term: project.logLevel, label: 'P_log' });
  return {
    id: resourceUrn(site.account, 'project', project.id),
    title: project.title,
    updated: iso(project.updatedAt),
    published: iso(project.createdAt),
    ...(author ? { author: personOf(site, author) } : {}),
    category,
    link,
    summary: project.summary,
    content: project.content,
    metadata: project.metadata,
  };
}

function personOf(site: Site, user: User) {
  return {
    name: user.name,
    ...(user.email ? { email: user.email } : {}),
    uri: configUrl(site, 'user', user.id),
  };
}

export function versionEntry(site: Site, version: ProjectVersion): AtomEntry {
  return {
    id: resourceUrn(site.account, 'version', version.id),
    title: version.name,
    updated: iso(version.createdAt),
    published: iso(version.createdAt),
    category: [{ term: version.mode, label: 'mode' }],
    link: [{ rel: 'up', href: configUrl(site, 'project', version.projectId) }],
    content: version,
  };
}

export function laneEntry(site: Site, lane: Lane, member?: boolean): AtomEntry {
  const { accountId: _a, ...body } = lane;
  const category = [
    { term: 'lane', label: 'kind' },
    { term: String(lane.poolId), label: 'pool' },
  ];
  if (member !== undefined) category.push({ term: String(member), label: 'member' });
  return {
    id: resourceUrn(site.account, 'lane', lane.id),
    title: lane.name,
    updated: iso(lane.createdAt),
    published: iso(lane.createdAt),
    category,
    link: [
      { rel: 'self', href: configUrl(site, 'lane', lane.id) },
      { rel: 'up', href: configUrl(site, 'pool', lane.poolId) },
    ],
    content: body,
  };
}

export function poolEntry(site: Site, pool: Pool): AtomEntry {
  const { accountId: _a, ...body } = pool;
  return {
    id: resourceUrn(site.account, 'pool', pool.id),
    title: pool.name,
    updated: iso(pool.createdAt),
    published: iso(pool.createdAt),
    category: [
      { term: 'pool', label: 'kind' },
      { term: String(pool.isOrganization), label: 'isOrganization' },
    ],
    link: [
      { rel: 'self', href: configUrl(site, 'pool', pool.id) },
      { rel: 'lanes', href: configUrl(site, 'pool', pool.id, 'lane') },
    ],
    content: body,
  };
}

/** A user; preferences only to the user and administrators (as the JSON API). */
export function userEntry(site: Site, user: User, withPrivate: boolean): AtomEntry {
  return {
    id: resourceUrn(site.account, 'user', user.id),
    title: user.name,
    updated: iso(user.updatedAt),
    published: iso(user.createdAt),
    category: [
      { term: user.status, label: 'status' },
      { term: user.language, label: 'language' },
      { term: user.profile, label: 'profile' },
    ],
    link: [{ rel: 'self', href: configUrl(site, 'user', user.id) }],
    content: toUserBody(user, withPrivate),
  };
}

export function customListEntry(site: Site, list: CustomList): AtomEntry {
  const link: AtomLink[] = [{ rel: 'self', href: configUrl(site, 'customlist', list.id) }];
  if (list.projectId !== null)
    link.push({ rel: 'project', href: configUrl(site, 'project', list.projectId) });
  return {
    id: resourceUrn(site.account, 'customlist', list.id),
    title: list.name,
    updated: iso(list.updatedAt),
    link,
    content: list.content,
  };
}

export function webInterfaceEntry(site: Site, wi: WebInterface): AtomEntry {
  const { accountId: _a, ...body } = wi;
  return {
    id: resourceUrn(site.account, 'webinterface', wi.id),
    title: wi.title,
    updated: iso(wi.createdAt),
    published: iso(wi.createdAt),
    summary: wi.description,
    category: [
      ...wi.contexts.map((term) => ({ term, label: 'context' })),
      ...wi.tags.map((term) => ({ term, label: 'tag' })),
    ],
    link: [
      { rel: 'self', href: configUrl(site, 'webinterface', wi.id) },
      { rel: 'up', href: configUrl(site, 'project', wi.projectId) },
    ],
    content: body,
  };
}

/** A process request of a project (a workflow report). */
export function requestEntry(site: Site, request: ProcessRequest): AtomEntry {
  const { accountId: _a, ...body } = request;
  const link: AtomLink[] = [
    {
      rel: 'alternate',
      type: 'application/json',
      href: `${site.origin}/api/v1/requests/${encodeURIComponent(request.id)}`,
    },
  ];
  if (request.projectId !== null)
    link.push({ rel: 'up', href: configUrl(site, 'project', request.projectId) });
  return {
    id: resourceUrn(site.account, 'request', request.id),
    title: request.id,
    updated: iso(request.updatedAt),
    published: iso(request.createdAt),
    category: [
      { term: String(request.status), label: 'status' },
      { term: request.mode, label: 'mode' },
    ],
    link,
    content: body,
  };
}

/** An application instance of a project's web interface (a web interface report). */
export function instanceEntry(site: Site, instance: ApplicationInstance): AtomEntry {
  const { accountId: _a, ...body } = instance;
  const link: AtomLink[] = [];
  if (instance.projectId !== null)
    link.push({ rel: 'up', href: configUrl(site, 'project', instance.projectId) });
  if (instance.webInterfaceId !== null)
    link.push({ rel: 'webinterface', href: configUrl(site, 'webinterface', instance.webInterfaceId) });
  return {
    id: resourceUrn(site.account, 'appli', instance.id),
    title: instance.title || instance.id,
    updated: iso(instance.updatedAt),
    published: iso(instance.createdAt),
    category: [
      { term: instance.status, label: 'status' },
      { term: instance.mode, label: 'mode' },
    ],
    link,
    content: body,
  };
}

/** A feed of one page: OpenSearch counts, and self/first/previous/next links keeping the query. */
export function pageFeed(
  site: Site,
  request: { url: string; title: string },
  page: { total: number; first: number; nb: number },
  entries: AtomEntry[],
  now: number,
): AtomFeed {
  const self = new URL(request.url, site.origin);
  const at = (first: number) => {
    const url = new URL(self);
    url.searchParams.set('first', String(first));
    return url.toString();
  };
  const link: AtomLink[] = [{ rel: 'self', href: self.toString() }];
  if (page.first > 0) {
    link.push({ rel: 'first', href: at(0) });
    link.push({ rel: 'previous', href: at(Math.max(0, page.first - page.nb)) });
  }
  if (page.first + page.nb < page.total) link.push({ rel: 'next', href: at(page.first + page.nb) });
  return {
    id: `urn:flowmark:${site.account}:feed:${self.pathname}`,
    title: request.title,
    updated: iso(now),
    link,
    totalResults: page.total,
    startIndex: page.first,
    itemsPerPage: page.nb,
    entry: entries,
  };
}

// ---------------------------------------------------------------- reading entries

/** What a project entry asks for; only the fields it carries (the others stay as they are). */
export interface ProjectInput {
  title?: string;
  type?: string;
  logLevel?: LogThreshold | null;
  summary?: Record<string, unknown>;
  content?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  parentId?: number | null;
}

export function readProject(entry: AtomEntry): ProjectInput {
  const input: ProjectInput = {};
  if (entry.title !== undefined) input.title = entry.title;
  const type = categoryTerm(entry, 'type');
  if (type !== undefined) input.type = type;
  const logLevel = categoryTerm(entry, 'P_log');
  if (logLevel !== undefined) input.logLevel = logLevel === '' ? null : (logLevel as LogThreshold);
  if (entry.summary !== undefined) input.summary = objectMember(entry.summary, 'summary');
  if (entry.content !== undefined) input.content = objectMember(entry.content, 'content');
  if (entry.metadata !== undefined) input.metadata = objectMember(entry.metadata, 'metadata');
  const parent = entry.link?.find((l) => l.rel === 'parent');
  if (parent) input.parentId = idFromHref(parent.href, 'project', 'link rel="parent"');
  return input;
}

/** The mode changes of a PUT …/mode: one entry per version (its id, its mode category). */
export function readModeChanges(
  entries: AtomEntry[],
): Array<{ versionId: number; mode: ProjectVersion['mode'] }> {
  if (entries.length === 0) throw badRequest('Invalid Atom document: no version entries.');
  return entries.map((entry, i) => {
    const urn = parseResourceUrn(entry.id);
    const content = isObject(entry.content) ? entry.content : {};
    const rawId = urn?.kind === 'version' ? urn.id : content.id;
    const versionId = Number(rawId);
    if (!Number.isSafeInteger(versionId) || versionId < 1)
      throw badRequest(`entry ${i + 1}: a version id is expected in <id> (urn:flowmark:…:version:N)`);
    const mode = categoryTerm(entry, 'mode') ?? content.mode;
    if (mode !== 'LIVE' && mode !== 'ACCEPTANCE' && mode !== 'TEST')
      throw badRequest(`entry ${i + 1}: mode must be LIVE, ACCEPTANCE or TEST, not ${JSON.stringify(mode)}`);
    return { versionId, mode };
  });
}

export interface CustomListInput {
  id?: string;
  name?: string;
  projectId?: number | null;
  content?: unknown[];
}

export function readCustomList(entry: AtomEntry): CustomListInput {
  const input: CustomListInput = {};
  const urn = parseResourceUrn(entry.id);
  if (urn) {
    if (urn.kind !== 'customlist') throw badRequest(`<id>: a custom list URN is expected, not ${entry.id}`);
    input.id = urn.id;
  }
  if (entry.title !== undefined) input.name = entry.title;
  if (entry.content !== undefined) {
    if (!Array.isArray(entry.content)) throw badRequest('content: a custom list holds a JSON array');
    input.content = entry.content;
  }
  const project = entry.link?.find((l) => l.rel === 'project');
  if (project) input.projectId = idFromHref(project.href, 'project', 'link rel="project"');
  return input;
}

export interface WebInterfaceInput {
  title: string;
  description?: string;
  thumb?: string;
  tags?: string[];
  contexts?: Array<'web' | 'mobile' | 'tablet'>;
  lanes?: number[];
}

export function readWebInterface(entry: AtomEntry): WebInterfaceInput {
  const content = entry.content === undefined ? {} : objectMember(entry.content, 'content');
  const title = entry.title ?? content.title;
  if (typeof title !== 'string' || title.trim() === '')
    throw badRequest('title: a web interface needs a title');
  const input: WebInterfaceInput = { title };
  const description = typeof entry.summary === 'string' ? entry.summary : content.description;
  if (typeof description === 'string') input.description = description;
  if (typeof content.thumb === 'string') input.thumb = content.thumb;
  const contexts = entry.category?.filter((c) => c.label === 'context').map((c) => c.term);
  if (contexts?.length) input.contexts = contexts as WebInterfaceInput['contexts'];
  const tags = entry.category?.filter((c) => c.label === 'tag').map((c) => c.term);
  if (tags?.length) input.tags = tags;
  if (content.lanes !== undefined) {
    const lanes = content.lanes;
    if (!Array.isArray(lanes) || !lanes.every(isLaneId))
      throw badRequest('content.lanes: lane ids are expected');
    input.lanes = lanes;
  }
  return input;
}

/** The numeric id at the end of a resource href (`…/project/12`). */
function idFromHref(href: string, kind: string, where: string): number {
  const m = new RegExp(`/${kind}/(\\d+)/?$`).exec(href.split(/[?#]/)[0]!);
  const id = m ? Number(m[1]) : NaN;
  if (!Number.isSafeInteger(id) || id < 1)
    throw badRequest(`${where}: expected a …/${kind}/N URL, got ${JSON.stringify(href)}`);
  return id;
}

function objectMember(value: unknown, name: string): Record<string, unknown> {
  if (!isObject(value)) throw badRequest(`${name}: a JSON object is expected`);
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isLaneId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}
