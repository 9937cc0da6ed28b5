/**
 * What the File, Application and file-rights functions share: the caller as a file principal,
 * the shapes scripts see (filedescriptor …), and the parsing of their arguments (file ids,
 * algorithm, charset, fileoptions, searchflag) with errors naming the argument.
 */
import { parseJsonText } from '../coercion.js';
import type { ExecutionContext } from '../context.js';
import { argumentError } from '../errors.js';
import type { Algorithm, Principal, StoredFile, Visibility } from '../../platform/files/index.js';
import { describeAlgorithms, isCharset, parseAlgorithm } from '../../platform/files/codec.js';
import { VISIBILITIES } from '../../platform/files/rights.js';
import { isForbiddenKey } from '../../platform/model.js';

export { connectedUser, platformCall, platformOf } from '../request/calls.js';

/** Most file ids one call may name. */
export const MAX_FILE_IDS = 1000;

/** The caller of a file function. */
export function principalOf(ctx: ExecutionContext): Principal {
  return {
    userId: ctx.user?.id ?? null,
    isAdmin: ctx.user?.isAdmin ?? false,
    mode: ctx.mode,
    requestId: ctx.requestId ?? null,
  };
}

/** Spec 2.4 filedescriptor, as scripts see it (docs/files.md). */
export interface FileDescriptor {
  id: string;
  name: string;
  content_type: string;
  charset: string | null;
  size: number;
  created: number;
  updated: number;
  owner: number | null;
  visibility: Visibility;
  metadata: Record<string, unknown>;
}

export function fileDescriptor(file: StoredFile): FileDescriptor {
  return {
    id: file.id,
    name: file.name,
    content_type: file.contentType,
    charset: file.charset,
    size: file.size,
    created: file.createdAt,
    updated: file.updatedAt,
    owner: file.ownerId,
    visibility: file.visibility,
    metadata: file.metadata,
  };
}

/**
 * File ids given as one id, the JSON text of an array of ids, or a sequence of ids (an upload
 * widget's variable holds either). At least one, at most MAX_FILE_IDS.
 */
export function fileIds(fn: string, index: number, name: string, value: unknown): string[] {
  let list: unknown[];
  if (Array.isArray(value)) list = value;
  else {
    const text = String(value).trim();
    if (text.startsWith('[')) {
      let parsed: unknown;
      try {
        parsed = parseJsonText(text);
      } catch {
        throw argumentError(fn, index, name, `is not a JSON array of file ids: ${JSON.stringify(text)}`);
      }
      if (!Array.isArray(parsed))
        throw argumentError(fn, index, name, `is not a JSON array of file ids: ${JSON.stringify(text)}`);
      list = parsed;
    } else list = [text];
  }
  if (list.length === 0) throw argumentError(fn, index, name, 'names no file');
  if (list.length > MAX_FILE_IDS)
    throw argumentError(fn, index, name, `names more than ${MAX_FILE_IDS} files`);
  return list.map((id) => {
    if ((typeof id !== 'string' && typeof id !== 'number') || String(id).trim() === '')
      throw argumentError(fn, index, name, `holds ${JSON.stringify(id)}, which is not a file id`);
    return String(id).trim();
  });
}

/** One file id (non-empty). */
export function fileId(fn: string, index: number, value: unknown, name = 'fileId'): string {
  const id = String(value).trim();
  if (id === '') throw argumentError(fn, index, name, 'is empty: a file id is expected');
  return id;
}

export function algorithmArg(fn: string, index: number, value: unknown): Algorithm {
  if (value === undefined) return 'NONE';
  const algorithm = parseAlgorithm(String(value));
  if (!algorithm)
    throw argumentError(
      fn,
      index,
      'algorithm',
      `unknown algorithm ${JSON.stringify(value)}: ${describeAlgorithms()}`,
    );
  return algorithm;
}

/** A charset argument, or the fallback when omitted. */
export function charsetArg(fn: string, index: number, value: unknown, fallback: string): string {
  if (value === undefined || value === '') return fallback;
  const charset = String(value).trim();
  if (!isCharset(charset))
    throw argumentError(fn, index, 'charset', `unsupported charset ${JSON.stringify(value)}`);
  return charset;
}

/** Spec 2.4 fileoptions (docs/files.md). */
export interface FileOptions {
  charset?: string;
  contentType?: string;
  algorithm: Algorithm;
  visibility?: Visibility;
  metadata?: Record<string, unknown>;
}

const OPTION_KEYS = ['charset', 'content_type', 'contentType', 'algorithm', 'visibility', 'metadata'];

export function fileOptions(fn: string, index: number, value: Record<string, unknown>): FileOptions {
  const fail = (detail: string) => argumentError(fn, index, 'options', detail);
  for (const key of Object.keys(value))
    if (isForbiddenKey(key) || !OPTION_KEYS.includes(key))
      throw fail(
        `has an unknown option ${JSON.stringify(key)}: ${OPTION_KEYS.filter((k) => k !== 'contentType').join(', ')}`,
      );
  const text = (key: string): string | undefined => {
    const v = value[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') throw fail(`option ${key} must be a string`);
    return v;
  };
  const options: FileOptions = { algorithm: 'NONE' };
  const charset = text('charset');
  if (charset !== undefined) {
    if (!isCharset(charset)) throw fail(`option charset: unsupported charset ${JSON.stringify(charset)}`);
    options.charset = charset.trim();
  }
  const contentType = text('content_type') ?? text('contentType');
  if (contentType !== undefined && contentType.trim() !== '') options.contentType = contentType;
  const algorithm = text('algorithm');
  if (algorithm !== undefined) {
    const parsed = parseAlgorithm(algorithm);
    if (!parsed)
      throw fail(`option algorithm: unknown algorithm ${JSON.stringify(algorithm)}: ${describeAlgorithms()}`);
    options.algorithm = parsed;
  }
  const visibility = text('visibility');
  if (visibility !== undefined) {
    const upper = visibility.trim().toUpperCase() as Visibility;
    if (!VISIBILITIES.includes(upper))
      throw fail(`option visibility must be PRIVATE or PUBLIC, got ${JSON.stringify(visibility)}`);
    options.visibility = upper;
  }
  if (value.metadata !== undefined && value.metadata !== null) {
    const metadata = value.metadata;
    if (typeof metadata !== 'object' || Array.isArray(metadata))
      throw fail('option metadata must be an object');
    options.metadata = metadata as Record<string, unknown>;
  }
  return options;
}

/** Spec 2.4 searchflag (docs/files.md): words separated by commas, spaces or `|`. */
export interface SearchFlags {
  regex: boolean;
  first: boolean;
  ignoreCase: boolean;
  multiline: boolean;
  dotAll: boolean;
}

const FLAG_WORDS: Record<string, keyof SearchFlags | 'all'> = {
  ALL: 'all',
  FIRST: 'first',
  REGEX: 'regex',
  IGNORE_CASE: 'ignoreCase',
  CASE_INSENSITIVE: 'ignoreCase',
  MULTILINE: 'multiline',
  DOTALL: 'dotAll',
};

export function searchFlags(fn: string, index: number, value: unknown): SearchFlags {
  const flags: SearchFlags = {
    regex: false,
    first: false,
    ignoreCase: false,
    multiline: false,
    dotAll: false,
  };
  if (value === undefined) return flags;
  for (const word of String(value)
    .split(/[\s,|]+/)
    .filter(Boolean)) {
    const flag = FLAG_WORDS[word.toUpperCase()];
    if (!flag)
      throw argumentError(
        fn,
        index,
        'flag',
        `unknown flag ${JSON.stringify(word)}: ${Object.keys(FLAG_WORDS).join(', ')}`,
      );
    if (flag === 'all') flags.first = false;
    else flags[flag] = true;
  }
  if ((flags.multiline || flags.dotAll) && !flags.regex)
    throw argumentError(fn, index, 'flag', 'MULTILINE and DOTALL apply to a REGEX search only');
  return flags;
}
