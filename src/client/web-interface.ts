/**
 * A web interface of a project (`/config/<customer>/webinterface/<id>`). create adds one to the
 * project `projectId` (administrators); update is not offered.
 */
import { type AtomEntry, type AtomLink } from '../atom/format.js';
import { asNumberOrNull, asNumbers, asString, asStrings, dateOf, idInHref, recordOf } from './fields.js';
import { configUrl, Resource, type Site } from './resource.js';
import { invalidArgument } from './errors.js';

/** Where a web interface runs (test/client/wire-types.test.ts checks it against the server's schema). */
export type InterfaceContext = 'web' | 'mobile' | 'tablet';

export class WebInterface extends Resource {
  protected override readonly writes = ['create'] as const;
  protected readonly kind = 'webinterface';
  projectId: number | null = null;
  title = '';
  description = '';
  /** URL of a thumbnail ('' when none). */
  thumb = '';
  tags: string[] = [];
  contexts: InterfaceContext[] = ['web'];
  /** Lanes whose users may launch it (empty: every user). */
  lanes: number[] = [];
  created: Date | null = null;

  protected override createUrl(site: Site): string {
    if (this.projectId === null) throw invalidArgument('WebInterface.create: set projectId first');
    return configUrl(site, 'project', this.projectId, 'webinterface');
  }

  protected readEntry(entry: AtomEntry): void {
    const r = recordOf(entry);
    this.title = entry.title ?? asString(r.title);
    this.description = typeof entry.summary === 'string' ? entry.summary : asString(r.description);
    this.thumb = asString(r.thumb);
    this.tags = asStrings(r.tags);
    this.contexts = asStrings(r.contexts) as InterfaceContext[];
    this.lanes = asNumbers(r.lanes);
    this.projectId =
      asNumberOrNull(r.projectId) ?? idInHref(entry.link?.find((l) => l.rel === 'up')?.href, 'project');
    this.created = dateOf(entry.published);
  }

  protected writeEntry(site: Site): AtomEntry {
    const link: AtomLink[] = [];
    if (this.projectId !== null) link.push({ rel: 'up', href: configUrl(site, 'project', this.projectId) });
    return {
      title: this.title,
      summary: this.description,
      category: [
        ...this.contexts.map((term) => ({ term, label: 'context' })),
        ...this.tags.map((term) => ({ term, label: 'tag' })),
      ],
      link,
      content: { thumb: this.thumb, lanes: this.lanes },
    };
  }
}
