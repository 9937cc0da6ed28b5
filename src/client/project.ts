/**
 * A project (spec parts 2.5 and 4.8): `/config/<customer>/project/<id>`. Its properties are those
 * of the spec; its title, summary, content, author, updated date and type are the Atom entry's own
 * members. The load… methods fill one property each from a feed under the project, with
 * pagination `{nb, first}` and filters `[{filter, operator, value}]`.
 */
import {
  atomToXml,
  categoryTerm,
  parseResourceUrn,
  resourceUrn,
  type AtomEntry,
  type AtomFeed,
  type AtomLink,
} from '../atom/format.js';
import { CustomList } from './custom-list.js';
import { ClientError, invalidArgument } from './errors.js';
import { asObject, dateOf, idInHref, recordOf } from './fields.js';
import { requestAtom } from './http.js';
import { Lane } from './lane.js';
import { Pool } from './pool.js';
import type { ListOptions } from './query.js';
import { configUrl, Resource, type ResourceInit, type Site } from './resource.js';
import { settle, type Callbacks, type CommonOptions, type Options } from './settle.js';
import { User } from './user.js';
import { WebInterface } from './web-interface.js';

/** A version's mode (the client talks HTTP only: test/client/wire-types.test.ts checks it against the server's schema). */
export type Mode = 'LIVE' | 'ACCEPTANCE' | 'TEST';

/** A version of the project and the mode it is published in (updateMode sends the modes). */
export interface ProjectVersion {
  id: number;
  projectId: number;
  name: string;
  mode: Mode;
  created: Date | null;
}

/** A workflow report: one process request of the project. */
export interface WorkflowReport {
  id: string;
  projectId: number | null;
  versionId: number | null;
  mode: Mode;
  status: number;
  /** The data document (the request's variables). */
  data: Record<string, unknown>;
  locks: Array<{ name: string; start: number; end?: number }>;
  message: string;
  initiatorId: number | null;
  parentId: string | null;
  created: Date | null;
  updated: Date | null;
}

/** A web interface report: one application instance of the project's web interfaces. */
export interface WebInterfaceReport {
  id: string;
  projectId: number | null;
  webInterfaceId: number | null;
  requestId: string | null;
  stepId: string | null;
  mode: Mode;
  status: string;
  title: string;
  data: Record<string, unknown>;
  created: Date | null;
  updated: Date | null;
}

/** The options of the load… methods. */
export type LoadOptions<R> = Options<R, ListOptions>;

export class Project extends Resource {
  protected override readonly writes = ['create', 'update', 'updateMode'] as const;
  protected readonly kind = 'project';
  declare id: number | undefined;

  // ---- spec 2.5
  /** Versions (loadVersions). */
  versions: ProjectVersion[] = [];
  title = '';
  /** Web interfaces (loadWebInterfaces). */
  webInterfaces: WebInterface[] = [];
  /** Project summary. */
  summary: Record<string, unknown> = {};
  /** Author information (set by the server: the user who created the project). */
  author: User | null = null;
  /** Content data. */
  content: Record<string, unknown> = {};
  /** Update date and time. */
  updated: Date | null = null;
  /** A lane-like object; flowmark keeps no creation lane, so it stays as the caller sets it (not sent). */
  creationLane: Lane | null = null;
  /** The project's lanes the logged-in user is in (loadLanes, loadLanesAndPools). */
  usersLanes: Lane[] = [];
  /** Custom lists (loadCustomLists). */
  customLists: CustomList[] = [];
  /** The lanes of the project's pools (loadLanes, loadLanesAndPools). */
  lanes: Lane[] = [];
  /** The pools the project uses (loadLanesAndPools). */
  pools: Pool[] = [];
  /** Project type (default PROCESS). */
  type = 'PROCESS';
  /** Child projects (loadChildren). */
  childs: Project[] = [];
  /** True if the project was loaded as a child (by loadChildren). */
  isLoadedChild = false;

  // ---- flowmark's own
  /** The parent project's id (a child project); set before create, it cannot change after. */
  parentId: number | null = null;
  /** Metadata (get_project_metadata). */
  metadata: Record<string, unknown> = {};
  /** The P_log attribute: the log level the project's scripts use instead of the mode's rule. */
  logLevel: string | null = null;
  published: Date | null = null;
  /** Workflow reports (loadWFReports). */
  wfReports: WorkflowReport[] = [];
  /** Web interface reports (loadWIReports). */
  wiReports: WebInterfaceReport[] = [];
  /** How many entries each list had on the server (its totalResults), by property name. */
  totals: Record<string, number> = {};

  constructor(init: ResourceInit & { title?: string } = {}) {
    super(init);
    if (init.title !== undefined) this.title = init.title;
  }

  // ------------------------------------------------------------ spec 4.8

  /** updateMode saves the modes of `versions` (each version's `mode`); `versions` comes back. */
  protected override async sendMode(site: Site): Promise<this> {
    const id = this.requireId();
    if (this.versions.length === 0)
      throw invalidArgument('Project.updateMode: no versions (loadVersions first)');
    const feed: AtomFeed = {
      entry: this.versions.map((v) => ({
        id: resourceUrn(site.customer, 'version', v.id),
        title: v.name,
        category: [{ term: v.mode, label: 'mode' }],
      })),
    };
    const url = configUrl(site, 'project', id, 'mode');
    const answer = await requestAtom({ method: 'PUT', url, body: atomToXml({ feed }), format: this.format });
    if (!('feed' in answer))
      throw new ClientError(200, 'invalid-xml', 'Invalid Atom document: expected a <feed> of versions');
    this.baseUrl = site.baseUrl;
    this.setList('versions', answer.feed, (e) => this.versionOf(e));
    return this;
  }

  /** Loads the child projects into `childs` (each with isLoadedChild true). */
  loadChildren(options: Callbacks<Project[]> & ListOptions): Promise<void>;
  loadChildren(options?: CommonOptions & ListOptions): Promise<Project[]>;
  loadChildren(options?: LoadOptions<Project[]>): Promise<Project[] | void> {
    return this.loadList(options, 'child', 'childs', (e, site) => {
      const child = this.sibling(Project, e, site);
      child.isLoadedChild = true;
      return child;
    });
  }

  /** Loads the project's custom lists into `customLists`. */
  loadCustomLists(options: Callbacks<CustomList[]> & ListOptions): Promise<void>;
  loadCustomLists(options?: CommonOptions & ListOptions): Promise<CustomList[]>;
  loadCustomLists(options?: LoadOptions<CustomList[]>): Promise<CustomList[] | void> {
    return this.loadList(options, 'customlist', 'customLists', (e, site) =>
      this.sibling(CustomList, e, site),
    );
  }

  /** Loads the lanes of the project's pools into `lanes`, and those the user is in into `usersLanes`. */
  loadLanes(options: Callbacks<Lane[]> & ListOptions): Promise<void>;
  loadLanes(options?: CommonOptions & ListOptions): Promise<Lane[]>;
  loadLanes(options?: LoadOptions<Lane[]>): Promise<Lane[] | void> {
    return settle(options, async () => {
      const { feed, site } = await this.feed(options, 'lane');
      this.lanes = feed.entry.map((e) => this.sibling(Lane, e, site));
      this.usersLanes = this.lanes.filter((l) => l.isMember === true);
      this.totals.lanes = feed.totalResults ?? this.lanes.length;
      return this.lanes;
    });
  }

  /** Loads the project's pools into `pools` and their lanes into `lanes` (and `usersLanes`). */
  loadLanesAndPools(options: Callbacks<{ lanes: Lane[]; pools: Pool[] }> & ListOptions): Promise<void>;
  loadLanesAndPools(options?: CommonOptions & ListOptions): Promise<{ lanes: Lane[]; pools: Pool[] }>;
  loadLanesAndPools(
    options?: LoadOptions<{ lanes: Lane[]; pools: Pool[] }>,
  ): Promise<{ lanes: Lane[]; pools: Pool[] } | void> {
    return settle(options, async () => {
      const { feed, site } = await this.feed(options, 'laneandpool');
      this.pools = [];
      this.lanes = [];
      for (const entry of feed.entry) {
        const kind = parseResourceUrn(entry.id)?.kind ?? categoryTerm(entry, 'kind');
        if (kind === 'pool') this.pools.push(this.sibling(Pool, entry, site));
        else this.lanes.push(this.sibling(Lane, entry, site));
      }
      for (const pool of this.pools) pool.lanes = this.lanes.filter((l) => l.poolId === pool.id);
      this.usersLanes = this.lanes.filter((l) => l.isMember === true);
      this.totals.lanesAndPools = feed.totalResults ?? feed.entry.length;
      return { lanes: this.lanes, pools: this.pools };
    });
  }

  /** Loads the project's versions into `versions`. */
  loadVersions(options: Callbacks<ProjectVersion[]> & ListOptions): Promise<void>;
  loadVersions(options?: CommonOptions & ListOptions): Promise<ProjectVersion[]>;
  loadVersions(options?: LoadOptions<ProjectVersion[]>): Promise<ProjectVersion[] | void> {
    return this.loadList(options, 'version', 'versions', (e) => this.versionOf(e));
  }

  /** Loads the project's web interfaces into `webInterfaces`. */
  loadWebInterfaces(options: Callbacks<WebInterface[]> & ListOptions): Promise<void>;
  loadWebInterfaces(options?: CommonOptions & ListOptions): Promise<WebInterface[]>;
  loadWebInterfaces(options?: LoadOptions<WebInterface[]>): Promise<WebInterface[] | void> {
    return this.loadList(options, 'webinterface', 'webInterfaces', (e, site) =>
      this.sibling(WebInterface, e, site),
    );
  }

  /** Loads the workflow reports (the project's process requests, newest first) into `wfReports`. */
  loadWFReports(options: Callbacks<WorkflowReport[]> & ListOptions): Promise<void>;
  loadWFReports(options?: CommonOptions & ListOptions): Promise<WorkflowReport[]>;
  loadWFReports(options?: LoadOptions<WorkflowReport[]>): Promise<WorkflowReport[] | void> {
    return this.loadList(options, 'wfreport', 'wfReports', workflowReportOf);
  }

  /** Loads the web interface reports (application instances, newest first) into `wiReports`. */
  loadWIReports(options: Callbacks<WebInterfaceReport[]> & ListOptions): Promise<void>;
  loadWIReports(options?: CommonOptions & ListOptions): Promise<WebInterfaceReport[]>;
  loadWIReports(options?: LoadOptions<WebInterfaceReport[]>): Promise<WebInterfaceReport[] | void> {
    return this.loadList(options, 'wireport', 'wiReports', webInterfaceReportOf);
  }

  // ------------------------------------------------------------ the entry

  protected readEntry(entry: AtomEntry): void {
    this.title = entry.title ?? '';
    this.type = categoryTerm(entry, 'type') ?? 'PROCESS';
    this.logLevel = categoryTerm(entry, 'P_log') || null;
    this.summary = asObject(entry.summary);
    this.content = asObject(entry.content);
    this.metadata = asObject(entry.metadata);
    this.updated = dateOf(entry.updated);
    this.published = dateOf(entry.published);
    this.author = entry.author
      ? User.fromPerson(entry.author, { customer: this.customer, baseUrl: this.baseUrl })
      : null;
    this.parentId = idInHref(entry.link?.find((l) => l.rel === 'parent')?.href, 'project');
  }

  protected writeEntry(site: Site): AtomEntry {
    const link: AtomLink[] = [];
    if (this.id !== undefined) link.push({ rel: 'self', href: configUrl(site, 'project', this.id) });
    if (this.parentId !== null) link.push({ rel: 'parent', href: configUrl(site, 'project', this.parentId) });
    const entry: AtomEntry = {
      title: this.title,
      category: [
        { term: this.type, label: 'type' },
        // An empty term clears the attribute: the entry always says what the project's P_log is.
        { term: this.logLevel ?? '', label: 'P_log' },
      ],
      link,
      summary: this.summary,
      content: this.content,
      metadata: this.metadata,
    };
    if (this.updated) entry.updated = this.updated.toISOString();
    if (this.published) entry.published = this.published.toISOString();
    if (this.author) {
      entry.author = { name: this.author.name };
      if (this.author.email) entry.author.email = this.author.email;
      if (typeof this.author.id === 'number') entry.author.uri = configUrl(site, 'user', this.author.id);
    }
    return entry;
  }

  // ------------------------------------------------------------ helpers

  private async feed(
    options: (ListOptions & { baseUrl?: string }) | undefined,
    path: string,
  ): Promise<{ feed: AtomFeed; site: Site }> {
    const site = await this.site(options);
    const feed = await this.loadFeed(site, ['project', this.requireId(), path], options);
    return { feed, site };
  }

  private loadList<T>(
    options: LoadOptions<T[]> | undefined,
    path: string,
    property: ListProperty,
    read: (entry: AtomEntry, site: Site) => T,
  ): Promise<T[] | void> {
    return settle(options, async () => {
      const { feed, site } = await this.feed(options, path);
      return this.setList(property, feed, (e) => read(e, site));
    });
  }

  private setList<T>(property: ListProperty, feed: AtomFeed, read: (entry: AtomEntry) => T): T[] {
    const items = feed.entry.map(read);
    (this as unknown as Record<ListProperty, T[]>)[property] = items;
    this.totals[property] = feed.totalResults ?? items.length;
    return items;
  }

  private versionOf(entry: AtomEntry): ProjectVersion {
    const r = recordOf(entry);
    return {
      id: Number(r.id ?? parseResourceUrn(entry.id)?.id),
      projectId: Number(r.projectId ?? this.id),
      name: typeof r.name === 'string' ? r.name : (entry.title ?? ''),
      mode: (categoryTerm(entry, 'mode') ?? r.mode) as Mode,
      created: dateOf(entry.published ?? r.createdAt),
    };
  }
}

type ListProperty = 'childs' | 'customLists' | 'versions' | 'webInterfaces' | 'wfReports' | 'wiReports';

function workflowReportOf(entry: AtomEntry): WorkflowReport {
  const r = recordOf(entry);
  return {
    id: String(r.id ?? parseResourceUrn(entry.id)?.id ?? ''),
    projectId: typeof r.projectId === 'number' ? r.projectId : null,
    versionId: typeof r.versionId === 'number' ? r.versionId : null,
    mode: r.mode as Mode,
    status: Number(r.status ?? categoryTerm(entry, 'status')),
    data: asObject(r.data),
    locks: Array.isArray(r.locks) ? (r.locks as WorkflowReport['locks']) : [],
    message: typeof r.message === 'string' ? r.message : '',
    initiatorId: typeof r.initiatorId === 'number' ? r.initiatorId : null,
    parentId: typeof r.parentId === 'string' ? r.parentId : null,
    created: dateOf(entry.published),
    updated: dateOf(entry.updated),
  };
}

function webInterfaceReportOf(entry: AtomEntry): WebInterfaceReport {
  const r = recordOf(entry);
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    id: String(r.id ?? parseResourceUrn(entry.id)?.id ?? ''),
    projectId: typeof r.projectId === 'number' ? r.projectId : null,
    webInterfaceId: typeof r.webInterfaceId === 'number' ? r.webInterfaceId : null,
    requestId: text(r.requestId),
    stepId: text(r.stepId),
    mode: r.mode as Mode,
    status: String(r.status ?? categoryTerm(entry, 'status') ?? ''),
    title: typeof r.title === 'string' ? r.title : (entry.title ?? ''),
    data: asObject(r.data),
    created: dateOf(entry.published),
    updated: dateOf(entry.updated),
  };
}
