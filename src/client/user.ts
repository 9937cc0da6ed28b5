/** A user of the account (read-only through the Atom resources: `/config/<customer>/user/<id|login>`). */
import { categoryTerm, type AtomEntry, type AtomPerson } from '../atom/format.js';
import { asNumberOrNull, asObject, asString, dateOf, idInHref, recordOf } from './fields.js';
import { configUrl, Resource, type ResourceInit, type Site } from './resource.js';

export class User extends Resource {
  protected override readonly writes = [] as const;
  protected readonly kind = 'user';
  login = '';
  name = '';
  email: string | null = null;
  profile = '';
  status = '';
  isAdmin = false;
  language = '';
  /** Public metadata. */
  metadata: Record<string, unknown> = {};
  /** Only for the user themself and administrators (else null). */
  preferences: Record<string, unknown> | null = null;
  created: Date | null = null;
  updated: Date | null = null;

  constructor(init: ResourceInit & { login?: string } = {}) {
    super(init);
    if (init.login !== undefined) this.login = init.login;
  }

  /** A user as an Atom author names them (name, email, and the id in the uri). */
  static fromPerson(person: AtomPerson, init: ResourceInit = {}): User {
    const user = new User(init);
    user.name = person.name;
    user.email = person.email ?? null;
    const id = idInHref(person.uri, 'user');
    if (id !== null) user.id = id;
    return user;
  }

  /** load reads the user by id, or by login while there is no id. */
  protected override loadUrl(site: Site): string {
    if (this.id === undefined && this.login !== '') return configUrl(site, 'user', this.login);
    return super.loadUrl(site);
  }

  protected readEntry(entry: AtomEntry): void {
    const r = recordOf(entry);
    this.login = asString(r.login, this.login);
    this.name = asString(r.name, entry.title ?? '');
    this.email = typeof r.email === 'string' ? r.email : null;
    this.profile = asString(r.profile, categoryTerm(entry, 'profile') ?? '');
    this.status = asString(r.status, categoryTerm(entry, 'status') ?? '');
    this.isAdmin = r.isAdmin === true;
    this.language = asString(r.language, categoryTerm(entry, 'language') ?? '');
    this.metadata = asObject(r.metadata);
    this.preferences = r.preferences === undefined ? null : asObject(r.preferences);
    this.created = dateOf(entry.published);
    this.updated = dateOf(entry.updated);
    const id = asNumberOrNull(r.id);
    if (id !== null) this.id = id;
  }

  protected writeEntry(_site: Site): AtomEntry {
    const entry: AtomEntry = {
      title: this.name,
      category: [
        { term: this.status, label: 'status' },
        { term: this.language, label: 'language' },
        { term: this.profile, label: 'profile' },
      ],
      content: {
        ...(typeof this.id === 'number' ? { id: this.id } : {}),
        login: this.login,
        email: this.email,
        name: this.name,
        profile: this.profile,
        status: this.status,
        isAdmin: this.isAdmin,
        language: this.language,
        metadata: this.metadata,
        ...(this.preferences ? { preferences: this.preferences } : {}),
      },
    };
    if (this.updated) entry.updated = this.updated.toISOString();
    return entry;
  }
}
