/**
 * The collection service: document collections of an account, stored in `documents` as JSON and
 * queried with MongoDB syntax — the pushable part of a filter runs as SQL over the JSON column
 * (and the indexes R_create_index makes), mingo decides the rest (pushdown.ts). Every call names
 * the acting account and user; rights are rights.ts's.
 *
 * This class is the public surface only; each job is a module of its own: catalog.ts
 * (collections), reads.ts (find/count/aggregate/explain), writes.ts (save/update/remove/import),
 * indexes.ts, rights.ts, on the shared plumbing of core.ts (cached rows and plans, the read and
 * write paths) and scan.ts (reading documents).
 */
import type { Store } from '../../store/index.js';
import * as catalog from './catalog.js';
import { CollectionCore, type CollectionServiceOptions } from './core.js';
import * as indexes from './indexes.js';
import * as reads from './reads.js';
import type {
  Actor,
  BudgetOption,
  CollectionInfo,
  CollectionLimits,
  Document,
  FindOptions,
  IndexDescriptor,
  SortSpec,
} from './types.js';
import * as writes from './writes.js';
import { readImport, type ImportOptions } from './import.js';

export type { CollectionServiceOptions } from './core.js';
export type { ImportProgress } from './writes.js';

export class CollectionService {
  readonly limits: CollectionLimits;
  private readonly core: CollectionCore;

  constructor(store: Store, options: CollectionServiceOptions = {}) {
    this.core = new CollectionCore(store, options);
    this.limits = this.core.limits;
  }

  // ───────────────────────────── collections (catalog.ts)

  /** The account's collections (only public ones when nobody is connected), by name. */
  listCollections(
    actor: Actor,
    options: { withCounts?: boolean } = {},
  ): Promise<Array<CollectionInfo & { documents?: number }>> {
    return catalog.listCollections(this.core, actor, options);
  }

  /** A collection by name or by integer id (a numeric text is a name first, then an id). */
  getCollection(actor: Actor, ref: string | number): Promise<CollectionInfo | undefined> {
    return catalog.getCollection(this.core, actor, ref);
  }

  /** True when created, false when a collection of that name already exists (left as it is). */
  createCollection(
    actor: Actor,
    name: string,
    flags: { isPublic: boolean; isReadonly: boolean },
  ): Promise<boolean> {
    return catalog.createCollection(this.core, actor, name, flags);
  }

  /** Deletes every document; the collection, its flags and indexes stay. False if unknown. */
  dropCollection(actor: Actor, name: string): Promise<boolean> {
    return catalog.dropCollection(this.core, actor, name);
  }

  /** Deletes the collection with its configuration, indexes and documents. False if unknown. */
  removeCollection(actor: Actor, name: string): Promise<boolean> {
    return catalog.removeCollection(this.core, actor, name);
  }

  /** True when renamed, false when `oldName` does not exist; an error when `newName` is taken. */
  renameCollection(actor: Actor, oldName: string, newName: string): Promise<boolean> {
    return catalog.renameCollection(this.core, actor, oldName, newName);
  }

  /** Changes the rights flags (administrators of the account only). False when it does not exist. */
  updateCollection(
    actor: Actor,
    name: string,
    flags: { isPublic?: boolean; isReadonly?: boolean },
  ): Promise<boolean> {
    return catalog.updateCollection(this.core, actor, name, flags);
  }

  // ───────────────────────────── reads (reads.ts)

  /** Documents matching `filter` (MongoDB syntax), sorted, skipped and limited like a MongoDB cursor. */
  find(
    actor: Actor,
    name: string,
    filter: Record<string, unknown>,
    options: FindOptions = {},
  ): Promise<Document[]> {
    return reads.find(this.core, actor, name, filter, options);
  }

  /** The first document matching `filter` in the given order (natural order by default). */
  async findOne(
    actor: Actor,
    name: string,
    filter: Record<string, unknown>,
    options: { sort?: SortSpec } & BudgetOption = {},
  ): Promise<Document | undefined> {
    const [first] = await this.find(actor, name, filter, { ...options, limit: 1 });
    return first;
  }

  count(
    actor: Actor,
    name: string,
    filter: Record<string, unknown>,
    options: BudgetOption = {},
  ): Promise<number> {
    return reads.count(this.core, actor, name, filter, options);
  }

  /** Runs a pipeline; leading $match/$sort/$skip/$limit stages are answered like `find`. */
  aggregate(
    actor: Actor,
    name: string,
    stages: Record<string, unknown>[],
    options: BudgetOption = {},
  ): Promise<Record<string, unknown>[]> {
    return reads.aggregate(this.core, actor, name, stages, options);
  }

  /** How a find (a count with `count`) would run: what is pushed down, whether exactly, whether the sort reads an index, the engine's plan. */
  explain(
    actor: Actor,
    name: string,
    filter: Record<string, unknown>,
    options: reads.ExplainOptions = {},
  ): Promise<reads.Explanation> {
    return reads.explain(this.core, actor, name, filter, options);
  }

  // ───────────────────────────── writes (writes.ts)

  /** Stores documents (a given `_id` replaces the document that has it); returns the stored form. */
  save(actor: Actor, name: string, values: unknown[]): Promise<Document[]> {
    return writes.save(this.core, actor, name, values);
  }

  /** Applies `change` to the first matching document (every one with `multi`); returns how many matched. */
  update(
    actor: Actor,
    name: string,
    filter: Record<string, unknown>,
    change: Record<string, unknown>,
    options: { multi: boolean; onPath?: (path: writes.UpdatePath) => void } & BudgetOption,
  ): Promise<number> {
    return writes.update(this.core, actor, name, filter, change, options);
  }

  /** Deletes the matching documents; returns how many. */
  remove(
    actor: Actor,
    name: string,
    filter: Record<string, unknown>,
    options: BudgetOption = {},
  ): Promise<number> {
    return writes.remove(this.core, actor, name, filter, options);
  }

  /** Inserts every document of `source` in one transaction (created if needed; emptied first with `drop`). */
  importDocuments(
    actor: Actor,
    name: string,
    source: Iterable<unknown> | AsyncIterable<unknown>,
    options: { drop?: boolean; onProgress?: (p: writes.ImportProgress) => void } = {},
  ): Promise<number> {
    return writes.importDocuments(this.core, actor, name, source, options);
  }

  /** Imports an uploaded file (its bytes, in chunks) read with import_objects' options; see importDocuments. */
  importFile(
    actor: Actor,
    name: string,
    content: Uint8Array[],
    format: ImportOptions,
    options: { drop?: boolean; onProgress?: (p: writes.ImportProgress) => void } = {},
  ): Promise<number> {
    const chunks = content.map((c) =>
      Buffer.isBuffer(c) ? c : Buffer.from(c.buffer, c.byteOffset, c.byteLength),
    );
    return this.importDocuments(actor, name, readImport(chunks, format), options);
  }

  // ───────────────────────────── indexes (indexes.ts)

  listIndexes(actor: Actor, ref: string | number): Promise<IndexDescriptor[]> {
    return indexes.listIndexes(this.core, actor, ref);
  }

  /** Creates a real engine index; true when created or when the same index already exists. */
  createIndex(
    actor: Actor,
    ref: string | number,
    name: string,
    def: indexes.IndexDefinition,
  ): Promise<boolean> {
    return indexes.createIndex(this.core, actor, ref, name, def);
  }

  /** True when deleted, false when the collection has no index of that name. */
  deleteIndex(actor: Actor, ref: string | number, name: string): Promise<boolean> {
    return indexes.deleteIndex(this.core, actor, ref, name);
  }
}
