/** The account's projects, a page at a time (`/config/<customer>/project`, pagination and filters). */
import type { AtomEntry } from '../atom/format.js';
import { invalidArgument } from './errors.js';
import { Project } from './project.js';
import { listQuery, type ListOptions } from './query.js';
import { configUrl, Resource, type Site } from './resource.js';
import { settle, type Callbacks, type CommonOptions, type Options } from './settle.js';

export class ProjectList extends Resource {
  protected override readonly writes = [] as const;
  protected readonly kind = 'project';
  /** The page loaded last. */
  projects: Project[] = [];
  /** How many projects match the filters on the server. */
  total = 0;
  /** The pagination and filters load uses (each call may pass its own). */
  pagination: ListOptions['pagination'] = undefined;
  filters: ListOptions['filters'] = undefined;

  /** The feed's URL, with the pagination and filters. */
  override generateUrl(options: Callbacks<string> & ListOptions): Promise<void>;
  override generateUrl(options?: CommonOptions & ListOptions): Promise<string>;
  override generateUrl(options?: Options<string, ListOptions>): Promise<string | void> {
    return settle(
      options,
      async () => configUrl(await this.site(options), 'project') + listQuery(this.listOptions(options)),
    );
  }

  /** Loads a page of projects into `projects` (and the number matching into `total`). */
  override load(options: Callbacks<this> & ListOptions): Promise<void>;
  override load(options?: CommonOptions & ListOptions): Promise<this>;
  override load(options?: Options<this, ListOptions>): Promise<this | void> {
    return settle(options, async () => {
      const site = await this.site(options);
      const feed = await this.loadFeed(site, ['project'], this.listOptions(options));
      this.projects = feed.entry.map((e) => this.sibling(Project, e, site));
      this.total = feed.totalResults ?? this.projects.length;
      this.baseUrl = site.baseUrl;
      return this;
    });
  }

  protected readEntry(_entry: AtomEntry): void {
    throw invalidArgument('ProjectList.loadSet: a project list is a feed; load it');
  }

  protected writeEntry(_site: Site): AtomEntry {
    throw invalidArgument('ProjectList: a project list has no entry of its own');
  }

  private listOptions(options: ListOptions | undefined): ListOptions {
    return {
      pagination: options?.pagination ?? this.pagination,
      filters: options?.filters ?? this.filters,
    };
  }
}
