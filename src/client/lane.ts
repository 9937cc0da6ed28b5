/** A lane of a pool (read-only through the Atom resources: `/config/<customer>/lane/<id>`). */
import { categoryTerm, type AtomEntry } from '../atom/format.js';
import { asNumberOrNull, asObject, asString, dateOf, recordOf } from './fields.js';
import { Resource, type Site } from './resource.js';

export class Lane extends Resource {
  protected override readonly writes = [] as const;
  protected readonly kind = 'lane';
  name = '';
  poolId: number | null = null;
  /** Organisation pools: the lane above this one. */
  parentId: number | null = null;
  /** Organisation pools: the user managing this lane. */
  managerId: number | null = null;
  /** The MongoDB-style rule computing the lane's users, or null. */
  rule: Record<string, unknown> | null = null;
  /** Whether the logged-in user is in the lane (in the lane configuration the list was asked for). */
  isMember: boolean | null = null;
  created: Date | null = null;

  protected readEntry(entry: AtomEntry): void {
    const r = recordOf(entry);
    this.name = asString(r.name, entry.title ?? '');
    this.poolId = asNumberOrNull(r.poolId) ?? asNumberOrNull(Number(categoryTerm(entry, 'pool')));
    this.parentId = asNumberOrNull(r.parentId);
    this.managerId = asNumberOrNull(r.managerId);
    this.rule = r.rule === null || r.rule === undefined ? null : asObject(r.rule);
    const member = categoryTerm(entry, 'member');
    this.isMember = member === undefined ? null : member === 'true';
    this.created = dateOf(entry.published);
  }

  protected writeEntry(_site: Site): AtomEntry {
    const category = [{ term: 'lane', label: 'kind' }];
    if (this.poolId !== null) category.push({ term: String(this.poolId), label: 'pool' });
    return {
      title: this.name,
      category,
      content: {
        ...(typeof this.id === 'number' ? { id: this.id } : {}),
        poolId: this.poolId,
        name: this.name,
        parentId: this.parentId,
        managerId: this.managerId,
        rule: this.rule,
      },
    };
  }
}
