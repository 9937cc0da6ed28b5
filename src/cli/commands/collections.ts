import { closeSync, createReadStream, openSync, readSync, statSync } from 'node:fs';
import { isRecord } from '../../safety/narrow.js';
import { CollectionError, importOptions, readImport, type Actor } from '../../platform/collections/index.js';
import { createPlatform } from '../../platform/index.js';
import { defaultAccount } from '../../server/bootstrap.js';
import { openStore } from '../../store/index.js';
import type { CliIo, Command } from '../main.js';
import { cannotRead, commandErrors } from '../command-errors.js';
import { errorMessage } from '../../errors/index.js';

const USAGE =
  'flowmark collections list [--account ID]\n' +
  '       flowmark collections import FILE NAME [--options JSON] [--drop] [--account ID]\n' +
  '       flowmark collections indexes NAME|ID [--account ID]\n\n' +
  '`list` shows each collection with its integer id (the id R_create_index takes), flags and size.\n' +
  '`import` loads a local CSV or JSON file into a collection like import_objects (its options,\n' +
  'e.g. --options \'{"separator": ";", "parse_numbers": ["price"]}\'), all or nothing, with progress.\n' +
  'Without a "format" option, a file named *.json, *.jsonl or *.ndjson, or starting with [ or {, is JSON.\n' +
  'The account defaults to "default", or the only account of the store. Runs as an administrator.\n' +
  'Uses the same store as `flowmark serve` (FLOWMARK_DATA / DATABASE_URL).';

export const collections: Command = {
  name: 'collections',
  usage: USAGE,
  async run(args, io) {
    const parsed = parse(io, args, {
      account: { type: 'string' },
      options: { type: 'string' },
      drop: { type: 'boolean', default: false },
    });
    if (typeof parsed === 'number') return parsed;
    const { values, positionals } = parsed;
    const [action, ...rest] = positionals;
    const arity: Record<string, number> = { list: 0, import: 2, indexes: 1 };
    if (action === undefined || !(action in arity))
      return usageError(io, action ? `unknown action ${JSON.stringify(action)}` : 'an action is required');
    if (rest.length !== arity[action])
      return usageError(io, `${action}: ${arity[action]} argument(s) expected`);
    let rawOptions: Record<string, unknown> = {};
    if (values.options !== undefined) {
      let given: unknown;
      try {
        given = JSON.parse(values.options);
      } catch (e) {
        return usageError(io, `--options: not valid JSON (${errorMessage(e)})`);
      }
      if (!isRecord(given)) return usageError(io, '--options: a JSON object is expected');
      rawOptions = given;
    }

    const store = await openStore();
    try {
      const platform = createPlatform(store);
      const accountId = values.account ?? (await defaultAccount(platform)) ?? 'default';
      const actor: Actor = { accountId, user: { id: 0, login: 'cli', isAdmin: true } };
      const service = platform.collections;
      if (action === 'list') {
        const list = await service.listCollections(actor, { withCounts: true });
        if (list.length === 0) io.stdout.write(`no collections in account ${accountId}\n`);
        for (const c of list)
          io.stdout.write(
            `${String(c.id).padStart(6)}  ${c.name}  ${c.documents} document(s)` +
              `${c.isPublic ? '  public' : ''}${c.isReadonly ? '  read-only' : ''}\n`,
          );
        return 0;
      }
      if (action === 'indexes') {
        for (const index of await service.listIndexes(
          actor,
          /^\d+$/.test(rest[0]!) ? Number(rest[0]) : rest[0]!,
        ))
          io.stdout.write(
            `${index.name}  (${index.keys.join(', ')})${index.unique ? '  unique' : ''}${index.ascending ? '' : '  descending'}\n`,
          );
        return 0;
      }
      const [file, name] = rest as [string, string];
      let size: number;
      try {
        size = statSync(file).size;
      } catch (e) {
        return failure(io, cannotRead(file, e));
      }
      const progress = new Progress(io, size);
      const options = importOptions(
        rawOptions.format === undefined && looksLikeJson(file)
          ? { ...rawOptions, format: 'JSON' }
          : rawOptions,
      );
      async function* bytes() {
        for await (const chunk of createReadStream(file)) {
          progress.bytes += (chunk as Buffer).length;
          yield chunk as Buffer;
        }
      }
      const started = Date.now();
      const count = await service.importDocuments(actor, name, readImport(bytes(), options), {
        drop: values.drop,
        onProgress: (p) => progress.update(p.documents),
      });
      progress.done(count);
      const seconds = (Date.now() - started) / 1000;
      io.stdout.write(
        `imported ${count} document(s) into ${name} (account ${accountId}) in ${seconds.toFixed(1)} s` +
          `${seconds > 0 ? ` — ${Math.round(count / seconds)} documents/s` : ''}\n`,
      );
      return 0;
    } catch (e) {
      if (e instanceof CollectionError) return failure(io, e.message);
      throw e;
    } finally {
      await store.close();
    }
  },
};

/** Progress on stderr: rewritten in place on a terminal, one line per tenth otherwise. */
class Progress {
  bytes = 0;
  private lastShown = 0;
  private lastTenth = -1;
  private readonly tty: boolean;

  constructor(
    private readonly io: CliIo,
    private readonly total: number,
  ) {
    this.tty = Boolean((io.stderr as NodeJS.WriteStream).isTTY);
  }

  update(documents: number): void {
    const share = this.total ? Math.min(1, this.bytes / this.total) : 1;
    const line = this.line(documents, share);
    if (this.tty) {
      const now = Date.now();
      if (now - this.lastShown < 200) return;
      this.lastShown = now;
      this.io.stderr.write(`\r${line}`);
    } else {
      const tenth = Math.floor(share * 10);
      if (tenth === this.lastTenth) return;
      this.lastTenth = tenth;
      this.io.stderr.write(`${line}\n`);
    }
  }

  /** The last line, whatever was shown before. */
  done(documents: number): void {
    this.io.stderr.write(`${this.tty ? '\r' : ''}${this.line(documents, 1)}\n`);
  }

  private line(documents: number, share: number): string {
    return `importing: ${documents} document(s), ${mb(this.bytes)} of ${mb(this.total)} MB (${Math.floor(share * 100)}%)`;
  }
}

const mb = (bytes: number) => (bytes / 1e6).toFixed(1);

const { parse, usageError, failure } = commandErrors('collections', USAGE);

/**
 * A file to import as JSON when no `format` is given: named *.json, *.jsonl or *.ndjson, or whose
 * first character (after a byte-order mark and white space) opens an array or an object.
 */
function looksLikeJson(file: string): boolean {
  if (/\.(json|jsonl|ndjson)$/i.test(file)) return true;
  const head = Buffer.alloc(4096);
  const fd = openSync(file, 'r');
  let read: number;
  try {
    read = readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  const text = head
    .subarray(0, read)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  return text.startsWith('[') || text.startsWith('{');
}
