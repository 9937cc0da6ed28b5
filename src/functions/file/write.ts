/**
 * Changing files: create_file, save_file, append_file, delete_file, save_file_desc, update_file
 * (deprecated) and file_replace. Content arrives as text and becomes bytes through the
 * fileoptions' `algorithm` (NONE: characters in `charset`; BASE64, BASE64URL, HEXA: the bytes).
 */
import type { FileChanges, StoredFile } from '../../platform/files/index.js';
import { DEFAULT_CHARSET, textToBytes } from '../../platform/files/codec.js';
import { isForbiddenKey } from '../../platform/model.js';
import type { ExecutionContext } from '../context.js';
import { argumentError, messageOf } from '../errors.js';
import { defineFunction, type FunctionSpec, type ParamSpec } from '../spec.js';
import {
  algorithmArg,
  charsetArg,
  fileDescriptor,
  fileId,
  fileOptions,
  platformCall,
  platformOf,
  principalOf,
  searchFlags,
  type FileOptions,
} from './args.js';
import { readText } from './read.js';

type ReplaceText = typeof import('../../platform/files/replace.js').replaceText;
// re2js loads with the first replacement, not at startup.
const replaceText: ReplaceText = async (...args) =>
  (await import('../../platform/files/replace.js')).replaceText(...args);

/** The name append_file gives the file it creates when fileId is empty. */
export const APPENDED_FILE_NAME = 'untitled.txt';

const FILE_ID = { name: 'fileId', type: 'string' } satisfies ParamSpec;
const CONTENT = { name: 'content', type: 'string' } satisfies ParamSpec;
const OPTIONS = {
  name: 'options',
  type: 'object',
  doc: 'fileoptions: charset, content_type, algorithm, visibility, metadata (docs/files.md)',
} satisfies ParamSpec;

/** Text → bytes; a text that is not of the algorithm is an error of the argument that gave it. */
function toBytes(
  fn: string,
  argument: { index: number; name: string },
  content: string,
  algorithm: FileOptions['algorithm'],
  charset: string,
): Buffer {
  try {
    return textToBytes(content, algorithm, charset);
  } catch (e) {
    throw argumentError(fn, argument.index, argument.name, messageOf(e).replace(/^the content /, ''));
  }
}

const CONTENT_ARG = { index: 2, name: 'content' };

async function createFile(
  fn: string,
  ctx: ExecutionContext,
  name: string,
  content: string,
  options: FileOptions,
) {
  const platform = platformOf(fn, ctx);
  const bytes = toBytes(fn, CONTENT_ARG, content, options.algorithm, options.charset ?? DEFAULT_CHARSET);
  const file = await platformCall(fn, () =>
    platform.files.create(ctx.accountId, principalOf(ctx), {
      name,
      content: bytes,
      contentType: options.contentType,
      charset: options.charset ?? DEFAULT_CHARSET,
      visibility: options.visibility,
      metadata: options.metadata,
    }),
  );
  return file.id;
}

async function saveFile(
  fn: string,
  ctx: ExecutionContext,
  id: string,
  content: string,
  options: FileOptions,
) {
  const platform = platformOf(fn, ctx);
  const principal = principalOf(ctx);
  const current = await platformCall(fn, () => platform.files.check(ctx.accountId, principal, id, 'WRITE'));
  const charset = options.charset ?? current.charset ?? DEFAULT_CHARSET;
  const bytes = toBytes(fn, CONTENT_ARG, content, options.algorithm, charset);
  await platformCall(fn, async () => {
    await platform.files.save(ctx.accountId, principal, id, bytes, {
      charset: options.charset,
      contentType: options.contentType,
    });
    if (options.visibility !== undefined || options.metadata !== undefined)
      await platform.files.update(ctx.accountId, principal, id, {
        visibility: options.visibility,
        metadata: options.metadata,
      });
  });
  return id;
}

const READ_ONLY_FIELDS: Record<string, (f: StoredFile) => unknown> = {
  id: (f) => f.id,
  size: (f) => f.size,
  created: (f) => f.createdAt,
  updated: (f) => f.updatedAt,
  owner: (f) => f.ownerId,
};
const WRITABLE_FIELDS = ['name', 'content_type', 'charset', 'visibility', 'metadata'];

/** The changes a filedescriptor given to save_file_desc asks for (read-only fields must keep their value). */
function descriptorChanges(fn: string, given: Record<string, unknown>, current: StoredFile): FileChanges {
  const fail = (detail: string) => argumentError(fn, 2, 'metadata', detail);
  const changes: FileChanges = {};
  for (const [key, value] of Object.entries(given)) {
    if (isForbiddenKey(key)) throw fail(`may not have a field named ${key}`);
    const readOnly = READ_ONLY_FIELDS[key];
    if (readOnly) {
      if (JSON.stringify(value) !== JSON.stringify(readOnly(current)))
        throw fail(
          `field ${key} cannot be changed (read-only fields: ${Object.keys(READ_ONLY_FIELDS).join(', ')})`,
        );
      continue;
    }
    if (!WRITABLE_FIELDS.includes(key))
      throw fail(`has an unknown field ${JSON.stringify(key)}: ${WRITABLE_FIELDS.join(', ')} can be changed`);
    if (key === 'metadata') {
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        throw fail('field metadata must be an object');
      changes.metadata = value as Record<string, unknown>;
      continue;
    }
    if (typeof value !== 'string' && !(key === 'charset' && value === null))
      throw fail(`field ${key} must be a string`);
    if (key === 'name') changes.name = value as string;
    else if (key === 'content_type') changes.contentType = value as string;
    else if (key === 'visibility') changes.visibility = value as FileChanges['visibility'];
    else changes.charset = value;
  }
  return changes;
}

export const writeFunctions: FunctionSpec[] = [
  defineFunction({
    name: 'create_file',
    group: 'File',
    rights: 'service',
    doc:
      'Creates an uploaded file owned by the connected user (with nobody connected: by the request) and ' +
      'returns its id. The content type is detected from the content and the name unless given.',
    returns: 'string',
    forms: [
      {
        params: [{ name: 'name', type: 'string' }, CONTENT, OPTIONS],
        impl(ctx, [name, content, options], _call, fn) {
          return createFile(fn, ctx, name, content, fileOptions(fn, 3, options));
        },
      },
      {
        deprecated: true,
        doc: 'Replaced by the form with fileoptions.',
        params: [
          { name: 'name', type: 'string' },
          CONTENT,
          { name: 'charset', type: 'string', optional: true, default: DEFAULT_CHARSET },
          { name: 'contentType', type: 'string', optional: true, doc: 'default: detected' },
        ],
        impl(ctx, [name, content, charset, contentType], _call, fn) {
          return createFile(fn, ctx, name, content, {
            algorithm: 'NONE',
            charset: charsetArg(fn, 3, charset, DEFAULT_CHARSET),
            contentType: contentType || undefined,
          });
        },
      },
    ],
  }),
  defineFunction({
    name: 'save_file',
    group: 'File',
    rights: 'service',
    doc:
      'Overwrites the content of an uploaded file (WRITE) and returns its id. The charset defaults to the ' +
      'file’s own.',
    returns: 'string',
    forms: [
      {
        params: [FILE_ID, CONTENT, OPTIONS],
        impl(ctx, [id, content, options], _call, fn) {
          return saveFile(fn, ctx, fileId(fn, 1, id), content, fileOptions(fn, 3, options));
        },
      },
      {
        deprecated: true,
        doc: 'Replaced by the form with fileoptions.',
        params: [FILE_ID, CONTENT, { name: 'charset', type: 'string', optional: true }],
        impl(ctx, [id, content, charset], _call, fn) {
          const options: FileOptions = { algorithm: 'NONE' };
          if (charset !== undefined) options.charset = charsetArg(fn, 3, charset, DEFAULT_CHARSET);
          return saveFile(fn, ctx, fileId(fn, 1, id), content, options);
        },
      },
    ],
  }),
  defineFunction({
    name: 'append_file',
    group: 'File',
    rights: 'service',
    doc:
      `Appends text to an uploaded file (WRITE; charset default: the file’s own) and returns its id. An empty ` +
      `fileId creates a new text file named ${APPENDED_FILE_NAME}.`,
    returns: 'string',
    forms: [
      {
        params: [FILE_ID, CONTENT, { name: 'charset', type: 'string', optional: true }],
        async impl(ctx, [id, content, charset], _call, fn) {
          const platform = platformOf(fn, ctx);
          const principal = principalOf(ctx);
          if (id.trim() === '')
            return createFile(fn, ctx, APPENDED_FILE_NAME, content, {
              algorithm: 'NONE',
              charset: charsetArg(fn, 3, charset, DEFAULT_CHARSET),
              contentType: 'text/plain',
            });
          const target = fileId(fn, 1, id);
          const current = await platformCall(fn, () =>
            platform.files.check(ctx.accountId, principal, target, 'WRITE'),
          );
          const bytes = toBytes(
            fn,
            CONTENT_ARG,
            content,
            'NONE',
            charsetArg(fn, 3, charset, current.charset ?? DEFAULT_CHARSET),
          );
          await platformCall(fn, () => platform.files.append(ctx.accountId, principal, target, bytes));
          return target;
        },
      },
    ],
  }),
  defineFunction({
    name: 'delete_file',
    group: 'File',
    rights: 'service',
    doc: 'Deletes an uploaded file (WRITE), its rights and its attachments; false when no such file exists.',
    returns: 'boolean',
    forms: [
      {
        params: [FILE_ID],
        impl(ctx, [id], _call, fn) {
          const platform = platformOf(fn, ctx);
          return platformCall(fn, () =>
            platform.files.delete(ctx.accountId, principalOf(ctx), fileId(fn, 1, id)),
          );
        },
      },
    ],
  }),
  defineFunction({
    name: 'save_file_desc',
    group: 'File',
    rights: 'service',
    doc:
      'Changes the descriptor of an uploaded file (WRITE): name, content_type, charset, visibility, metadata. ' +
      'The read-only fields (id, size, created, updated, owner) may be given back unchanged. Returns the new descriptor.',
    returns: 'filedescriptor',
    forms: [
      {
        params: [FILE_ID, { name: 'metadata', type: 'object', doc: 'filedescriptor fields to change' }],
        async impl(ctx, [id, metadata], _call, fn) {
          const platform = platformOf(fn, ctx);
          const principal = principalOf(ctx);
          const target = fileId(fn, 1, id);
          const current = await platformCall(fn, () =>
            platform.files.check(ctx.accountId, principal, target, 'WRITE'),
          );
          const changes = descriptorChanges(fn, metadata, current);
          const file = await platformCall(fn, () =>
            platform.files.update(ctx.accountId, principal, target, changes),
          );
          return fileDescriptor(file);
        },
      },
    ],
  }),
  defineFunction({
    name: 'update_file',
    group: 'File',
    rights: 'service',
    doc: 'Renames an uploaded file and sets its content type (WRITE); returns its id. Replaced by save_file_desc.',
    returns: 'string',
    flags: { deprecated: true },
    forms: [
      {
        params: [FILE_ID, { name: 'name', type: 'string' }, { name: 'contentType', type: 'string' }],
        async impl(ctx, [id, name, contentType], _call, fn) {
          const platform = platformOf(fn, ctx);
          const target = fileId(fn, 1, id);
          await platformCall(fn, () =>
            platform.files.update(ctx.accountId, principalOf(ctx), target, {
              name: name,
              contentType: contentType,
            }),
          );
          return target;
        },
      },
    ],
  }),
  defineFunction({
    name: 'file_replace',
    group: 'File',
    rights: 'service',
    doc:
      'Replaces the occurrences of `search` in the file’s text by `replacedBy` and saves the file (READ and ' +
      'WRITE); returns its id. `flag` (searchflag): ALL (default), FIRST, REGEX, IGNORE_CASE, MULTILINE, ' +
      'DOTALL. A REGEX uses RE2 syntax and Java replacement syntax ($1, ${name}); it runs with a time bound.',
    returns: 'string',
    forms: [
      {
        params: [
          FILE_ID,
          { name: 'search', type: 'string' },
          { name: 'replacedBy', type: 'string' },
          { name: 'flag', type: 'string', optional: true, doc: 'searchflag (docs/files.md)' },
          {
            name: 'algorithm',
            type: 'string',
            optional: true,
            doc: 'NONE (default), BASE64, BASE64URL or HEXA',
          },
          { name: 'charset', type: 'string', optional: true, doc: "default: the file's charset, else UTF-8" },
        ],
        async impl(ctx, [id, search, replacedBy, flag, algorithmValue, charsetValue], _call, fn) {
          const platform = platformOf(fn, ctx);
          const principal = principalOf(ctx);
          const target = fileId(fn, 1, id);
          const flags = searchFlags(fn, 4, flag);
          const algorithm = algorithmArg(fn, 5, algorithmValue);
          await platformCall(fn, () => platform.files.check(ctx.accountId, principal, target, 'WRITE'));
          const { file, text } = await readText(fn, ctx, target, algorithm, {
            index: 6,
            value: charsetValue,
          });
          if (!flags.regex && search === '') throw argumentError(fn, 2, 'search', 'is empty');
          const replaced = await platformCall(
            fn,
            () =>
              replaceText(
                text,
                { search: search, replacement: replacedBy, ...flags },
                platform.files.limits,
                ctx.accountId,
              ),
            { index: 2, name: 'search' },
          );
          if (replaced === text) return target;
          const charset = charsetArg(fn, 6, charsetValue, file.charset ?? DEFAULT_CHARSET);
          const bytes = toBytes(fn, { index: 3, name: 'replacedBy' }, replaced, algorithm, charset);
          await platformCall(fn, () => platform.files.save(ctx.accountId, principal, target, bytes));
          return target;
        },
      },
    ],
  }),
];
