/**
 * Reading files: R_file_content, R_file_desc, R_file_size, R_file_index_of,
 * R_file_last_index_of, R_file_substring. The text a function works on is the file's content
 * through `algorithm` and `charset` (src/platform/files/codec.ts); indexes count UTF-16 code
 * units, as Java's String does.
 */
import type { Algorithm, StoredFile } from '../../platform/files/index.js';
import { bytesToText, DEFAULT_CHARSET } from '../../platform/files/codec.js';
import type { ExecutionContext } from '../context.js';
import { defineFunction, type FunctionSpec, type ParamSpec } from '../spec.js';
import {
  algorithmArg,
  charsetArg,
  fileDescriptor,
  fileId,
  platformCall,
  platformOf,
  principalOf,
} from './args.js';

/** A file's text view (READ), with the charset argument defaulting to the file's own, else UTF-8. */
export async function readText(
  fn: string,
  ctx: ExecutionContext,
  id: string,
  algorithm: Algorithm,
  charset: { index: number; value: unknown },
): Promise<{ file: StoredFile; text: string }> {
  const platform = platformOf(fn, ctx);
  const { file, content } = await platformCall(fn, () =>
    platform.files.read(ctx.accountId, principalOf(ctx), id),
  );
  const name = charsetArg(fn, charset.index, charset.value, file.charset ?? DEFAULT_CHARSET);
  return { file, text: bytesToText(content, algorithm, name) };
}

/** The stored file the first argument names (READ). */
function describeFile(fn: string, ctx: ExecutionContext, id: string): Promise<StoredFile> {
  const platform = platformOf(fn, ctx);
  return platformCall(fn, () => platform.files.describe(ctx.accountId, principalOf(ctx), fileId(fn, 1, id)));
}

const FILE_ID = { name: 'fileId', type: 'string' } satisfies ParamSpec;
const ALGORITHM = {
  name: 'algorithm',
  type: 'string',
  optional: true,
  doc: 'NONE (default), BASE64, BASE64URL or HEXA',
} satisfies ParamSpec;
const CHARSET = {
  name: 'charset',
  type: 'string',
  optional: true,
  doc: "default: the file's charset, else UTF-8",
} satisfies ParamSpec;

export const readFunctions: FunctionSpec[] = [
  defineFunction({
    name: 'R_file_content',
    aliases: ['file_content'],
    group: 'File',
    rights: 'service',
    doc:
      'The content of an uploaded file as text: NONE decodes its bytes in `charset` (default: the file’s ' +
      'charset, else UTF-8); BASE64, BASE64URL and HEXA encode its bytes. Needs READ on the file.',
    returns: 'string',
    forms: [
      {
        params: [FILE_ID, { ...ALGORITHM, optional: false, doc: 'NONE, BASE64, BASE64URL or HEXA' }, CHARSET],
        async impl(ctx, [id, algorithm, charset], _call, fn) {
          const view = await readText(fn, ctx, fileId(fn, 1, id), algorithmArg(fn, 2, algorithm), {
            index: 3,
            value: charset,
          });
          return view.text;
        },
      },
    ],
  }),
  defineFunction({
    name: 'R_file_desc',
    group: 'File',
    rights: 'service',
    doc: 'The descriptor of an uploaded file (docs/files.md). Needs READ on the file.',
    returns: 'filedescriptor',
    forms: [
      {
        params: [FILE_ID],
        async impl(ctx, [id], _call, fn) {
          const file = await describeFile(fn, ctx, id);
          return fileDescriptor(file);
        },
      },
    ],
  }),
  defineFunction({
    name: 'R_file_size',
    aliases: ['file_size'],
    group: 'File',
    rights: 'service',
    doc: 'The size of an uploaded file in KBytes (1024 bytes), rounded up: 0 only for an empty file.',
    returns: 'integer',
    forms: [
      {
        params: [FILE_ID],
        async impl(ctx, [id], _call, fn) {
          const file = await describeFile(fn, ctx, id);
          return Math.ceil(file.size / 1024);
        },
      },
    ],
  }),
  defineFunction({
    name: 'R_file_index_of',
    group: 'File',
    rights: 'service',
    doc:
      'The index of the first occurrence of `substring` in the file’s text at or after `from` ' +
      '(Java String.indexOf); -1 if nothing is found.',
    returns: 'integer',
    forms: [
      {
        params: [
          FILE_ID,
          { name: 'substring', type: 'string' },
          { name: 'from', type: 'integer', optional: true, default: 0 },
          ALGORITHM,
          CHARSET,
        ],
        async impl(ctx, [id, substring, from, algorithm, charset], _call, fn) {
          const { text } = await readText(fn, ctx, fileId(fn, 1, id), algorithmArg(fn, 4, algorithm), {
            index: 5,
            value: charset,
          });
          return text.indexOf(substring, Math.max(0, from));
        },
      },
    ],
  }),
  defineFunction({
    name: 'R_file_last_index_of',
    group: 'File',
    rights: 'service',
    doc:
      'The index of the last occurrence of `substring` in the file’s text starting at or before `from` ' +
      '(default: the end; Java String.lastIndexOf); -1 if nothing is found.',
    returns: 'integer',
    forms: [
      {
        params: [
          FILE_ID,
          { name: 'substring', type: 'string' },
          { name: 'from', type: 'integer', optional: true, doc: 'default: the end of the text' },
          ALGORITHM,
          CHARSET,
        ],
        async impl(ctx, [id, substring, from, algorithm, charset], _call, fn) {
          const { text } = await readText(fn, ctx, fileId(fn, 1, id), algorithmArg(fn, 4, algorithm), {
            index: 5,
            value: charset,
          });
          if (from === undefined) return text.lastIndexOf(substring);
          if (from < 0) return -1;
          return text.lastIndexOf(substring, from);
        },
      },
    ],
  }),
  defineFunction({
    name: 'R_file_substring',
    group: 'File',
    rights: 'service',
    doc:
      'The index of the first occurrence of `substring` lying wholly between `from` (default 0) and `to` ' +
      '(exclusive, default the end) in the file’s text, counted from the start of the text; -1 if nothing is found.',
    returns: 'integer',
    forms: [
      {
        params: [
          FILE_ID,
          { name: 'substring', type: 'string' },
          { name: 'from', type: 'integer', optional: true, default: 0 },
          { name: 'to', type: 'integer', optional: true, doc: 'default: the end of the text' },
          ALGORITHM,
          CHARSET,
        ],
        async impl(ctx, [id, substring, from, to, algorithm, charset], _call, fn) {
          const { text } = await readText(fn, ctx, fileId(fn, 1, id), algorithmArg(fn, 5, algorithm), {
            index: 6,
            value: charset,
          });
          const start = Math.max(0, from);
          const end = to === undefined ? text.length : Math.min(text.length, to);
          if (end < start) return -1;
          return text.slice(0, end).indexOf(substring, start);
        },
      },
    ],
  }),
];
