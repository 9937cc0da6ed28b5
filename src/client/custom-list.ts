/**
 * A custom list: named items identified by a string id (`/config/<customer>/customlist/<id>`).
 * create makes one (administrators); update replaces its items (the name stays).
 */
import type { AtomEntry, AtomLink } from '../atom/format.js';
import { dateOf, idInHref } from './fields.js';
import { configUrl, Resource, type Site } from './resource.js';

export class CustomList extends Resource {
  protected readonly kind = 'customlist';
  declare id: string | undefined;
  name = '';
  /** The project it belongs to, if any. */
  projectId: number | null = null;
  /** The items (typically {label, value}). */
  content: unknown[] = [];
  updated: Date | null = null;

  protected override idFrom(text: string): string {
    return text;
  }

  protected readEntry(entry: AtomEntry): void {
    this.name = entry.title ?? '';
    this.content = Array.isArray(entry.content) ? entry.content : [];
    this.projectId = idInHref(entry.link?.find((l) => l.rel === 'project')?.href, 'project');
    this.updated = dateOf(entry.updated);
  }

  protected writeEntry(site: Site): AtomEntry {
    const link: AtomLink[] = [];
    if (this.projectId !== null)
      link.push({ rel: 'project', href: configUrl(site, 'project', this.projectId) });
    const entry: AtomEntry = { title: this.name, content: this.content };
    if (link.length) entry.link = link;
    if (this.updated) entry.updated = this.updated.toISOString();
    return entry;
  }
}
