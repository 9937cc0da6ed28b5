/**
 * Importing a bundle into a project of the account: the bundle's files are compared with the same
 * reading of the target (export.ts), and the artefacts whose files differ are created, updated or
 * deleted through the platform's services in one store transaction (all or nothing).
 *
 * What an import never deletes: pools and lanes (other projects may use them), collections (they
 * belong to the account), project versions, vault keys.
 */
import type { Store } from '../../store/index.js';
import { PlatformError } from '../errors.js';
import type { Platform } from '../index.js';
import { fromJson, isMode, type Mode } from '../model.js';
import type { StepDefinition } from '../processes/definition.js';
import { bundleActor, collectionFiles, exportProject, laneNames, mapStepLanes } from './export.js';
import {
  badBundle,
  BUNDLE_FORMAT,
  keyOfFile,
  MANIFEST,
  parseJsonFile,
  projectFile,
  type BundleFiles,
  type ProjectFile,
  type LaneRef,
  type Manifest,
} from './format.js';

export type ChangeAction = 'create' | 'update' | 'delete';

export interface BundleChange {
  action: ChangeAction;
  /** The bundle file (or the target's) that differs. */
  path: string;
}

export interface ImportOptions {
  /** The project to import into (default: the only project titled as the bundle's, else a new one). */
  projectId?: number;
  /** Only compare: nothing is written. */
  dryRun?: boolean;
}

export interface ImportResult {
  /** The project imported into; null on a dry run that would create it. */
  projectId: number | null;
  title: string;
  changes: BundleChange[];
  applied: boolean;
}

/** Directories whose artefacts an import deletes when the bundle no longer has them. */
const DELETABLE = new Set(['processes', 'composite-apis', 'web-interfaces', 'custom-lists', 'i18n']);

/** The manifest of a bundle, or the refusal naming the bundle file. */
export function readManifest(files: BundleFiles, bundleName: string): Manifest {
  if (!files.has(MANIFEST)) throw badBundle(bundleName, `not a flowmark bundle (no ${MANIFEST})`);
  const manifest = parseJsonFile<Manifest>(files, MANIFEST, bundleName);
  if (manifest === null || typeof manifest !== 'object' || manifest.format !== BUNDLE_FORMAT)
    throw badBundle(
      bundleName,
      `unknown bundle format ${JSON.stringify((manifest as { format?: unknown } | null)?.format ?? null)} (this flowmark reads ${BUNDLE_FORMAT})`,
    );
  if (!Array.isArray(manifest.collections) || typeof manifest.project?.title !== 'string')
    throw badBundle(bundleName, `${MANIFEST} lacks project.title or collections`);
  return manifest;
}

export async function importBundle(
  platform: Platform,
  store: Store,
  accountId: string,
  files: BundleFiles,
  bundleName: string,
  options: ImportOptions = {},
): Promise<ImportResult> {
  const manifest = readManifest(files, bundleName);
  const projectJson = parseJsonFile<ProjectFile>(files, 'project.json', bundleName);
  parseJsonFile<unknown>(files, 'versions.json', bundleName);
  // The comparison is read in the transaction that applies it: nothing changes in between.
  const run = async (): Promise<ImportResult> => {
    const target = await targetProject(platform, accountId, manifest, options.projectId);
    const current: BundleFiles = target
      ? await exportProject(platform, accountId, target, {
          withDocuments: manifest.withDocuments,
          withSecrets: manifest.withSecrets,
          collections: await existing(platform, accountId, manifest.collections),
        })
      : await collectionFiles(platform, accountId, manifest.collections, manifest.withDocuments);
    current.delete(MANIFEST);
    const changes = diff(current, files);
    const result = { projectId: target ?? null, title: projectJson.title, changes, applied: false };
    if (options.dryRun || (target !== undefined && changes.length === 0)) return result;
    const importer = new Importer(platform, accountId, files, bundleName, current);
    const projectId = await importer.apply(target, projectJson, changes);
    return { ...result, projectId, applied: true };
  };
  return options.dryRun ? run() : store.transaction(run);
}

async function existing(platform: Platform, accountId: string, names: readonly string[]) {
  const all = new Set(
    (await platform.collections.listCollections(bundleActor(accountId))).map((c) => c.name),
  );
  return names.filter((n) => all.has(n));
}

async function targetProject(
  platform: Platform,
  accountId: string,
  manifest: Manifest,
  projectId: number | undefined,
): Promise<number | undefined> {
  if (projectId !== undefined) return (await platform.projects.require(accountId, projectId)).id;
  const same = (await platform.projects.list(accountId)).filter((p) => p.title === manifest.project.title);
  if (same.length > 1)
    throw new PlatformError(
      'conflict',
      `${same.length} projects of account ${accountId} are titled ${JSON.stringify(manifest.project.title)} (${same.map((p) => p.id).join(', ')}); name the one to import into`,
    );
  return same[0]?.id;
}

/** The changes that turn `current` into `bundle`, by path. */
function diff(current: BundleFiles, bundle: BundleFiles): BundleChange[] {
  const changes: BundleChange[] = [];
  const paths = [...new Set([...current.keys(), ...bundle.keys()])].filter((p) => p !== MANIFEST).sort();
  for (const path of paths) {
    const now = current.get(path);
    const next = bundle.get(path);
    if (now === next) continue;
    const dir = path.split('/')[0]!;
    if (next === undefined) {
      if (DELETABLE.has(dir)) changes.push({ action: 'delete', path });
      continue;
    }
    if (now === undefined) {
      changes.push({ action: 'create', path });
      continue;
    }
    if (dir === 'vaults' && keysOnlyCovered(now, next)) continue;
    if (dir === 'pools' && poolCovered(now, next)) continue;
    changes.push({ action: 'update', path });
  }
  return changes;
}

/** A vault file of keys only whose keys the target's vault has already. */
function keysOnlyCovered(now: string, next: string): boolean {
  const a = fromJson<{ keys?: string[] }>(now);
  const b = fromJson<{ keys?: string[] }>(next);
  return Array.isArray(a.keys) && Array.isArray(b.keys) && b.keys.every((k) => a.keys!.includes(k));
}

/** A pool the target has with every lane of the bundle's (and attached when the bundle's is). */
function poolCovered(now: string, next: string): boolean {
  const a = fromJson<PoolFile>(now);
  const b = fromJson<PoolFile>(next);
  return (!b.attached || a.attached) && b.lanes.every((l) => a.lanes.some((m) => m.name === l.name));
}

interface PoolFile {
  name: string;
  isOrganization: boolean;
  attached: boolean;
  lanes: Array<{
    name: string;
    runtime: boolean;
    parent: string | null;
    rule: Record<string, unknown> | null;
  }>;
}
interface IndexFile {
  name: string;
  keys: string[];
  unique: boolean;
  ascending: boolean;
}
interface CollectionFile {
  name: string;
  isPublic: boolean;
  isReadonly: boolean;
  indexes: IndexFile[];
}

/** The artefact a file belongs to: its path without the extension (`.documents.json` is its own). */
function artefactOf(path: string): string {
  if (path.endsWith('.documents.json')) return path;
  return path.replace(/\.[a-z]+$/, '');
}

class Importer {
  private projectId = 0;
  private lanes = new Map<string, number>();

  constructor(
    private readonly platform: Platform,
    private readonly accountId: string,
    private readonly files: BundleFiles,
    private readonly bundleName: string,
    private readonly current: BundleFiles,
  ) {}

  async apply(target: number | undefined, project: ProjectFile, changes: BundleChange[]): Promise<number> {
    const { platform, accountId } = this;
    const fields = projectFile(project);
    this.projectId = target ?? (await platform.projects.create(accountId, fields)).id;
    if (target !== undefined && changes.some((c) => c.path === 'project.json'))
      await platform.projects.update(accountId, target, fields);

    const byDir = new Map<string, Map<string, ChangeAction>>();
    for (const change of changes) {
      const dir = change.path.split('/')[0]!;
      if (!byDir.has(dir)) byDir.set(dir, new Map());
      const artefacts = byDir.get(dir)!;
      const key = artefactOf(change.path);
      // An artefact one of whose files remains is updated, not deleted.
      const action =
        change.action === 'delete' && [...this.files.keys()].some((p) => artefactOf(p) === key)
          ? 'update'
          : change.action;
      if (!artefacts.has(key) || action !== 'delete') artefacts.set(key, action);
    }
    const each = async (dir: string, fn: (key: string, action: ChangeAction) => Promise<void>) => {
      for (const [key, action] of byDir.get(dir) ?? []) await fn(key, action);
    };

    await each('pools', (key) => this.pool(key));
    await this.readLanes();
    if (changes.some((c) => c.path === 'versions.json')) await this.versions();
    await each('custom-lists', (key, action) => this.customList(key, action));
    await each('i18n', (key, action) => this.dictionary(key, action));
    await each('vaults', (key) => this.vault(key));
    const collections = byDir.get('collections') ?? new Map<string, ChangeAction>();
    for (const key of collections.keys()) if (!key.endsWith('.documents.json')) await this.collection(key);
    for (const key of collections.keys()) if (key.endsWith('.documents.json')) await this.documents(key);
    await each('processes', (key, action) => this.process(key, action));
    await each('web-interfaces', (key, action) => this.webInterface(key, action));
    await each('composite-apis', (key, action) => this.compositeApi(key, action));
    return this.projectId;
  }

  private json<T>(path: string): T {
    return parseJsonFile<T>(this.files, path, this.bundleName);
  }

  private currentJson<T>(path: string): T {
    return JSON.parse(this.current.get(path)!) as T;
  }

  private async pool(key: string): Promise<void> {
    const { platform, accountId } = this;
    const file = this.json<PoolFile>(`${key}.json`);
    const lanes = platform.directory.lanes;
    const pool =
      (await lanes.listPools(accountId)).find((p) => p.name === file.name) ??
      (await lanes.createPool(accountId, { name: file.name, isOrganization: file.isOrganization }));
    const have = await lanes.listLanes(accountId, pool.id);
    for (const lane of file.lanes) {
      if (have.some((l) => l.name === lane.name)) continue;
      const parentId = lane.parent === null ? null : (have.find((l) => l.name === lane.parent)?.id ?? null);
      let created = await lanes.createLane(accountId, pool.id, {
        name: lane.name,
        parentId,
        runtime: lane.runtime,
      });
      if (lane.rule !== null)
        created = await platform.directory.jobs.setRule(accountId, created.id, lane.rule);
      have.push(created);
    }
    if (file.attached) await platform.projects.attachPool(accountId, this.projectId, pool.id);
  }

  private async readLanes(): Promise<void> {
    const names = await laneNames(this.platform, this.accountId);
    this.lanes.clear();
    // The first pool of a name wins, as when the pools were matched.
    for (const [id, ref] of [...names.byId].reverse()) this.lanes.set(laneKey(ref), id);
  }

  private laneId(ref: LaneRef, where: string): number {
    const id = this.lanes.get(laneKey(ref));
    if (id === undefined)
      throw badBundle(
        this.bundleName,
        `${where} names lane ${JSON.stringify(`${ref.pool}/${ref.lane}`)}, which is in no pool of the bundle`,
      );
    return id;
  }

  private async versions(): Promise<void> {
    const { platform, accountId } = this;
    const wanted = this.json<Array<{ name: string; mode: Mode }>>('versions.json');
    const have = await platform.projects.versions(accountId, this.projectId);
    for (const v of wanted) {
      if (!isMode(v.mode))
        throw badBundle(this.bundleName, `versions.json: invalid mode ${JSON.stringify(v.mode)}`);
      const found = have.find((h) => h.name === v.name);
      if (!found) await platform.projects.addVersion(accountId, this.projectId, v);
      else if (found.mode !== v.mode) await platform.projects.setVersionMode(accountId, found.id, v.mode);
    }
  }

  private async customList(key: string, action: ChangeAction): Promise<void> {
    const { platform, accountId } = this;
    const id = keyOfFile(key.slice('custom-lists/'.length));
    if (action === 'delete') {
      await platform.customLists.delete(accountId, id);
      return;
    }
    const file = this.json<{ id: string; name: string; content: unknown[] }>(`${key}.json`);
    if (action === 'create')
      await platform.customLists.create(accountId, { ...file, projectId: this.projectId });
    else await platform.customLists.replace(accountId, id, file);
  }

  private async dictionary(key: string, action: ChangeAction): Promise<void> {
    const { platform, accountId } = this;
    const language = key.slice('i18n/'.length);
    const wanted = action === 'delete' ? {} : this.json<Record<string, string>>(`${key}.json`);
    const had = this.current.has(`${key}.json`)
      ? this.currentJson<Record<string, string>>(`${key}.json`)
      : {};
    await platform.i18n.set(accountId, this.projectId, language, wanted);
    await platform.i18n.remove(
      accountId,
      this.projectId,
      language,
      Object.keys(had).filter((k) => !Object.hasOwn(wanted, k)),
    );
  }

  private async vault(key: string): Promise<void> {
    const { platform, accountId } = this;
    const mode = key.slice('vaults/'.length);
    if (!isMode(mode)) throw badBundle(this.bundleName, `${key}.json: ${mode} is not a mode`);
    const file = this.json<{ keys?: string[]; values?: Record<string, unknown> }>(`${key}.json`);
    if (file.values !== undefined) {
      await platform.vaults.save(accountId, this.projectId, mode, file.values);
      return;
    }
    // Keys without values: the missing ones are added empty (null) for an operator to fill.
    const vault = (await platform.vaults.load(accountId, this.projectId, mode)) ?? {};
    for (const k of file.keys ?? []) if (!Object.hasOwn(vault, k)) vault[k] = null;
    await platform.vaults.save(accountId, this.projectId, mode, vault);
  }

  private async collection(key: string): Promise<void> {
    const service = this.platform.collections;
    const actor = bundleActor(this.accountId);
    const file = this.json<CollectionFile>(`${key}.json`);
    const flags = { isPublic: file.isPublic, isReadonly: file.isReadonly };
    if (!(await service.createCollection(actor, file.name, flags)))
      await service.updateCollection(actor, file.name, flags);
    const have = (await service.listIndexes(actor, file.name)).filter((i) => i.name !== '_id_');
    for (const index of have)
      if (!file.indexes.some((i) => i.name === index.name && sameIndex(i, index)))
        await service.deleteIndex(actor, file.name, index.name);
    for (const index of file.indexes)
      if (!have.some((i) => i.name === index.name && sameIndex(i, index)))
        await service.createIndex(actor, file.name, index.name, {
          keys: index.keys,
          unique: index.unique,
          ascending: index.ascending,
        });
  }

  private async documents(key: string): Promise<void> {
    const name = keyOfFile(key.slice('collections/'.length, -'.documents.json'.length));
    const documents = this.json<unknown[]>(key);
    await this.platform.collections.importDocuments(bundleActor(this.accountId), name, documents, {
      drop: true,
    });
  }

  private async process(key: string, action: ChangeAction): Promise<void> {
    const definitions = this.platform.processes.definitions;
    const { accountId } = this;
    const name = keyOfFile(key.slice('processes/'.length));
    const found = await definitions.find(accountId, name);
    if (found && found.definition.project !== this.projectId)
      throw new PlatformError(
        'conflict',
        `process definition ${JSON.stringify(name)} belongs to ${found.definition.project === null ? 'no project' : `project ${found.definition.project}`} of account ${accountId}`,
      );
    if (action === 'delete') {
      if (found) await definitions.delete(accountId, found.id);
      return;
    }
    const file = this.json<{ steps: StepDefinition[] } & Record<string, unknown>>(`${key}.json`);
    const bpmn = this.files.get(`${key}.bpmn`);
    const value = {
      ...file,
      project: this.projectId,
      steps: mapStepLanes<LaneRef, number>(file.steps, (ref) => this.laneId(ref, `${key}.json`)),
      ...(bpmn !== undefined ? { bpmn } : {}),
    };
    if (found) await definitions.replace(accountId, found.id, value);
    else await definitions.create(accountId, value);
  }

  private async webInterface(key: string, action: ChangeAction): Promise<void> {
    const { platform, accountId } = this;
    const title = keyOfFile(key.slice('web-interfaces/'.length));
    const found = (await platform.webInterfaces.list(accountId, this.projectId)).find(
      (w) => w.title === title,
    );
    if (action === 'delete') {
      if (found) await platform.webInterfaces.delete(accountId, found.id);
      return;
    }
    const file = this.json<{
      title: string;
      description: string;
      thumb: string;
      tags: string[];
      contexts: Array<'web' | 'mobile' | 'tablet'>;
      lanes: LaneRef[];
    }>(`${key}.json`);
    const input = { ...file, lanes: file.lanes.map((ref) => this.laneId(ref, `${key}.json`)) };
    const wi = found
      ? await platform.webInterfaces.update(accountId, found.id, input)
      : await platform.webInterfaces.create(accountId, this.projectId, input);
    const template = this.files.get(`${key}.html`);
    if (template !== undefined) await platform.webInterfaceTemplates.set(accountId, wi.id, template);
  }

  private async compositeApi(key: string, action: ChangeAction): Promise<void> {
    const { platform, accountId } = this;
    const [method, encoded] = key.slice('composite-apis/'.length).split(' ') as [string, string];
    const path = keyOfFile(encoded);
    const found = (await platform.compositeApis.list(accountId)).find(
      (a) => a.projectId === this.projectId && a.method === method && a.path === path,
    );
    if (action === 'delete') {
      if (found) await platform.compositeApis.delete(accountId, found.id);
      return;
    }
    const file = this.json<{
      method: string;
      path: string;
      mode: Mode;
      isPublic: boolean;
      description: string;
      process?: string;
    }>(`${key}.json`);
    const template = this.files.get(`${key}.ftl`);
    if (template === undefined) throw badBundle(this.bundleName, `${key}.ftl is missing`);
    const input = { ...file, template, projectId: this.projectId };
    if (found) await platform.compositeApis.replace(accountId, found.id, input);
    else await platform.compositeApis.create(accountId, input);
  }
}

function laneKey(ref: LaneRef): string {
  return JSON.stringify([ref.pool, ref.lane]);
}

function sameIndex(a: IndexFile, b: IndexFile): boolean {
  return (
    JSON.stringify(a.keys) === JSON.stringify(b.keys) && a.unique === b.unique && a.ascending === b.ascending
  );
}
