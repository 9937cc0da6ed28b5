/** Zip archives of uploaded files: zip_file, unzip_file. */
import { FunctionError } from '../errors.js';
import { defineFunction, type FunctionSpec } from '../spec.js';
import { fileDescriptor, fileId, fileIds, platformCall, platformOf, principalOf } from './args.js';

export const zipFunctions: FunctionSpec[] = [
  defineFunction({
    name: 'zip_file',
    group: 'File',
    rights: 'service',
    doc:
      'Creates a ZIP archive of uploaded files (READ on each; one id, or a sequence or JSON array of ids) ' +
      'named `name`, owned by the caller; returns its id. Equal names inside get " (2)", " (3)" …',
    returns: 'string',
    forms: [
      {
        params: [
          { name: 'fileId', type: ['array', 'string'], doc: 'one id, or an array of ids' },
          { name: 'name', type: 'string' },
        ],
        async impl(ctx, [ids, name], _call, fn) {
          const platform = platformOf(fn, ctx);
          const list = fileIds(fn, 1, 'fileId', ids);
          const file = await platformCall(fn, () =>
            platform.files.zip(ctx.accountId, principalOf(ctx), list, name),
          );
          return file.id;
        },
      },
    ],
  }),
  defineFunction({
    name: 'unzip_file',
    group: 'File',
    rights: 'service',
    doc:
      'Extracts a ZIP archive (READ) into new uploaded files owned by the caller and returns the filedescriptor ' +
      'of the new file; an archive of several files gives the array of their descriptors (in archive order). ' +
      'Refused past the limits on entries, inflated size and compression ratio (zip bombs).',
    returns: 'filedescriptor (or array of filedescriptor)',
    forms: [
      {
        params: [{ name: 'fileId', type: 'string' }],
        async impl(ctx, [id], _call, fn) {
          const platform = platformOf(fn, ctx);
          const files = await platformCall(fn, () =>
            platform.files.unzip(ctx.accountId, principalOf(ctx), fileId(fn, 1, id)),
          );
          if (files.length === 0) throw new FunctionError(fn, 'the archive holds no file');
          return files.length === 1 ? fileDescriptor(files[0]) : files.map(fileDescriptor);
        },
      },
    ],
  }),
];
