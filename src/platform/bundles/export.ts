/**
 * Reading a project into bundle files (format.ts) through the platform's services. The same
 * reading of the target store is what an import compares the bundle with (import.ts).
 */
import type { Actor as CollectionActor } from '../collections/index.js';
import type { Platform } from '../index.js';
import { MODES } from '../model.js';
import type { ProcessDefinition, StepDefinition } from '../processes/definition.js';
import {
  badBundle,
  BUNDLE_FORMAT,
  fileKey,
  jsonText,
  MANIFEST,
  projectFile,
  sortedObject,
  type BundleFiles,
  type LaneRef,
  type Manifest,
} from './format.js';

export interface ExportOptions {
  /** The collections' documents too (default: definitions and indexes only). */
  withDocuments?: boolean;
  /** The vaults' values (default: their keys only). */
  withSecrets?: boolean;
  /** The collections to carry (default: every collection of the account). */
  collections?: readonly string[];
}

/** The administrator the bundle reads and writes collections as. */
export function bundleActor(accountId: string): CollectionActor {
  return { accountId, user: { id: 0, login: 'bundle', isAdmin: true } };
}

/** Lane ids ↔ pool and lane names of an account. */
export async function laneNames(platform: Platform, accountId: string) {
  const pools = await platform.directory.lanes.listPools(accountId);
  const lanes = await platform.directory.lanes.listLanes(accountId);
  const poolName = new Map(pools.map((p) => [p.id, p.name]));
  const byId = new Map(
    lanes.map((l) => [l.id, { pool: poolName.get(l.poolId)!, lane: l.name, poolId: l.poolId }]),
  );
  return { pools, lanes, byId };
}

/**
 * Applies `map` to the lane of every step, inline sub-processes included, and writes each step in
 * the form parseDefinition reads (a stored manual step's `onTimeout` is read as `on_timeout`).
 */
export function mapStepLanes<From, To>(steps: readonly StepDefinition[], map: (lane: From) => To): unknown[] {
  return steps.map((step) => {
    const copy: Record<string, unknown> = { ...step };
    if (step.lane !== null && step.lane !== undefined) copy.lane = map(step.lane as From);
    if ('onTimeout' in copy) {
      copy.on_timeout = copy.onTimeout;
      delete copy.onTimeout;
    }
    if (step.type === 'subprocess' && typeof step.process === 'object')
      copy.process = { ...step.process, steps: mapStepLanes(step.process.steps, map) };
    return copy;
  });
}

function stepLanes(steps: readonly StepDefinition[], into: Set<number>): void {
  for (const step of steps) {
    if (typeof step.lane === 'number') into.add(step.lane);
    if (step.type === 'subprocess' && typeof step.process === 'object') stepLanes(step.process.steps, into);
  }
}

/** The bundle files of a project of the account. */
export async function exportProject(
  platform: Platform,
  accountId: string,
  projectId: number,
  options: ExportOptions = {},
): Promise<BundleFiles> {
  const files: BundleFiles = new Map();
  const put = (path: string, value: unknown) => files.set(path, jsonText(value));
  const project = await platform.projects.require(accountId, projectId);
  const names = await laneNames(platform, accountId);
  const laneRef = (id: number): LaneRef => {
    const found = names.byId.get(id);
    if (!found) throw badBundle(`project ${projectId}`, `lane ${id} does not exist`);
    return { pool: found.pool, lane: found.lane };
  };

  const actor = bundleActor(accountId);
  const allCollections = (await platform.collections.listCollections(actor)).map((c) => c.name);
  const collections = options.collections ? [...options.collections].sort() : allCollections;
  for (const name of collections)
    if (!allCollections.includes(name))
      throw badBundle(`project ${projectId}`, `collection '${name}' does not exist`);
  const manifest: Manifest = {
    format: BUNDLE_FORMAT,
    project: { title: project.title },
    withDocuments: Boolean(options.withDocuments),
    withSecrets: Boolean(options.withSecrets),
    collections,
  };
  put(MANIFEST, manifest);
  put('project.json', projectFile(project));
  put(
    'versions.json',
    (await platform.projects.versions(accountId, projectId)).map((v) => ({ name: v.name, mode: v.mode })),
  );

  // Pools: the project's, and those of the lanes its steps and web interfaces name.
  const usedLanes = new Set<number>();
  const definitions = (await platform.processes.definitions.list(accountId)).filter(
    (d) => d.definition.project === projectId,
  );
  for (const d of definitions) stepLanes(d.definition.steps, usedLanes);
  const interfaces = await platform.webInterfaces.list(accountId, projectId);
  for (const wi of interfaces) for (const id of wi.lanes) usedLanes.add(id);
  const attached = new Set(await platform.projects.poolIds(accountId, projectId));
  const poolIds = new Set([...attached, ...[...usedLanes].map((id) => names.byId.get(id)?.poolId ?? -1)]);
  for (const pool of names.pools.filter((p) => poolIds.has(p.id))) {
    const lanes = names.lanes.filter((l) => l.poolId === pool.id);
    put(`pools/${fileKey(pool.name)}.json`, {
      name: pool.name,
      isOrganization: pool.isOrganization,
      attached: attached.has(pool.id),
      lanes: lanes.map((l) => ({
        name: l.name,
        runtime: l.runtime,
        parent: l.parentId === null ? null : (names.byId.get(l.parentId)?.lane ?? null),
        rule: l.rule,
      })),
    });
  }

  for (const d of definitions) {
    const { bpmn, project: _p, steps, ...rest } = d.definition as ProcessDefinition;
    const base = `processes/${fileKey(d.name)}`;
    put(`${base}.json`, { ...rest, steps: mapStepLanes(steps, laneRef) });
    if (bpmn !== undefined) files.set(`${base}.bpmn`, bpmn);
  }

  for (const api of (await platform.compositeApis.list(accountId)).filter((a) => a.projectId === projectId)) {
    const base = `composite-apis/${api.method} ${fileKey(api.path)}`;
    put(`${base}.json`, {
      method: api.method,
      path: api.path,
      mode: api.mode,
      isPublic: api.isPublic,
      description: api.description,
      ...(api.process !== null ? { process: api.process } : {}),
    });
    files.set(`${base}.ftl`, api.template);
  }

  const titles = new Set<string>();
  for (const wi of interfaces) {
    if (titles.has(wi.title))
      throw badBundle(
        `project ${projectId}`,
        `two web interfaces are titled ${JSON.stringify(wi.title)}; a bundle names them by title`,
      );
    titles.add(wi.title);
    const base = `web-interfaces/${fileKey(wi.title)}`;
    put(`${base}.json`, {
      title: wi.title,
      description: wi.description,
      thumb: wi.thumb,
      tags: wi.tags,
      contexts: wi.contexts,
      lanes: wi.lanes.map(laneRef),
    });
    const template = await platform.webInterfaceTemplates.get(accountId, wi.id);
    if (template !== undefined) files.set(`${base}.html`, template);
  }

  for (const list of await platform.customLists.list(accountId, projectId))
    put(`custom-lists/${fileKey(list.id)}.json`, { id: list.id, name: list.name, content: list.content });

  const byLanguage = new Map<string, Array<[string, string]>>();
  for (const e of await platform.i18n.entries(accountId, projectId)) {
    if (!byLanguage.has(e.language)) byLanguage.set(e.language, []);
    byLanguage.get(e.language)!.push([e.key, e.text]);
  }
  for (const [language, entries] of byLanguage) put(`i18n/${language}.json`, sortedObject(entries));

  for (const [path, text] of await collectionFiles(platform, accountId, collections, options.withDocuments))
    files.set(path, text);

  for (const mode of MODES) {
    const vault = await platform.vaults.load(accountId, projectId, mode);
    if (vault === undefined) continue;
    put(`vaults/${mode}.json`, options.withSecrets ? { values: vault } : { keys: Object.keys(vault).sort() });
  }
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The files of collections of the account: definition and indexes, and the documents when asked. */
export async function collectionFiles(
  platform: Platform,
  accountId: string,
  names: readonly string[],
  withDocuments = false,
): Promise<BundleFiles> {
  const files: BundleFiles = new Map();
  const actor = bundleActor(accountId);
  for (const name of names) {
    const info = await platform.collections.getCollection(actor, name);
    if (!info) continue;
    const indexes = (await platform.collections.listIndexes(actor, name)).filter((i) => i.name !== '_id_');
    files.set(
      `collections/${fileKey(name)}.json`,
      jsonText({
        name,
        isPublic: info.isPublic,
        isReadonly: info.isReadonly,
        indexes: indexes
          .map((i) => ({ name: i.name, keys: i.keys, unique: i.unique, ascending: i.ascending }))
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
      }),
    );
    if (withDocuments) {
      const documents = await platform.collections.find(actor, name, {}, { sort: [['_id', 1]] });
      files.set(`collections/${fileKey(name)}.documents.json`, jsonText(documents));
    }
  }
  return files;
}
