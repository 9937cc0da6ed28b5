/**
 * The project bundle format, `flowmark-bundle/1` (docs/deploy.md, "Project bundles"): a zip of
 * pretty-printed JSON files (and `.bpmn`, `.ftl`, `.html` texts), one file per artefact, named by
 * the artefact's natural key so that two exports of the same project diff file by file.
 */
import { errorMessage } from '../../errors/index.js';
import { PlatformError } from '../errors.js';
import type { Project } from '../projects/projects.js';

export const BUNDLE_FORMAT = 'flowmark-bundle/1';

/** project.json: the project's fields a bundle carries, as exported and as an import writes them. */
export type ProjectFile = Pick<Project, 'title' | 'type' | 'summary' | 'content' | 'metadata' | 'logLevel'>;

export function projectFile(project: ProjectFile): ProjectFile {
  return {
    title: project.title,
    type: project.type,
    summary: project.summary,
    content: project.content,
    metadata: project.metadata,
    logLevel: project.logLevel,
  };
}
export const MANIFEST = 'bundle.json';

/** A bundle's files: path inside the archive → text. */
export type BundleFiles = Map<string, string>;

export interface Manifest {
  format: string;
  project: { title: string };
  withDocuments: boolean;
  withSecrets: boolean;
  /** The collections the bundle carries (their definitions, indexes and, with documents, contents). */
  collections: string[];
}

/** A lane named by its pool and its own name: ids differ from one store to another. */
export interface LaneRef {
  pool: string;
  lane: string;
}

/** The JSON text of a file: two-space indents and a final newline. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** An object with its keys sorted (maps the bundle builds itself: i18n, vault keys). */
export function sortedObject<T>(entries: Iterable<[string, T]>): Record<string, T> {
  const out = Object.create(null) as Record<string, T>;
  for (const [k, v] of [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) out[k] = v;
  return { ...out };
}

/** A file name for a key (any text): safe on every file system, one to one. */
export function fileKey(text: string): string {
  return encodeURIComponent(text).replace(/\*/g, '%2A').replace(/^\./, '%2E');
}

export function keyOfFile(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    throw new PlatformError('invalid', `invalid bundle file name ${JSON.stringify(name)}`);
  }
}

/** A bundle that cannot be read: the message names the file. */
export function badBundle(file: string, reason: string): PlatformError {
  return new PlatformError('invalid', `${file}: ${reason}`);
}

export function parseJsonFile<T>(files: BundleFiles, path: string, bundleName: string): T {
  const text = files.get(path);
  if (text === undefined) throw badBundle(bundleName, `${path} is missing`);
  try {
    return JSON.parse(text) as T;
  } catch (e) {
    throw badBundle(bundleName, `${path} is not valid JSON (${errorMessage(e)})`);
  }
}
