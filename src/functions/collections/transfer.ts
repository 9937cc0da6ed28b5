/** Collections (spec 4.2): import_objects (from an uploaded file) and inject_objects. */
import { isHash, parseJsonText } from '../coercion.js';
import { budgetOf, type ExecutionContext } from '../context.js';
import { argumentError, FunctionError } from '../errors.js';
import { defineFunction, type FunctionSpec } from '../spec.js';
import { PlatformError } from '../../platform/errors.js';
import { chargeArgument, collectionCall, collectionsOf, filesOf, toPlain } from './args.js';

/**
 * Raised when inject_objects would make the request's data document larger than its limit:
 * the process must stop (hosts check `stopsProcess`).
 */
export class DataDocumentLimitError extends FunctionError {
  readonly stopsProcess = true;
}

const FILE = { name: 'file', type: 'string', doc: 'id of the uploaded file' } as const;
const NAME = { name: 'name', type: 'string', doc: 'name of the collection (created if needed)' } as const;
const DROP = {
  name: 'drop',
  type: 'boolean',
  optional: true,
  default: false,
  doc: 'true: empty the collection first; false: add to it',
} as const;

async function importFile(
  fn: string,
  ctx: ExecutionContext,
  file: string,
  name: string,
  rawOptions: Record<string, unknown>,
  drop: boolean,
): Promise<number> {
  let content: Buffer;
  try {
    const principal = {
      userId: ctx.user?.id ?? null,
      isAdmin: ctx.user?.isAdmin ?? false,
      mode: ctx.mode,
      requestId: ctx.requestId ?? null,
    };
    ({ content } = await filesOf(fn, ctx).read(ctx.accountId, principal, file));
  } catch (e) {
    // `Uploaded file X doesn't exist.`, or the file's access rights.
    if (e instanceof PlatformError) throw new FunctionError(fn, e.message);
    throw e;
  }
  return collectionCall(fn, async () => {
    // The CSV parser and the charsets load with the first import, not at startup.
    const { importOptions, readImport } = await import('../../platform/collections/import.js');
    const options = importOptions(rawOptions);
    return collectionsOf(fn, ctx).importDocuments(ctx, name, readImport([content], options), { drop });
  });
}

export const transferFunctions: FunctionSpec[] = [
  defineFunction({
    name: 'import_objects',
    group: 'Collections',
    rights: 'service',
    doc:
      'Imports the objects of an uploaded CSV file (first row: field names) or JSON file (array of objects, or ' +
      'one object per line) into a collection, all or nothing: one bad row leaves the collection as it was. ' +
      'Options (docs/collections.md, Import): format, separator, delimiter, empty, charset, parse_numbers, parse_longs, trim. ' +
      'Returns the number of objects imported.',
    returns: 'integer',
    forms: [
      {
        params: [
          FILE,
          NAME,
          {
            name: 'options',
            type: 'object',
            optional: true,
            default: {},
            doc: 'import options (docs/collections.md)',
          },
          DROP,
        ],
        impl: (ctx, [file, name, options, drop], _call, fn) =>
          importFile(fn, ctx, file, name, plainOptions(ctx, fn, options), drop),
      },
      {
        deprecated: true,
        doc: 'The separator between values given alone.',
        params: [FILE, NAME, { name: 'separator', type: 'string', doc: 'separator between values' }, DROP],
        impl: (ctx, [file, name, separator, drop], _call, fn) =>
          importFile(fn, ctx, file, name, { separator }, drop),
      },
    ],
  }),
  defineFunction({
    name: 'inject_objects',
    group: 'Collections',
    rights: 'service',
    doc:
      'Keeps the objects held by the variable named `variable` (retrieved by list_objects …) in the process ' +
      'data document, optionally only the fields listed in `filter` (comma-separated). The data document has a ' +
      'maximum size: exceeding it stops the process. Returns the injected objects.',
    returns: 'array of objects',
    forms: [
      {
        params: [
          { name: 'variable', type: 'string', doc: 'NAME of the variable holding the objects' },
          {
            name: 'filter',
            type: 'string',
            optional: true,
            doc: 'comma-separated field names to keep (default all)',
          },
        ],
        async impl(ctx, [variable, filter], env, fn) {
          const name = variable.trim();
          const variableValue = env.getVariable(name);
          chargeArgument(budgetOf(ctx), fn, 1, 'variable', variableValue);
          let value = toPlain(variableValue);
          if (value === undefined || value === null)
            throw argumentError(fn, 1, 'variable', `names no variable ('${name}')`);
          if (typeof value === 'string') {
            try {
              value = parseJsonText(value);
            } catch {
              throw argumentError(fn, 1, 'variable', `'${name}' holds text that is not JSON`);
            }
          }
          if (!Array.isArray(value) && !isHash(value))
            throw argumentError(fn, 1, 'variable', `'${name}' holds neither objects nor an array of objects`);
          const fields =
            typeof filter === 'string'
              ? filter
                  .split(',')
                  .map((f) => f.trim())
                  .filter(Boolean)
              : [];
          const keep = (o: unknown) => (fields.length && isHash(o) ? pick(o, fields) : o);
          const injected = Array.isArray(value) ? value.map(keep) : keep(value);
          await persist(ctx, fn, name, injected);
          env.setVariable?.(name, injected);
          return injected;
        },
      },
    ],
  }),
];

/** Only the given fields (dotted paths reach into nested objects), in the order listed. */
function pick(obj: Record<string, unknown>, fields: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const segments = field.split('.');
    let value: unknown = obj;
    for (const s of segments) {
      value = isHash(value) && Object.prototype.hasOwnProperty.call(value, s) ? value[s] : undefined;
      if (value === undefined) break;
    }
    if (value === undefined) continue;
    let target = out;
    segments.slice(0, -1).forEach((s) => {
      if (!isHash(target[s])) target[s] = {};
      target = target[s] as Record<string, unknown>;
    });
    target[segments[segments.length - 1]] = value;
  }
  return out;
}

interface RequestsLike {
  find(accountId: string, id: string): Promise<{ data: Record<string, unknown> } | undefined>;
  update(accountId: string, id: string, changes: { data: Record<string, unknown> }): Promise<unknown>;
}

/**
 * Checks the data document's size with the injected value and, in a process request, stores it
 * there. Over the limit: DataDocumentLimitError (the process stops).
 */
async function persist(ctx: ExecutionContext, fn: string, name: string, injected: unknown): Promise<void> {
  const requests = (ctx.platform as { requests?: RequestsLike } | undefined)?.requests;
  const request = ctx.requestId && requests ? await requests.find(ctx.accountId, ctx.requestId) : undefined;
  const data = { ...(request?.data ?? {}), [name]: injected };
  const bytes = Buffer.byteLength(JSON.stringify(data));
  const limit = ctx.limits.dataDocumentBytes;
  if (bytes > limit)
    throw new DataDocumentLimitError(
      fn,
      `the data document would reach ${bytes} bytes, over its maximum of ${limit} bytes: the process is stopped`,
    );
  if (request && requests && ctx.requestId) {
    await requests.update(ctx.accountId, ctx.requestId, { data });
    ctx.requestDataWrites = (ctx.requestDataWrites ?? 0) + 1;
  }
}

/** import_objects' options as plain values, their copy charged first. */
function plainOptions(ctx: ExecutionContext, fn: string, options: unknown): Record<string, unknown> {
  chargeArgument(budgetOf(ctx), fn, 3, 'options', options);
  return toPlain(options) as Record<string, unknown>;
}
