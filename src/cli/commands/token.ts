import type { Command } from '../main.js';
import { createPlatform, type Platform } from '../../platform/index.js';
import { defaultAccount } from '../../server/bootstrap.js';
import { ApiError, ApiTokens } from '../../server/index.js';
import { openStore } from '../../store/index.js';
import { commandErrors } from '../command-errors.js';

const USAGE =
  'flowmark token create --user LOGIN [--account ID] [--name NAME] [--expires-days N]\n' +
  '       flowmark token list [--user LOGIN] [--account ID]\n' +
  '       flowmark token revoke TOKEN_ID [--account ID]\n\n' +
  'API tokens act as their user: send one as `Authorization: Bearer <token>`. `create` prints the\n' +
  'token (shown only once). The account defaults to "default", or the only account of the store.\n' +
  'Uses the same store as `flowmark serve` (FLOWMARK_DATA / DATABASE_URL).';

const DAY_MS = 24 * 60 * 60 * 1000;

export const token: Command = {
  name: 'token',
  usage: USAGE,
  async run(args, io) {
    const parsed = parse(io, args, {
      user: { type: 'string' },
      account: { type: 'string' },
      name: { type: 'string', default: 'cli' },
      'expires-days': { type: 'string' },
    });
    if (typeof parsed === 'number') return parsed;
    const { values, positionals } = parsed;
    const [action, ...rest] = positionals;
    if (action !== 'create' && action !== 'list' && action !== 'revoke')
      return usageError(io, action ? `unknown action ${JSON.stringify(action)}` : 'an action is required');
    if (action === 'create' && values.user === undefined)
      return usageError(io, 'create: --user LOGIN is required');
    if (action === 'revoke' && rest.length !== 1) return usageError(io, 'revoke: one TOKEN_ID is required');
    if (action !== 'revoke' && rest.length > 0) return usageError(io, `unexpected argument ${rest[0]}`);
    let expiresDays: number | undefined;
    if (values['expires-days'] !== undefined) {
      expiresDays = Number(values['expires-days']);
      if (!Number.isInteger(expiresDays) || expiresDays < 1)
        return usageError(io, '--expires-days: a whole number of days, at least 1');
    }

    const store = await openStore();
    try {
      const platform = createPlatform(store);
      const accountId = values.account ?? (await defaultAccount(platform));
      if (accountId === undefined) {
        const count = (await platform.accounts.list()).length;
        return failure(
          io,
          count === 0
            ? 'the store has no account yet: `npx flowmark serve` creates "default" and its administrator ' +
                '(FLOWMARK_DATA or DATABASE_URL chooses the store)'
            : 'the store has several accounts and none is "default": choose one with --account',
        );
      }
      if (!(await platform.accounts.get(accountId))) return failure(io, `no account ${accountId}`);
      const tokens = new ApiTokens(store, Date.now);
      if (action === 'revoke') {
        if (!(await tokens.revoke(accountId, rest[0]!)))
          return failure(io, `no token ${rest[0]} in account ${accountId}`);
        io.stdout.write(`revoked ${rest[0]}\n`);
        return 0;
      }
      const user = values.user === undefined ? undefined : await findUser(platform, accountId, values.user);
      if (values.user !== undefined && !user)
        return failure(io, `no user ${values.user} in account ${accountId}`);
      if (action === 'list') {
        const logins = new Map((await platform.directory.users.list(accountId)).map((u) => [u.id, u.login]));
        for (const t of await tokens.list(accountId, user?.id))
          io.stdout.write(
            `${t.id}  ${logins.get(t.userId) ?? t.userId}  ${JSON.stringify(t.name)}  created ${iso(t.createdAt)}` +
              `  expires ${t.expiresAt === null ? 'never' : iso(t.expiresAt)}  last used ${t.lastUsedAt === null ? 'never' : iso(t.lastUsedAt)}\n`,
          );
        return 0;
      }
      const created = await tokens.create(
        { accountId, userId: user!.id },
        {
          name: values.name!,
          expiresAt: expiresDays === undefined ? null : Date.now() + expiresDays * DAY_MS,
        },
      );
      io.stdout.write(`${created.token}\n`);
      io.stderr.write(
        `token ${created.info.id} for ${user!.login} in account ${accountId}` +
          `${created.info.expiresAt === null ? '' : `, expires ${iso(created.info.expiresAt)}`}; it is shown only once\n`,
      );
      return 0;
    } catch (e) {
      if (e instanceof ApiError) return failure(io, e.message);
      throw e;
    } finally {
      await store.close();
    }
  },
};

async function findUser(platform: Platform, accountId: string, login: string) {
  const user = await platform.directory.users.find(accountId, login);
  return user && user.status === 'active' ? user : undefined;
}

const iso = (ms: number) => new Date(ms).toISOString();

const { parse, usageError, failure } = commandErrors('token', USAGE);
