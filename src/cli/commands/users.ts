import { randomBytes } from 'node:crypto';
import type { Command } from '../main.js';
import { createPlatform } from '../../platform/index.js';
import { chosenAccount } from '../account.js';
import { openStore } from '../../store/index.js';
import { commandErrors } from '../command-errors.js';

const USAGE =
  'flowmark users list [--account ID]\n' +
  '       flowmark users reset-password --user LOGIN [--account ID]\n\n' +
  '`reset-password` gives the user a new random password and prints it (shown only once): the way\n' +
  'back in when an administrator lost theirs. The account defaults to "default", or the only account\n' +
  'of the store. Uses the same store as `flowmark serve` (FLOWMARK_DATA / DATABASE_URL).';

export const users: Command = {
  name: 'users',
  usage: USAGE,
  async run(args, io) {
    const parsed = parse(io, args, { user: { type: 'string' }, account: { type: 'string' } });
    if (typeof parsed === 'number') return parsed;
    const { values, positionals } = parsed;
    const [action, ...rest] = positionals;
    if (action !== 'list' && action !== 'reset-password')
      return usageError(io, action ? `unknown action ${JSON.stringify(action)}` : 'an action is required');
    if (rest.length > 0) return usageError(io, `unexpected argument ${rest[0]}`);
    if (action === 'reset-password' && values.user === undefined)
      return usageError(io, 'reset-password: --user LOGIN is required');

    const store = await openStore();
    try {
      const platform = createPlatform(store);
      const chosen = await chosenAccount(platform, values.account);
      if ('error' in chosen) return failure(io, chosen.error);
      const { accountId } = chosen;
      const directory = platform.directory.users;
      if (action === 'list') {
        for (const u of await directory.list(accountId))
          io.stdout.write(`${u.id}  ${u.login}  ${u.isAdmin ? 'administrator' : 'user'}  ${u.status}\n`);
        return 0;
      }
      const user = await directory.find(accountId, values.user!);
      if (!user) return failure(io, `no user ${values.user} in account ${accountId}`);
      const password = randomBytes(18).toString('base64url');
      await directory.update(accountId, user.id, { password });
      io.stdout.write(`${password}\n`);
      io.stderr.write(`new password of ${user.login} in account ${accountId}; it is shown only once\n`);
      return 0;
    } finally {
      await store.close();
    }
  },
};

const { parse, usageError, failure } = commandErrors('users', USAGE);
