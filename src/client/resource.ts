/**
 * The generic resource: an Atom entry of the server's `/config/<customer>/<kind>/<id>` resources,
 * loaded, created and saved over HTTP. Subclasses say how their properties map to an entry
 * (readEntry: loadSet; writeEntry: saveSet) and keep their defaults in field initializers
 * (loadPreset restores them).
 *
 * Every method takes one options object and has two forms (settle.ts): with `onSuccess` it calls
 * back and returns Promise<void>; without, it returns a Promise of its result.
 */
import {
  atomFromJson,
  atomToXml,
  AtomFormatError,
  parseResourceUrn,
  resourceUrn,
  type AtomDocument,
  type AtomEntry,
  type AtomFeed,
} from '../atom/format.js';
import { resolveBaseUrl, resolveCustomer } from './context.js';
import { ClientError, invalidArgument } from './errors.js';
import { requestAtom, requestJson, type Format } from './http.js';
import { listQuery, type ListOptions } from './query.js';
import { settle, type Callbacks, type CommonOptions, type Options } from './settle.js';
import { readAtomXml } from './xml.js';

/** Where a resource lives: the server and the account ("customer"). */
export interface Site {
  baseUrl: string;
  customer: string;
}

export interface ResourceInit {
  id?: string | number;
  customer?: string;
  baseUrl?: string;
  format?: Format;
}

/** What loadSet accepts: an entry in its JSON form (bare or as {entry}), XML text, or an XML Document. */
export type ResourceObject = AtomEntry | { entry: AtomEntry } | string | Document;

/** Properties loadPreset leaves alone (the resource's identity and where it lives). */
const IDENTITY = new Set(['id', 'customer', 'baseUrl', 'format', 'kind', 'writes']);

export abstract class Resource {
  /** The resource's id (a number for most kinds, a string for custom lists); undefined until created. */
  id: string | number | undefined = undefined;
  /** The account it belongs to (default: the configured one, or the logged-in user's). */
  customer: string | undefined = undefined;
  /** The server it was loaded from (default: the configured one, or the page's origin). */
  baseUrl: string | undefined = undefined;
  /** The form asked of the server: Atom XML (default) or its JSON form. */
  format: Format = 'xml';

  /** The kind: its path segment and the kind in its URN (`project`, `user` …). */
  protected abstract readonly kind: string;

  constructor(init: ResourceInit = {}) {
    if (init.id !== undefined) this.id = init.id;
    if (init.customer !== undefined) this.customer = init.customer;
    if (init.baseUrl !== undefined) this.baseUrl = init.baseUrl;
    if (init.format !== undefined) this.format = init.format;
  }

  /** Sets the resource's properties from an entry (its id and customer are set by loadSet). */
  protected abstract readEntry(entry: AtomEntry): void;

  /** The entry of the resource's properties (what create and update send). */
  protected abstract writeEntry(site: Site): AtomEntry;

  // ------------------------------------------------------------ the generic methods
  // Each has its two forms as overloads: with onSuccess (Promise<void>), without (Promise of the result).

  /** The resource's URL (its collection's while it has no id). */
  generateUrl(options: Callbacks<string>): Promise<void>;
  generateUrl(options?: CommonOptions): Promise<string>;
  generateUrl(options?: Options<string>): Promise<string | void> {
    return settle(options, async () => this.urlAt(await this.site(options)));
  }

  /** The Atom XML create and update send. */
  generate_xml(options: Callbacks<string>): Promise<void>;
  generate_xml(options?: CommonOptions): Promise<string>;
  generate_xml(options?: Options<string>): Promise<string | void> {
    return settle(options, async () => atomToXml({ entry: this.entryAt(await this.site(options)) }));
  }

  /** The resource as an entry in the JSON form ({entry: …}): the inverse of loadSet. */
  saveSet(options: Callbacks<{ entry: AtomEntry }>): Promise<void>;
  saveSet(options?: CommonOptions): Promise<{ entry: AtomEntry }>;
  saveSet(options?: Options<{ entry: AtomEntry }>): Promise<{ entry: AtomEntry } | void> {
    return settle(options, async () => ({ entry: this.entryAt(await this.site(options)) }));
  }

  /** Sets the properties from an entry (JSON form, XML text or Document), as after a request. */
  loadSet(rObject: ResourceObject, options: Callbacks<this>): Promise<void>;
  loadSet(rObject: ResourceObject, options?: CommonOptions): Promise<this>;
  loadSet(rObject: ResourceObject, options?: Options<this>): Promise<this | void> {
    return settle(options, () => this.setFrom(rObject));
  }

  /** Restores every property to its default (the identity — id, customer, baseUrl — stays). */
  loadPreset(options: Callbacks<this>): Promise<void>;
  loadPreset(options?: CommonOptions): Promise<this>;
  loadPreset(options?: Options<this>): Promise<this | void> {
    return settle(options, () => {
      this.preset();
      return this;
    });
  }

  /** Reads the resource from the server (it needs an id). */
  load(options: Callbacks<this>): Promise<void>;
  load(options?: CommonOptions): Promise<this>;
  load(options?: Options<this>): Promise<this | void> {
    return settle(options, async () => {
      const site = await this.site(options);
      const url = this.loadUrl(site);
      return this.adopt(site, await requestAtom({ method: 'GET', url, format: this.format }));
    });
  }

  /** create when the resource has no id yet, else update. */
  save(options: Callbacks<this>): Promise<void>;
  save(options?: CommonOptions): Promise<this>;
  save(options?: Options<this>): Promise<this | void> {
    const baseUrl = options?.baseUrl;
    return settle(options, () =>
      this.id === undefined ? this.create({ baseUrl }) : this.update({ baseUrl }),
    );
  }

  /** Creates the resource on the server; its id, dates … come back from the server. */
  create(options: Callbacks<this>): Promise<void>;
  create(options?: CommonOptions): Promise<this>;
  create(options?: Options<this>): Promise<this | void> {
    return settle(options, async () => {
      this.supports('create');
      const site = await this.site(options);
      const url = this.createUrl(site);
      const body = atomToXml({ entry: this.entryAt(site) });
      return this.adopt(site, await requestAtom({ method: 'POST', url, body, format: this.format }));
    });
  }

  /** Saves the resource's properties on the server. */
  update(options: Callbacks<this>): Promise<void>;
  update(options?: CommonOptions): Promise<this>;
  update(options?: Options<this>): Promise<this | void> {
    return settle(options, async () => {
      this.supports('update');
      const site = await this.site(options);
      const url = this.urlAt(site, true);
      const body = atomToXml({ entry: this.entryAt(site) });
      return this.adopt(site, await requestAtom({ method: 'PUT', url, body, format: this.format }));
    });
  }

  /** Changes the resource's mode on the server (Project: the modes of its versions). */
  updateMode(options: Callbacks<this>): Promise<void>;
  updateMode(options?: CommonOptions): Promise<this>;
  updateMode(options?: Options<this>): Promise<this | void> {
    return settle(options, async () => {
      this.supports('updateMode');
      const site = await this.site(options);
      return this.sendMode(site);
    });
  }

  // ------------------------------------------------------------ for subclasses

  /** The write methods the server offers for this kind (the others fail with not-supported). */
  protected readonly writes: ReadonlyArray<'create' | 'update' | 'updateMode'> = ['create', 'update'];

  /** Where load GETs (default: the resource's URL). */
  protected loadUrl(site: Site): string {
    return this.urlAt(site, true);
  }

  /** Where create POSTs (default: the kind's collection). */
  protected createUrl(site: Site): string {
    return configUrl(site, this.kind);
  }

  /** What updateMode does, for the kinds that have a mode. */
  protected sendMode(_site: Site): Promise<this> {
    return Promise.reject(this.unsupported('updateMode'));
  }

  private supports(method: 'create' | 'update' | 'updateMode'): void {
    if (!this.writes.includes(method)) throw this.unsupported(method);
  }

  private unsupported(method: string): ClientError {
    return new ClientError(
      0,
      'not-supported',
      `${this.constructor.name}.${method}: not offered by the Atom resources (see docs/client.md)`,
    );
  }

  /** The server and account of a call: the option, the resource's own, the configured or discovered one. */
  protected async site(options?: { baseUrl?: string }): Promise<Site> {
    const baseUrl = resolveBaseUrl(options?.baseUrl, this.baseUrl);
    const customer = this.customer ?? (await resolveCustomer(baseUrl, fetchCustomer));
    return { baseUrl, customer };
  }

  protected urlAt(site: Site, needId = false): string {
    if (this.id === undefined) {
      if (needId) throw invalidArgument(`${this.constructor.name}: no id (load or create it first)`);
      return configUrl(site, this.kind);
    }
    return configUrl(site, this.kind, this.id);
  }

  /** The id, or invalid-argument (a method that needs a saved resource). */
  protected requireId(): string | number {
    if (this.id === undefined)
      throw invalidArgument(`${this.constructor.name}: no id (load or create it first)`);
    return this.id;
  }

  /** A feed under the resource, with pagination and filters. */
  protected async loadFeed(
    site: Site,
    path: Array<string | number>,
    list: ListOptions = {},
  ): Promise<AtomFeed> {
    const url = configUrl(site, ...path) + listQuery(list);
    const document = await requestAtom({ method: 'GET', url, format: this.format });
    if (!('feed' in document))
      throw new ClientError(200, 'invalid-xml', `Invalid Atom document: expected a <feed> from ${url}`);
    return document.feed;
  }

  /** A resource of another kind, living where this one does. */
  protected sibling<T extends Resource>(
    Kind: new (init: ResourceInit) => T,
    entry: AtomEntry,
    site?: Site,
  ): T {
    const other = new Kind({
      customer: site?.customer ?? this.customer,
      baseUrl: site?.baseUrl ?? this.baseUrl,
      format: this.format,
    });
    other.setFrom(entry);
    return other;
  }

  /** Sets the properties from an answer or a loadSet argument. */
  protected setFrom(rObject: ResourceObject): this {
    const entry = entryOf(rObject);
    const urn = parseResourceUrn(entry.id);
    if (urn) {
      if (urn.kind !== this.kind)
        throw invalidArgument(
          `${this.constructor.name}.loadSet: the entry is a ${urn.kind}, not a ${this.kind}`,
        );
      this.id = this.idFrom(urn.id);
      this.customer = urn.account;
    }
    this.readEntry(entry);
    return this;
  }

  /** The id as the kind keeps it (numbers for most). */
  protected idFrom(text: string): string | number {
    return /^\d+$/.test(text) ? Number(text) : text;
  }

  /** The entry with the resource's identity (its URN) and properties. */
  protected entryAt(site: Site): AtomEntry {
    const entry = this.writeEntry(site);
    return this.id === undefined ? entry : { id: resourceUrn(site.customer, this.kind, this.id), ...entry };
  }

  private adopt(site: Site, document: AtomDocument): this {
    this.baseUrl = site.baseUrl;
    this.customer = site.customer;
    if (!('entry' in document))
      throw new ClientError(200, 'invalid-xml', 'Invalid Atom document: expected an <entry>');
    return this.setFrom(document.entry);
  }

  private preset(): void {
    const fresh = new (this.constructor as new () => this)();
    for (const key of Object.keys(fresh) as Array<keyof this & string>)
      if (!IDENTITY.has(key)) this[key] = fresh[key];
  }
}

/** `<baseUrl>/config/<customer>/<segments…>`. */
export function configUrl(site: Site, ...segments: Array<string | number>): string {
  return [site.baseUrl, 'config', site.customer, ...segments]
    .map((s, i) => (i === 0 ? String(s) : encodeURIComponent(String(s))))
    .join('/');
}

/** The entry a loadSet argument holds; invalid-xml / invalid-argument when it holds none. */
export function entryOf(rObject: ResourceObject): AtomEntry {
  let document: AtomDocument;
  if (typeof rObject === 'string') {
    const text = rObject.trim();
    if (text.startsWith('{')) return entryOf(parseJson(text));
    document = readAtomXml(text);
  } else if (typeof Document !== 'undefined' && rObject instanceof Document) {
    document = readAtomXml(rObject);
  } else if (typeof rObject === 'object' && rObject !== null) {
    const value = rObject as Record<string, unknown>;
    document = wrap(() => atomFromJson('entry' in value || 'feed' in value ? value : { entry: value }));
  } else {
    throw invalidArgument('loadSet: expected an entry (JSON form), Atom XML text or an XML Document');
  }
  if (!('entry' in document)) throw invalidArgument('loadSet: expected an entry, not a feed');
  return document.entry;
}

function parseJson(text: string): AtomEntry {
  try {
    return JSON.parse(text) as AtomEntry;
  } catch {
    throw new ClientError(0, 'invalid-json', 'loadSet: the text is neither XML nor JSON');
  }
}

function wrap(read: () => AtomDocument): AtomDocument {
  try {
    return read();
  } catch (e) {
    if (e instanceof AtomFormatError) throw new ClientError(0, 'invalid-argument', `loadSet: ${e.message}`);
    throw e;
  }
}

async function fetchCustomer(baseUrl: string): Promise<string> {
  const me = await requestJson<{ account?: { id?: unknown } }>('GET', `${baseUrl}/api/v1/auth/me`);
  const id = me?.account?.id;
  if (typeof id !== 'string')
    throw new ClientError(200, 'invalid-json', 'GET /api/v1/auth/me: no account in the answer');
  return id;
}
