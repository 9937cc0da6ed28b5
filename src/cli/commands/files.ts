import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { SYSTEM_PRINCIPAL, type Principal } from '../../platform/files/index.js';
import { createPlatform, PlatformError, type Platform } from '../../platform/index.js';
import { defaultAccount } from '../../server/bootstrap.js';
import { openStore } from '../../store/index.js';
import type { Command } from '../main.js';
import { cannotRead, commandErrors } from '../command-errors.js';

const USAGE =
  'flowmark files put FILE [--name NAME] [--type CONTENT_TYPE] [--charset CHARSET] [--public] [--user LOGIN] [--account ID]\n' +
  '       flowmark files get ID [-o OUT] [--user LOGIN] [--account ID]\n' +
  '       flowmark files ls [--user LOGIN] [--account ID]\n\n' +
  '`put` stores a local file as an uploaded file and prints its id (the id R_file_content and the other\n' +
  'file functions take); the content type is detected from the content and the name unless --type is given.\n' +
  "`get` writes a file's content to OUT (default: standard output). `ls` lists id, size, type and name.\n" +
  'Without --user the command acts as the operator (every right; files it puts have no owner, so only\n' +
  'administrators and granted users reach them); with --user it acts as that user (who then owns what it puts).\n' +
  'The account defaults to "default", or the only account of the store. Uses the same store as\n' +
  '`flowmark serve` (FLOWMARK_DATA / DATABASE_URL).';

export const files: Command = {
  name: 'files',
  usage: USAGE,
  async run(args, io) {
    const parsed = parse(io, args, {
      name: { type: 'string' },
      type: { type: 'string' },
      charset: { type: 'string' },
      public: { type: 'boolean', default: false },
      user: { type: 'string' },
      account: { type: 'string' },
      out: { type: 'string', short: 'o' },
    });
    if (typeof parsed === 'number') return parsed;
    const { values, positionals } = parsed;
    const [action, ...rest] = positionals;
    const arity: Record<string, number> = { put: 1, get: 1, ls: 0 };
    if (action === undefined || !(action in arity))
      return usageError(io, action ? `unknown action ${JSON.stringify(action)}` : 'an action is required');
    if (rest.length !== arity[action])
      return usageError(io, `${action}: ${arity[action]} argument(s) expected`);

    const store = await openStore();
    try {
      const platform = createPlatform(store);
      const accountId = values.account ?? (await defaultAccount(platform)) ?? 'default';
      const principal = await principalFor(platform, accountId, values.user);
      if (action === 'put') {
        const path = rest[0]!;
        let size: number;
        try {
          size = statSync(path).size;
        } catch (e) {
          return failure(io, cannotRead(path, e));
        }
        if (size > platform.files.limits.maxFileBytes)
          return failure(
            io,
            `${path} has ${size} bytes, more than ${platform.files.limits.maxFileBytes} (maxFileBytes)`,
          );
        const file = await platform.files.create(accountId, principal, {
          name: values.name ?? basename(path),
          content: readFileSync(path),
          contentType: values.type,
          charset: values.charset,
          visibility: values.public ? 'PUBLIC' : 'PRIVATE',
        });
        io.stdout.write(`${file.id}\n`);
        io.stderr.write(
          `stored ${file.name} (${file.contentType}, ${file.size} bytes) in account ${accountId}\n`,
        );
        return 0;
      }
      if (action === 'get') {
        const { content } = await platform.files.read(accountId, principal, rest[0]!);
        if (values.out !== undefined) writeFileSync(values.out, content);
        else io.stdout.write(content);
        return 0;
      }
      const list = await platform.files.list(accountId, principal);
      if (list.length === 0) io.stderr.write(`no files in account ${accountId}\n`);
      for (const f of list)
        io.stdout.write(`${f.id}  ${String(f.size).padStart(10)}  ${f.contentType}  ${f.name}\n`);
      return 0;
    } catch (e) {
      if (e instanceof PlatformError) return failure(io, e.message);
      throw e;
    } finally {
      await store.close();
    }
  },
};

async function principalFor(
  platform: Platform,
  accountId: string,
  login: string | undefined,
): Promise<Principal> {
  if (login === undefined) return SYSTEM_PRINCIPAL;
  const user = await platform.directory.users.require(accountId, login);
  return { userId: user.id, isAdmin: user.isAdmin, mode: 'LIVE' };
}

const { parse, usageError, failure } = commandErrors('files', USAGE);
