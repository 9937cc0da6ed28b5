/** A pool of lanes (read-only through the Atom resources: `/config/<customer>/pool/<id>`). */
import { type AtomEntry } from '../atom/format.js';
import { asString, dateOf, recordOf } from './fields.js';
import { Lane } from './lane.js';
import type { ListOptions } from './query.js';
import { Resource, type Site } from './resource.js';
import { settle, type Callbacks, type CommonOptions, type Options } from './settle.js';

export class Pool extends Resource {
  protected override readonly writes = [] as const;
  protected readonly kind = 'pool';
  name = '';
  /** Its lanes form an organisation chart. */
  isOrganization = false;
  /** Filled by loadLanes. */
  lanes: Lane[] = [];
  created: Date | null = null;

  /** Loads the pool's lanes into `lanes` (pagination {nb, first}, filters [{filter, operator, value}]). */
  loadLanes(options: Callbacks<Lane[]> & ListOptions): Promise<void>;
  loadLanes(options?: CommonOptions & ListOptions): Promise<Lane[]>;
  loadLanes(options?: Options<Lane[], ListOptions>): Promise<Lane[] | void> {
    return settle(options, async () => {
      const site = await this.site(options);
      const feed = await this.loadFeed(site, ['pool', this.requireId(), 'lane'], options);
      this.lanes = feed.entry.map((e) => this.sibling(Lane, e, site));
      return this.lanes;
    });
  }

  protected readEntry(entry: AtomEntry): void {
    const r = recordOf(entry);
    this.name = asString(r.name, entry.title ?? '');
    this.isOrganization = r.isOrganization === true;
    this.created = dateOf(entry.published);
  }

  protected writeEntry(_site: Site): AtomEntry {
    return {
      title: this.name,
      category: [
        { term: 'pool', label: 'kind' },
        { term: String(this.isOrganization), label: 'isOrganization' },
      ],
      content: {
        ...(typeof this.id === 'number' ? { id: this.id } : {}),
        name: this.name,
        isOrganization: this.isOrganization,
      },
    };
  }
}
